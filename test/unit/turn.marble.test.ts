import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { map, NEVER, Observable, type SchedulerLike } from 'rxjs';
import { startSessionActor } from '../../src/actors/session/session.js';
import {
  createMessageIdAllocator,
  type OutboundFrame,
  DEFAULT_LIMITS,
  type ConversationLimits,
  type ChatInterface,
} from '../../src/protocol/ws/index.js';
import { createRosCalls, type RosCallOutcome } from '../../src/ros/port/ros-calls.js';
import { ConverseOutcome, type ConverseFeedbackMsg } from '../../src/ros/port/ros-messages.js';
import { RosTimeoutError, type RosCallKey, type RosPort } from '../../src/ros/port/ros-port.js';
import { createConversationGauges, type ConversationGauges } from '../../src/actors/conversation-gauges.js';
import { byteBudget } from '../../src/actors/budgets.js';
import { converse$, ConverseOutcomeError, sessionCall$, turn$ } from '../../src/streams/call-streams.js';
import { audioOf, fakeMicrophone, unheardSpeech } from '../support/conversation-fakes.js';
import { marbleScheduler, scriptedPort } from '../support/marbles.js';
import { callTimeouts } from '../support/port-calls.js';

/**
 * Streamed turns in virtual time: the turn stream over the call wrapper, and live sessions whose kiosk
 * sends utterances (scripted by their first byte), clear_history and cancel. Outbound frames are shown
 * as short words: `p<turn>.<id>:<text>` a pair, `e<turn>:<outcome>` a turn_end, `ack:<service>`,
 * `err<turn>:<code>`.
 */

const part = (text: string): ConverseFeedbackMsg => ({ emotion: 'happy', text, audio: audioOf(text.length) });
const ok = { success: true, outcome: ConverseOutcome.OK, message: '' };
const failed = { success: false, outcome: ConverseOutcome.INVALID, message: 'no speech recognised' };

type KioskInput = { kind: 'audio'; first: number } | { kind: 'clear' } | { kind: 'cancel' };
const audio = (first: number): KioskInput => ({ kind: 'audio', first });
const clear: KioskInput = { kind: 'clear' };
const cancel: KioskInput = { kind: 'cancel' };

const word = (frame: OutboundFrame): string => {
  if (frame.kind === 'close') return `close:${frame.code}`;
  if (frame.kind === 'pair') {
    const meta = JSON.parse(frame.meta) as { turn?: number; text: string; messageId: number };
    return `p${String(meta.turn)}.${meta.messageId}:${meta.text}`;
  }
  const message = frame.message;
  switch (message.type) {
    case 'turn_end':
      return `e${message.turn}:${message.outcome}`;
    case 'ack':
      return `ack:${message.service}`;
    case 'error':
      return `err${String(message.turn)}:${message.code}`;
    default:
      return message.type;
  }
};

/** A live session over `port`, fed the kiosk's inputs; its frames after `state`, as words. */
const session =
  (
    port: Pick<RosPort, 'call' | 'converse' | 'serviceName'>,
    scheduler: SchedulerLike,
    chatInterface: ChatInterface,
    limits: Partial<ConversationLimits> = {},
    gauges: ConversationGauges = createConversationGauges(),
  ) =>
  (inputs: Observable<KioskInput>): Observable<string> =>
    new Observable<OutboundFrame>((subscriber) => {
      const full: ConversationLimits = { ...DEFAULT_LIMITS, chatTimeoutMs: 1_000, ...limits };
      const calls = createRosCalls({
        port,
        scheduler,
        timeoutsMs: callTimeouts(full.chatTimeoutMs, full.clearHistoryTimeoutMs),
      });
      let opened = false;
      const actor = startSessionActor({
        calls,
        speech: unheardSpeech(),
        utterancePrefix: 'test-1',
        chatInterface,
        messageIds: createMessageIdAllocator(),
        playAudioPairs$: NEVER,
        microphone: fakeMicrophone(),
        limits: full,
        gauges,
        audioBudget: byteBudget(gauges.queuedAudioBytes, full.maxQueuedAudioBytes),
        send: (frame) => {
          if (opened) subscriber.next(frame);
        },
      });
      opened = true;
      const subscription = inputs.subscribe((input) => {
        if (input.kind === 'audio') actor.send({ type: 'ws.binary', data: audioOf(input.first, 0, 0) });
        else {
          const service = input.kind === 'clear' ? 'clear_history' : 'cancel';
          actor.send({ type: 'ws.text', data: JSON.stringify({ service }) });
        }
      });
      return () => {
        subscription.unsubscribe();
        actor.stop();
      };
    }).pipe(map(word));

