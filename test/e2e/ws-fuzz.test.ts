import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseServerMessage, CLOSE_CODES } from '../../src/protocol/ws/index.js';
import { NO_LEAKS, settledGauges } from '../support/conversation-gauges.js';
import { fuzzRuns } from '../support/fuzz-runs.js';
import { request, sendJson } from '../support/http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { KioskClient, type ReceivedFrame } from '../support/ws-client.js';

/**
 * A kiosk's frames in any order and at any pace, against the real server on the simulation: utterances of
 * any size (up to past the limit), commands valid and not, cancels in the middle of streamed turns, with
 * the robot switching the microphone and publishing /play_audio meanwhile. Every session must keep the
 * protocol: each turn ends exactly once, each text frame gets exactly one answer, each pair is whole, and
 * nothing is left behind once the kiosk leaves.
 */

const MAX_AUDIO_FRAME_BYTES = 65_536;

type Step =
  | { readonly kind: 'audio'; readonly bytes: number }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'pause'; readonly ms: number }
  /** The robot switches the microphone (`/microphone/set_enabled`, through the simulation's route). */
  | { readonly kind: 'microphone'; readonly enabled: boolean }
  /** The robot publishes on `/play_audio`: a pair with no turn, to every kiosk. */
  | { readonly kind: 'playAudio'; readonly bytes: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(0, 1, 4, 5, 1_000, 40_000, MAX_AUDIO_FRAME_BYTES)
      .map((bytes) => ({ kind: 'audio' as const, bytes })),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          '{"service":"clear_history"}',
          '{"service":"cancel"}',
          '{"service":"cancel"}',
          '{"service":"format_disk"}',
          '{"service":42}',
          '{"service":"cancel","extra":1}',
          '[]',
          'null',
          '{',
        ),
        fc.string({ maxLength: 40 }),
      )
      .map((text) => ({ kind: 'text' as const, text })),
  },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 6 }).map((ms) => ({ kind: 'pause' as const, ms })) },
  { weight: 1, arbitrary: fc.boolean().map((enabled) => ({ kind: 'microphone' as const, enabled })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1, 3_000).map((bytes) => ({ kind: 'playAudio' as const, bytes })),
  },
);

/** A session's steps; some end with an utterance past the limit, which must close it with 1009. */
const session = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 24 }),
  oversizedLast: fc.boolean(),
});

/** Acks and errors without a turn: the answers to text frames. */
const commandAnswers = (texts: readonly Record<string, unknown>[]) =>
  texts.filter(
    (message) => message['type'] === 'ack' || (message['type'] === 'error' && message['turn'] === undefined),
  ).length;

const turnEnds = (texts: readonly Record<string, unknown>[]) =>
  texts.filter((message) => message['type'] === 'turn_end').length;

/** The protocol's rules over everything one session received, in order. */
const assertProtocolKept = (frames: readonly ReceivedFrame[], turns: number, whole: boolean) => {
  const shown = JSON.stringify(
    frames.map((frame) => (frame.kind === 'text' ? frame.json : `<binary ${frame.bytes.byteLength}>`)),
  ).slice(0, 3000);
  assert.equal(frames[0]?.kind === 'text' && frames[0].json['type'], 'state', shown);
  const ended = new Map<number, number>();
  let lastMessageId = -1;
  for (let index = 0; index < frames.length; index += 1) {
    const frame = frames[index]!;
    if (frame.kind === 'binary') {
      // Every binary frame is the second half of a pair: its metadata comes just before it, same id.
      const meta = frames[index - 1];
      assert.ok(meta?.kind === 'text' && meta.json['type'] === 'audio', `stray binary at ${index}: ${shown}`);
      assert.equal(frame.bytes.readUInt32BE(0), meta.json['messageId'], shown);
      continue;
    }
    const message = frame.json;
    assert.doesNotThrow(() => parseServerMessage(JSON.stringify(message)), `off-protocol: ${shown}`);
    const turn = message['turn'];
    if (typeof turn === 'number') {
      assert.ok(turn >= 1 && turn <= turns, `turn ${turn} of ${turns} sent: ${shown}`);
      assert.ok(!ended.has(turn), `a frame of turn ${turn} after its turn_end: ${shown}`);
    }
    if (message['type'] === 'turn_end') ended.set(turn as number, index);
    if (message['type'] === 'audio') {
      const messageId = message['messageId'] as number;
      assert.ok(messageId > lastMessageId, `message ids go up: ${shown}`);
      lastMessageId = messageId;
      if (whole) assert.equal(frames[index + 1]?.kind, 'binary', `half a pair: ${shown}`);
    }
  }
  if (whole) assert.equal(ended.size, turns, `every turn ends once: ${shown}`);
};

