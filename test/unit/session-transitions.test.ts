import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialTransition, transition } from 'xstate';
import { sessionMachine } from '../../src/actors/session/session-machine.js';
import type { SessionEvent, SessionMachineInput } from '../../src/actors/session/session-types.js';
import { DEFAULT_LIMITS } from '../../src/protocol/ws/index.js';

/**
 * The session's queueing as pure transitions (XState's `transition`): which state an event leads to and
 * which actions it asks for, without running any. The effects themselves are tested with a live actor in
 * session-machine.test.ts and session-queue.marble.test.ts; replay and plain data in
 * session-replay.property.test.ts.
 */

const inputWith = (
  overrides: { maxWaitingCalls?: number; budgetBytes?: number; microphoneEnabled?: boolean } = {},
): SessionMachineInput => ({
  limits: { ...DEFAULT_LIMITS, maxWaitingCalls: overrides.maxWaitingCalls ?? 1 },
  audioBudgetBytes: overrides.budgetBytes ?? 1_000,
  microphoneEnabled: overrides.microphoneEnabled ?? true,
});

const audio = (bytes: number, fits = true): SessionEvent => ({
  type: 'utterance',
  audio: new Uint8Array(bytes),
  fits,
});
const settled: SessionEvent = { type: 'call.settled', outcome: { kind: 'answered' } };
/** The actions' names; XState's own, of the invokes and the events to the upload, named by what they do. */
const actionTypes = (actions: readonly { type: string; params?: unknown }[]) =>
  actions.map((action) => {
    const params = action.params as { id?: string; event?: { type: string } } | undefined;
    // A stopped child's params are the child itself.
    if (action.type === 'xstate.spawnChild') return `invoke ${params?.id ?? ''}`;
    if (action.type === 'xstate.stopChild') return `stop ${params?.id ?? ''}`;
    if (action.type === 'xstate.sendTo') return `${params?.event?.type ?? ''} to the upload`;
    return action.type;
  });
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
  it('starts open.idle and sends the state frame; nothing else is started but the upload, waiting', () => {
    const [snapshot, actions] = initialTransition(sessionMachine, inputWith());
    assert.deepEqual(snapshot.value, { open: 'idle' });
    assert.deepEqual(actionTypes(actions), ['deliver', 'invoke upload']);
    assert.match(delivered(actions)[0] ?? '', /^\{"type":"state"/);
  });

  it('an utterance in idle starts its call: calling, its audio held, the call started by calling', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling, actions] = transition(sessionMachine, idle, audio(3));
    assert.deepEqual(calling.value, { open: 'calling' });
    // Context updates (assign: the turn count, the queue) are applied, not listed.
    assert.deepEqual(actionTypes(actions), ['holdAudio', 'invoke call']);
    assert.deepEqual(calling.context.running, { service: 'chat', turn: 1, audioBytes: 3, streamed: false });
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
    const [after, actions] = transition(sessionMachine, idle, audio(11, false));
    assert.deepEqual(after.value, { open: 'idle' });
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"busy","message":"audio queued by all sessions would exceed 10 bytes; chat dropped","turn":1}',
      'turn_end refused 1',
    ]);
  });

  it('a settled call starts the next waiting call (calling left and entered again), then goes idle', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [waiting] = transition(sessionMachine, calling, audio(2));
    const second = waiting.context.waiting[0];
    assert.deepEqual(second, { service: 'chat', turn: 2, audioBytes: 2, streamed: false });
    const [next, actions] = transition(sessionMachine, waiting, settled);
    assert.deepEqual(next.value, { open: 'calling' });
    assert.deepEqual(next.context.running, second);
    // Leaving calling stops the settled call, entering it again starts the next.
    assert.deepEqual(actionTypes(actions), ['stop call', 'deliverOutcome', 'invoke call']);
    const [rest, last] = transition(sessionMachine, next, settled);
    assert.deepEqual(rest.value, { open: 'idle' });
    assert.equal(rest.context.running, undefined);
    assert.deepEqual(actionTypes(last), ['stop call', 'deliverOutcome']);
  });

  it('a part of the running turn is delivered at once, in calling; in idle there is no call to hear', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const part: SessionEvent = {
      type: 'call.part',
      part: { emotion: 'happy', text: 'one.', audio: new Uint8Array(1) },
    };
    const [after, actions] = transition(sessionMachine, calling, part);
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(actionTypes(actions), ['deliverPart']);
    const [, none] = transition(sessionMachine, idle, part);
    assert.deepEqual(actionTypes(none), []);
  });

  it('cancel stops the running turn, drops queued turns but keeps a queued clear_history, which runs next', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 3 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [one] = transition(sessionMachine, calling, audio(2));
    const [two] = transition(sessionMachine, one, { type: 'clear_history' });
    const [three] = transition(sessionMachine, two, audio(3));
    assert.equal(three.context.waiting.length, 3);
    const [after, actions] = transition(sessionMachine, three, { type: 'cancel' });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(after.context.running, { service: 'clear_history' });
    assert.deepEqual(after.context.waiting, []);
    assert.deepEqual(after.context.cancelledTurns, []);
    // The turns' audio given back, the running turn stopped by leaving calling, the turn_end frames and
    // the ack, the clear_history's start.
    assert.deepEqual(actionTypes(actions), [
      'stop call',
      'releaseCancelledAudio',
      'cancel to the upload',
      'deliverCancelled',
      'invoke call',
    ]);
  });

  it('cancel while a clear_history runs lets it run and drops only the queued turns; in idle it only acks', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 2 }));
    const [clearing] = transition(sessionMachine, idle, { type: 'clear_history' });
    const [queued] = transition(sessionMachine, clearing, audio(2));
    const [after, actions] = transition(sessionMachine, queued, { type: 'cancel' });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(after.context.running, { service: 'clear_history' });
    assert.deepEqual(after.context.waiting, []);
    assert.deepEqual(actionTypes(actions), [
      'releaseCancelledAudio',
      'cancel to the upload',
      'deliverCancelled',
    ]);
    const [stillIdle, idleActions] = transition(sessionMachine, idle, { type: 'cancel' });
    assert.deepEqual(stillIdle.value, { open: 'idle' });
    assert.deepEqual(actionTypes(idleActions), ['cancel to the upload', 'deliverCancelled']);
  });

  it('a clear_history past --chat_queue is answered busy; it is no turn', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 0 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [after, actions] = transition(sessionMachine, calling, { type: 'clear_history' });
    assert.deepEqual(after.value, { open: 'calling' });
    assert.deepEqual(after.context.waiting, []);
    assert.equal(after.context.turns, 1);
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"busy","message":"1 call running and 0 waiting; clear_history dropped"}',
    ]);
  });

  it('a frame refused because the microphone is disabled is a turn too', () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ microphoneEnabled: false }));
    const [after, actions] = transition(sessionMachine, idle, audio(1));
    assert.deepEqual(after.value, { open: 'idle' });
    assert.equal(after.context.turns, 1);
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"microphone_disabled","message":"The microphone is disabled (/microphone/set_enabled); the audio frame was not forwarded to /chat.","turn":1}',
      'turn_end refused 1',
    ]);
  });

  it('a failed send closes the session, and leaving calling stops its call', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [after, actions] = transition(sessionMachine, calling, { type: 'session.sendFailed' });
    assert.equal(after.value, 'closed');
    assert.equal(after.status, 'done');
    assert.deepEqual(actionTypes(actions), ['stop call', 'stop upload']);
  });

  it('an admitted utterance_start counts a turn, marks the session as streaming and opens the upload', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const start: SessionEvent = { type: 'utterance_start', at: 5 };
    const [after, actions] = transition(sessionMachine, idle, start);
    assert.deepEqual(after.value, { open: 'idle' });
    assert.equal(after.context.turns, 1);
    assert.equal(after.context.streams, true);
    assert.deepEqual(actionTypes(actions), ['followUtterance', 'upload.open to the upload']);
    // The upload's news: the ended utterance is a request like any other.
    const [calling, queued] = transition(sessionMachine, after, {
      type: 'utterance.ended',
      turn: 1,
      parts: 2,
      audioBytes: 640,
    });
    assert.deepEqual(calling.value, { open: 'calling' });
    assert.deepEqual(calling.context.running, { service: 'chat', turn: 1, audioBytes: 640, streamed: true });
    assert.deepEqual(actionTypes(queued), ['endUtterance', 'invoke call']);
  });

  it('an utterance_start while one is open is refused as its own turn; the open one goes on', () => {
    const [idle] = initialTransition(sessionMachine, inputWith());
    const [streaming] = transition(sessionMachine, idle, {
      type: 'utterance_start',
      at: 0,
    });
    const [after, actions] = transition(sessionMachine, streaming, {
      type: 'utterance_start',
      at: 1,
    });
    assert.equal(after.context.turns, 2);
    assert.deepEqual(delivered(actions), [
      '{"type":"error","code":"utterance_open","message":"utterance 1 is still open; one utterance at a time","turn":2}',
      'turn_end refused 2',
    ]);
  });

  it("a cancel's abandoned utterance ends cancelled with the turns the calls drop, in turn order", () => {
    const [idle] = initialTransition(sessionMachine, inputWith({ maxWaitingCalls: 2 }));
    const [calling] = transition(sessionMachine, idle, audio(1));
    const [streaming] = transition(sessionMachine, calling, {
      type: 'utterance_start',
      at: 0,
    });
    const [queued] = transition(sessionMachine, streaming, audio(2));
    // The session knows the utterance its upload has open: the cancel drops it with the calls' turns.
    const told = queued;
    assert.equal(told.context.openTurn, 2);
    // Turn 1 runs, turn 3 waits: the turns `cancelled` delivers for, before the ack.
    assert.deepEqual(told.context.running, { service: 'chat', turn: 1, audioBytes: 1, streamed: false });
    assert.deepEqual(told.context.waiting, [{ service: 'chat', turn: 3, audioBytes: 2, streamed: false }]);
    const [after, actions] = transition(sessionMachine, told, { type: 'cancel' });
    assert.deepEqual(after.value, { open: 'idle' });
    assert.deepEqual(after.context.cancelledTurns, []);
    assert.deepEqual(actionTypes(actions), [
      'stop call',
      'releaseCancelledAudio',
      'cancel to the upload',
      'deliverCancelled',
    ]);
  });
});