describe('the turn stream (marbles)', () => {
  it('action: emits every part the moment it arrives, completes on an OK result', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const goal = cold('-a--b-(r|)', { a: part('one.'), b: part('two.'), r: ok });
      const calls = createRosCalls({
        port: scriptedPort({ 'converse:1': goal }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      expectObservable(turn$(calls, 'action', { id: 'u-1', streamed: false, audio: audioOf(1) })).toBe(
        '-a--b-|',
        {
          a: part('one.'),
          b: part('two.'),
        },
      );
      expectSubscriptions(goal.subscriptions).toBe('^-----!');
    });
  });

  it('action: a result that is not OK errors with its message; the chat time-out bounds the whole turn', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const refused = cold('-a-(r|)', { a: part('one.'), r: failed });
      const endless = cold('-a-b-c-d-e', {
        a: part('1'),
        b: part('2'),
        c: part('3'),
        d: part('4'),
        e: part('5'),
      });
      const calls = createRosCalls({
        port: scriptedPort({ 'converse:1': refused, 'converse:2': endless }),
        timeoutsMs: callTimeouts(6),
        scheduler,
      });
      expectObservable(converse$(calls, { utterance_id: 'u-1', streamed: false, audio: audioOf(1) })).toBe(
        '-a-#',
        { a: part('one.') },
        new ConverseOutcomeError(failed),
      );
      assert.equal(new ConverseOutcomeError(failed).message, 'no speech recognised');
      // Parts 1..3 came in time; at 6 the turn times out and the goal is cancelled at the port.
      expectObservable(converse$(calls, { utterance_id: 'u-2', streamed: false, audio: audioOf(2) })).toBe(
        '-a-b-c#',
        { a: part('1'), b: part('2'), c: part('3') },
        new RosTimeoutError('converse', 6),
      );
      expectSubscriptions(endless.subscriptions).toBe('^-----!');
    });
  });

  it('unsubscribing cancels the goal: no part after it, the port goal left', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const goal = cold('-a--b--(r|)', { a: part('one.'), b: part('two.'), r: ok });
      const calls = createRosCalls({
        port: scriptedPort({ 'converse:1': goal }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      expectObservable(
        turn$(calls, 'action', { id: 'u-1', streamed: false, audio: audioOf(1) }),
        '^--!',
      ).toBe('-a-', { a: part('one.') });
      expectSubscriptions(goal.subscriptions).toBe('^--!');
    });
  });

  it('service: the one /chat response is the one part', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const answer = part('whole.');
      const calls = createRosCalls({
        port: scriptedPort({ 1: cold('---(r|)', { r: answer }) }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      expectObservable(turn$(calls, 'service', { id: 'u-1', streamed: false, audio: audioOf(1) })).toBe(
        '---(r|)',
        { r: answer },
      );
    });
  });
});

describe("a session's call as its chart's events (marbles)", () => {
  const utterance = { id: 'u-1', streamed: false, audio: audioOf(1) };

  it('action: a call.part per part as it arrives, then call.settled answered with no part', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const calls = createRosCalls({
        port: scriptedPort({ 'converse:1': cold('-a--b-(r|)', { a: part('one.'), b: part('two.'), r: ok }) }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      expectObservable(sessionCall$(calls, 'action', { service: 'chat', utterance }, () => {})).toBe(
        '-a--b-(s|)',
        {
          a: { type: 'call.part', part: part('one.') },
          b: { type: 'call.part', part: part('two.') },
          s: { type: 'call.settled', outcome: { kind: 'answered', part: undefined } },
        },
      );
    });
  });

  it('service: no call.part; call.settled carries the one /chat answer', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const calls = createRosCalls({
        port: scriptedPort({ 1: cold('---(r|)', { r: part('whole.') }) }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      expectObservable(sessionCall$(calls, 'service', { service: 'chat', utterance }, () => {})).toBe(
        '---(s|)',
        { s: { type: 'call.settled', outcome: { kind: 'answered', part: part('whole.') } } },
      );
    });
  });

  it('clear_history: call.settled answered with no part, on either interface', () => {
    for (const chatInterface of ['service', 'action'] as const) {
      const scheduler = marbleScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const calls = createRosCalls({
          port: scriptedPort({ clear_history: cold('--(r|)', { r: {} }) }),
          timeoutsMs: callTimeouts(100),
          scheduler,
        });
        expectObservable(sessionCall$(calls, chatInterface, { service: 'clear_history' }, () => {})).toBe(
          '--(s|)',
          { s: { type: 'call.settled', outcome: { kind: 'answered', part: undefined } } },
        );
      });
    }
  });

  it('a failure settles failed; unsubscribed before it settles, abandoned is told once, after a settle never', () => {
    const scheduler = marbleScheduler();
    const abandonedAt: number[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('-----(r|)', { r: part('late.') });
      const calls = createRosCalls({
        port: scriptedPort({ 1: cold('--#', undefined, new Error('boom')), 2: slow }),
        timeoutsMs: callTimeouts(100),
        scheduler,
      });
      const failing = { service: 'chat', utterance } as const;
      expectObservable(sessionCall$(calls, 'service', failing, () => abandonedAt.push(-1))).toBe('--(s|)', {
        s: { type: 'call.settled', outcome: { kind: 'failed', error: new Error('boom') } },
      });
      const abandoning = { service: 'chat', utterance: { ...utterance, audio: audioOf(2) } } as const;
      expectObservable(
        sessionCall$(calls, 'service', abandoning, () => abandonedAt.push(scheduler.now())),
        '^--!',
      ).toBe('---');
      expectSubscriptions(slow.subscriptions).toBe('^--!');
    });
    assert.deepEqual(abandonedAt, [3]);
  });
});

