import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { request, sendJson } from '../support/http.js';
import { NO_LEAKS, settledGauges } from '../support/conversation-gauges.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { KioskClient, pairAt, type ReceivedFrame } from '../support/ws-client.js';
import type { SimBackend, SimBackendOptions } from '../../src/robot/sim/sim-backend.js';

/**
 * Streamed turns (issue #12) end to end: the real uWebSockets.js server on a loopback port, the simulated
 * robot serving `/chat` and the Converse action with its modelled pipeline (--sim_chat_parts,
 * --sim_part_ms), and real `ws` kiosks exchanging real frames.
 */

type Running = TestService & { sim: SimBackend };

const start = (sim: SimBackendOptions, chatInterface: 'service' | 'action', overrides = {}) =>
  startSimService(sim, { chat_interface: chatInterface, ...overrides });

const openKiosk = async (running: Running): Promise<KioskClient> => {
  const kiosk = await KioskClient.connect(running.wsUrl);
  await kiosk.frameCount(1);
  return kiosk;
};

/** Every frame after the state frame, as a line: pairs as `pair <turn> <text> <audio bytes>`. */
const lines = (frames: readonly ReceivedFrame[]): string[] => {
  const result: string[] = [];
  for (let index = 1; index < frames.length; index += 1) {
    const frame = frames[index]!;
    if (frame.kind === 'text' && frame.json['type'] === 'audio') {
      if (index + 1 >= frames.length) break; // its binary frame is still on its way
      const pair = pairAt(frames, index);
      result.push(`pair ${String(pair.meta['turn'])} ${String(pair.meta['text'])} ${pair.audio.byteLength}`);
      index += 1;
    } else if (frame.kind === 'text') {
      result.push(JSON.stringify(frame.json));
    } else {
      result.push(`stray binary of ${frame.bytes.byteLength} bytes`);
    }
  }
  return result;
};

const pairs = (frames: readonly ReceivedFrame[]) =>
  frames.flatMap((frame, index) =>
    frame.kind === 'text' && frame.json['type'] === 'audio' ? [pairAt(frames, index)] : [],
  );

/** An utterance whose bytes differ along its length, so a reordered or missing slice shows. */
const utterance = (bytes: number): Buffer => {
  const audio = Buffer.alloc(bytes);
  for (let index = 0; index < bytes; index += 1) audio[index] = (index * 7 + (index >> 8)) & 0xff;
  return audio;
};

