import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { metric } from '../support/metric.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * What all sessions together may send, and the places of the process, shared among client addresses
 * (docs/operations.md, "Limits per client address"). Clients bind loopback addresses of their own
 * (127.0.0.2, 127.0.0.3, …); the honest kiosk comes from 127.0.0.9. Small limits keep it fast.
 */

const turnEnds = (kiosk: KioskClient): Record<string, unknown>[] =>
  kiosk.texts().filter((text) => text['type'] === 'turn_end');

describe('sessions of one address flooding within their own budgets', () => {
  let server: ServerProcess;
  before(async () => {
    // 8 sessions at 40 frames a second: 320 a second together, each within its own 50, past the process's 150.
    server = await startServerProcess(['--ws_frames_per_second', '50', '--ws_total_frame_rate', '150']);
  });
  after(async () => {
    await server.stop();
  });

  it('are cut by the process-wide share while a kiosk from another address keeps its turns', async () => {
    const honest = await KioskClient.connect(server.wsUrl, { localAddress: '127.0.0.9' });
    const flooders = await Promise.all(
      Array.from({ length: 8 }, () => KioskClient.connect(server.wsUrl, { localAddress: '127.0.0.2' })),
    );
    const stop = new AbortController();
    try {
      await honest.frameCount(1);
      const cancel = JSON.stringify({ service: 'cancel' });
      // Each flooder sends 4 frames every 100 ms for at most 3 s, until it is closed.
      const floods = flooders.map(async (flooder) => {
        for (let tick = 0; tick < 30 && !stop.signal.aborted && flooder.closeEvent === undefined; tick += 1) {
          for (let frame = 0; frame < 4; frame += 1) flooder.socket.send(cancel);
          await sleep(100);
        }
      });
      // The honest kiosk: a turn every 250 ms meanwhile (a 100 ms audio frame, answered by the simulation).
      const roundTrips: number[] = [];
      for (let turn = 1; turn <= 10; turn += 1) {
        const started = performance.now();
        honest.socket.send(Buffer.alloc(3200), { binary: true });
        await honest.until((frames) => turnEnds(honest).length >= turn && frames.length > 0, `turn ${turn}`);
        roundTrips.push(performance.now() - started);
        await sleep(250);
      }
      stop.abort();
      await Promise.all(floods);
      const cut = flooders.filter(
        (flooder) =>
          flooder.closeEvent?.code === 1008 &&
          flooder.closeEvent.reason === 'address sends more than its share',
      ).length;
      const closes = flooders.map((flooder) => flooder.closeEvent?.code ?? 'open');
      console.log(
        `# flooders: ${JSON.stringify(closes)}; honest round trips ${roundTrips.map((ms) => ms.toFixed(0)).join(' ')} ms`,
      );
      assert.ok(
        cut >= 3,
        `flooding sessions cut for their address's share: ${cut} (${JSON.stringify(closes)})`,
      );
      assert.ok(cut < 8, 'not all of them: the ones left fit the process rate');
      assert.equal(honest.closeEvent, undefined, 'the honest kiosk is not closed');
      assert.deepEqual(
        turnEnds(honest).map((end) => end['outcome']),
        Array.from({ length: 10 }, () => 'answered'),
      );
      assert.equal(
        await metric(server.baseUrl, 'tour_bridge_ws_sessions_cut_total{reason="address_share"}'),
        cut,
      );
    } finally {
      stop.abort();
      honest.close();
      for (const flooder of flooders) flooder.close();
    }
  });
});

describe('the places of the process', () => {
  let server: ServerProcess;
  before(async () => {
    // 20 places: the last 2 are kept for addresses holding fewer than 2 sessions.
    server = await startServerProcess(['--max_sessions', '20']);
  });
  after(async () => {
    await server.stop();
  });

  it('keep their last tenth for addresses holding few, so a kiosk from a new address gets in', async () => {
    const held: KioskClient[] = [];
    try {
      // Two hosts take all they may: 16 from the first, then the second until only the kept places are left.
      for (const localAddress of ['127.0.0.2', '127.0.0.3']) {
        for (let index = 0; index < 16; index += 1) {
          const client = await KioskClient.connect(server.wsUrl, { localAddress });
          held.push(client);
          await client.until(
            (frames) => frames.length > 0 || client.closeEvent !== undefined,
            'state or close',
          );
        }
      }
      const open = held.filter((client) => client.closeEvent === undefined);
      const kept = held.filter(
        (client) =>
          client.closeEvent?.code === 1013 &&
          client.closeEvent.reason === 'last sessions kept for other addresses',
      );
      assert.equal(open.length, 18, 'the places not kept');
      assert.equal(kept.length, 14, 'the second host is refused the kept places');
      const kiosk = await KioskClient.connect(server.wsUrl, { localAddress: '127.0.0.9' });
      held.push(kiosk);
      await kiosk.frameCount(1);
      assert.equal(kiosk.texts()[0]?.['type'], 'state', 'the kiosk from a new address has its session');
      assert.equal(kiosk.closeEvent, undefined);
      assert.equal(
        await metric(server.baseUrl, 'tour_bridge_ws_sessions_refused_total{reason="reserved"}'),
        14,
      );
    } finally {
      for (const client of held) client.close();
    }
  });
});
