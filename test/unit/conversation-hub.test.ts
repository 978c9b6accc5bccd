import assert from 'node:assert/strict';
import { callTimeouts } from '../support/port-calls.js';
import { describe, it } from 'node:test';
import { Observable, Subject, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { createConversationHub, type ConversationHubOptions } from '../../src/actors/conversation-hub.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { isMicrophoneEnabled, MICROPHONE_MESSAGES } from '../../src/actors/microphone-machine.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import { RosServiceUnavailableError } from '../../src/ros/port/ros-port.js';
import { createMessageIdAllocator, type OutboundFrame, DEFAULT_LIMITS } from '../../src/protocol/ws/index.js';
import { NO_LEAKS } from '../support/conversation-gauges.js';
import {
  audioOf,
  FakeConversationPort,
  keeperTurn,
  type ConversationPortLike,
} from '../support/conversation-fakes.js';

const collect = () => {
  const frames: OutboundFrame[] = [];
  return { frames, send: (frame: OutboundFrame) => void frames.push(frame) };
};
const textsOf = (frames: readonly OutboundFrame[]): unknown[] =>
  frames.flatMap((frame) => (frame.kind === 'text' ? [JSON.parse(frame.text) as unknown] : []));

type PortLike = ConversationPortLike;

/** A hub over `port` with the real call wrapper (time-outs from the limits, on the hub's scheduler). */
const hubOver = (port: PortLike, options: Omit<ConversationHubOptions, 'calls' | 'port'> = {}) => {
  const chat = options.limits?.chatTimeoutMs ?? DEFAULT_LIMITS.chatTimeoutMs;
  const other = options.limits?.clearHistoryTimeoutMs ?? DEFAULT_LIMITS.clearHistoryTimeoutMs;
  const calls = createRosCalls({
    port,
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    timeoutsMs: callTimeouts(chat, other),
  });
  // Delivery turns synchronous unless a test says otherwise: the buffer's own turns are tested in
  // play-audio-buffer.test.ts.
  return createConversationHub({
    schedulePlayAudio: (task) => {
      task();
    },
    ...options,
    port,
    calls,
  });
};

const message: PlayAudioMsg = { emotion: 'happy', text: 'This way', audio: audioOf(1, 2) };

/** The next event-loop turn: `/play_audio` pairs are written to the sockets on the outbound scheduler's turns. */
const writeTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('conversation hub', () => {
  it('pushes each /play_audio message to every session as the same pair, one id per message', async () => {
    const port = new FakeConversationPort();
    const hub = hubOver(port, { messageIds: createMessageIdAllocator(9) });
    const clients = [collect(), collect(), collect()];
    for (const client of clients) hub.openSession(client.send);

    port.playAudio.next(message);
    port.playAudio.next({ ...message, text: 'Next room' });
    await writeTurn();

    const [reference, ...others] = clients.map((client) =>
      client.frames.filter((frame) => frame.kind === 'pair'),
    );
    assert.deepEqual(
      reference?.map((pair) => pair.messageId),
      [9, 10],
    );
    assert.equal(others.length, 2);
    for (const list of others) {
      assert.equal(list.length, 2);
      assert.equal(list[0], reference[0]);
      assert.equal(list[1], reference[1]);
    }
    hub.close();
  });

  it('drops /play_audio past --play_audio_buffer_bytes, telling playAudioDropped, and delivers the rest in order', async () => {
    const port = new FakeConversationPort();
    const turns: (() => void)[] = [];
    // The newest, 'three', is dropped (all three are 2 bytes): delivered are 'one' and 'two'.
    const dropped: unknown[][] = [];
    const hub = hubOver(port, {
      playAudioBufferBytes: 4,
      schedulePlayAudio: (task) => turns.push(task),
      playAudioDropped: (...drop) => dropped.push(drop),
    });
    const frames: OutboundFrame[] = [];
    hub.openSession((frame) => frames.push(frame));
    for (const text of ['one', 'two', 'three']) port.playAudio.next({ ...message, text });
    for (let index = 0; index < 10 && turns.length > 0; index += 1) turns.shift()?.();
    await writeTurn();
    assert.deepEqual(dropped, [['buffer_full', 1, 2]]);
    assert.deepEqual(
      frames.flatMap((frame) =>
        frame.kind === 'pair' ? [(JSON.parse(frame.meta) as { text: string }).text] : [],
      ),
      ['one', 'two'],
    );
    hub.close();
  });

  it('shares the id allocator between chat answers and /play_audio', async () => {
    const port = new FakeConversationPort();
    const hub = hubOver(port);
    const client = collect();
    const session = hub.openSession(client.send);
    session?.send({ type: 'ws.binary', data: audioOf(1) });
    port.playAudio.next(message);
    port.callAt(0).respond({ emotion: 'calm', text: 'ok', audio: audioOf() });
    await writeTurn();
    assert.deepEqual(
      client.frames.flatMap((frame) => (frame.kind === 'pair' ? [frame.messageId] : [])),
      [0, 1],
    );
    hub.close();
  });

  it('answers every microphone request of a burst, tells every session each change, and gates audio', async () => {
    const port = new FakeConversationPort();
    const hub = hubOver(port);
    const first = collect();
    const second = collect();
    const session = hub.openSession(first.send);
    hub.openSession(second.send);

    const answers = [false, true, false, false].map((enabled) => port.requestMicrophone(enabled));
    // Each change is kept before it is answered (without a log, the microphone's own keeper: a promise).
    await keeperTurn();

    assert.deepEqual(
      answers.map((list) => list.map((answer) => answer.message)),
      [
        [MICROPHONE_MESSAGES.disabled],
        [MICROPHONE_MESSAGES.enabled],
        [MICROPHONE_MESSAGES.disabled],
        [MICROPHONE_MESSAGES.alreadyDisabled],
      ],
    );
    assert.equal(isMicrophoneEnabled(hub.microphone.getSnapshot()), false);
    for (const client of [first, second]) {
      assert.deepEqual(textsOf(client.frames).slice(1), [
        { type: 'microphone', enabled: false },
        { type: 'microphone', enabled: true },
        { type: 'microphone', enabled: false },
      ]);
    }
    session?.send({ type: 'ws.binary', data: audioOf(1) });
    assert.equal(port.calls.length, 0);
    assert.deepEqual(
      textsOf(first.frames)
        .slice(-2)
        .map((message) => (message as { code?: string; type: string }).code ?? message),
      ['microphone_disabled', { type: 'turn_end', turn: 1, outcome: 'refused' }],
    );

    const late = collect();
    hub.openSession(late.send);
    assert.deepEqual(textsOf(late.frames), [
      {
        type: 'state',
        emotion: 'neutral',
        text: '',
        microphone: { enabled: false },
        limits: { utteranceMs: 65_534 },
      },
    ]);
    hub.close();
  });

  it('tells onSessionEnded once per session that ends (the quiet collection after what it held)', () => {
    const port = new FakeConversationPort();
    let ended = 0;
    const hub = hubOver(port, { onSessionEnded: () => (ended += 1) });
    const first = hub.openSession(collect().send);
    const second = hub.openSession(collect().send);
    assert.equal(ended, 0);
    first?.send({ type: 'ws.closed' });
    assert.equal(ended, 1);
    second?.stop();
    assert.equal(ended, 2);
  });

  it('refuses a session beyond maxSessions with 1013', () => {
    const hub = hubOver(new FakeConversationPort(), { limits: { maxSessions: 2 } });
    const clients = [collect(), collect(), collect()];
    const sessions = clients.map((client) => hub.openSession(client.send));
    assert.equal(sessions[2], undefined);
    assert.deepEqual(clients[2]?.frames, [{ kind: 'close', code: 1013, reason: 'too many sessions' }]);
    sessions[0]?.send({ type: 'ws.closed' });
    assert.notEqual(hub.openSession(collect().send), undefined, 'a closed session frees its place');
    hub.close();
  });

  it('counts live sessions and subscriptions, and returns every gauge to 0 when sessions end', () => {
    const port = new FakeConversationPort();
    const hub = hubOver(port);
    const sessions = [collect(), collect(), collect()].map((client) => hub.openSession(client.send));
    sessions[0]?.send({ type: 'ws.binary', data: audioOf(1) });
    assert.deepEqual(hub.readGauges(), {
      liveSessions: 3,
      openSubscriptions: 6,
      inFlightRosCalls: 1,
      queuedAudioBytes: 1,
    });
    assert.equal(port.playAudio.observed, true);

    sessions[0]?.stop();
    sessions[1]?.send({ type: 'ws.closed' });
    assert.deepEqual(hub.readGauges(), {
      liveSessions: 1,
      openSubscriptions: 2,
      inFlightRosCalls: 0,
      queuedAudioBytes: 0,
    });
    sessions[2]?.stop();
    assert.deepEqual(hub.readGauges(), NO_LEAKS);
    assert.equal(port.playAudio.observed, false, 'the topic is left when nobody listens');
    hub.close();
  });

  it('holds queued audio of all sessions to maxQueuedAudioBytes: busy past it, bytes back on answer, failure, time-out and end', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const port = new FakeConversationPort();
    const hub = hubOver(port, { scheduler, limits: { maxQueuedAudioBytes: 10 } });
    const [a, b] = [collect(), collect()];
    const first = hub.openSession(a.send)!;
    const second = hub.openSession(b.send)!;
    const audio = (bytes: number) => ({ type: 'ws.binary', data: new Uint8Array(bytes) }) as const;
    const held = () => hub.readGauges().queuedAudioBytes;

    first.send(audio(4)); // call 0, running
    first.send(audio(4)); // waiting
    second.send(audio(3)); // 11 > 10: refused, although its own queue is empty
    assert.deepEqual(textsOf(b.frames).slice(1), [
      {
        type: 'error',
        code: 'busy',
        message: 'audio queued by all sessions would exceed 10 bytes; chat dropped',
        turn: 1,
      },
      { type: 'turn_end', turn: 1, outcome: 'refused' },
    ]);
    assert.equal(second.getSnapshot().status, 'active', 'busy leaves the session open');
    assert.equal(port.calls.length, 1, 'the refused frame never reached /chat');
    assert.equal(held(), 8);
    second.send(audio(2)); // fits exactly: call 1
    assert.equal(held(), 10);

    port.callAt(0).respond({ emotion: 'happy', text: 'one', audio: audioOf(1) }); // answered; call 2 starts
    assert.equal(held(), 6);
    port.callAt(1).fail(new RosServiceUnavailableError('chat')); // failed
    assert.equal(held(), 4);
    scheduler.flush(); // call 2 times out
    assert.equal((textsOf(a.frames).at(-2) as { code?: string } | undefined)?.code, 'chat_timeout');
    assert.deepEqual(textsOf(a.frames).at(-1), { type: 'turn_end', turn: 2, outcome: 'failed' });
    assert.equal(held(), 0);

    first.send(audio(5));
    second.send(audio(5));
    assert.equal(held(), 10);
    first.stop();
    second.send({ type: 'ws.closed' });
    assert.deepEqual(hub.readGauges(), NO_LEAKS);
    hub.close();
  });

  it('closes every session with 1001 on close and stops answering the microphone service', () => {
    const port = new FakeConversationPort();
    const hub = hubOver(port);
    const clients = [collect(), collect()];
    for (const client of clients) hub.openSession(client.send);
    hub.close();
    for (const client of clients) {
      assert.deepEqual(client.frames.at(-1), { kind: 'close', code: 1001, reason: 'server shutting down' });
    }
    assert.deepEqual(hub.readGauges(), NO_LEAKS);
    assert.equal(port.microphoneRequests.observed, false);
    const refused = collect();
    assert.equal(hub.openSession(refused.send), undefined);
    assert.equal(refused.frames[0]?.kind === 'close' ? refused.frames[0].code : 0, 1001);
  });

  it('reports a failing /play_audio stream and subscribes again after a delay, sessions untouched', async () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const port = new FakeConversationPort();
    const live = new Subject<PlayAudioMsg>();
    let subscriptions = 0;
    const flaky = new Observable<PlayAudioMsg>((subscriber) => {
      subscriptions += 1;
      if (subscriptions === 1) {
        subscriber.error(new Error('topic lost'));
        return undefined;
      }
      return live.subscribe(subscriber);
    });
    const reported: unknown[] = [];
    const portLike: PortLike = {
      call: port.call.bind(port),
      serviceName: port.serviceName.bind(port),
      microphoneRequests$: port.microphoneRequests$,
      playAudio$: flaky,
      publishUtteranceAudio: port.publishUtteranceAudio.bind(port),
      publishHeard: port.publishHeard.bind(port),
      transcripts$: port.transcripts$,
    };
    const hub = hubOver(portLike, {
      scheduler,
      resubscribeDelayMs: 500,
      onStreamError: (source, error) => reported.push([source, (error as Error).message]),
    });
    const client = collect();
    const session = hub.openSession(client.send);
    assert.deepEqual(reported, [['play_audio', 'topic lost']]);
    assert.equal(subscriptions, 1);
    scheduler.flush();
    assert.equal(subscriptions, 2);
    live.next(message);
    await writeTurn();
    assert.equal(client.frames.at(-1)?.kind, 'pair');
    assert.equal(session?.getSnapshot().status, 'active');
    hub.close();
  });
});
