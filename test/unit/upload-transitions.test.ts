import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { uploadMachine } from '../../src/actors/session/upload-machine.js';
import type { UploadEvent, UploadInput } from '../../src/actors/session/session-types.js';
import { DEFAULT_LIMITS, PCM_BYTES_PER_SECOND } from '../../src/protocol/ws/index.js';
import { fuzzRuns } from '../support/fuzz-runs.js';

/**
 * The upload chart (a streamed utterance) as pure transitions: the state an event leads to and the actions
 * it asks for, none run; its snapshots plain data and a fold. The effects are tested live, through a
 * session, in session-streaming.test.ts and the streaming end-to-end tests.
 */

// The lag allowed is wide: the parts below come 10 s after the opening with a few bytes of audio.
const input: UploadInput = {
  limits: { ...DEFAULT_LIMITS, maxPartBytes: 100, maxBinaryFrameBytes: 250, maxStreamLagMs: 60_000 },
  audioBudgetBytes: 1_000,
};
const actionTypes = (actions: readonly { type: string }[]) => actions.map((action) => action.type);
const open: UploadEvent = { type: 'upload.open', turn: 4, at: 0 };
/** A part of turn 4 that arrives as spoken: far behind the real-time lead limit. */
type PartEvent = Extract<UploadEvent, { type: 'part' }>;
const part = (sequence: number, bytes = 10, turn = 4): PartEvent => ({
  type: 'part',
  header: { turn, sequence },
  audio: new Uint8Array(bytes),
  at: 10_000,
  fits: true,
});
const end = (parts: number, queueFull = false): UploadEvent => ({
  type: 'utterance_end',
  turn: 4,
  parts,
  queueFull,
});
/** The `code` of the error frame an `abandonUtterance` or `deliver` action would send. */
const errorCode = (actions: readonly { type: string; params?: unknown }[]) =>
  actions.flatMap((action) => {
    const params = action.params as { frame?: { text?: string }; text?: string } | undefined;
    const text = params?.frame?.text ?? params?.text;
    return text === undefined ? [] : [(JSON.parse(text) as { code: string }).code];
  });

