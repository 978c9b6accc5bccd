import assert from 'node:assert/strict';
import { callTimeouts } from '../support/port-calls.js';
import { describe, it } from 'node:test';
import {
  readAudioFrame,
  createMessageIdAllocator,
  encodeAudioPair,
  turnEndFrame,
  type AudioPairFrame,
  type OutboundFrame,
  CLOSE_CODES,
  DEFAULT_LIMITS,
  utteranceAudioMs,
  type ConversationLimits,
} from '../../src/protocol/ws/index.js';
import { Subject, VirtualAction, VirtualTimeScheduler, asyncScheduler, type SchedulerLike } from 'rxjs';
import { startSessionActor, type SessionActor } from '../../src/actors/session/session.js';
import { RosServiceUnavailableError, RosTimeoutError } from '../../src/ros/port/ros-port.js';
import {
  createConversationGauges,
  readGauges as readConversationGauges,
} from '../../src/actors/conversation-gauges.js';
import { byteBudget } from '../../src/actors/budgets.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { NO_LEAKS } from '../support/conversation-gauges.js';
import { audioOf, fakeMicrophone, FakeConversationPort } from '../support/conversation-fakes.js';

interface HarnessOptions {
  readonly limits?: Partial<ConversationLimits>;
  readonly microphoneEnabled?: boolean;
  readonly scheduler?: SchedulerLike;
  readonly send?: (frame: OutboundFrame) => void;
  readonly batch?: (writes: () => void) => void;
  readonly bufferedBytes?: () => number;
}

const openSession = (options: HarnessOptions = {}) => {
  const port = new FakeConversationPort();
  const frames: OutboundFrame[] = [];
  const conversationGauges = createConversationGauges();
  const microphone = fakeMicrophone(options.microphoneEnabled ?? true);
  const playAudio = new Subject<AudioPairFrame>();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // The real call wrapper over the fake port: the session's calls get their time-outs there.
  const calls = createRosCalls({
    port,
    timeoutsMs: callTimeouts(limits.chatTimeoutMs, limits.clearHistoryTimeoutMs),
    scheduler: options.scheduler ?? asyncScheduler,
  });
  const actor: SessionActor = startSessionActor({
    calls,
    speech: port.speech(),
    utterancePrefix: 'test-1',
    messageIds: createMessageIdAllocator(100),
    playAudioPairs$: playAudio,
    microphone,
    limits,
    gauges: conversationGauges,
    audioBudget: byteBudget(conversationGauges.queuedAudioBytes, limits.maxQueuedAudioBytes),
    ...(options.batch === undefined ? {} : { batch: options.batch }),
    ...(options.bufferedBytes === undefined ? {} : { bufferedBytes: options.bufferedBytes }),
    send:
      options.send ??
      ((frame) => {
        frames.push(frame);
      }),
  });
  const gauges = { conversationGauges, calls };
  return { port, frames, gauges, microphone, playAudio, actor };
};

const readGauges = ({ conversationGauges, calls }: ReturnType<typeof openSession>['gauges']) =>
  readConversationGauges(conversationGauges, calls);

const readBinary = (fragments: readonly Uint8Array[]) => {
  const read = readAudioFrame(Uint8Array.from(Buffer.concat(fragments)).buffer);
  return read && { messageId: read.messageId, audio: new Uint8Array(read.audio) };
};

/** Frames in a form that reads well in assertions. */
const summary = (frame: OutboundFrame): unknown => {
  switch (frame.kind) {
    case 'text':
      return JSON.parse(frame.text) as unknown;
    case 'pair':
      // The binary frame as the client reassembles it from its fragments and reads it.
      return { meta: JSON.parse(frame.meta) as unknown, binary: readBinary(frame.binary) };
    case 'close':
      return { close: frame.code, reason: frame.reason };
  }
};
const summaries = (frames: readonly OutboundFrame[]): unknown[] => frames.map(summary);

const answer = { emotion: 'happy', text: 'Hello!', audio: audioOf(4, 5) };
const stateFrame = (enabled: boolean) => ({
  type: 'state',
  emotion: 'neutral',
  text: '',
  microphone: { enabled },
  limits: { utteranceMs: utteranceAudioMs(DEFAULT_LIMITS.maxBinaryFrameBytes) },
});

