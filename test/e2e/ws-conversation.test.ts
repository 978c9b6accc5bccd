import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wsConversationContract } from '../contract/ws-contract.js';
import { request, sendJson } from '../support/http.js';
import { NO_LEAKS, settledGauges } from '../support/conversation-gauges.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { KioskClient, pairAt } from '../support/ws-client.js';
import type { SimBackend } from '../../src/robot/sim/sim-backend.js';

type Running = TestService & { sim: SimBackend };

const openKiosk = async (running: Running): Promise<KioskClient> => {
  const kiosk = await KioskClient.connect(running.wsUrl);
  await kiosk.frameCount(1);
  return kiosk;
};

describe('/ws conversation on the simulation', () => {
  let running: Running;
  before(async () => {
    running = await startSimService();
  });
  after(async () => {
    await running.stop();
  });

  // The RMW-agnostic part, shared with `npm run test:ros`.
  wsConversationContract(() => running);

  it('pushes one /play_audio message to two kiosks at once as the same pair', async () => {
    const first = await openKiosk(running);
    const second = await openKiosk(running);
    const audio = Buffer.from('robot speech');
    const published = await sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
      emotion: 'surprised',
      text: 'Look over there!',
      audio: audio.toString('base64'),
    });
    assert.equal(published.status, 200);
    await first.frameCount(3);
    await second.frameCount(3);
    const [a, b] = [pairAt(first.frames, 1), pairAt(second.frames, 1)];
    assert.deepEqual(a, b);
    assert.equal(a.meta['emotion'], 'surprised');
    assert.equal(a.meta['text'], 'Look over there!');
    assert.deepEqual(a.audio, audio);
    first.close();
    second.close();
  });

  it('switches the microphone for every kiosk, blocks audio while disabled and tells new kiosks', async () => {
    const first = await openKiosk(running);
    const second = await openKiosk(running);
    try {
      const disabled = await sendJson(running.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      assert.equal(disabled.status, 200);
      assert.deepEqual(disabled.json, { success: true, message: 'microphone disabled' });
      await first.frameCount(2);
      await second.frameCount(2);
      assert.deepEqual(first.texts()[1], { type: 'microphone', enabled: false });
      assert.deepEqual(second.texts()[1], { type: 'microphone', enabled: false });

      first.socket.send(Buffer.from([1, 2, 3]));
      await first.frameCount(3);
      assert.equal(first.texts()[2]?.['code'], 'microphone_disabled');

      const late = await openKiosk(running);
      assert.deepEqual(late.texts()[0]?.['microphone'], { enabled: false });
      late.close();

      const again = await sendJson(running.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      assert.deepEqual(again.json, { success: true, message: 'microphone already disabled' });
    } finally {
      const enabled = await sendJson(running.baseUrl, 'POST', '/sim/microphone', { enabled: true });
      assert.deepEqual(enabled.json, { success: true, message: 'microphone enabled' });
    }
    await first.until(
      (frames) => frames.some((f) => f.kind === 'text' && f.json['enabled'] === true),
      'enabled',
    );
    first.socket.send(Buffer.from([9]));
    await first.until((frames) => frames.at(-1)?.kind === 'binary', 'the echo');
    first.close();
    second.close();
  });

  it('leaves no session, subscription or call behind after kiosks leave', async () => {
    const gauges = await settledGauges(running);
    assert.deepEqual(gauges, NO_LEAKS);
  });
});

