import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * An idle bridge sleeps: no timer or poll wakes it while nothing happens (docs/performance.md,
 * "Idle"). Counted as the times its threads went to sleep (voluntary context switches) over a quiet
 * window, not as time: a periodic wake-up shows as a count proportional to its rate whatever the
 * machine's speed. prom-client's event-loop-delay histogram (every 10 ms) made about 300 in 3 s here.
 */

const QUIET_MS = 3_000;
/** Start-up's last work (V8's compilation and GC tasks on its worker threads) dies down within this. */
const SETTLE_MS = 3_000;
/** A few one-off wakes (uWebSockets.js's 4 s sweep, a late GC task); a 10 Hz timer alone would make 30. */
const MAX_WAKEUPS = 20;

const quietWakeups = async (server: ServerProcess): Promise<number> => {
  const before = server.wakeups();
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  return server.wakeups() - before;
};

describe('an idle bridge', () => {
  let server: ServerProcess;
  const kiosks: KioskClient[] = [];
  before(async () => {
    server = await startServerProcess();
  });
  after(async () => {
    for (const kiosk of kiosks) kiosk.socket.terminate();
    await server.stop();
  });

  it(`wakes at most ${MAX_WAKEUPS} times in ${QUIET_MS / 1000} s with no kiosk`, async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const wakeups = await quietWakeups(server);
    assert.ok(wakeups <= MAX_WAKEUPS, `${wakeups} wake-ups in ${QUIET_MS} ms`);
  });

  it(`wakes at most ${MAX_WAKEUPS} times in ${QUIET_MS / 1000} s with 5 idle kiosks`, async () => {
    for (let index = 0; index < 5; index += 1) {
      const kiosk = await KioskClient.connect(server.wsUrl);
      kiosks.push(kiosk);
      await kiosk.until((frames) => frames.length > 0, 'the state frame');
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const wakeups = await quietWakeups(server);
    assert.ok(wakeups <= MAX_WAKEUPS, `${wakeups} wake-ups in ${QUIET_MS} ms`);
  });
});
