import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject } from 'rxjs';
import { startSessionActor } from '../../src/actors/session/session.js';
import { createConversationGauges, readGauges } from '../../src/actors/conversation-gauges.js';
import { byteBudget } from '../../src/actors/budgets.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { UtteranceEvent } from '../../src/ros/port/ros-messages.js';
import {
  createMessageIdAllocator,
  type AudioPairFrame,
  type OutboundFrame,
  DEFAULT_LIMITS,
  type ConversationLimits,
  encodePartFrame,
  WAV_HEADER_BYTES,
} from '../../src/protocol/ws/index.js';
import { NO_LEAKS } from '../support/conversation-gauges.js';
import { audioOf, fakeMicrophone, FakeConversationPort } from '../support/conversation-fakes.js';
import { callTimeouts } from '../support/port-calls.js';

/** A session over the fake port with `/chat` (its request shows what a robot without streaming gets). */
const openSession = (limits: Partial<ConversationLimits> = {}, microphoneEnabled = true) => {
  const port = new FakeConversationPort();
  const frames: OutboundFrame[] = [];
  const conversationGauges = createConversationGauges();
  const full = { ...DEFAULT_LIMITS, ...limits };
  const calls = createRosCalls({
    port,
    timeoutsMs: callTimeouts(full.chatTimeoutMs, full.clearHistoryTimeoutMs),
  });
  const microphone = fakeMicrophone(microphoneEnabled);
  const speech = port.speech();
  const actor = startSessionActor({
    calls,
    speech,
    utterancePrefix: 'bridge-7',
    messageIds: createMessageIdAllocator(100),
    playAudioPairs$: new Subject<AudioPairFrame>(),
    microphone,
    limits: full,
    gauges: conversationGauges,
    audioBudget: byteBudget(conversationGauges.queuedAudioBytes, full.maxQueuedAudioBytes),
    send: (frame) => {
      frames.push(frame);
    },
  });
  const command = (json: object) => {
    actor.send({ type: 'ws.text', data: JSON.stringify(json) });
  };
  const part = (turn: number, sequence: number, pcm: Uint8Array) => {
    actor.send({ type: 'ws.binary', data: encodePartFrame(turn, sequence, pcm) });
  };
  /** The text frames sent after the state frame, parsed. */
  const texts = () =>
    frames
      .slice(1)
      .filter((frame) => frame.kind === 'text')
      .map((frame) => JSON.parse(frame.text) as Record<string, unknown>);
  const gauges = () => readGauges(conversationGauges, calls);
  return { port, speech, frames, actor, command, part, texts, gauges, microphone };
};

const pcm = (bytes: number, fill = 1) => new Uint8Array(bytes).fill(fill);

/** The events published on /utterance/audio, in a form that reads well. */
const published = (port: FakeConversationPort) =>
  port.utteranceAudio.map((message) => ({
    id: message.utterance_id,
    sequence: message.sequence,
    event: message.event,
    bytes: message.audio.byteLength,
  }));

