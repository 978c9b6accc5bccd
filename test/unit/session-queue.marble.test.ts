import assert from 'node:assert/strict';
import { callTimeouts } from '../support/port-calls.js';
import { describe, it } from 'node:test';
import { filter, map, NEVER, Observable, type SchedulerLike } from 'rxjs';
import { startSessionActor } from '../../src/actors/session/session.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosPort,
} from '../../src/ros/port/ros-port.js';
import {
  createMessageIdAllocator,
  ackFrame,
  encodeAudioPair,
  errorFrame,
  type OutboundFrame,
  DEFAULT_LIMITS,
  ERROR_CODES,
  type ConversationLimits,
} from '../../src/protocol/ws/index.js';
import { createConversationGauges, Gauge } from '../../src/actors/conversation-gauges.js';
import { byteBudget, type ByteBudget } from '../../src/actors/budgets.js';
import { audioOf, fakeMicrophone, unheardSpeech } from '../support/conversation-fakes.js';
import { marbleScheduler, scriptedPort } from '../support/marbles.js';
import { EXAMPLE_FRAMES } from '../support/ws-examples.js';

/** What the kiosk sends in these tests: an utterance (a turn) or a queued command. */
type ConversationRequest = { service: 'chat'; audio: Uint8Array } | { service: 'clear_history' };

const answer = (n: number) => ({ emotion: `emotion ${n}`, text: `text ${n}`, audio: audioOf(n, n) });
const chat = (n: number): ConversationRequest => ({ service: 'chat', audio: audioOf(n) });
const clear: ConversationRequest = { service: 'clear_history' };
/** A chat request of `bytes` audio bytes, scripted by its first byte `n`. */
const chatOf = (n: number, bytes: number): ConversationRequest => ({
  service: 'chat',
  audio: new Uint8Array(bytes).fill(n),
});

/**
 * A session fed `requests` (as the kiosk's frames: audio as binary, commands as text), its outbound frames
 * after the initial state frame as the output; unsubscribing stops the session. The call wrapper runs on
 * the test scheduler, so time-outs fire in virtual time.
 */
const queue =
  (
    port: Pick<RosPort, 'call' | 'serviceName'>,
    scheduler: SchedulerLike,
    limits: { maxWaitingCalls?: number; chatTimeoutMs?: number; clearHistoryTimeoutMs?: number } = {},
    audioBudget?: ByteBudget,
    /** Keep the `turn_end` frames (test/unit/turn.marble.test.ts checks them); here they are left out. */
    turnEnds: 'keep' | 'drop' = 'drop',
  ) =>
  (requests: Observable<ConversationRequest>): Observable<OutboundFrame> =>
    new Observable<OutboundFrame>((subscriber) => {
      const full: ConversationLimits = {
        ...DEFAULT_LIMITS,
        maxWaitingCalls: limits.maxWaitingCalls ?? 4,
        chatTimeoutMs: limits.chatTimeoutMs ?? 1_000,
        clearHistoryTimeoutMs: limits.clearHistoryTimeoutMs ?? 1_000,
      };
      const gauges = createConversationGauges();
      const calls = createRosCalls({
        port,
        scheduler,
        timeoutsMs: callTimeouts(full.chatTimeoutMs, full.clearHistoryTimeoutMs),
      });
      let opened = false;
      const session = startSessionActor({
        calls,
        speech: unheardSpeech(),
        utterancePrefix: 'test-1',
        messageIds: createMessageIdAllocator(),
        playAudioPairs$: NEVER,
        microphone: fakeMicrophone(),
        limits: full,
        gauges,
        audioBudget: audioBudget ?? byteBudget(gauges.queuedAudioBytes, full.maxQueuedAudioBytes),
        send: (frame) => {
          if (opened) subscriber.next(frame);
        },
      });
      opened = true;
      const subscription = requests.subscribe((request) => {
        session.send(
          request.service === 'chat'
            ? { type: 'ws.binary', data: request.audio }
            : { type: 'ws.text', data: JSON.stringify({ service: request.service }) },
        );
      });
      return () => {
        subscription.unsubscribe();
        session.stop();
      };
    }).pipe(
      filter((frame) => turnEnds === 'keep' || frame.kind !== 'text' || frame.message.type !== 'turn_end'),
    );

