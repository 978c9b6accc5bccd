import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BehaviorSubject, NEVER } from 'rxjs';
import { createActor, initialTransition, transition } from 'xstate';
import { sessionMachine } from '../../src/actors/session/session-machine.js';
import type { SessionInput } from '../../src/actors/session/session-types.js';
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
    calls: { call: () => SETTLED_CALL, converse: () => SETTLED_CALL },
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
/**
 * The text of the frames the transition's `deliver` and `refuse` actions would send (a refused turn's
 * `turn_end` is sent by `refuse` itself: shown here as the turn it names).
 */
const delivered = (actions: readonly { type: string; params?: unknown }[]) =>
  actions.flatMap((action) => {
    if (action.type === 'deliver') return [(action.params as { text?: string }).text];
    if (action.type !== 'refuse') return [];
    const { frame, turn } = action.params as { frame: { text?: string }; turn: number | undefined };
    return turn === undefined ? [frame.text] : [frame.text, `turn_end refused ${turn}`];
  });

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
    // Context updates (assign: the turn count, the queue) are applied, not listed.
    assert.deepEqual(actionTypes(actions), ['xstate.raise', 'holdAudio', 'xstate.sendTo']);
    assert.deepEqual(calling.context.running, { service: 'chat', audio: new Uint8Array(3), turn: 1 });
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
      '{"type":"error","code":"busy","message":"1 call running and 1 waiting; chat dropped","turn":3}',
      'turn_end refused 3',
    ]);
    assert.equal(full.context.turns, 3, 'a refused frame is a turn too');
  });

  it('refuses audio that would not fit in the process-wide budget, even with room in the queue', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ budgetBytes: 10 }));
    const [after, actions] = transition(sessionMachine, idle, audio(11));
    assert.deepEqual(after.value, { open: 'idle' });
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"busy","message":"audio queued by all sessions would exceed 10 bytes; chat dropped","turn":1}',
      'turn_end refused 1',
    ]);
  });

  it('a settled call passes through answering to the next waiting call, then to idle', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [waiting] = transition(sessionMachine, calling, audio(2));
    const first = waiting.context.running;
    const second = waiting.context.waiting[0];
    assert.ok(first?.service === 'chat' && second?.service === 'chat');
    const settled = (request: typeof first) =>
      ({ type: 'call.settled', outcome: { kind: 'answered', request, part: undefined } }) as const;
    const [next, actions] = transition(sessionMachine, waiting, settled(first));
    assert.deepEqual(next.value, { open: 'calling' });
    assert.equal(next.context.running, second);
    assert.deepEqual(actionTypes(actions), ['releaseAudio', 'deliverOutcome', 'xstate.sendTo']);
    // An event of a call that no longer runs is not heard.
    const [same, ignored] = transition(sessionMachine, next, settled(first));
    assert.deepEqual(same.value, { open: 'calling' });
    assert.equal(same.context.running, second);
    assert.deepEqual(actionTypes(ignored), []);
    const [rest] = transition(sessionMachine, next, settled(second));
    assert.deepEqual(rest.value, { open: 'idle' });
    assert.equal(rest.context.running, undefined);
  });

  it('a part of the running turn is delivered at once, in calling; a part of another call is not', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const running = calling.context.running;
    assert.ok(running?.service === 'chat');
    const part = { emotion: 'happy', text: 'one.', audio: new Uint8Array(1) };
    const [after, actions] = transition(sessionMachine, calling, {
      type: 'call.part',
      request: running,
      part,
    });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(actionTypes(actions), ['deliverPart']);
    const stranger = { ...running };
    const [, none] = transition(sessionMachine, calling, { type: 'call.part', request: stranger, part });
    assert.deepEqual(actionTypes(none), []);
  });

  it('cancel stops the running turn, drops queued turns but keeps a queued clear_history, which runs next', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 3 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [one] = transition(sessionMachine, calling, audio(2));
    const [two] = transition(sessionMachine, one, { type: 'ws.text', data: '{"service":"clear_history"}' });
    const [three] = transition(sessionMachine, two, audio(3));
    assert.equal(three.context.waiting.length, 3);
    const [after, actions] = transition(sessionMachine, three, { type: 'cancel' });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(after.context.running, { service: 'clear_history' });
    assert.deepEqual(after.context.waiting, []);
    assert.deepEqual(after.context.cancelledTurns, []);
    // The stop to the streams child, the turns' audio given back, the turn_end frames and the ack, the
    // clear_history's start.
    assert.deepEqual(actionTypes(actions), [
      'xstate.sendTo',
      'releaseCancelledAudio',
      'deliverCancelled',
      'xstate.sendTo',
    ]);
  });

  it('cancel while a clear_history runs lets it run and drops only the queued turns; in idle it only acks', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 2 }));
    const [clearing] = transition(sessionMachine, idle, {
      type: 'ws.text',
      data: '{"service":"clear_history"}',
    });
    const [queued] = transition(sessionMachine, clearing, audio(2));
    const [after, actions] = transition(sessionMachine, queued, { type: 'cancel' });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(after.context.running, { service: 'clear_history' });
    assert.deepEqual(after.context.waiting, []);
    assert.deepEqual(actionTypes(actions), ['releaseCancelledAudio', 'deliverCancelled']);
    const [stillIdle, idleActions] = transition(sessionMachine, idle, { type: 'cancel' });
    assert.deepEqual(stillIdle.value, { open: 'idle' });
    assert.deepEqual(actionTypes(idleActions), ['deliverCancelled']);
  });

  it("a pure cancel on a live session's snapshot gives back none of the live budget", () => {
    const input = inputWith({ maxWaitingCalls: 2, budgetBytes: 1_000 });
    // A live session whose call never answers, holding 300 + 200 bytes of the process-wide budget.
    const live = createActor(sessionMachine, { input }).start();
    live.send(audio(300));
    live.send(audio(200));
    assert.equal(input.gauges.queuedAudioBytes.value, 500);
    const [after, actions] = transition(sessionMachine, live.getSnapshot(), { type: 'cancel' });
    // Through `cancelled` (the running turn stopped) to idle: nothing else waits.
    assert.deepEqual(after.value, { open: 'idle' });
    assert.equal(input.gauges.queuedAudioBytes.value, 500, 'the pure transition released live budget');
    assert.ok(actionTypes(actions).includes('releaseCancelledAudio'), 'the release is an action, not run');
    assert.deepEqual(live.getSnapshot().value, { open: 'calling' });
    // The live session's own cancel does give it back.
    live.send({ type: 'cancel' });
    assert.equal(input.gauges.queuedAudioBytes.value, 0);
    live.stop();
  });

  it('the cancel command is raised as a cancel event, not queued as a request', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 0 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    // The queue is full (0 may wait): a queued command would be busy; cancel is not.
    const [after, actions] = transition(sessionMachine, calling, {
      type: 'ws.text',
      data: '{"service":"cancel"}',
    });
    assert.deepEqual(after.value, { open: 'idle' });
    assert.ok(!actionTypes(actions).includes('refuse'));
    assert.ok(actionTypes(actions).includes('deliverCancelled'));
  });

  it('a frame refused because the microphone is disabled is a turn too', () => {
    const input = {
      ...inputWith(),
      microphone: { isEnabled: () => false, enabled$: new BehaviorSubject(false) },
    };
    const [idle] = initialTransition(sessionMachine, input);
    const [after, actions] = transition(sessionMachine, idle, audio(1));
    assert.deepEqual(after.value, { open: 'idle' });
    assert.equal(after.context.turns, 1);
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"microphone_disabled","message":"The microphone is disabled (/microphone/set_enabled); the audio frame was not forwarded to /chat.","turn":1}',
      'turn_end refused 1',
    ]);
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
    const running = waiting.context.running;
    assert.ok(running?.service === 'chat');
    const [after] = transition(sessionMachine, waiting, {
      type: 'call.settled',
      outcome: { kind: 'answered', request: running, part: undefined },
    });
    assert.equal(after.value, 'closed');
  });
});