describe('session streaming', () => {
  it('passes each part to the robot at once, in order, then END; the turn calls /chat with the parts as one WAV', () => {
    const { port, frames, actor, command, part, texts } = openSession();
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320, 1));
    assert.equal(
      port.utteranceAudio.length,
      1,
      'the first part reaches the robot before the next one is sent',
    );
    part(1, 1, pcm(320, 2));
    part(1, 2, pcm(160, 3));
    assert.equal(port.calls.length, 0, 'no call before the end');
    command({ service: 'utterance_end', turn: 1, parts: 3 });
    assert.deepEqual(published(port), [
      { id: 'bridge-7-1', sequence: 0, event: UtteranceEvent.PART, bytes: 320 },
      { id: 'bridge-7-1', sequence: 1, event: UtteranceEvent.PART, bytes: 320 },
      { id: 'bridge-7-1', sequence: 2, event: UtteranceEvent.PART, bytes: 160 },
      { id: 'bridge-7-1', sequence: 3, event: UtteranceEvent.END, bytes: 0 },
    ]);
    assert.equal(port.calls.length, 1);
    const request = port.callAt(0).request as { audio: Uint8Array };
    assert.equal(request.audio.byteLength, WAV_HEADER_BYTES + 800);
    assert.equal(Buffer.from(request.audio.subarray(0, 4)).toString('ascii'), 'RIFF');
    assert.deepEqual(
      request.audio.subarray(WAV_HEADER_BYTES),
      Uint8Array.from(Buffer.concat([pcm(320, 1), pcm(320, 2), pcm(160, 3)])),
    );
    port.callAt(0).respond({ emotion: 'happy', text: 'Hi.', audio: audioOf(9) });
    const pair = frames.find((frame) => frame.kind === 'pair');
    assert.deepEqual(pair && JSON.parse(pair.meta), {
      type: 'audio',
      emotion: 'happy',
      text: 'Hi.',
      messageId: 100,
      turn: 1,
    });
    assert.deepEqual(texts(), [{ type: 'turn_end', turn: 1, outcome: 'answered' }]);
    actor.stop();
  });

  it("forwards the robot's transcripts of the open utterance to its kiosk only, until its turn ends", () => {
    const { port, actor, command, part, texts } = openSession();
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    port.transcripts.next({ utterance_id: 'bridge-7-1', text: 'where is', final: false });
    port.transcripts.next({ utterance_id: 'other-1-1', text: 'not ours', final: false });
    command({ service: 'utterance_end', turn: 1, parts: 1 });
    port.transcripts.next({ utterance_id: 'bridge-7-1', text: 'where is the exit', final: true });
    port.callAt(0).respond({ emotion: 'happy', text: 'There.', audio: audioOf(1) });
    port.transcripts.next({ utterance_id: 'bridge-7-1', text: 'too late', final: true });
    assert.deepEqual(
      texts().filter((message) => message['type'] === 'transcript'),
      [
        { type: 'transcript', turn: 1, text: 'where is', final: false },
        { type: 'transcript', turn: 1, text: 'where is the exit', final: true },
      ],
    );
    actor.stop();
  });

  it('a cancel mid-utterance abandons it: ABANDONED to the robot, turn_end cancelled, the ack', () => {
    const { port, actor, command, part, texts, gauges } = openSession();
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    part(1, 1, pcm(320));
    command({ service: 'cancel' });
    assert.deepEqual(published(port).at(-1), {
      id: 'bridge-7-1',
      sequence: 2,
      event: UtteranceEvent.ABANDONED,
      bytes: 0,
    });
    assert.deepEqual(texts(), [
      { type: 'turn_end', turn: 1, outcome: 'cancelled' },
      { type: 'ack', service: 'cancel' },
    ]);
    assert.equal(port.calls.length, 0);
    assert.deepEqual(gauges().queuedAudioBytes, 0, 'the held parts were given back');
    actor.stop();
  });

  it('a cancel while a turn runs and another utterance is open ends both, in turn order, before the ack', () => {
    const { port, actor, command, part, texts } = openSession();
    actor.send({ type: 'ws.binary', data: audioOf(1, 2) }); // turn 1, whole: the session does not stream yet
    command({ service: 'utterance_start' }); // turn 2
    part(2, 0, pcm(320));
    command({ service: 'cancel' });
    assert.equal(port.callAt(0).unsubscribed, true);
    assert.deepEqual(texts(), [
      { type: 'turn_end', turn: 1, outcome: 'cancelled' },
      { type: 'turn_end', turn: 2, outcome: 'cancelled' },
      { type: 'ack', service: 'cancel' },
    ]);
    actor.stop();
  });

  it('a disconnect mid-utterance tells the robot it was abandoned', () => {
    const { port, actor, command, part } = openSession();
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    actor.send({ type: 'ws.closed' });
    assert.deepEqual(published(port).at(-1), {
      id: 'bridge-7-1',
      sequence: 1,
      event: UtteranceEvent.ABANDONED,
      bytes: 0,
    });
  });

  it('bad parts: out of order, too large, faster than real time, an end with another count each abandon it with their error', () => {
    const cases: {
      readonly name: string;
      readonly limits?: Partial<ConversationLimits>;
      readonly act: (session: ReturnType<typeof openSession>) => void;
      readonly code: string;
    }[] = [
      {
        name: 'out of order',
        act: ({ part }) => {
          part(1, 1, pcm(320));
        },
        code: 'part_out_of_order',
      },
      {
        name: 'part too large',
        limits: { maxPartBytes: 1024 },
        act: ({ part }) => {
          part(1, 0, pcm(1025));
        },
        code: 'part_too_large',
      },
      {
        name: 'utterance too large',
        limits: { maxBinaryFrameBytes: 1000 },
        act: ({ part }) => {
          part(1, 0, pcm(600));
          part(1, 1, pcm(600));
        },
        code: 'utterance_too_large',
      },
      {
        name: 'faster than real time',
        // 3 × 30,000 bytes is 2.8 s of audio, sent at once: beyond the 2 s lead.
        act: ({ part }) => {
          part(1, 0, pcm(30_000));
          part(1, 1, pcm(30_000));
          part(1, 2, pcm(30_000));
        },
        code: 'utterance_too_fast',
      },
      {
        name: 'end with another count',
        act: ({ part, command }) => {
          part(1, 0, pcm(320));
          command({ service: 'utterance_end', turn: 1, parts: 2 });
        },
        code: 'utterance_incomplete',
      },
    ];
    for (const { name, limits, act, code } of cases) {
      const session = openSession(limits);
      session.command({ service: 'utterance_start' });
      act(session);
      const texts = session.texts();
      assert.deepEqual(
        texts.map((message) => [message['type'], message['code'] ?? message['outcome'], message['turn']]),
        [
          ['error', code, 1],
          ['turn_end', 'abandoned', 1],
        ],
        name,
      );
      assert.equal(session.port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED, name);
      assert.equal(session.port.calls.length, 0, name);
      assert.equal(session.gauges().queuedAudioBytes, 0, name);
      // The session goes on: the next utterance is turn 2.
      session.command({ service: 'utterance_start' });
      session.part(2, 0, pcm(320));
      session.command({ service: 'utterance_end', turn: 2, parts: 1 });
      assert.equal(session.port.calls.length, 1, `${name}: the next utterance is answered`);
      session.actor.stop();
    }
  });

  it('frames naming no open utterance are dropped with part_invalid; a second start is refused, the open one goes on', () => {
    const { port, actor, command, part, texts } = openSession();
    command({ service: 'utterance_start' });
    part(7, 0, pcm(320));
    actor.send({ type: 'ws.binary', data: audioOf(1, 2, 3) }); // shorter than the header
    command({ service: 'utterance_start' }); // turn 2, refused
    part(1, 0, pcm(320));
    command({ service: 'utterance_end', turn: 1, parts: 1 });
    part(1, 1, pcm(320)); // after its end
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome'], message['turn']]),
      [
        ['error', 'part_invalid', undefined],
        ['error', 'part_invalid', undefined],
        ['error', 'utterance_open', 2],
        ['turn_end', 'refused', 2],
        ['error', 'part_invalid', undefined],
      ],
    );
    assert.equal(port.calls.length, 1, 'utterance 1 was answered');
    actor.stop();
  });

  it('an open utterance with no part for utteranceStallMs is abandoned', async () => {
    const { port, actor, command, part, texts } = openSession({ utteranceStallMs: 40 });
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    await new Promise((resolve) => setTimeout(resolve, 25));
    part(1, 1, pcm(320)); // restarts the wait
    await new Promise((resolve) => setTimeout(resolve, 25));
    assert.deepEqual(texts(), [], 'each part restarts the wait');
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome']]),
      [
        ['error', 'utterance_stalled'],
        ['turn_end', 'abandoned'],
      ],
    );
    assert.equal(port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED);
    actor.stop();
  });

  it('disabling the microphone abandons the open utterance at once: ABANDONED, the error, nothing after it heard', () => {
    const { port, actor, command, part, texts, microphone } = openSession();
    // Turn 1 ended before the switch: still answered, as a whole frame that came before it is.
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    command({ service: 'utterance_end', turn: 1, parts: 1 });
    command({ service: 'utterance_start' });
    part(2, 0, pcm(320));
    microphone.state.next(false);
    const afterMute = port.utteranceAudio.length;
    part(2, 1, pcm(320));
    command({ service: 'utterance_end', turn: 2, parts: 2 });
    assert.equal(port.utteranceAudio.length, afterMute, 'nothing after the switch reaches the robot');
    assert.deepEqual(published(port).slice(2), [
      { id: 'bridge-7-2', sequence: 0, event: UtteranceEvent.PART, bytes: 320 },
      { id: 'bridge-7-2', sequence: 1, event: UtteranceEvent.ABANDONED, bytes: 0 },
    ]);
    assert.deepEqual(
      texts().map((message) => [
        message['type'],
        message['code'] ?? message['outcome'] ?? message['enabled'],
        message['turn'],
      ]),
      [
        ['microphone', false, undefined],
        ['error', 'microphone_disabled', 2],
        ['turn_end', 'abandoned', 2],
        ['error', 'part_invalid', undefined],
        ['error', 'part_invalid', undefined],
      ],
    );
    assert.equal(port.calls.length, 1, 'only turn 1 calls /chat');
    port.callAt(0).respond({ emotion: 'happy', text: 'Hi.', audio: audioOf(9) });
    assert.deepEqual(texts().at(-1), { type: 'turn_end', turn: 1, outcome: 'answered' });
    actor.stop();
  });

  it('empty parts do not keep an utterance open: the stall wait runs on through them', async () => {
    const { port, actor, command, part, texts } = openSession({ utteranceStallMs: 60 });
    command({ service: 'utterance_start' });
    part(1, 0, pcm(320));
    for (let sequence = 1; sequence <= 8; sequence += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (texts().length > 0) break;
      part(1, sequence, new Uint8Array(0));
    }
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome']]),
      [
        ['error', 'utterance_stalled'],
        ['turn_end', 'abandoned'],
      ],
    );
    assert.equal(port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED);
    actor.stop();
  });

  it('a stream that falls behind real time by maxStreamLagMs is abandoned, though parts keep coming', async () => {
    const { port, actor, command, part, texts } = openSession({
      utteranceStallMs: 10_000,
      maxStreamLagMs: 100,
    });
    command({ service: 'utterance_start' });
    // 2 bytes (1/16 ms of audio) every 20 ms: each part moves the stall wait on, none keeps up with the clock.
    for (let sequence = 0; sequence < 40 && texts().length === 0; sequence += 1) {
      part(1, sequence, pcm(2));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome']]),
      [
        ['error', 'utterance_too_slow'],
        ['turn_end', 'abandoned'],
      ],
    );
    assert.equal(port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED);
    actor.stop();
  });

  it('an utterance open past maxUtteranceMs is abandoned, however well it streams', async () => {
    const { port, actor, command, part, texts } = openSession({ maxUtteranceMs: 150 });
    command({ service: 'utterance_start' });
    // 20 ms of audio every 20 ms: in step with the clock, never stalled.
    for (let sequence = 0; sequence < 50 && texts().length === 0; sequence += 1) {
      part(1, sequence, pcm(640));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome']]),
      [
        ['error', 'utterance_too_long'],
        ['turn_end', 'abandoned'],
      ],
    );
    assert.equal(port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED);
    actor.stop();
  });

  it('a part of an odd number of audio bytes abandons the utterance; a frame shorter than a header is named by its size', () => {
    const { port, actor, command, part, texts } = openSession();
    command({ service: 'utterance_start' });
    actor.send({ type: 'ws.binary', data: audioOf(1, 2, 3) });
    part(1, 0, pcm(320));
    part(1, 1, pcm(321));
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome'], message['turn']]),
      [
        ['error', 'part_invalid', undefined],
        ['error', 'part_odd_length', 1],
        ['turn_end', 'abandoned', 1],
      ],
    );
    assert.match(String(texts()[0]?.['message']), /^binary frame of 3 bytes is shorter than the part header/);
    assert.match(String(texts()[1]?.['message']), /321 bytes/);
    assert.equal(port.utteranceAudio.at(-1)?.event, UtteranceEvent.ABANDONED);
    actor.stop();
  });

  it('a start while the microphone is disabled is refused like a whole frame', () => {
    const { port, actor, command, texts } = openSession({}, false);
    command({ service: 'utterance_start' });
    assert.deepEqual(
      texts().map((message) => [message['type'], message['code'] ?? message['outcome'], message['turn']]),
      [
        ['error', 'microphone_disabled', 1],
        ['turn_end', 'refused', 1],
      ],
    );
    assert.equal(port.utteranceAudio.length, 0);
    actor.stop();
  });

  it('tells the robot how much of an interrupted answer was heard; a report about anything else is heard_invalid', () => {
    const { port, actor, texts } = openSession();
    actor.send({ type: 'ws.binary', data: audioOf(1, 2) });
    port
      .callAt(0)
      .respond({ emotion: 'happy', text: 'The exit is on your left, past the whales.', audio: audioOf(1) });
    actor.send({
      type: 'ws.text',
      data: JSON.stringify({
        service: 'heard',
        turn: 1,
        playedMs: 900,
        messageId: 100,
        partPlayedMs: 900,
        partMs: 2000,
      }),
    });
    assert.deepEqual(port.heard, [
      { utterance_id: 'bridge-7-1', played_ms: 900, heard_text: 'The exit is on' },
    ]);
    actor.send({
      type: 'ws.text',
      data: JSON.stringify({
        service: 'heard',
        turn: 1,
        playedMs: 900,
        messageId: 101,
        partPlayedMs: 0,
        partMs: 10,
      }),
    });
    assert.equal(port.heard.length, 1);
    assert.equal(texts().at(-1)?.['code'], 'heard_invalid');
    actor.stop();
  });

  it('after a storm of abandoned utterances, nothing is held', () => {
    const { port, speech, actor, command, part, gauges } = openSession();
    for (let turn = 1; turn <= 50; turn += 1) {
      command({ service: 'utterance_start' });
      part(turn, 0, pcm(320));
      command({ service: 'cancel' });
    }
    assert.equal(
      port.utteranceAudio.filter((message) => message.event === UtteranceEvent.ABANDONED).length,
      50,
    );
    assert.equal(speech.followed, 0, 'no transcripts followed');
    actor.stop();
    assert.deepEqual(gauges(), NO_LEAKS);
  });
});