// The protocol is what is fuzzed, at any pace: the inbound budget, which would close a session for its pace
// (its own tests: inbound-budgets.test.ts on src/actors/budgets.ts, ws-flood.test.ts), is lifted.
const UNBUDGETED = {
  ws_frames_per_second: '100000',
  ws_bytes_per_second: String(1024 * 1024 * 1024),
  ws_total_frame_rate: '10000000',
  ws_total_byte_rate: String(64 * 1024 * 1024 * 1024),
};

const configurations = [
  {
    name: '/chat service, 2 ms latency',
    start: () =>
      startSimService(
        { latencyMs: 2 },
        { max_audio_frame_bytes: String(MAX_AUDIO_FRAME_BYTES), ...UNBUDGETED },
      ),
  },
  {
    name: 'Converse action, 3 parts 2 ms apart',
    start: () =>
      startSimService(
        { chatParts: 3, partMs: 2 },
        { chat_interface: 'action', max_audio_frame_bytes: String(MAX_AUDIO_FRAME_BYTES), ...UNBUDGETED },
      ),
  },
] as const;

for (const configuration of configurations) {
  describe(`/ws fuzz: a kiosk's frames in any order and pace (${configuration.name})`, () => {
    let running: TestService;
    before(async () => {
      running = await configuration.start();
    });
    after(async () => {
      await running.stop();
    });

    it('keeps the protocol for every sequence, and leaves nothing behind', async () => {
      await fc.assert(
        fc.asyncProperty(session, async ({ steps, oversizedLast }) => {
          // Each session starts with the microphone on, whatever an earlier (or failed) case left.
          const enabled = await sendJson(running.baseUrl, 'POST', '/sim/microphone', { enabled: true });
          assert.equal(enabled.status, 200);
          const kiosk = await KioskClient.connect(running.wsUrl);
          await kiosk.frameCount(1);
          let turns = 0;
          let texts = 0;
          for (const next of steps) {
            if (next.kind === 'pause') await sleep(next.ms);
            else if (next.kind === 'microphone') {
              const switched = await sendJson(running.baseUrl, 'POST', '/sim/microphone', {
                enabled: next.enabled,
              });
              assert.equal(switched.status, 200);
            } else if (next.kind === 'playAudio') {
              const published = await sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
                emotion: 'happy',
                text: 'Look over there!',
                audio: Buffer.alloc(next.bytes, 1).toString('base64'),
              });
              assert.equal(published.status, 200);
            } else if (next.kind === 'text') {
              kiosk.socket.send(next.text);
              texts += 1;
            } else {
              kiosk.socket.send(Buffer.alloc(next.bytes, turns & 0xff));
              turns += 1;
            }
          }
          if (oversizedLast) {
            kiosk.socket.send(Buffer.alloc(MAX_AUDIO_FRAME_BYTES + 1));
            const close = await kiosk.closed();
            assert.equal(close.code, CLOSE_CODES.binaryFrameTooLarge.code);
            assertProtocolKept(kiosk.frames, turns, false);
          } else {
            await kiosk.until(
              () => turnEnds(kiosk.texts()) === turns && commandAnswers(kiosk.texts()) === texts,
              `${turns} turn_end and ${texts} answers`,
            );
            assert.equal(kiosk.closeEvent, undefined, 'the server kept the session');
            assertProtocolKept(kiosk.frames, turns, true);
            kiosk.close();
            await kiosk.closed();
          }
        }),
        { numRuns: fuzzRuns(20) },
      );
      // Nothing is left: no session, subscription, call or audio held; the server still serves.
      assert.deepEqual(await settledGauges(running), NO_LEAKS);
      assert.equal((await request(running.baseUrl, 'GET', '/health')).status, 200);
    });
  });
}