describe('the call wrapper with Converse goals', () => {
  it('counts a goal in flight until its result, and reports it labelled converse', () => {
    const scheduler = marbleScheduler();
    const settled: [RosCallKey, RosCallOutcome, number][] = [];
    const inFlight: number[] = [];
    scheduler.run(({ cold, flush }) => {
      const calls = createRosCalls({
        port: scriptedPort({
          'converse:1': cold('-a--(r|)', { a: part('one.'), r: ok }),
          'converse:2': cold('-a------', { a: part('one.') }),
          'converse:3': cold('-a------', { a: part('one.') }),
        }),
        timeoutsMs: callTimeouts(6),
        scheduler,
        observer: { settled: (service, outcome, seconds) => settled.push([service, outcome, seconds]) },
      });
      const handler = {
        part: () => inFlight.push(calls.inFlight),
        finished: () => inFlight.push(calls.inFlight),
        failed: () => inFlight.push(calls.inFlight),
      };
      calls.converse({ utterance_id: '', streamed: false, audio: audioOf(1) }, handler);
      calls.converse({ utterance_id: '', streamed: false, audio: audioOf(2) }, handler);
      const third = calls.converse({ utterance_id: '', streamed: false, audio: audioOf(3) }, handler);
      scheduler.schedule(() => {
        third.cancel();
      }, 2);
      flush();
      assert.equal(calls.inFlight, 0);
    });
    // Parts of 1, 2, 3 at 1 (3 in flight); 1's result at 4 (1 left: 2); 2 times out at 6.
    assert.deepEqual(inFlight, [3, 3, 3, 1, 0]);
    assert.deepEqual(settled, [
      ['converse', 'abandoned', 0],
      ['converse', 'ok', 0.004],
      ['converse', 'abandoned', 0],
    ]);
  });

  it('fails a goal on a port without the action, as an error to its handler', () => {
    const failures: string[] = [];
    const calls = createRosCalls({
      port: { call: () => ({ cancel: () => undefined }), serviceName: () => '/x' },
      timeoutsMs: callTimeouts(10),
    });
    calls.converse(
      { utterance_id: '', streamed: false, audio: audioOf(1) },
      { part: () => undefined, finished: () => undefined, failed: (error) => failures.push(error.message) },
    );
    assert.deepEqual(failures, ['this ROS port does not offer the Converse action']);
    assert.equal(calls.inFlight, 0);
  });
});

