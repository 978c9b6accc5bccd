import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUIET_GC_AFTER_MS } from '../../src/app/quiet-gc.js';
import { startServerProcess } from '../support/server-process.js';

interface LogLine {
  readonly msg?: string;
  /** ISO 8601, as the service's logger writes it. */
  readonly time?: string;
  readonly gcMs?: number;
}

const logLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

const isCollection = (line: LogLine): boolean =>
  line.msg?.startsWith('full GC once the bridge went quiet') === true;

describe('the collection after start-up', () => {
  it('runs once, a quiet period after the service is up, with --expose-gc as docker/node-runtime.sh gives', async () => {
    const server = await startServerProcess(['--log_level', 'debug'], {
      nodeFlags: ['--expose-gc'],
      keepLog: true,
    });
    try {
      const deadline = Date.now() + QUIET_GC_AFTER_MS + 10_000;
      while (!logLines(server.log()).some(isCollection) && Date.now() < deadline) await sleep(100);
      const lines = logLines(server.log());
      const collected = lines.find(isCollection);
      assert.ok(collected !== undefined, `no collection within ${QUIET_GC_AFTER_MS + 10_000} ms of start`);
      const listening = lines.find((line) => line.msg?.startsWith('listening on') === true);
      assert.ok(listening?.time !== undefined && collected.time !== undefined, 'both lines have a time');
      const after = Date.parse(collected.time) - Date.parse(listening.time);
      assert.ok(
        after >= QUIET_GC_AFTER_MS - 50 && after < QUIET_GC_AFTER_MS + 5_000,
        `collected ${after} ms after listening, not one quiet period (${QUIET_GC_AFTER_MS} ms) after`,
      );
      assert.equal(typeof collected.gcMs, 'number');
    } finally {
      await server.stop();
    }
  });
});
