import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { clientFrame, WireWsClient } from '../support/wire-ws-client.js';
import { healthWhile } from '../support/health-probe.js';
import { metric } from '../support/metric.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * One client's flood of frames must not stall the bridge (docs/protocol.md, "Inbound budget"). The
 * service runs in its own process, so what the probes wait for is its event loop, not the test's.
 */

describe('a client that floods /ws with frames', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess();
  });
  after(async () => {
    await server.stop();
  });

  it('is closed with 1008 after its burst, and /health and another kiosk keep answering within 100 ms', async () => {
    const other = await KioskClient.connect(server.wsUrl);
    const flooder = await WireWsClient.connect(server.wsUrl);
    try {
      await other.frameCount(1);
      // The test's own HTTP client warmed up, so what /health takes below is the server's.
      await fetch(`${server.baseUrl}/health`);
      // 80,000 empty binary frames in one write (480 KB): on a bridge without a budget, 4.5 s of its CPU.
      const flood = Buffer.concat(Array.from({ length: 80_000 }, () => clientFrame(0x2, Buffer.alloc(0))));
      const closed = flooder.until(
        (frames) => frames.some((frame) => frame.opcode === 8),
        'the close frame',
        10_000,
      );
      const cpuBefore = server.cpuMs();
      const started = performance.now();
      flooder.write(flood);
      const health = await healthWhile(server.baseUrl, closed);
      await closed;
      const closedAfter = performance.now() - started;
      const cpu = server.cpuMs() - cpuBefore;
      console.log(
        `# flood: closed after ${closedAfter.toFixed(0)} ms, server CPU ${cpu.toFixed(0)} ms, /health ${health.map((ms) => ms.toFixed(1)).join(' ')}`,
      );
      const close = flooder.frames.find((frame) => frame.opcode === 8);
      assert.ok(close !== undefined, 'a close frame');
      assert.equal(close.payload.readUInt16BE(0), 1008);
      assert.equal(close.payload.subarray(2).toString(), 'inbound rate limit exceeded');
      assert.ok(closedAfter < 2_000, `closed after ${closedAfter.toFixed(0)} ms`);
      assert.ok(Math.max(0, ...health) < 100, `/health took up to ${Math.max(0, ...health).toFixed(1)} ms`);
      // Another kiosk's round trip right after.
      const before = other.frames.length;
      const roundTrip = performance.now();
      other.socket.send(Buffer.alloc(3200), { binary: true });
      await other.frameCount(before + 2);
      assert.ok(performance.now() - roundTrip < 100, 'the other kiosk is answered at once');
      assert.equal(
        await metric(server.baseUrl, 'tour_bridge_ws_refused_frames_total{reason="rate_limited"}'),
        1,
      );
    } finally {
      flooder.close();
      other.close();
    }
  });

  it('passes a kiosk that stays within its budget: 40 frames at once, then 10 a second', async () => {
    const kiosk = await KioskClient.connect(server.wsUrl);
    try {
      await kiosk.frameCount(1);
      for (let index = 0; index < 40; index += 1) kiosk.socket.send('{"type":"ping"}');
      for (let second = 0; second < 10; second += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        kiosk.socket.send('{"type":"ping"}');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(kiosk.closeEvent, undefined, 'still open');
    } finally {
      kiosk.close();
    }
  });

  it('refuses an empty audio frame with audio_too_short, without a /chat call', async () => {
    const kiosk = await KioskClient.connect(server.wsUrl);
    try {
      await kiosk.frameCount(1);
      kiosk.socket.send(Buffer.alloc(0), { binary: true });
      await kiosk.until((frames) => frames.length >= 3, 'the error and turn_end');
      const [error, end] = kiosk.texts().slice(1);
      assert.ok(error !== undefined);
      assert.equal(error['code'], 'audio_too_short');
      assert.equal(error['turn'], 1);
      assert.deepEqual(end, { type: 'turn_end', turn: 1, outcome: 'refused' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(
        kiosk.frames.filter((frame) => frame.kind === 'binary').length,
        0,
        'no answer: /chat was not called',
      );
      assert.ok(
        (await metric(server.baseUrl, 'tour_bridge_ws_refused_frames_total{reason="audio_too_short"}')) >= 1,
      );
    } finally {
      kiosk.close();
    }
  });
});

describe('a kiosk sending faster than a slow robot answers', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess(['--sim_latency_ms', '200']);
  });
  after(async () => {
    await server.stop();
  });

  it('hears busy once until a frame is queued again, and every refused turn still ends', async () => {
    const kiosk = await KioskClient.connect(server.wsUrl);
    try {
      await kiosk.frameCount(1);
      // Within the inbound burst (40 frames): 1 runs, 4 wait, 34 are refused.
      for (let index = 0; index < 39; index += 1) kiosk.socket.send(Buffer.alloc(320), { binary: true });
      await kiosk.until(
        () => kiosk.texts().filter((message) => message['type'] === 'turn_end').length >= 39,
        '39 turn_end frames',
        10_000,
      );
      const texts = kiosk.texts();
      const busy = texts.filter((message) => message['code'] === 'busy');
      const outcomes = texts
        .filter((message) => message['type'] === 'turn_end')
        .map((message) => message['outcome']);
      assert.equal(busy.length, 1, 'busy is said once');
      assert.equal(busy[0]?.['turn'], 6);
      assert.equal(outcomes.filter((outcome) => outcome === 'refused').length, 34);
      assert.equal(outcomes.filter((outcome) => outcome === 'answered').length, 5);
      // Once a frame is queued again, a new refusal says busy again.
      for (let index = 0; index < 6; index += 1) kiosk.socket.send(Buffer.alloc(320), { binary: true });
      await kiosk.until(
        () => kiosk.texts().filter((message) => message['type'] === 'turn_end').length >= 45,
        '45 turn_end frames',
        10_000,
      );
      assert.equal(kiosk.texts().filter((message) => message['code'] === 'busy').length, 2);
      // Every refused turn is counted, the ones whose busy was not repeated included.
      assert.equal(await metric(server.baseUrl, 'tour_bridge_ws_turns_total{outcome="refused"}'), 35);
    } finally {
      kiosk.close();
    }
  });
});