describe('sessions with streamed turns (marbles)', () => {
  it('action: sends each part as a pair of its turn as it arrives, ids in send order, then turn_end', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const port = scriptedPort({
        'converse:1': cold('-a--b-(r|)', { a: part('one.'), b: part('two.'), r: ok }),
        'converse:2': cold('-a-(r|)', { a: part('three.'), r: ok }),
      });
      const inputs = hot<KioskInput>('-xy', { x: audio(1), y: audio(2) });
      expectObservable(inputs.pipe(session(port, scheduler, 'action'))).toBe('--a--b-ec-f', {
        a: 'p1.0:one.',
        b: 'p1.1:two.',
        e: 'e1:answered',
        c: 'p2.2:three.',
        f: 'e2:answered',
      });
    });
  });

  it('action: cancel mid-turn stops it, drops the queued turns, turn_end cancelled each then the ack, nothing after', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const running = cold('-a---b---(r|)', { a: part('one.'), b: part('two.'), r: ok });
      const queued = cold('-(r|)', { r: ok });
      const gauges = createConversationGauges();
      const port = scriptedPort({ 'converse:1': running, 'converse:2': queued, 'converse:3': queued });
      const inputs = hot<KioskInput>('-xy-c', { x: audio(1), y: audio(2), c: cancel });
      expectObservable(inputs.pipe(session(port, scheduler, 'action', {}, gauges)), '^-------------!').toBe(
        '--a-(xyk)',
        {
          a: 'p1.0:one.',
          x: 'e1:cancelled',
          y: 'e2:cancelled',
          k: 'ack:cancel',
        },
      );
      expectSubscriptions(running.subscriptions).toBe('-^--!');
      expectSubscriptions(queued.subscriptions).toBe([]);
      // The audio of both turns is given back at the cancel, not when the session ends.
      const probe = hot('---p-q').pipe(map(() => gauges.queuedAudioBytes.value));
      expectObservable(probe).toBe('---p-q', { p: 6, q: 0 });
    });
  });

  it('service: cancel abandons the running call, its late answer is never sent; the next turn runs', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const late = cold('-----(r|)', { r: part('late.') });
      const next = cold('-(r|)', { r: part('next.') });
      const port = scriptedPort({ 1: late, 2: next });
      const inputs = hot<KioskInput>('-xc----y', { x: audio(1), c: cancel, y: audio(2) });
      expectObservable(inputs.pipe(session(port, scheduler, 'service'))).toBe('--(xk)--(ae)', {
        x: 'e1:cancelled',
        k: 'ack:cancel',
        a: 'p2.0:next.',
        e: 'e2:answered',
      });
      expectSubscriptions(late.subscriptions).toBe('-^!');
      expectSubscriptions(next.subscriptions).toBe('-------^!');
    });
  });

  it('cancel while clear_history runs: it goes on, only the queued turns are dropped; in idle only the ack', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const clearing = cold('------(r|)', { r: {} });
      const turn = cold('-(r|)', { r: ok });
      const port = scriptedPort({ clear_history: clearing, 'converse:1': turn });
      const inputs = hot<KioskInput>('-kxc-----c', { k: clear, x: audio(1), c: cancel });
      // The second cancel (at 9) finds the session idle.
      expectObservable(inputs.pipe(session(port, scheduler, 'action'))).toBe('---(xa)b-a', {
        x: 'e1:cancelled',
        a: 'ack:cancel',
        b: 'ack:clear_history',
      });
      expectSubscriptions(clearing.subscriptions).toBe('-^-----!');
      expectSubscriptions(turn.subscriptions).toBe([]);
    });
  });

  it('action: a failed result, an unavailable server and a time-out end their turns as failed', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const port = scriptedPort({
        'converse:1': cold('-a-(r|)', { a: part('one.'), r: failed }),
        'converse:2': cold('-'),
      });
      const inputs = hot<KioskInput>('-xy', { x: audio(1), y: audio(2) });
      expectObservable(
        inputs.pipe(session(port, scheduler, 'action', { chatTimeoutMs: 5 })),
        '^--------------!',
      ).toBe('--a-(fg)-(th)', {
        a: 'p1.0:one.',
        f: 'err1:chat_failed',
        g: 'e1:failed',
        t: 'err2:chat_timeout',
        h: 'e2:failed',
      });
    });
  });

  it('busy and the audio budget apply per turn: a refused turn gets busy and turn_end refused at once', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const slow = cold('------a---(r|)', { a: part('one.'), r: ok });
      const port = scriptedPort({ 'converse:1': slow, 'converse:2': slow, 'converse:3': slow });
      const inputs = hot<KioskInput>('-xyz', { x: audio(1), y: audio(2), z: audio(3) });
      expectObservable(
        inputs.pipe(session(port, scheduler, 'action', { maxWaitingCalls: 1 })),
        '^-------------------------!',
      ).toBe('---(bc)a---e-----d---f', {
        b: 'err3:busy',
        c: 'e3:refused',
        a: 'p1.0:one.',
        e: 'e1:answered',
        d: 'p2.1:one.',
        f: 'e2:answered',
      });
    });
  });
});
