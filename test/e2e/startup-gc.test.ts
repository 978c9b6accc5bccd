import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUIET_GC_AFTER_MS } from '../../src/app/quiet-gc.js';
import { startServerProcess } from '../support/server-process.js';
import { isQuietCollection, serviceLogLines } from '../support/service-log.js';

describe('the collection after start-up', () => {
  it('runs once, a quiet period after the service is up, started as the image starts it', async () => {
    const server = await startServerProcess(['--log_level', 'debug'], {
      asTheImageRuns: true,
      keepLog: true,
    });
    try {
      const deadline = Date.now() + QUIET_GC_AFTER_MS + 10_000;
      while (!serviceLogLines(server.log()).some(isQuietCollection) && Date.now() < deadline)
        await sleep(100);
      const lines = serviceLogLines(server.log());
      const collected = lines.find(isQuietCollection);
      assert.ok(collected !== undefined, `no collection within ${QUIET_GC_AFTER_MS + 10_000} ms of start`);
      const listening = lines.find((line) => line.msg?.startsWith('listening on') === true);
      assert.ok(listening?.time !== undefined && collected.time !== undefined, 'both lines have a time');
      const after = Date.parse(collected.time) - Date.parse(listening.time);
      assert.ok(
        after >= QUIET_GC_AFTER_MS - 50 && after < QUIET_GC_AFTER_MS + 5_000,
        `collected ${after} ms after listening, not one quiet period (${QUIET_GC_AFTER_MS} ms) after`,
      );
      assert.equal(typeof collected.gcMs, 'number');
      assert.equal(lines.filter(isQuietCollection).length, 1, 'one collection, no timer left armed after it');
    } finally {
      await server.stop();
    }
  });
});
