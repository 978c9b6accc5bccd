import { describe, it } from 'node:test';
import type { Observable } from 'rxjs';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosPort,
} from '../../src/ros/ros-port.js';
import { chatQueue, type ConversationRequest } from '../../src/streams/chat-queue.js';
import { createMessageIdAllocator } from '../../src/streams/message-ids.js';
import { ackFrame, encodeAudioPair, errorFrame, type OutboundFrame } from '../../src/ws/frames.js';
import { ERROR_CODES } from '../../src/ws/protocol.js';
import { audioOf } from '../support/conversation-fakes.js';
import { marbleScheduler, scriptedPort } from '../support/marbles.js';

const answer = (n: number) => ({ emotion: `emotion ${n}`, text: `text ${n}`, audio: audioOf(n, n) });
const chat = (n: number): ConversationRequest => ({ service: 'chat', audio: audioOf(n) });
const clear: ConversationRequest = { service: 'clear_history' };

const queue = (
  port: Pick<RosPort, 'call'>,
  scheduler: Parameters<typeof chatQueue>[0]['scheduler'],
  limits: { maxWaitingCalls?: number; chatTimeoutMs?: number } = {},
) =>
  chatQueue({
    port,
    messageIds: createMessageIdAllocator(),
    scheduler,
    limits: {
      maxWaitingCalls: limits.maxWaitingCalls ?? 4,
      chatTimeoutMs: limits.chatTimeoutMs ?? 1_000,
      clearHistoryTimeoutMs: 1_000,
    },
  });

const busyFrame = (maxWaiting: number, service: string) =>
  errorFrame('busy', `1 call running and ${maxWaiting} waiting; ${service} dropped`);

describe('chatQueue (marbles)', () => {
  it('runs calls one at a time in arrival order and sends one pair per answer, ids in send order', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-----(r|)', { r: answer(1) });
      const b = cold('--(r|)', { r: answer(2) });
      const c = cold('-(r|)', { r: answer(3) });
      const requests = hot<ConversationRequest>('-abc', { a: chat(1), b: chat(2), c: chat(3) });

      const frames = requests.pipe(queue(scriptedPort({ 1: a, 2: b, 3: c }), scheduler));

      expectObservable(frames).toBe('------x-yz', {
        x: encodeAudioPair(0, answer(1)),
        y: encodeAudioPair(1, answer(2)),
        z: encodeAudioPair(2, answer(3)),
      } satisfies Record<string, OutboundFrame>);
      expectSubscriptions(a.subscriptions).toBe('-^----!');
      expectSubscriptions(b.subscriptions).toBe('------^-!');
      expectSubscriptions(c.subscriptions).toBe('--------^!');
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
        t: errorFrame('chat_timeout', new RosTimeoutError('chat', 10).message),
        y: encodeAudioPair(0, answer(2)),
      });
      expectSubscriptions(late.subscriptions).toBe('-^---------!');
      expectSubscriptions(next.subscriptions).toBe('-----------^-!');
    });
  });

  it('answers busy at once when the running call and maxWaitingCalls are taken, and frees a slot per answer', () => {
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

      expectObservable(frames).toBe('----de-----a---------b---------c---------f', {
        d: busyFrame(2, 'chat'),
        e: busyFrame(2, 'chat'),
        a: encodeAudioPair(0, answer(1)),
        b: encodeAudioPair(1, answer(2)),
        c: encodeAudioPair(2, answer(3)),
        f: encodeAudioPair(3, answer(6)),
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
        x: encodeAudioPair(0, answer(1)),
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
        a: errorFrame('chat_unavailable', unavailable.message),
        b: errorFrame('clear_history_failed', failed.message),
        c: errorFrame('chat_failed', ERROR_CODES.chat_failed.description),
        d: errorFrame('chat_failed', ERROR_CODES.chat_failed.description),
        e: encodeAudioPair(0, answer(4)),
      });
    });
  });

  it('maps a clear_history time-out and unavailability to their own codes', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const requests = hot<ConversationRequest>('-a', { a: clear });
      const frames = requests.pipe(
        chatQueue({
          port: scriptedPort({ clear_history: cold('-----(r|)', { r: {} }) }),
          messageIds: createMessageIdAllocator(),
          scheduler,
          limits: { maxWaitingCalls: 1, chatTimeoutMs: 100, clearHistoryTimeoutMs: 3 },
        }),
      );
      expectObservable(frames).toBe('----t', {
        t: errorFrame('clear_history_timeout', new RosTimeoutError('clear_history', 3).message),
      });
    });
  });
});
