import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * The server's memory under many kiosks sending their largest utterances at once, read from the server
 * process itself. What the bridge holds is capped by --queued_audio_bytes; besides it every socket
 * receiving a large frame has uWebSockets.js assemble it in a buffer of its own, which it keeps while
 * the socket is open, so the frame limit bounds the rest (docs/operations.md, "Memory").
 */

const MiB = 2 ** 20;
const KIOSKS = 30;
const FRAMES = 5;
const SETTLE_MS = 60_000;

/** Waits until `done` holds (bounded), reading the server's RSS every 10 ms; resolves with the peak. */
const peakWhile = async (server: ServerProcess, done: () => boolean): Promise<number> => {
  let peak = server.rssBytes();
  const deadline = Date.now() + SETTLE_MS;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`not settled within ${SETTLE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    peak = Math.max(peak, server.rssBytes());
  }
  return peak;
};

const turnsEnded = (kiosk: KioskClient): number =>
  kiosk.texts().filter((frame) => frame['type'] === 'turn_end' || frame['type'] === 'error').length;

describe('server memory under 30 kiosks sending large utterances at once', () => {
  let server: ServerProcess;
  before(async () => {
    // Five of the largest frames per kiosk at once fill the queues, whose memory is measured here: past the
    // inbound budget (two such frames at once) they would be closed first, so the budget's bytes are lifted;
    // and the 30 kiosks share one address, past --ws_sessions_per_address.
    server = await startServerProcess([
      '--ws_sessions_per_address',
      '0',
      '--sim_latency_ms',
      '200',
      '--ws_bytes_per_second',
      String(1024 * MiB),
      // One address sends it all: the share among addresses (test/e2e/ws-address-share.test.ts) is lifted.
      '--ws_total_byte_rate',
      String(64 * 1024 * MiB),
    ]);
  });
  after(async () => {
    await server.stop();
  });

  it('closes kiosks sending 8 MiB frames at their first frame; RSS stays near idle', async () => {
    const idle = server.rssBytes();
    const kiosks = await Promise.all(Array.from({ length: KIOSKS }, () => KioskClient.connect(server.wsUrl)));
    const frame = Buffer.alloc(8 * MiB, 7);
    for (const kiosk of kiosks) for (let index = 0; index < FRAMES; index += 1) kiosk.socket.send(frame);
    const peak = await peakWhile(server, () => kiosks.every((kiosk) => kiosk.closeEvent !== undefined));
    // Past twice the limit uWebSockets.js drops the connection itself (1006), before buffering it.
    for (const kiosk of kiosks) assert.ok([1006, 1009].includes(kiosk.closeEvent?.code ?? 0));
    // Before the 2 MiB default every frame was taken: RSS rose by about 780 MiB here.
    assert.ok(peak - idle < 128 * MiB, `RSS grew by ${((peak - idle) / MiB).toFixed(0)} MiB`);
  });

  it('answers kiosks sending 2 MiB frames (the longest utterance) within the documented bound', async () => {
    const idle = server.rssBytes();
    const kiosks = await Promise.all(Array.from({ length: KIOSKS }, () => KioskClient.connect(server.wsUrl)));
    for (const kiosk of kiosks) await kiosk.frameCount(1, 10_000);
    const frame = Buffer.alloc(2 * MiB, 7);
    for (const kiosk of kiosks) for (let index = 0; index < FRAMES; index += 1) kiosk.socket.send(frame);
    const peak = await peakWhile(server, () => kiosks.every((kiosk) => turnsEnded(kiosk) >= FRAMES));
    for (const kiosk of kiosks) kiosk.close();
    // docs/operations.md: the queued-audio cap (256 MiB) plus, per kiosk sending, four frames (uWS's
    // assembly buffer and its growth, the bridge's copy, the answer on its way out).
    const bound = 256 * MiB + KIOSKS * 4 * 2 * MiB;
    assert.ok(
      peak - idle < bound,
      `RSS grew by ${((peak - idle) / MiB).toFixed(0)} MiB, bound ${(bound / MiB).toFixed(0)} MiB`,
    );
  });
});
