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
/**
 * One-off work (V8 compiling the session code a new kiosk ran, on its worker threads, on a loaded CI
 * machine) can fill one window; a periodic wake-up fills every window. So the quietest of a few windows
 * counts, and the first quiet one ends the wait.
 */
const WINDOWS = 4;

const quietestWakeups = async (server: ServerProcess): Promise<number[]> => {
  const counts: number[] = [];
  for (let window = 0; window < WINDOWS; window += 1) {
    const before = server.wakeups();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    counts.push(server.wakeups() - before);
    if (counts.at(-1)! <= MAX_WAKEUPS) break;
  }
  return counts;
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
    const counts = await quietestWakeups(server);
    assert.ok(
      Math.min(...counts) <= MAX_WAKEUPS,
      `wake-ups in each ${QUIET_MS} ms window: ${counts.join(', ')}`,
    );
  });

  it(`wakes at most ${MAX_WAKEUPS} times in ${QUIET_MS / 1000} s with 5 idle kiosks`, async () => {
    for (let index = 0; index < 5; index += 1) {
      const kiosk = await KioskClient.connect(server.wsUrl);
      kiosks.push(kiosk);
      await kiosk.until((frames) => frames.length > 0, 'the state frame');
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const counts = await quietestWakeups(server);
    assert.ok(
      Math.min(...counts) <= MAX_WAKEUPS,
      `wake-ups in each ${QUIET_MS} ms window: ${counts.join(', ')}`,
    );
  });
});
