import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { initialTransition, transition, type AnyEventObject, type InspectionEvent } from 'xstate';
import { startSessionActor } from '../../src/actors/session/session.js';
import { sessionMachine } from '../../src/actors/session/session-machine.js';
import type { SessionEvent, SessionMachineInput } from '../../src/actors/session/session-types.js';
import {
  createMessageIdAllocator,
  type AudioPairFrame,
  type OutboundFrame,
  DEFAULT_LIMITS,
} from '../../src/protocol/ws/index.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { createConversationGauges } from '../../src/actors/conversation-gauges.js';
import { byteBudget } from '../../src/actors/budgets.js';
import { FakeConversationPort, fakeMicrophone } from '../support/conversation-fakes.js';
import { fuzzRuns } from '../support/fuzz-runs.js';
import { callTimeouts } from '../support/port-calls.js';

/**
 * The session's snapshots are plain data and its transitions a fold: the same event log gives the same
 * snapshots, pure transitions touch nothing live, and the events a live session processed replay to the
 * snapshot it reached.
 */

type Snapshot = ReturnType<typeof initialTransition<typeof sessionMachine>>[0];

const limits = { ...DEFAULT_LIMITS, maxWaitingCalls: 2, minBinaryFrameBytes: 2, maxBinaryFrameBytes: 64 };
const machineInput: SessionMachineInput = { limits, audioBudgetBytes: 100, microphoneEnabled: true };

const eventArbitrary: fc.Arbitrary<SessionEvent> = fc.oneof(
  fc
    .record({ bytes: fc.constantFrom(0, 1, 2, 10, 64, 65), fits: fc.boolean() })
    .map(({ bytes, fits }): SessionEvent => ({ type: 'utterance', audio: new Uint8Array(bytes), fits })),
  fc.constant<SessionEvent>({ type: 'clear_history' }),
  fc.constant<SessionEvent>({ type: 'cancel' }),
  fc.constant<SessionEvent>({ type: 'text.rejected', code: 'invalid_json', message: 'not JSON' }),
  fc.constant<SessionEvent>({
    type: 'call.part',
    part: { emotion: 'happy', text: 'a part', audio: new Uint8Array(2) },
  }),
  fc.constant<SessionEvent>({ type: 'call.settled', outcome: { kind: 'answered' } }),
  fc.constant<SessionEvent>({ type: 'call.settled', outcome: { kind: 'failed', error: 'timed out' } }),
  fc.boolean().map((enabled): SessionEvent => ({ type: 'microphone.changed', enabled })),
  fc.constantFrom(0, 1 << 30).map((bytes): SessionEvent => ({ type: 'ws.buffered', bytes })),
  fc.constant<SessionEvent>({ type: 'session.sendFailed' }),
  // A streamed utterance's events: its start, and the upload's news.
  fc.constant<SessionEvent>({ type: 'utterance_start', at: 0 }),
  fc.constant<SessionEvent>({ type: 'utterance.ended', turn: 1, parts: 1, audioBytes: 10 }),
  fc.constant<SessionEvent>({ type: 'upload.abandoned', turn: 1, parts: 1, refusal: undefined }),
  fc.constant<SessionEvent>({ type: 'upload.part', turn: 1, sequence: 0, audio: new Uint8Array(2) }),
);

/**
 * The snapshots a log folds into, and the effects each step asks for (type and params; XState's own, the
 * invokes and the events to the upload, by type alone: their params hold the children).
 */
const effectsOf = (actions: readonly { type: string; params?: unknown }[]) =>
  actions.map(({ type, params }) => (type.startsWith('xstate.') ? { type } : { type, params }));
const fold = (events: readonly SessionEvent[]) => {
  const [first, firstActions] = initialTransition(sessionMachine, machineInput);
  const snapshots: Snapshot[] = [first];
  const effects: unknown[] = [effectsOf(firstActions)];
  let snapshot = first;
  for (const event of events) {
    const [next, actions] = transition(sessionMachine, snapshot, event);
    snapshots.push(next);
    effects.push(effectsOf(actions));
    snapshot = next;
  }
  return { snapshots, effects };
};

const plain = (snapshot: Snapshot) => ({
  value: snapshot.value,
  status: snapshot.status,
  context: snapshot.context,
});