const busyFrame = (maxWaiting: number, service: string, turn?: number) =>
  errorFrame('busy', `1 call running and ${maxWaiting} waiting; ${service} dropped`, turn);
const audioBusyFrame = (limit: number, turn: number) =>
  errorFrame('busy', `audio queued by all sessions would exceed ${limit} bytes; chat dropped`, turn);

describe('the session call queue (marbles)', () => {
  it('runs calls one at a time in arrival order and sends one pair per answer, ids in send order', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-----(r|)', { r: answer(1) });
      const b = cold('--(r|)', { r: answer(2) });
      const c = cold('-(r|)', { r: answer(3) });
      const requests = hot<ConversationRequest>('-abc', { a: chat(1), b: chat(2), c: chat(3) });

      const frames = requests.pipe(queue(scriptedPort({ 1: a, 2: b, 3: c }), scheduler));

      expectObservable(frames).toBe('------x-yz', {
        x: encodeAudioPair(0, answer(1), 1),
        y: encodeAudioPair(1, answer(2), 2),
        z: encodeAudioPair(2, answer(3), 3),
      } satisfies Record<string, OutboundFrame>);
      expectSubscriptions(a.subscriptions).toBe('-^----!');
      expectSubscriptions(b.subscriptions).toBe('------^-!');
      expectSubscriptions(c.subscriptions).toBe('--------^!');
    });
  });

  it('names /chat in its error frames as the port calls it on the graph (remapped)', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const port = scriptedPort(
        {
          1: cold('-----------(r|)', { r: answer(1) }),
          2: cold('-#', undefined, new RosServiceUnavailableError('chat', '/robot1/chat')),
        },
        { chat: '/robot1/chat' },
      );
      const requests = hot<ConversationRequest>('-ab', { a: chat(1), b: chat(2) });
      expectObservable(requests.pipe(queue(port, scheduler, { chatTimeoutMs: 10 }))).toBe('-----------tu', {
        t: errorFrame('chat_timeout', 'ROS service /robot1/chat did not answer within 10 ms', 1),
        u: errorFrame('chat_unavailable', 'ROS service /robot1/chat is not available', 2),
      });
    });
  });

  it('answers a call that runs too long with chat_timeout, drops its late answer, then starts the next', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const late = cold('---------------(r|)', { r: answer(1) });
      const next = cold('--(r|)', { r: answer(2) });
      const requests = hot<ConversationRequest>('-ab', { a: chat(1), b: chat(2) });

      const frames = requests.pipe(
        queue(scriptedPort({ 1: late, 2: next }), scheduler, { chatTimeoutMs: 10 }),
      );

      // The late answer would come at frame 16; the id it never took goes to the next answer.
      expectObservable(frames).toBe('-----------t-y', {
        t: errorFrame('chat_timeout', new RosTimeoutError('chat', 10).message, 1),
        y: encodeAudioPair(0, answer(2), 2),
      });
      expectSubscriptions(late.subscriptions).toBe('-^---------!');
      expectSubscriptions(next.subscriptions).toBe('-----------^-!');
    });
  });

  it('answers busy at once when the running call and maxWaitingCalls are taken (once, until a frame is queued again), and frees a slot per answer', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const slow = (n: number) => cold('----------(r|)', { r: answer(n) });
      const script = { 1: slow(1), 2: slow(2), 3: slow(3), 4: slow(4), 5: slow(5), 6: slow(6) };
      const requests = hot<ConversationRequest>('-abcde------f', {
        a: chat(1),
        b: chat(2),
        c: chat(3),
        d: chat(4),
        e: chat(5),
        f: chat(6),
      });

      const frames = requests.pipe(queue(scriptedPort(script), scheduler, { maxWaitingCalls: 2 }));

      // Turn 5 is refused too, but busy is not said twice: only its turn_end (not among these frames) tells.
      expectObservable(frames).toBe('----d------a---------b---------c---------f', {
        d: busyFrame(2, 'chat', 4),
        a: encodeAudioPair(0, answer(1), 1),
        b: encodeAudioPair(1, answer(2), 2),
        c: encodeAudioPair(2, answer(3), 3),
        f: encodeAudioPair(3, answer(6), 6),
      });
    });
  });

  it('unsubscribes the in-flight call and never starts waiting ones when the session unsubscribes', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const running = cold('----------(r|)', { r: answer(1) });
      const waiting = cold('-(r|)', { r: answer(2) });
      const requests = hot<ConversationRequest>('-ab', { a: chat(1), b: chat(2) });

      const frames = requests.pipe(queue(scriptedPort({ 1: running, 2: waiting }), scheduler));

      expectObservable(frames, '^-----!').toBe('-------');
      expectSubscriptions(running.subscriptions).toBe('-^----!');
      expectSubscriptions(waiting.subscriptions).toBe([]);
    });
  });

  it('queues clear_history behind earlier audio and acknowledges it', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const chatCall = cold('---(r|)', { r: answer(1) });
      const clearCall = cold('-(r|)', { r: {} });
      const requests = hot<ConversationRequest>('-ac', { a: chat(1), c: clear });

      const frames = requests.pipe(queue(scriptedPort({ 1: chatCall, clear_history: clearCall }), scheduler));

      expectObservable(frames).toBe('----xk', {
        x: encodeAudioPair(0, answer(1), 1),
        k: ackFrame('clear_history'),
      });
      expectSubscriptions(clearCall.subscriptions).toBe('----^!');
    });
  });

  it('maps failures to error codes per service and keeps serving after them', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const unavailable = new RosServiceUnavailableError('chat');
      const failed = new RosCallFailedError('clear_history', 'boom');
      const script: Record<string, Observable<unknown>> = {
        1: cold('-#', undefined, unavailable),
        clear_history: cold('-#', undefined, failed),
        2: cold('-#', undefined, new Error('not a port error')),
        3: cold('-|'),
        4: cold('-(r|)', { r: answer(4) }),
      };
      const requests = hot<ConversationRequest>('-abcde', {
        a: chat(1),
        b: clear,
        c: chat(2),
        d: chat(3),
        e: chat(4),
      });

      const frames = requests.pipe(queue(scriptedPort(script), scheduler));

      expectObservable(frames).toBe('--abcde', {
        a: errorFrame('chat_unavailable', unavailable.message, 1),
        b: errorFrame('clear_history_failed', failed.message),
        c: errorFrame('chat_failed', ERROR_CODES.chat_failed.description, 2),
        d: errorFrame('chat_failed', ERROR_CODES.chat_failed.description, 3),
        e: encodeAudioPair(0, answer(4), 4),
      });
    });
  });

  it('maps a clear_history time-out and unavailability to their own codes', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const requests = hot<ConversationRequest>('-a', { a: clear });
      const frames = requests.pipe(
        queue(scriptedPort({ clear_history: cold('-----(r|)', { r: {} }) }), scheduler, {
          maxWaitingCalls: 1,
          chatTimeoutMs: 100,
          clearHistoryTimeoutMs: 3,
        }),
      );
      expectObservable(frames).toBe('----t', {
        t: errorFrame('clear_history_timeout', new RosTimeoutError('clear_history', 3).message),
      });
    });
  });
  it('sends busy frames exactly as the protocol examples (and so docs/protocol.md) show them', () => {
    const examples = EXAMPLE_FRAMES.filter((example) => example.frame.includes('"code":"busy"'));
    assert.equal(examples.length, 2);
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      // Another part of the process already holds all but 5 bytes of the default budget.
      const held = new Gauge();
      held.value += DEFAULT_LIMITS.maxQueuedAudioBytes - 5;
      const budget = byteBudget(held, DEFAULT_LIMITS.maxQueuedAudioBytes);
      const port = scriptedPort({ 1: cold('-') });
      const texts = (requests: Observable<ConversationRequest>) =>
        requests.pipe(
          queue(port, scheduler, { maxWaitingCalls: DEFAULT_LIMITS.maxWaitingCalls }, budget),
          map((frame) => (frame.kind === 'text' ? frame.text : frame.kind)),
        );
      // One session fills its queue (1 running, 4 waiting: the last 5 bytes); its 6th frame finds it full.
      const first = hot<ConversationRequest>('-abcdef', {
        a: chatOf(1, 1),
        b: chatOf(1, 1),
        c: chatOf(1, 1),
        d: chatOf(1, 1),
        e: chatOf(1, 1),
        f: chatOf(1, 1),
      });
      // Another session has room in its queue, but the process has no room for its audio.
      const second = hot<ConversationRequest>('--------g', { g: chatOf(1, 1) });
      expectObservable(texts(first), '^---------!').toBe('------q', { q: examples[0]!.frame });
      expectObservable(texts(second), '^---------!').toBe('--------b', { b: examples[1]!.frame });
    });
  });

  it('refuses audio past the budget shared by sessions with busy, and frees the bytes as calls are answered', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const held = new Gauge();
      const budget = byteBudget(held, 8);
      const port = scriptedPort({
        1: cold('-----(r|)', { r: answer(1) }),
        2: cold('--(r|)', { r: answer(2) }),
        3: cold('-(r|)', { r: answer(3) }),
        4: cold('-(r|)', { r: answer(4) }),
        clear_history: cold('-(r|)', { r: {} }),
      });
      // Session A: 4 + 4 bytes, one running and one waiting: the budget is full.
      const a = hot<ConversationRequest>('-ab', { a: chatOf(1, 4), b: chatOf(2, 4) });
      // Session B: 1 byte does not fit (busy, its queue stays empty); clear_history holds no audio; once A's
      // calls are answered, 4 bytes fit again.
      const b = hot<ConversationRequest>('---ck-----d', { c: chatOf(3, 1), k: clear, d: chatOf(4, 4) });
      const probe = hot('--x----x-x--x').pipe(map(() => held.value));

      expectObservable(a.pipe(queue(port, scheduler, {}, budget))).toBe('------x-y', {
        x: encodeAudioPair(0, answer(1), 1),
        y: encodeAudioPair(1, answer(2), 2),
      });
      expectObservable(b.pipe(queue(port, scheduler, {}, budget))).toBe('---b-k-----z', {
        b: audioBusyFrame(8, 1),
        k: ackFrame('clear_history'),
        z: encodeAudioPair(0, answer(4), 2),
      });
      expectObservable(probe).toBe('--p----q-r--s', { p: 8, q: 4, r: 0, s: 0 });
    });
  });

  it('gives the bytes of a call back when it fails, times out, or the session unsubscribes', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const held = new Gauge();
      const budget = byteBudget(held, 100);
      const failed = new RosCallFailedError('chat', 'boom');
      const never = cold('-');
      const port = scriptedPort({ 1: cold('----#', undefined, failed), 2: never, 3: never });
      const requests = hot<ConversationRequest>('-abc', {
        a: chatOf(1, 10),
        b: chatOf(2, 20),
        c: chatOf(3, 30),
      });
      const probe = hot('----x-x-----x---x').pipe(map(() => held.value));

      // a fails at 5; b then runs until its time-out at 10; c runs until the session leaves at 14.
      expectObservable(
        requests.pipe(queue(port, scheduler, { chatTimeoutMs: 5 }, budget)),
        '^-------------!',
      ).toBe('-----f----t', {
        f: errorFrame('chat_failed', failed.message, 1),
        t: errorFrame('chat_timeout', new RosTimeoutError('chat', 5).message, 2),
      });
      expectSubscriptions(never.subscriptions).toBe(['-----^----!', '----------^---!']);
      expectObservable(probe).toBe('----p-q-----r---s', { p: 60, q: 50, r: 30, s: 0 });
    });
  });
});