describe('upload transitions (pure)', () => {
  it('opens as the session says, takes the parts in order, and ends: the robot told, the session next', () => {
    const [none, initial] = initialTransition(uploadMachine, input);
    assert.equal(none.value, 'none');
    assert.deepEqual(actionTypes(initial), []);
    const [streaming, opened] = transition(uploadMachine, none, open);
    assert.equal(streaming.value, 'streaming');
    assert.deepEqual(streaming.context.open, { turn: 4, parts: 0, bytes: 0, openedAt: 0, lastAudioAt: 0 });
    assert.deepEqual(
      // The session follows the utterance itself, as it admits its start.
      actionTypes(opened).filter((type) => !type.startsWith('xstate.')),
      [],
    );
    const [one, sent] = transition(uploadMachine, streaming, part(0));
    // The part goes out and the stall wait starts again (the state entered anew).
    assert.deepEqual(
      actionTypes(sent).filter((type) => !type.startsWith('xstate.')),
      ['sendPart'],
    );
    assert.deepEqual(one.context.open, {
      turn: 4,
      parts: 1,
      bytes: 10,
      openedAt: 0,
      lastAudioAt: 10_000,
    });
    const [ended, endActions] = transition(uploadMachine, one, end(1));
    assert.equal(ended.value, 'none');
    assert.equal(ended.context.open, undefined);
    assert.deepEqual(
      actionTypes(endActions).filter((type) => !type.startsWith('xstate.')),
      ['endUtterance'],
    );
  });

  it('abandons the utterance on a part out of order, too large, past the utterance limit or ahead of real time', () => {
    const [none] = initialTransition(uploadMachine, input);
    const [streaming] = transition(uploadMachine, none, open);
    const [two] = transition(
      uploadMachine,
      transition(uploadMachine, streaming, part(0, 100))[0],
      part(1, 100),
    );
    // 3 s of audio 0 ms after the start: more than maxStreamLeadMs (2 s) ahead of real time.
    const tooFast: UploadEvent = { ...part(0), audio: new Uint8Array(3 * PCM_BYTES_PER_SECOND), at: 0 };
    const cases: [UploadEvent, string, typeof streaming][] = [
      [part(1), 'part_out_of_order', streaming],
      [part(0, 101), 'part_too_large', streaming],
      [part(2, 100), 'utterance_too_large', two],
      [{ ...part(0), fits: false }, 'busy', streaming],
    ];
    for (const [event, code, from] of cases) {
      const [after, actions] = transition(uploadMachine, from, event);
      assert.equal(after.value, 'none', code);
      assert.equal(after.context.open, undefined, code);
      assert.deepEqual(errorCode(actions), [code]);
      assert.ok(actionTypes(actions).includes('abandonUtterance'), code);
    }
    const limited = {
      ...input,
      limits: {
        ...input.limits,
        maxPartBytes: 3 * PCM_BYTES_PER_SECOND,
        maxBinaryFrameBytes: 4 * PCM_BYTES_PER_SECOND,
      },
    };
    const [fastNone] = initialTransition(uploadMachine, limited);
    const [fastOpen] = transition(uploadMachine, fastNone, open);
    assert.deepEqual(errorCode(transition(uploadMachine, fastOpen, tooFast)[1]), ['utterance_too_fast']);
  });

  it('a part naming another utterance is dropped with part_invalid; the open one goes on', () => {
    const [none] = initialTransition(uploadMachine, input);
    const [streaming] = transition(uploadMachine, none, open);
    const [after, actions] = transition(uploadMachine, streaming, part(0, 10, 9));
    assert.equal(after.value, 'streaming');
    assert.deepEqual(actionTypes(actions), ['deliver']);
    assert.deepEqual(errorCode(actions), ['part_invalid']);
    const [idle, none2] = transition(uploadMachine, none, part(0));
    assert.equal(idle.value, 'none');
    assert.deepEqual(errorCode(none2), ['part_invalid']);
  });

  it('an end with parts missing, or with the queue full, abandons the utterance', () => {
    const [none] = initialTransition(uploadMachine, input);
    const [streaming] = transition(uploadMachine, none, open);
    const [one] = transition(uploadMachine, streaming, part(0));
    assert.deepEqual(errorCode(transition(uploadMachine, one, end(2))[1]), ['utterance_incomplete']);
    assert.deepEqual(errorCode(transition(uploadMachine, one, end(1, true))[1]), ['busy']);
  });

  it('a cancel abandons the open utterance without an error, its turn told to the session', () => {
    const [none] = initialTransition(uploadMachine, input);
    const [streaming] = transition(uploadMachine, none, open);
    const [after, actions] = transition(uploadMachine, streaming, { type: 'cancel' });
    assert.equal(after.value, 'none');
    assert.deepEqual(
      actionTypes(actions).filter((type) => !type.startsWith('xstate.')),
      ['abandonUtterance'],
    );
    assert.deepEqual(errorCode(actions), []);
    assert.deepEqual(actionTypes(transition(uploadMachine, none, { type: 'cancel' })[1]), []);
  });

  it('a log folds twice to the same snapshots and effects; every context copies as plain data', () => {
    const eventArbitrary: fc.Arbitrary<UploadEvent> = fc.oneof(
      fc.constant(open),
      fc
        .record({
          sequence: fc.integer({ min: 0, max: 3 }),
          bytes: fc.constantFrom(0, 10, 100, 101),
          turn: fc.constantFrom(4, 5),
          fits: fc.boolean(),
        })
        .map(({ sequence, bytes, turn, fits }) => ({ ...part(sequence, bytes, turn), fits })),
      fc
        .record({ parts: fc.integer({ min: 0, max: 3 }), queueFull: fc.boolean() })
        .map(({ parts, queueFull }) => end(parts, queueFull)),
      fc.constant<UploadEvent>({ type: 'cancel' }),
    );
    const fold = (events: readonly UploadEvent[]) => {
      let [snapshot, actions] = initialTransition(uploadMachine, input);
      const steps: unknown[] = [];
      for (const event of [undefined, ...events]) {
        if (event !== undefined) [snapshot, actions] = transition(uploadMachine, snapshot, event);
        assert.deepStrictEqual(structuredClone(snapshot.context), snapshot.context);
        assert.deepStrictEqual(Object.keys(snapshot.children), [], 'no live child in a snapshot');
        steps.push({
          value: snapshot.value,
          context: snapshot.context,
          actions: actions.map(({ type, params }) => ({ type, params })),
        });
      }
      return steps;
    };
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 30 }), (events) => {
        assert.deepStrictEqual(fold(events), fold(events));
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
