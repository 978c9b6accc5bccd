import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { request, sendJson } from '../support/http.js';
import { startServerProcess } from '../support/server-process.js';
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

const publish = (running: Running, text: string, audio = Buffer.from(text)) =>
  sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
    emotion: 'happy',
    text,
    audio: audio.toString('base64'),
  });

describe('faults from the ROS side (sim backend fault injection)', () => {
  it('a service that never answers: 504 over HTTP, chat_timeout over /ws, nothing left in flight', async () => {
    const running = await startSimService({}, { ros_timeout_ms: '100', chat_timeout_ms: '100' });
    try {
      running.sim.faults.setUnresponsive('tour_get', true);
      running.sim.faults.setUnresponsive('chat', true);
      assert.equal((await request(running.baseUrl, 'GET', '/tour/welcome')).status, 504);
      const kiosk = await openKiosk(running);
      kiosk.socket.send(Buffer.alloc(3));
      await kiosk.frameCount(3);
      assert.equal(kiosk.texts()[1]?.['code'], 'chat_timeout');
      assert.deepEqual(kiosk.texts()[2], { type: 'turn_end', turn: 1, outcome: 'failed' });
      assert.equal((await settledGauges(running, 1)).inFlightRosCalls, 0);
      running.sim.faults.setUnresponsive('tour_get', false);
      running.sim.faults.setUnresponsive('chat', false);
      assert.equal((await request(running.baseUrl, 'GET', '/tour/welcome')).status, 200);
      kiosk.socket.send(Buffer.alloc(3));
      await kiosk.frameCount(6);
      assert.equal(pairAt(kiosk.frames, 3).audio.byteLength, 3);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  it('a service that disappears and returns: 503 while gone, recovery without restart', async () => {
    const running = await startSimService();
    try {
      const kiosk = await openKiosk(running);
      running.sim.faults.setUnavailable('tour_list', true);
      running.sim.faults.setUnavailable('chat', true);
      running.sim.faults.setUnavailable('clear_history', true);
      const gone = await request(running.baseUrl, 'GET', '/tour');
      assert.equal(gone.status, 503);
      assert.equal(gone.headers.get('retry-after'), '1');
      kiosk.socket.send(Buffer.alloc(2));
      kiosk.sendJson({ service: 'clear_history' });
      await kiosk.frameCount(4);
      assert.deepEqual(
        kiosk
          .texts()
          .slice(1)
          .map((message) => message['code'] ?? message['outcome']),
        ['chat_unavailable', 'failed', 'clear_history_unavailable'],
      );
      for (const service of ['tour_list', 'chat', 'clear_history'] as const)
        running.sim.faults.setUnavailable(service, false);
      assert.equal((await request(running.baseUrl, 'GET', '/tour')).status, 200);
      kiosk.sendJson({ service: 'clear_history' });
      await kiosk.frameCount(5);
      assert.deepEqual(kiosk.texts()[4], { type: 'ack', service: 'clear_history' });
      kiosk.close();
    } finally {
      await running.stop();
    }
  });

  for (const fault of ['fails', 'ends'] as const) {
    it(`the /play_audio stream ${fault}: sessions keep working, the stream comes back, a log line says so`, async () => {
      const running = await startSimService({}, { log_level: 'warn' }, true);
      try {
        const kiosk = await openKiosk(running);
        await publish(running, 'before');
        await kiosk.frameCount(3);
        if (fault === 'fails') running.sim.faults.failPlayAudio(new Error('subscription broke'));
        else running.sim.faults.endPlayAudio();
        // The session itself goes on: a chat is answered while the stream is down.
        kiosk.socket.send(Buffer.alloc(5));
        await kiosk.frameCount(6); // the pair, then turn_end
        assert.equal(pairAt(kiosk.frames, 3).audio.byteLength, 5);
        // Published until one arrives: the hub subscribes again after its 1 s delay (bounded wait).
        for (let attempt = 0; attempt < 40 && kiosk.frames.length < 8; attempt += 1) {
          await publish(running, `after ${attempt}`);
          await sleep(100);
        }
        await kiosk.frameCount(8);
        assert.match(String(pairAt(kiosk.frames, 6).meta['text']), /^after /);
        const line = running.logs.find((entry) => entry['source'] === 'play_audio');
        assert.ok(line, 'a log line names the play_audio stream');
        assert.equal(line['level'], 'warn');
        assert.equal(kiosk.closeEvent, undefined);
        kiosk.close();
      } finally {
        await running.stop();
      }
    });
  }

  it('the microphone service called in bursts: every caller answered, state consistent everywhere', async () => {
    const running = await startSimService();
    try {
      const kiosk = await openKiosk(running);
      const requests = Array.from({ length: 40 }, (_, index) => index % 3 !== 0);
      const answers = await Promise.all(
        requests.map((enabled) => sendJson(running.baseUrl, 'POST', '/sim/microphone', { enabled })),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal((answer.json as { success: boolean }).success, true);
        assert.match(
          (answer.json as { message: string }).message,
          /^microphone (already )?(enabled|disabled)$/,
        );
      }
      // Ask once more with a known value: the answer tells the state the burst left.
      const probe = (await running.sim.sim.setMicrophone(true)).message;
      const stateBeforeProbe = probe === 'microphone already enabled';
      await kiosk.until((frames) => {
        const changes = frames.flatMap((frame) =>
          frame.kind === 'text' && frame.json['type'] === 'microphone' ? [frame.json['enabled']] : [],
        );
        return changes.at(-1) === true;
      }, 'the kiosk to end on enabled');
      const changes = kiosk
        .texts()
        .flatMap((message) => (message['type'] === 'microphone' ? [message['enabled']] : []));
      // Changes alternate: the kiosk is told each change once, never twice the same state.
      for (let index = 1; index < changes.length; index += 1)
        assert.notEqual(changes[index], changes[index - 1]);
      if (!stateBeforeProbe) assert.equal(changes.at(-2), false);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });
});

describe('faults from kiosks', () => {
  it('abrupt disconnects at every stage of a chat leave nothing behind', async () => {
    const running = await startSimService({ latencyMs: 50 });
    try {
      const stages: ((kiosk: KioskClient) => Promise<void>)[] = [
        async () => {}, // right after the state frame
        async (kiosk) => {
          kiosk.socket.send(Buffer.alloc(100)); // call in flight
          await sleep(10);
        },
        async (kiosk) => {
          kiosk.socket.send(Buffer.alloc(100));
          kiosk.socket.send(Buffer.alloc(100)); // one running, one queued
          await sleep(10);
        },
        async (kiosk) => {
          kiosk.socket.send(Buffer.alloc(2 * 1024 * 1024)); // a big answer, cut while it arrives
          await kiosk.until((frames) => frames.length >= 2, 'the metadata frame');
        },
        async (kiosk) => {
          kiosk.socket.send(Buffer.alloc(10));
          await kiosk.frameCount(3); // after the answer
        },
      ];
      for (const stage of stages) {
        const kiosk = await openKiosk(running);
        await stage(kiosk);
        kiosk.socket.terminate();
        assert.deepEqual(await settledGauges(running), NO_LEAKS);
      }
      const survivor = await openKiosk(running);
      survivor.socket.send(Buffer.alloc(7));
      await survivor.frameCount(3);
      survivor.close();
    } finally {
      await running.stop();
    }
  });

  /**
   * One stalled kiosk and one healthy one while 40 × 512 KiB are published; returns the server's RSS growth
   * (after a warm-up) and the healthy kiosk's round trips. The server runs in its own process so its memory
   * is apart from the clients'. The volume is well above what loopback socket buffers can absorb (they took
   * up to ~3 MiB of 12 MiB in earlier runs), so the uncapped server has to hold most of it itself.
   */
  const PUBLISHED_ROUNDS = 40;
  const stalledKioskRun = async (sendBufferBytes: number) => {
    const server = await startServerProcess(['--send_buffer_bytes', String(sendBufferBytes)]);
    try {
      const stalled = await KioskClient.connect(server.wsUrl);
      const healthy = await KioskClient.connect(server.wsUrl);
      await stalled.frameCount(1);
      await healthy.frameCount(1);
      (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const audio = Buffer.alloc(512 * 1024, 1).toString('base64');
      const publishRounds = async (rounds: number) => {
        const times: number[] = [];
        for (let index = 0; index < rounds; index += 1) {
          const published = await sendJson(server.baseUrl, 'POST', '/sim/play_audio', {
            emotion: 'happy',
            text: `m${index}`,
            audio,
          });
          assert.equal(published.status, 200);
          healthy.frames.splice(0);
          const started = performance.now();
          healthy.socket.send(Buffer.alloc(64));
          await healthy.until(
            (frames) => frames.some((frame) => frame.kind === 'binary' && frame.bytes.byteLength === 68),
            'the echo',
          );
          times.push(performance.now() - started);
        }
        return times;
      };
      await publishRounds(4); // warm-up
      const rssBefore = server.rssBytes();
      const roundTrips = await publishRounds(PUBLISHED_ROUNDS);
      const growth = server.rssBytes() - rssBefore;
      (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      // What the capped kiosk could not take was dropped whole, oldest first, and it is told so.
      const dropped =
        sendBufferBytes < PUBLISHED_ROUNDS * 512 * 1024
          ? await stalled
              .until(
                (frames) =>
                  frames.some((frame) => frame.kind === 'text' && frame.json['type'] === 'audio_dropped'),
                'audio_dropped',
                10_000,
              )
              .then(() => true)
          : undefined;
      const open = stalled.closeEvent === undefined;
      stalled.socket.terminate();
      healthy.close();
      return { growth, roundTrips, dropped, open };
    } finally {
      await server.stop();
    }
  };

  it('a kiosk that stops reading: kept open, its oldest messages dropped at the cap, server memory bounded, others keep their latency', async () => {
    const capped = await stalledKioskRun(1024 * 1024);
    const uncapped = await stalledKioskRun(256 * 1024 * 1024);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    console.log(
      `# stalled kiosk, ${PUBLISHED_ROUNDS / 2} MiB published: server RSS growth ${mib(capped.growth)} MiB with a 1 MiB cap, ` +
        `${mib(uncapped.growth)} MiB with a 256 MiB cap; healthy round trips max ${Math.max(...capped.roundTrips).toFixed(1)} ms`,
    );
    assert.ok(capped.dropped !== undefined);
    assert.ok(capped.open, 'the slow kiosk stays connected');
    // Without the cap the server keeps everything for the stalled kiosk; with it, that memory is never taken.
    assert.ok(
      uncapped.growth - capped.growth > 8 * 1024 * 1024,
      `capped ${capped.growth} vs uncapped ${uncapped.growth}`,
    );
    assert.ok(
      Math.max(...capped.roundTrips) < 1_000,
      `healthy round trips: ${capped.roundTrips.map((ms) => ms.toFixed(1)).join(', ')} ms`,
    );
  });

  it('1,000 connect/disconnect cycles leave no actor or subscription behind and memory where it was', async () => {
    // 20 kiosks at a time from one address, past --ws_sessions_per_address: what is measured is the cycle.
    const running = await startSimService({}, { ws_sessions_per_address: '0' });
    // The young generation as Node.js 20 sizes it (16 MiB semi-spaces). Node.js 24's V8 grows it further
    // on its own: over 8 rounds of 1,000 cycles its heap total went 59 → 177 MiB and RSS 129 → 231 MiB
    // while the heap in use stayed between 30 and 75 MiB, no higher at the end than after the first round;
    // with 16 MiB semi-spaces its heap total stayed within 59–97 MiB, as on Node.js 20 (55–81). That growth
    // is V8's sizing, not what a leak would hold, so the bound below holds for both with this one setting.
    const server = await startServerProcess(['--ws_sessions_per_address', '0'], {
      env: { NODE_OPTIONS: '--max-semi-space-size=16' },
    });
    try {
      const cycle = (url: string) => async () => {
        const kiosk = await KioskClient.connect(url);
        await kiosk.frameCount(1);
        kiosk.close();
        await kiosk.closed();
      };
      // In process: the gauges count every actor and subscription.
      for (let batch = 0; batch < 50; batch += 1)
        await Promise.all(Array.from({ length: 20 }, cycle(running.wsUrl)));
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
      // In its own process: the server's resident memory before and after 1,000 cycles, after 1,000 warm-up
      // cycles (V8 sizes its heap up to a plateau first; measured here: it then wanders within ±10 MiB).
      for (let batch = 0; batch < 50; batch += 1)
        await Promise.all(Array.from({ length: 20 }, cycle(server.wsUrl)));
      const rssBefore = server.rssBytes();
      for (let batch = 0; batch < 50; batch += 1)
        await Promise.all(Array.from({ length: 20 }, cycle(server.wsUrl)));
      const growth = server.rssBytes() - rssBefore;
      console.log(
        `# 1,000 cycles: server RSS ${(rssBefore / 2 ** 20).toFixed(1)} MiB, growth ${(growth / 2 ** 20).toFixed(1)} MiB`,
      );
      assert.ok(growth < 32 * 1024 * 1024, `server RSS grew by ${growth} bytes over 1,000 cycles`);
    } finally {
      await server.stop();
      await running.stop();
    }
  });
});
