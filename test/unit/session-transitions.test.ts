import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BehaviorSubject, NEVER } from 'rxjs';
import { initialTransition, transition } from 'xstate';
import { sessionMachine, type SessionInput } from '../../src/actors/session-machine.js';
import { createMessageIdAllocator } from '../../src/protocol/message-ids.js';
import { DEFAULT_LIMITS } from '../../src/protocol/ws-protocol.js';
import { byteBudget, createConversationGauges } from '../../src/streams/resource-gauges.js';
import { SETTLED_CALL } from '../../src/ros/ros-port.js';

/**
 * The session's queueing as pure transitions (XState's `transition`): which state a request leads to and
 * which actions it asks for, without running any. The effects themselves are tested with a live actor in
 * session-machine.test.ts and session-queue.marble.test.ts.
 */

const inputWith = (
  overrides: { maxWaitingCalls?: number; budgetBytes?: number; send?: SessionInput['send'] } = {},
): SessionInput => {
  const gauges = createConversationGauges();
  return {
    calls: { call: () => SETTLED_CALL },
    messageIds: createMessageIdAllocator(),
    playAudioPairs$: NEVER,
    microphone: { isEnabled: () => true, enabled$: new BehaviorSubject(true) },
    limits: { ...DEFAULT_LIMITS, maxWaitingCalls: overrides.maxWaitingCalls ?? 1 },
    gauges,
    audioBudget: byteBudget(gauges.queuedAudioBytes, overrides.budgetBytes ?? 1_000),
    send: overrides.send ?? (() => undefined),
  };
};

const audio = (bytes: number) => ({ type: 'ws.binary', data: new Uint8Array(bytes) }) as const;
const actionTypes = (actions: readonly { type: string }[]) => actions.map((action) => action.type);
/** The text of the frames the transition's `deliver` actions would send. */
const delivered = (actions: readonly { type: string; params?: unknown }[]) =>
  actions
    .filter((action) => action.type === 'deliver')
    .map((action) => (action.params as { text?: string }).text);

describe('session transitions (pure)', () => {
  it('starts open.idle, sends the state frame and starts its streams child', () => {
    const [snapshot, actions] = initialTransition(sessionMachine, inputWith());
    assert.deepEqual(snapshot.value, { open: 'idle' });
    assert.deepEqual(actionTypes(actions), ['deliver', 'xstate.spawnChild']);
    assert.match(delivered(actions)[0] ?? '', /^\{"type":"state"/);
  });

  it('an utterance in idle starts its call: calling, its audio held, the call sent to the streams child', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling, actions] = transition(sessionMachine, idle, audio(3));
    assert.deepEqual(calling.value, { open: 'calling' });
    assert.deepEqual(actionTypes(actions), ['xstate.raise', 'holdAudio', 'xstate.sendTo']);
    assert.equal(calling.context.running?.service, 'chat');
    assert.deepEqual(calling.context.waiting, []);
  });

  it('while calling, a request waits; past --chat_queue it is answered busy and not queued', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 1 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [waiting, queued] = transition(sessionMachine, calling, audio(2));
    assert.deepEqual(waiting.value, { open: 'calling' });
    assert.equal(waiting.context.waiting.length, 1);
    assert.deepEqual(delivered(queued), []);
    const [full, refused] = transition(sessionMachine, waiting, audio(3));
    assert.deepEqual(full.value, { open: 'calling' });
    assert.equal(full.context.waiting.length, 1, 'not queued');
    assert.deepEqual(delivered(refused), [
      '{"type":"error","code":"busy","message":"1 call running and 1 waiting; chat dropped"}',
    ]);
  });

  it('refuses audio that would not fit in the process-wide budget, even with room in the queue', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ budgetBytes: 10 }));
    const [after, actions] = transition(sessionMachine, idle, audio(11));
    assert.deepEqual(after.value, { open: 'idle' });
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"busy","message":"audio queued by all sessions would exceed 10 bytes; chat dropped"}',
    ]);
  });

  it('a settled call passes through answering to the next waiting call, then to idle', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [waiting] = transition(sessionMachine, calling, audio(2));
    const second = waiting.context.waiting[0];
    const settled = {
      type: 'call.settled',
      outcome: { kind: 'answered', service: 'clear_history' },
    } as const;
    const [next, actions] = transition(sessionMachine, waiting, settled);
    assert.deepEqual(next.value, { open: 'calling' });
    assert.equal(next.context.running, second);
    assert.deepEqual(actionTypes(actions), ['releaseAudio', 'deliverOutcome', 'xstate.sendTo']);
    const [rest] = transition(sessionMachine, next, settled);
    assert.deepEqual(rest.value, { open: 'idle' });
    assert.equal(rest.context.running, undefined);
  });

  it('closes instead of starting the next call when the socket turned out to be gone', () => {
    const throwing: SessionInput['send'] = () => {
      throw new Error('socket gone');
    };
    const [idle] = initialTransition(sessionMachine, inputWith({ send: throwing }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [waiting] = transition(sessionMachine, calling, audio(2));
    // What `deliverOutcome` finds when it runs: the outbox's send threw, so it is broken.
    waiting.context.outbox.send({ kind: 'close', code: 1000, reason: '' });
    const [after] = transition(sessionMachine, waiting, {
      type: 'call.settled',
      outcome: { kind: 'answered', service: 'clear_history' },
    });
    assert.equal(after.value, 'closed');
  });
});