describe('/ws limits and misuse', () => {
  it('closes a session with 1009 and a reason for an audio frame over the limit', async () => {
    const running = await startSimService({}, { max_audio_frame_bytes: '1024' });
    try {
      const kiosk = await openKiosk(running);
      kiosk.socket.send(Buffer.alloc(1500));
      const close = await kiosk.closed();
      assert.equal(close.code, 1009);
      assert.equal(close.reason, 'binary frame too large');
      const fine = await openKiosk(running);
      fine.socket.send(Buffer.alloc(1024));
      await fine.frameCount(3);
      fine.close();
    } finally {
      await running.stop();
    }
  });

  it('refuses sessions over --max_sessions with 1013', async () => {
    const running = await startSimService({}, { max_sessions: '2' });
    try {
      const kiosks = [await openKiosk(running), await openKiosk(running)];
      const extra = await KioskClient.connect(running.wsUrl);
      const close = await extra.closed();
      assert.equal(close.code, 1013);
      assert.equal(close.reason, 'too many sessions');
      for (const kiosk of kiosks) kiosk.close();
      await settledGauges(running);
      const later = await openKiosk(running);
      assert.equal(later.texts()[0]?.['type'], 'state');
      later.close();
    } finally {
      await running.stop();
    }
  });

  it('queues chat calls one at a time, answers busy beyond the queue, keeps arrival order', async () => {
    const running = await startSimService({ latencyMs: 100 }, { chat_queue: '2' });
    try {
      const kiosk = await openKiosk(running);
      for (let index = 1; index <= 5; index += 1) kiosk.socket.send(Buffer.alloc(index, index));
      // 1 running + 2 waiting are answered; frames 4 and 5 are refused at once, busy said once (for 4).
      // Each turn ends with turn_end.
      await kiosk.frameCount(1 + 3 + 3 * 3, 5_000);
      const texts = kiosk.texts().slice(1);
      assert.deepEqual(
        texts.map((message) =>
          message['type'] === 'turn_end'
            ? `end ${String(message['turn'])} ${String(message['outcome'])}`
            : `${String(message['code'] ?? message['type'])} ${String(message['turn'])}`,
        ),
        [
          'busy 4',
          'end 4 refused',
          'end 5 refused',
          'audio 1',
          'end 1 answered',
          'audio 2',
          'end 2 answered',
          'audio 3',
          'end 3 answered',
        ],
      );
      const echoed = kiosk.frames.flatMap((frame) =>
        frame.kind === 'binary' ? [frame.bytes.byteLength - 4] : [],
      );
      assert.deepEqual(echoed, [1, 2, 3]);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  it('holds audio of all kiosks to --queued_audio_bytes: busy past it, kiosk stays, bytes back after every end', async () => {
    const running = await startSimService(
      { latencyMs: 400 },
      { queued_audio_bytes: '3000', max_audio_frame_bytes: '3000', chat_timeout_ms: '1000' },
    );
    const held = () => running.service.hub.readGauges().queuedAudioBytes;
    const heldReaches = async (bytes: number) => {
      for (let attempt = 0; attempt < 300 && held() !== bytes; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(held(), bytes);
    };
    try {
      const first = await openKiosk(running);
      const second = await openKiosk(running);
      first.socket.send(Buffer.alloc(1000, 1));
      first.socket.send(Buffer.alloc(1000, 2));
      await heldReaches(2000);
      second.socket.send(Buffer.alloc(1000, 3)); // 3000: fits exactly
      second.socket.send(Buffer.alloc(1, 4)); // one byte more than the process holds: busy
      await second.frameCount(3);
      assert.deepEqual(second.texts().slice(1, 3), [
        {
          type: 'error',
          code: 'busy',
          message: 'audio queued by all sessions would exceed 3000 bytes; chat dropped',
          turn: 2,
        },
        { type: 'turn_end', turn: 2, outcome: 'refused' },
      ]);
      const metrics = await request(running.baseUrl, 'GET', '/metrics');
      assert.match(metrics.text, /^tour_bridge_ws_queued_audio_bytes 3000$/m);

      // Answered: every byte comes back, and both kiosks go on.
      await first.frameCount(1 + 2 * 3);
      await second.frameCount(3 + 3);
      assert.equal(second.closeEvent, undefined, 'busy leaves the connection open');
      await heldReaches(0);
      second.socket.send(Buffer.alloc(3000, 5));
      await second.frameCount(6 + 3);
      assert.equal(pairAt(second.frames, 6).audio.byteLength, 3000);
      await heldReaches(0);

      // Timed out.
      running.sim.faults.setUnresponsive('chat', true);
      first.socket.send(Buffer.alloc(1000, 6));
      await heldReaches(1000);
      await first.frameCount(7 + 2, 5_000);
      assert.equal(first.texts().at(-2)?.['code'], 'chat_timeout');
      assert.deepEqual(first.texts().at(-1), { type: 'turn_end', turn: 3, outcome: 'failed' });
      await heldReaches(0);

      // Failed.
      running.sim.faults.setUnresponsive('chat', false);
      running.sim.faults.setUnavailable('chat', true);
      first.socket.send(Buffer.alloc(1000, 7));
      await first.frameCount(9 + 2);
      assert.equal(first.texts().at(-2)?.['code'], 'chat_unavailable');
      await heldReaches(0);

      // The kiosk goes away with one call running and one waiting.
      running.sim.faults.setUnavailable('chat', false);
      running.sim.faults.setUnresponsive('chat', true);
      second.socket.send(Buffer.alloc(1000, 8));
      second.socket.send(Buffer.alloc(1000, 9));
      await heldReaches(2000);
      second.socket.terminate();
      await heldReaches(0);
      first.close();
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
    } finally {
      await running.stop();
    }
  });

  it('answers chat_timeout, drops the late answer and goes on in order', async () => {
    const running = await startSimService({ latencyMs: 300 }, { chat_timeout_ms: '100' });
    try {
      const kiosk = await openKiosk(running);
      kiosk.socket.send(Buffer.alloc(1));
      kiosk.socket.send(Buffer.alloc(2));
      await kiosk.frameCount(5, 5_000);
      // Wait past the simulated latency so a late answer would have arrived.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(
        kiosk
          .texts()
          .slice(1)
          .map((message) => message['code'] ?? message['outcome']),
        ['chat_timeout', 'failed', 'chat_timeout', 'failed'],
      );
      assert.equal(kiosk.frames.filter((frame) => frame.kind === 'binary').length, 0);
      kiosk.close();
      assert.equal((await settledGauges(running)).inFlightRosCalls, 0);
    } finally {
      await running.stop();
    }
  });

  it('releases everything when a kiosk disconnects mid-chat', async () => {
    const running = await startSimService({ latencyMs: 200 });
    try {
      const kiosk = await openKiosk(running);
      kiosk.socket.send(Buffer.alloc(10));
      kiosk.socket.send(Buffer.alloc(10));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(running.service.hub.readGauges().inFlightRosCalls, 1);
      kiosk.socket.terminate();
      const gauges = await settledGauges(running);
      assert.deepEqual(gauges, NO_LEAKS);
      // The service goes on serving others.
      const other = await openKiosk(running);
      other.socket.send(Buffer.alloc(4));
      await other.frameCount(3, 5_000);
      other.close();
    } finally {
      await running.stop();
    }
  });

  it('keeps a kiosk that stops reading open: its oldest /play_audio are dropped whole and it is told, while another keeps receiving', async () => {
    const running = await startSimService({}, { send_buffer_bytes: String(1024 * 1024) });
    try {
      const stalled = await openKiosk(running);
      const healthy = await openKiosk(running);
      // The stalled client stops reading from its TCP socket: the server's send buffer for it fills up.
      (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      // 15 MiB: more than the kernel's loopback buffers, the send buffer and the backlog together hold.
      const audio = Buffer.alloc(768 * 1024, 7).toString('base64');
      const messages = 20;
      for (let index = 0; index < messages; index += 1) {
        const published = await sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
          emotion: 'happy',
          text: `${index}`,
          audio,
        });
        assert.equal(published.status, 200);
      }
      await healthy.frameCount(1 + 2 * messages, 10_000);
      assert.deepEqual(
        healthy
          .texts()
          .slice(1)
          .map((message) => message['text']),
        Array.from({ length: messages }, (_, index) => `${index}`),
      );
      (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      // Before: closed with 1008 once its send buffer passed the limit. Now it gets what it can take,
      // newest last, and one audio_dropped frame for what was dropped, before the next message.
      await stalled.until(
        (frames) =>
          frames.some((frame) => frame.kind === 'text' && frame.json['text'] === `${messages - 1}`) &&
          frames.at(-1)?.kind === 'binary',
        'the last message',
        10_000,
      );
      const texts = stalled.texts().slice(1);
      const received = texts.filter((message) => message['type'] === 'audio').map((m) => Number(m['text']));
      const dropped = texts
        .filter((message) => message['type'] === 'audio_dropped')
        .reduce((sum, message) => sum + Number(message['count']), 0);
      assert.ok(dropped > 0, JSON.stringify(texts));
      assert.equal(received.length + dropped, messages, JSON.stringify(texts));
      assert.deepEqual(
        received,
        [...received].sort((a, b) => a - b),
      );
      assert.equal(received.at(-1), messages - 1);
      assert.equal(stalled.closeEvent, undefined);
      const metrics = await (await fetch(`${running.baseUrl}/metrics`)).text();
      assert.match(
        metrics,
        new RegExp(`tour_bridge_play_audio_dropped_total\\{reason="slow_kiosk"\\} ${dropped}`),
      );
      stalled.close();
      healthy.close();
    } finally {
      await running.stop();
    }
  });
});