describe('session machine', () => {
  it('sends the initial state, with the microphone state, before anything else', () => {
    const { frames, actor } = openSession({ microphoneEnabled: false });
    assert.deepEqual(summaries(frames), [stateFrame(false)]);
    actor.stop();
  });

  it('forwards an audio frame to /chat and answers with one pair of turn 1, then turn_end', () => {
    const { port, frames, actor } = openSession();
    actor.send({ type: 'ws.binary', data: audioOf(1, 2, 3) });
    assert.equal(port.calls.length, 1);
    assert.equal(port.callAt(0).service, 'chat');
    assert.deepEqual(port.callAt(0).request, { audio: audioOf(1, 2, 3) });
    port.callAt(0).respond(answer);
    assert.deepEqual(frames.slice(1), [encodeAudioPair(100, answer, 1), turnEndFrame(1, 'answered')]);
    assert.deepEqual(summaries(frames.slice(1)), [
      {
        meta: { type: 'audio', emotion: 'happy', text: 'Hello!', messageId: 100, turn: 1 },
        binary: { messageId: 100, audio: audioOf(4, 5) },
      },
      { type: 'turn_end', turn: 1, outcome: 'answered' },
    ]);
    actor.stop();
  });

  it("writes a turn's last pair and its turn_end, a refusal and its turn_end, a cancel's frames, each as one batch", () => {
    const batches: string[][] = [];
    let current: string[] | undefined;
    const frames: OutboundFrame[] = [];
    const { port, actor } = openSession({
      limits: { maxWaitingCalls: 1 },
      send: (frame) => {
        frames.push(frame);
        current?.push(frame.kind === 'text' ? frame.message.type : frame.kind);
      },
      batch: (writes) => {
        current = [];
        writes();
        batches.push(current);
        current = undefined;
      },
    });
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    port.callAt(0).respond(answer);
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    actor.send({ type: 'ws.binary', data: audioOf(3) });
    actor.send({ type: 'ws.binary', data: audioOf(4) }); // busy
    actor.send({ type: 'ws.text', data: '{"service":"cancel"}' });
    assert.deepEqual(batches, [
      ['pair', 'turn_end'],
      ['error', 'turn_end'],
      ['turn_end', 'turn_end', 'ack'],
    ]);
    assert.equal(frames.length, 1 + 7, 'every frame went out in a batch, the state frame before');
    actor.stop();
  });

  it('answers the audio frames of one session in arrival order, one call at a time', () => {
    const { port, frames, actor } = openSession();
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    assert.equal(port.calls.length, 1, 'second call waits');
    port.callAt(0).respond({ ...answer, text: 'one' });
    assert.equal(port.calls.length, 2);
    assert.deepEqual(port.callAt(1).request, { audio: audioOf(2) });
    port.callAt(1).respond({ ...answer, text: 'two' });
    const texts = frames.slice(1).map((frame) => {
      if (frame.kind === 'pair') return (JSON.parse(frame.meta) as { text: string }).text;
      return frame.kind === 'text' ? frame.text : frame.kind;
    });
    assert.deepEqual(texts, [
      'one',
      '{"type":"turn_end","turn":1,"outcome":"answered"}',
      'two',
      '{"type":"turn_end","turn":2,"outcome":"answered"}',
    ]);
    actor.stop();
  });

  it('answers busy when the queue is full, without queueing the frame', () => {
    const { port, frames, actor } = openSession({ limits: { maxWaitingCalls: 1 } });
    for (const byte of [1, 2, 3]) actor.send({ type: 'ws.binary', data: audioOf(byte) });
    assert.deepEqual(summaries(frames.slice(1)), [
      { type: 'error', code: 'busy', message: '1 call running and 1 waiting; chat dropped', turn: 3 },
      { type: 'turn_end', turn: 3, outcome: 'refused' },
    ]);
    port.callAt(0).respond(answer);
    port.callAt(1).respond(answer);
    assert.equal(port.calls.length, 2, 'the busy frame never reached /chat');
    actor.stop();
  });

  it('does not forward audio while the microphone is disabled, and tells the session about changes', () => {
    const { port, frames, microphone, actor } = openSession();
    microphone.state.next(false);
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    microphone.state.next(true);
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    assert.deepEqual(summaries(frames.slice(1)), [
      { type: 'microphone', enabled: false },
      {
        type: 'error',
        code: 'microphone_disabled',
        message:
          'The microphone is disabled (/microphone/set_enabled); the audio frame was not forwarded to /chat.',
        turn: 1,
      },
      { type: 'turn_end', turn: 1, outcome: 'refused' },
      { type: 'microphone', enabled: true },
    ]);
    assert.equal(port.calls.length, 1);
    assert.deepEqual(port.callAt(0).request, { audio: audioOf(2) });
    actor.stop();
  });

  it('acknowledges clear_history', () => {
    const { port, frames, actor } = openSession();
    actor.send({ type: 'ws.text', data: '{"service":"clear_history"}' });
    assert.equal(port.callAt(0).service, 'clear_history');
    port.callAt(0).respond({});
    assert.deepEqual(summaries(frames.slice(1)), [{ type: 'ack', service: 'clear_history' }]);
    actor.stop();
  });

  it('reports a failed clear_history as an error frame and stays open', () => {
    const { port, frames, actor } = openSession();
    actor.send({ type: 'ws.text', data: new TextEncoder().encode('{"service":"clear_history"}') });
    const error = new RosServiceUnavailableError('clear_history');
    port.callAt(0).fail(error);
    assert.deepEqual(summaries(frames.slice(1)), [
      { type: 'error', code: 'clear_history_unavailable', message: error.message },
    ]);
    assert.equal(actor.getSnapshot().status, 'active');
    actor.send({ type: 'ws.text', data: '{"service":"clear_history"}' });
    assert.equal(port.calls.length, 2);
    actor.stop();
  });

  it('answers invalid text frames with error frames and stays open', () => {
    const { port, frames, actor } = openSession({ limits: { maxTextFrameBytes: 64 } });
    const inputs = ['{nope', '{"service":"reboot"}', '{"service":"clear_history","x":1}', ' '.repeat(65)];
    for (const data of inputs) actor.send({ type: 'ws.text', data });
    assert.deepEqual(
      frames.slice(1).map((frame) => (summary(frame) as { code: string }).code),
      ['invalid_json', 'unknown_service', 'invalid_command', 'text_frame_too_large'],
    );
    assert.ok(frames[3]?.kind === 'text' && frames[3].text.includes('unknown field \\"x\\"'));
    assert.equal(port.calls.length, 0);
    assert.equal(actor.getSnapshot().status, 'active');
    actor.stop();
  });

  it('closes with 1009 on a binary frame over the limit, without calling /chat', () => {
    const { port, frames, gauges, actor } = openSession({ limits: { maxBinaryFrameBytes: 3 } });
    actor.send({ type: 'ws.binary', data: audioOf(1, 2, 3, 4) });
    assert.deepEqual(summaries(frames.slice(1)), [
      { close: 1009, reason: CLOSE_CODES.binaryFrameTooLarge.reason },
    ]);
    assert.equal(actor.getSnapshot().status, 'done');
    assert.equal(port.calls.length, 0);
    assert.deepEqual(readGauges(gauges), NO_LEAKS);
  });

  it('pushes play-audio pairs as they come, the very same frame object, on the next write turn', async () => {
    const { frames, playAudio, actor } = openSession();
    const pair = encodeAudioPair(7, answer);
    playAudio.next(pair);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(frames[1], pair);
    actor.stop();
  });

  it('times out a chat call with chat_timeout, drops the late answer and starts the next call', () => {
    // Virtual time runs up to 60 s: the first call's time-out fires, the second call's (at 120 s) does not.
    const scheduler = new VirtualTimeScheduler(VirtualAction, 60_000);
    const { port, frames, actor } = openSession({ scheduler, limits: { chatTimeoutMs: 60_000 } });
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    scheduler.flush();
    assert.equal(port.callAt(0).unsubscribed, true);
    assert.equal(port.calls.length, 2, 'the next call started after the time-out');
    port.callAt(0).respond(answer);
    port.callAt(1).respond({ ...answer, text: 'second' });
    assert.deepEqual(summaries(frames.slice(1)), [
      { type: 'error', code: 'chat_timeout', message: new RosTimeoutError('chat', 60_000).message, turn: 1 },
      { type: 'turn_end', turn: 1, outcome: 'failed' },
      {
        meta: { type: 'audio', emotion: 'happy', text: 'second', messageId: 100, turn: 2 },
        binary: { messageId: 100, audio: audioOf(4, 5) },
      },
      { type: 'turn_end', turn: 2, outcome: 'answered' },
    ]);
    actor.stop();
  });

  for (const [label, end] of [
    [
      'actor.stop()',
      (actor: SessionActor) => {
        actor.stop();
      },
    ],
    [
      'ws.closed',
      (actor: SessionActor) => {
        actor.send({ type: 'ws.closed' });
      },
    ],
  ] as const) {
    it(`${label} mid-chat unsubscribes the port call, sends nothing afterwards and leaves nothing behind`, () => {
      const { port, frames, gauges, microphone, playAudio, actor } = openSession();
      actor.send({ type: 'ws.binary', data: audioOf(1) });
      actor.send({ type: 'ws.binary', data: audioOf(2) });
      assert.deepEqual(readGauges(gauges), {
        liveSessions: 1,
        openSubscriptions: 2,
        inFlightRosCalls: 1,
        queuedAudioBytes: 2,
      });
      const sentBeforeStop = frames.length;

      end(actor);

      assert.equal(port.callAt(0).unsubscribed, true);
      assert.deepEqual(readGauges(gauges), NO_LEAKS);
      assert.equal(microphone.state.observed, false);
      assert.equal(playAudio.observed, false);
      port.callAt(0).respond(answer);
      playAudio.next(encodeAudioPair(1, answer));
      microphone.state.next(false);
      actor.send({ type: 'ws.binary', data: audioOf(3) });
      assert.equal(frames.length, sentBeforeStop);
      assert.equal(port.calls.length, 1, 'the waiting call never started');
    });
  }

  it('closes with 1001 on server shutdown', () => {
    const { frames, gauges, actor } = openSession();
    actor.send({ type: 'server.shutdown' });
    assert.deepEqual(summary(frames.at(-1)!), { close: 1001, reason: CLOSE_CODES.goingAway.reason });
    assert.equal(actor.getSnapshot().status, 'done');
    assert.deepEqual(readGauges(gauges), NO_LEAKS);
  });

  it('closes with 1008 when the transport reports a send buffer over the limit', () => {
    const { frames, actor } = openSession({ limits: { maxSendBufferBytes: 1_000 } });
    actor.send({ type: 'ws.buffered', bytes: 1_000 });
    assert.equal(actor.getSnapshot().status, 'active');
    actor.send({ type: 'ws.buffered', bytes: 1_001 });
    assert.deepEqual(summary(frames.at(-1)!), { close: 1008, reason: CLOSE_CODES.sendBufferExceeded.reason });
    assert.equal(actor.getSnapshot().status, 'done');
  });

  it('closes with 1008 when its own write leaves more than the limit waiting, with no report from the transport', () => {
    // The socket's send buffer as the transport would read it: every frame written stays there.
    let waiting = 0;
    const frames: OutboundFrame[] = [];
    const { port, gauges, actor } = openSession({
      limits: { maxSendBufferBytes: 1_000 },
      bufferedBytes: () => waiting,
      send: (frame) => {
        frames.push(frame);
        if (frame.kind === 'pair') waiting += frame.binary.reduce((sum, part) => sum + part.byteLength, 0);
      },
    });
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    port.callAt(0).respond({ ...answer, audio: new Uint8Array(900) });
    assert.equal(actor.getSnapshot().status, 'active', '904 bytes waiting: under the limit');
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    port.callAt(1).respond({ ...answer, audio: new Uint8Array(200) });
    assert.deepEqual(summary(frames.at(-1)!), { close: 1008, reason: CLOSE_CODES.sendBufferExceeded.reason });
    assert.equal(
      frames.filter((frame) => frame.kind === 'text' && frame.text.includes('"turn_end"')).length,
      1,
      'the second turn_end is not written to a reader already too far behind',
    );
    assert.equal(actor.getSnapshot().status, 'done');
    assert.deepEqual(readGauges(gauges), NO_LEAKS);
  });

  it('ends the session, leaking nothing, when sending throws', () => {
    let sends = 0;
    const { port, gauges, actor } = openSession({
      send: () => {
        sends += 1;
        if (sends > 1) throw new Error('socket gone');
      },
    });
    actor.send({ type: 'ws.binary', data: audioOf(1) });
    actor.send({ type: 'ws.binary', data: audioOf(2) });
    port.callAt(0).respond(answer);
    assert.equal(actor.getSnapshot().status, 'done');
    assert.deepEqual(readGauges(gauges), NO_LEAKS);
    assert.equal(port.calls.length, 1, 'the waiting call never started');
  });

  it('closes with 1011 when one of its streams fails', () => {
    const { frames, gauges, playAudio, actor } = openSession();
    playAudio.error(new Error('broken stream'));
    assert.deepEqual(summary(frames.at(-1)!), { close: 1011, reason: CLOSE_CODES.internalError.reason });
    assert.equal(actor.getSnapshot().status, 'done');
    assert.deepEqual(readGauges(gauges), NO_LEAKS);
  });
});
