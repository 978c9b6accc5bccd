import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { QUIET_GC_AFTER_MS } from '../../src/app/quiet-gc.js';

interface LogLine {
  readonly msg?: string;
  /** ISO 8601, as the service's logger writes it. */
  readonly time?: string;
  readonly gcMs?: number;
}

describe('the collection after start-up', () => {
  it('runs once, a quiet period after the service is up, with --expose-gc as docker/node-runtime.sh gives', async () => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'src/server.ts'].concat([
        '--backend',
        'sim',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--log_level',
        'debug',
      ]),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: LogLine[] = [];
    let pending = '';
    try {
      const collected = await new Promise<LogLine>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no collection within ${QUIET_GC_AFTER_MS + 10_000} ms of start`));
        }, QUIET_GC_AFTER_MS + 10_000);
        child.stdout.on('data', (chunk: Buffer) => {
          pending += chunk.toString();
          const complete = pending.split('\n');
          pending = complete.pop() ?? '';
          for (const text of complete) {
            const line = JSON.parse(text) as LogLine;
            lines.push(line);
            if (line.msg?.startsWith('full GC once the bridge went quiet') === true) {
              clearTimeout(timer);
              resolve(line);
            }
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the service exited (${code}) before collecting`));
        });
      });
      const listening = lines.find((line) => line.msg?.startsWith('listening on') === true);
      assert.ok(listening?.time !== undefined && collected.time !== undefined, 'both lines have a time');
      const after = Date.parse(collected.time) - Date.parse(listening.time);
      assert.ok(
        after >= QUIET_GC_AFTER_MS - 50 && after < QUIET_GC_AFTER_MS + 5_000,
        `collected ${after} ms after listening, not one quiet period (${QUIET_GC_AFTER_MS} ms) after`,
      );
      assert.equal(typeof collected.gcMs, 'number');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