describe('session snapshots are plain data, and transitions replay (fast-check)', () => {
  it('a log folds twice to the same snapshots and effects; every context copies as plain data', () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 40 }), (events) => {
        const once = fold(events);
        const twice = fold(events);
        assert.deepStrictEqual(twice.snapshots.map(plain), once.snapshots.map(plain));
        assert.deepStrictEqual(twice.effects, once.effects);
        for (const snapshot of once.snapshots) {
          // structuredClone throws on a function and gives a class instance a plain prototype: either
          // fails this check.
          assert.deepStrictEqual(structuredClone(snapshot.context), snapshot.context);
          // The only children are the ones the chart invokes (the upload; the call while calling), and
          // the persisted snapshot, children included, is plain data.
          const invoked = snapshot.matches({ open: 'calling' }) ? ['call', 'upload'] : ['upload'];
          assert.deepStrictEqual(
            Object.keys(snapshot.children).sort(),
            snapshot.status === 'active' ? invoked : [],
          );
          const persisted = sessionMachine.getPersistedSnapshot(snapshot);
          assert.deepStrictEqual(structuredClone(persisted), persisted);
        }
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('the events a live session processed replay, as pure transitions, to the snapshot it reached', async () => {
    const port = new FakeConversationPort();
    const gauges = createConversationGauges();
    const microphone = fakeMicrophone(true);
    const frames: OutboundFrame[] = [];
    const processed: AnyEventObject[] = [];
    const inspect = (inspection: InspectionEvent): void => {
      // The session's own events: its actor is the root of its system.
      if (inspection.type === '@xstate.event' && inspection.actorRef.sessionId === inspection.rootId) {
        processed.push(inspection.event);
      }
    };
    const session = startSessionActor(
      {
        calls: createRosCalls({ port, timeoutsMs: callTimeouts(30_000, 5_000) }),
        speech: port.speech(),
        utterancePrefix: 'test-1',
        messageIds: createMessageIdAllocator(),
        playAudioPairs$: new Subject<AudioPairFrame>(),
        microphone,
        limits,
        gauges,
        audioBudget: byteBudget(gauges.queuedAudioBytes, 100),
        send: (frame) => {
          frames.push(frame);
        },
      },
      { inspect },
    );
    session.send({ type: 'ws.binary', data: new Uint8Array(10) });
    session.send({ type: 'ws.binary', data: new Uint8Array(20) });
    session.send({ type: 'ws.text', data: '{"service":"clear_history"}' });
    session.send({ type: 'ws.binary', data: new Uint8Array(30) }); // past the queue: busy
    session.send({ type: 'ws.text', data: 'not json' });
    port.callAt(0).respond({ emotion: 'happy', text: 'one', audio: new Uint8Array(4) });
    microphone.state.next(false);
    session.send({ type: 'ws.binary', data: new Uint8Array(5) }); // the microphone is off
    port.callAt(1).fail(new Error('robot said no'));
    session.send({ type: 'ws.text', data: '{"service":"cancel"}' }); // clear_history runs: goes on
    port.callAt(2).respond({});
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });

    const live = session.getSnapshot();
    assert.deepEqual(live.value, { open: 'idle' });
    assert.equal(live.context.turns, 4);
    assert.equal(processed[0]?.type, 'xstate.init');
    const log = processed.slice(1) as SessionEvent[];
    assert.ok(log.length >= 10, `the log holds the socket's events and the calls' answers: ${log.length}`);
    const replayed = fold(log).snapshots.at(-1);
    assert.ok(replayed !== undefined);
    assert.deepStrictEqual(plain(replayed), plain(live));
    assert.ok(frames.length > 0);
    session.stop();
    assert.equal(gauges.queuedAudioBytes.value, 0);
  });

  it("pure transitions on a live session's snapshot leave the live actor and the process-wide budget as they were", () => {
    const port = new FakeConversationPort();
    const gauges = createConversationGauges();
    const session = startSessionActor({
      calls: createRosCalls({ port, timeoutsMs: callTimeouts(30_000, 5_000) }),
      speech: port.speech(),
      utterancePrefix: 'test-1',
      messageIds: createMessageIdAllocator(),
      playAudioPairs$: new Subject<AudioPairFrame>(),
      microphone: fakeMicrophone(true),
      limits: { ...DEFAULT_LIMITS, maxWaitingCalls: 2 },
      gauges,
      audioBudget: byteBudget(gauges.queuedAudioBytes, 1_000),
      send: () => undefined,
    });
    // A live session whose call never answers, holding 300 + 200 bytes of the process-wide budget.
    session.send({ type: 'ws.binary', data: new Uint8Array(300) });
    session.send({ type: 'ws.binary', data: new Uint8Array(200) });
    assert.equal(gauges.queuedAudioBytes.value, 500);
    const before = structuredClone(plain(session.getSnapshot()));
    const [cancelled, cancelActions] = transition(sessionMachine, session.getSnapshot(), { type: 'cancel' });
    const [closed] = transition(sessionMachine, session.getSnapshot(), { type: 'ws.closed' });
    // Through `cancelled` (the running turn stopped) to idle; the release and the stop are actions, not run.
    assert.deepEqual(cancelled.value, { open: 'idle' });
    assert.equal(closed.value, 'closed');
    assert.ok(cancelActions.some((action) => action.type === 'releaseCancelledAudio'));
    assert.equal(gauges.queuedAudioBytes.value, 500, 'a pure transition released live budget');
    assert.equal(port.callAt(0).unsubscribed, false, 'a pure transition stopped the live call');
    assert.deepStrictEqual(plain(session.getSnapshot()), before);
    // The live session's own cancel does give it back and stops its call.
    session.send({ type: 'ws.text', data: '{"service":"cancel"}' });
    assert.equal(gauges.queuedAudioBytes.value, 0);
    assert.equal(port.callAt(0).unsubscribed, true);
    session.stop();
  });
});