describe('streamed turns over /ws (simulation)', () => {
  it('action: the parts arrive one by one with the sim delays, as pairs of the turn, then turn_end', async () => {
    const running = await start({ chatParts: 3, partMs: 150 }, 'action');
    try {
      const kiosk = await openKiosk(running);
      const audio = utterance(3001);
      const arrivals: number[] = [];
      kiosk.socket.on('message', (_data, isBinary) => {
        if (isBinary) arrivals.push(performance.now());
      });
      const sent = performance.now();
      kiosk.socket.send(audio);
      await kiosk.until(
        (frames) => frames.some((frame) => frame.kind === 'text' && frame.json['type'] === 'turn_end'),
        'turn_end',
      );
      assert.deepEqual(lines(kiosk.frames), [
        'pair 1 I heard you. This is what you sent me. 1000',
        'pair 1 This is part 2 of 3. 1000',
        'pair 1 This is part 3 of 3. 1001',
        '{"type":"turn_end","turn":1,"outcome":"answered"}',
      ]);
      // Sent as they came, not gathered: each part after its own delay (timers fire late, never early).
      assert.equal(arrivals.length, 3);
      arrivals.forEach((arrival, index) => {
        assert.ok(arrival - sent >= (index + 1) * 150 - 5, `part ${index + 1} at ${arrival - sent} ms`);
      });
      assert.ok(arrivals[1]! - arrivals[0]! >= 100, 'part 2 came well after part 1');
      assert.ok(arrivals[2]! - arrivals[1]! >= 100, 'part 3 came well after part 2');
      // The slices concatenate exactly to the utterance.
      assert.deepEqual(Buffer.concat(pairs(kiosk.frames).map((pair) => pair.audio)), audio);
      // Message ids increase pair after pair.
      const ids = pairs(kiosk.frames).map((pair) => pair.messageId);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      const metrics = await request(running.baseUrl, 'GET', '/metrics');
      assert.match(metrics.text, /^tour_bridge_ros_calls_total\{service="converse",outcome="ok"\} 1$/m);
      kiosk.close();
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
    } finally {
      await running.stop();
    }
  });

  it('service: one pair with the whole text and audio after parts × part time, then turn_end', async () => {
    const running = await start({ chatParts: 3, partMs: 100 }, 'service');
    try {
      const kiosk = await openKiosk(running);
      const audio = utterance(2000);
      const sent = performance.now();
      kiosk.socket.send(audio);
      await kiosk.frameCount(1 + 3);
      const elapsed = performance.now() - sent;
      assert.deepEqual(lines(kiosk.frames), [
        'pair 1 I heard you. This is what you sent me. This is part 2 of 3. This is part 3 of 3. 2000',
        '{"type":"turn_end","turn":1,"outcome":"answered"}',
      ]);
      assert.ok(elapsed >= 300 - 5, `answered after ${elapsed} ms`);
      assert.deepEqual(pairAt(kiosk.frames, 1).audio, audio);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  for (const chatInterface of ['action', 'service'] as const) {
    it(`${chatInterface}: cancel mid-turn ends the running and the queued turns as cancelled, acks, and nothing of them follows`, async () => {
      const running = await start({ chatParts: 3, partMs: 200 }, chatInterface);
      try {
        const kiosk = await openKiosk(running);
        kiosk.socket.send(utterance(300)); // turn 1, running
        kiosk.socket.send(utterance(30)); // turn 2, queued
        kiosk.sendJson({ service: 'clear_history' }); // queued, not a turn: kept
        kiosk.socket.send(utterance(3)); // turn 3, queued
        if (chatInterface === 'action') {
          await kiosk.frameCount(1 + 2); // the first part of turn 1
        } else {
          await sleep(250);
        }
        kiosk.sendJson({ service: 'cancel' });
        await kiosk.until(
          (frames) => frames.some((frame) => frame.kind === 'text' && frame.json['service'] === 'cancel'),
          'the cancel ack',
        );
        const beforeAck =
          chatInterface === 'action' ? ['pair 1 I heard you. This is what you sent me. 100'] : [];
        const expected = [
          ...beforeAck,
          '{"type":"turn_end","turn":1,"outcome":"cancelled"}',
          '{"type":"turn_end","turn":2,"outcome":"cancelled"}',
          '{"type":"turn_end","turn":3,"outcome":"cancelled"}',
          '{"type":"ack","service":"cancel"}',
          // The queued clear_history was not dropped: it runs now.
          '{"type":"ack","service":"clear_history"}',
        ];
        await kiosk.until((frames) => lines(frames).length >= expected.length, 'the clear_history ack');
        // Past every part's time: nothing of a cancelled turn may come after the ack.
        await sleep(800);
        assert.deepEqual(lines(kiosk.frames), expected);
        const metrics = await request(running.baseUrl, 'GET', '/metrics');
        const service = chatInterface === 'action' ? 'converse' : 'chat';
        assert.match(
          metrics.text,
          new RegExp(`^tour_bridge_ros_calls_total\\{service="${service}",outcome="abandoned"\\} 1$`, 'm'),
        );
        assert.equal(
          running.service.hub.readGauges().queuedAudioBytes,
          0,
          'the audio of every dropped turn is given back',
        );

        // The session goes on: the next utterance is turn 4.
        kiosk.socket.send(utterance(6));
        const turn4End = '{"type":"turn_end","turn":4,"outcome":"answered"}';
        await kiosk.until((frames) => lines(frames).at(-1) === turn4End, 'the end of turn 4');
        assert.deepEqual(
          lines(kiosk.frames)
            .slice(expected.length, -1)
            .map((line) => line.split(' ').slice(0, 2).join(' ')),
          chatInterface === 'action' ? ['pair 4', 'pair 4', 'pair 4'] : ['pair 4'],
        );
        kiosk.close();
        assert.deepEqual(await settledGauges(running), NO_LEAKS);
      } finally {
        await running.stop();
      }
    });
  }

  it('action: a kiosk that leaves mid-turn cancels the goal; the log names the action', async () => {
    const running = await startSimService(
      { chatParts: 3, partMs: 200 },
      { chat_interface: 'action', log_level: 'info' },
      true,
    );
    try {
      const kiosk = await openKiosk(running);
      kiosk.socket.send(utterance(30));
      await kiosk.frameCount(1 + 2); // the first part
      kiosk.socket.terminate();
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
      const line = running.logs.find((entry) => String(entry['msg']).startsWith('session ended before'));
      assert.equal(line?.['msg'], 'session ended before the /converse answer; a late answer will be dropped');
      const metrics = await request(running.baseUrl, 'GET', '/metrics');
      assert.match(
        metrics.text,
        /^tour_bridge_ros_calls_total\{service="converse",outcome="abandoned"\} 1$/m,
      );
    } finally {
      await running.stop();
    }
  });

  it('cancel when nothing runs: just the ack', async () => {
    const running = await start({}, 'action');
    try {
      const kiosk = await openKiosk(running);
      kiosk.sendJson({ service: 'cancel' });
      await kiosk.frameCount(2);
      await sleep(50);
      assert.deepEqual(lines(kiosk.frames), ['{"type":"ack","service":"cancel"}']);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  it('/play_audio pairs carry no turn, while a turn streams', async () => {
    const running = await start({ chatParts: 2, partMs: 150 }, 'action');
    try {
      const kiosk = await openKiosk(running);
      kiosk.socket.send(utterance(10));
      const published = await sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
        emotion: 'surprised',
        text: 'Look over there!',
        audio: Buffer.from('robot speech').toString('base64'),
      });
      assert.equal(published.status, 200);
      await kiosk.until((frames) => lines(frames).length >= 4, 'both parts, the robot speech and turn_end');
      const metas = pairs(kiosk.frames).map((pair) => pair.meta);
      const robot = metas.find((meta) => meta['text'] === 'Look over there!');
      assert.ok(robot);
      assert.equal('turn' in robot, false);
      assert.deepEqual(
        metas.filter((meta) => meta !== robot).map((meta) => meta['turn']),
        [1, 1],
      );
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  it('action: an unavailable action server and one that never answers fail the turn, with its number', async () => {
    const running = await start({ chatParts: 2 }, 'action', { chat_timeout_ms: '200' });
    try {
      const kiosk = await openKiosk(running);
      running.sim.faults.setUnavailable('converse', true);
      kiosk.socket.send(utterance(4));
      await kiosk.frameCount(1 + 2);
      running.sim.faults.setUnavailable('converse', false);
      running.sim.faults.setUnresponsive('converse', true);
      kiosk.socket.send(utterance(4));
      await kiosk.frameCount(1 + 4, 3_000);
      assert.deepEqual(lines(kiosk.frames), [
        '{"type":"error","code":"chat_unavailable","message":"ROS action /converse is not available","turn":1}',
        '{"type":"turn_end","turn":1,"outcome":"failed"}',
        '{"type":"error","code":"chat_timeout","message":"ROS action /converse did not finish within 200 ms","turn":2}',
        '{"type":"turn_end","turn":2,"outcome":"failed"}',
      ]);
      kiosk.close();
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
    } finally {
      await running.stop();
    }
  });
});
