import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  UtteranceEvent,
  type TranscriptMsg,
  type UtteranceAudioMsg,
} from '../../src/ros/port/ros-messages.js';
import {
  createStreamingRecogniser,
  type UtteranceOutcome,
} from '../../src/robot/nodes/streaming-recogniser.js';
import { RECOGNISER_LIMITS, type RecogniserLimits } from '../../src/robot/speech/recogniser-limits.js';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { capturingLogger } from '../support/log-capture.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * The demo chat's streaming recogniser stand-in on a clock moved by hand: what it costs and when (each
 * part rt × its duration, one after another, as the parts arrive), what it publishes, what a goal's claim
 * gets, and that everything it holds is bounded and let go.
 */

/** `ms` of 16-bit mono 16 kHz PCM (32 bytes a millisecond), in a pattern a reordering would not keep. */
const pcm = (ms: number, seed = 0): Uint8Array =>
  Uint8Array.from({ length: ms * 32 }, (_, index) => (index * 7 + seed) & 0xff);

const part = (id: string, sequence: number, audio: Uint8Array): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence,
  event: UtteranceEvent.PART,
  audio,
});
const end = (id: string, parts: number): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence: parts,
  event: UtteranceEvent.END,
  audio: new Uint8Array(),
});
const abandoned = (id: string, parts: number): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence: parts,
  event: UtteranceEvent.ABANDONED,
  audio: new Uint8Array(),
});

const setup = (rt: number, limits?: RecogniserLimits) => {
  const clock = new ManualClock();
  const published: (TranscriptMsg & { atMs: number })[] = [];
  const { logger, lines } = capturingLogger('info');
  const recogniser = createStreamingRecogniser({
    rt,
    clock,
    logger,
    publish: (transcript) => published.push({ ...transcript, atMs: clock.now() }),
    ...(limits === undefined ? {} : { limits }),
  });
  return { clock, published, recogniser, logs: lines };
};

/**
 * The claim's outcome once settled, or 'pending': what is due now on the clock runs first (the recogniser
 * tells an outcome later, never from inside the call), then promise callbacks.
 */
const settled = async (
  clock: ManualClock,
  outcome: Promise<UtteranceOutcome>,
): Promise<UtteranceOutcome | 'pending'> => {
  clock.advance(0);
  let value: UtteranceOutcome | 'pending' = 'pending';
  void outcome.then((result) => (value = result));
  await new Promise((resolve) => setImmediate(resolve));
  return value;
};

const joined = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((each) => [...each]));

describe('the streaming recogniser stand-in', () => {
  it('recognises each part as it arrives for rt × its duration, a partial transcript after each, the final after END', async () => {
    const { clock, published, recogniser } = setup(0.3);
    const parts = [pcm(100, 1), pcm(100, 2), pcm(200, 3)];
    recogniser.take(part('u1', 0, parts[0]!));
    clock.advance(100);
    recogniser.take(part('u1', 1, parts[1]!));
    clock.advance(100);
    recogniser.take(part('u1', 2, parts[2]!));
    recogniser.take(end('u1', 3));
    const claim = recogniser.claim('u1', 10_000);
    assert.equal(await settled(clock, claim.outcome), 'pending', 'the last part is still being recognised');
    clock.advance(59);
    assert.equal(await settled(clock, claim.outcome), 'pending');
    clock.advance(1);
    assert.deepEqual(published, [
      { utterance_id: 'u1', text: '[0.1 s of speech]', final: false, atMs: 30 },
      { utterance_id: 'u1', text: '[0.2 s of speech]', final: false, atMs: 130 },
      { utterance_id: 'u1', text: '[0.4 s of speech]', final: false, atMs: 260 },
      { utterance_id: 'u1', text: '[0.4 s of speech]', final: true, atMs: 260 },
    ]);
    assert.deepEqual(await settled(clock, claim.outcome), {
      kind: 'recognised',
      wav: wavOfPcmParts([joined(...parts)]),
      transcript: '[0.4 s of speech]',
    });
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 }, 'let go once claimed');
    assert.equal(clock.pending, 0);
  });

  it('recognises parts that arrive together one after another, never two at once', () => {
    const { clock, published, recogniser } = setup(0.5);
    for (let sequence = 0; sequence < 3; sequence += 1) recogniser.take(part('u1', sequence, pcm(1_000)));
    recogniser.take(end('u1', 3));
    clock.advance(1_500);
    assert.deepEqual(
      published.map((each) => [each.atMs, each.final]),
      [
        [500, false],
        [1_000, false],
        [1_500, false],
        [1_500, true],
      ],
    );
  });

  it("has the words ready rt × the last part after END, however long the utterance (the streamed path's point)", () => {
    const finalAfterEnd = (seconds: number) => {
      const { clock, published, recogniser } = setup(0.3);
      // Parts of 200 ms, each sent once it is spoken; END with the last one, when speech ends.
      const parts = (seconds * 1_000) / 200;
      for (let sequence = 0; sequence < parts; sequence += 1) {
        clock.advance(200);
        recogniser.take(part('u1', sequence, pcm(200)));
      }
      const endAt = clock.now();
      recogniser.take(end('u1', parts));
      clock.advance(1_000);
      const final = published.find((each) => each.final);
      assert.ok(final);
      return final.atMs - endAt;
    };
    // Only the last part is left to recognise after END: 0.3 × 200 ms, whatever came before it.
    assert.deepEqual([finalAfterEnd(1), finalAfterEnd(5), finalAfterEnd(15)], [60, 60, 60]);
  });

  it('with rt 0 recognises at once: the transcripts come as the parts do', () => {
    const { published, recogniser, clock } = setup(0);
    recogniser.take(part('u1', 0, pcm(150)));
    recogniser.take(end('u1', 1));
    assert.equal(published.length, 0, 'never from inside take');
    clock.advance(0);
    assert.deepEqual(
      published.map((each) => [each.text, each.final]),
      [
        ['[0.1 s of speech]', false],
        ['[0.1 s of speech]', true],
      ],
    );
    assert.ok(
      published.every((each) => each.atMs === 0),
      'at once',
    );
  });

  it('answers a claim that came before the utterance (topic and action are separate channels)', async () => {
    const { clock, recogniser } = setup(0);
    const claim = recogniser.claim('u1', 10_000);
    assert.equal(await settled(clock, claim.outcome), 'pending');
    recogniser.take(part('u1', 0, pcm(20, 5)));
    assert.equal(await settled(clock, claim.outcome), 'pending', 'no END yet');
    recogniser.take(end('u1', 1));
    assert.deepEqual(await settled(clock, claim.outcome), {
      kind: 'recognised',
      wav: wavOfPcmParts([pcm(20, 5)]),
      transcript: '[0.0 s of speech]',
    });
  });

  it('fails a claim whose END does not come in time, lets the utterance go, and ignores what comes late', async () => {
    const { clock, published, recogniser } = setup(0);
    recogniser.take(part('u1', 0, pcm(100)));
    recogniser.take(part('u1', 1, pcm(100)));
    const claim = recogniser.claim('u1', 10_000);
    clock.advance(9_999);
    assert.equal(await settled(clock, claim.outcome), 'pending');
    clock.advance(1);
    assert.deepEqual(await settled(clock, claim.outcome), {
      kind: 'failed',
      reason: 'the recogniser got no END of utterance u1 within 10000 ms of its goal',
    });
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    const before = published.length;
    recogniser.take(end('u1', 2));
    assert.equal(published.length, before, 'a late END recognises nothing');
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
  });

  it('drops an abandoned utterance at once: its recognition stops, a claim waiting or coming hears why', async () => {
    const { clock, published, recogniser } = setup(1);
    recogniser.take(part('u1', 0, pcm(500)));
    recogniser.take(part('u1', 1, pcm(500)));
    const waiting = recogniser.claim('u1', 10_000);
    clock.advance(100);
    recogniser.take(abandoned('u1', 2));
    const why = 'utterance u1 was abandoned after 2 parts';
    assert.deepEqual(await settled(clock, waiting.outcome), { kind: 'failed', reason: why });
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.equal(clock.pending, 0, 'the recognition under way and the wait are stopped');
    clock.advance(5_000);
    assert.deepEqual(published, [], 'no transcript after the abandonment');
    assert.deepEqual(await settled(clock, recogniser.claim('u1', 10_000).outcome), {
      kind: 'failed',
      reason: why,
    });
  });

  for (const [what, events, reason] of [
    [
      'a part missing',
      [part('u1', 0, pcm(10)), part('u1', 2, pcm(10))],
      'part 2 of utterance u1 came when part 1 was next; the recogniser dropped it',
    ],
    [
      'END counting other parts than arrived',
      [part('u1', 0, pcm(10)), end('u1', 2)],
      'the END of utterance u1 counts 2 parts, the recogniser received 1; dropped',
    ],
  ] as const) {
    it(`refuses an utterance with ${what}: its audio goes, its claim hears why`, async () => {
      const { clock, recogniser, logs } = setup(0);
      for (const event of events) recogniser.take(event);
      assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 }, 'let go at once; why is remembered');
      assert.deepEqual(await settled(clock, recogniser.claim('u1', 10_000).outcome), {
        kind: 'failed',
        reason,
      });
      assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
      assert.ok(logs.some((line) => line['msg'] === `not recognised: ${reason}`));
    });
  }

  it('ignores a part after END: the utterance is complete as its END counts it', async () => {
    const { clock, recogniser } = setup(0);
    for (const event of [part('u1', 0, pcm(10)), end('u1', 1), part('u1', 1, pcm(10))])
      recogniser.take(event);
    const answered = await settled(clock, recogniser.claim('u1', 10_000).outcome);
    assert.deepEqual(answered, {
      kind: 'recognised',
      wav: wavOfPcmParts([pcm(10)]),
      transcript: '[0.0 s of speech]',
    });
  });

  it('refuses an utterance over its byte limit', async () => {
    const { clock, recogniser } = setup(0, { ...RECOGNISER_LIMITS, maxUtteranceBytes: 6_400 });
    recogniser.take(part('u1', 0, pcm(100)));
    recogniser.take(part('u1', 1, pcm(100)));
    assert.deepEqual(recogniser.held, { utterances: 1, bytes: 6_400 });
    recogniser.take(part('u1', 2, new Uint8Array(1)));
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.deepEqual(await settled(clock, recogniser.claim('u1', 10_000).outcome), {
      kind: 'failed',
      reason: "utterance u1 would be over the recogniser's 6400 bytes of one utterance; dropped",
    });
  });

  it('holds at most maxBytes in all: the unclaimed utterance holding the most gives way, never a smaller one', async () => {
    const { clock, recogniser } = setup(0, { ...RECOGNISER_LIMITS, maxBytes: 20_000 });
    for (let sequence = 0; sequence < 5; sequence += 1) recogniser.take(part('long', sequence, pcm(100)));
    recogniser.take(part('short', 0, pcm(100)));
    assert.deepEqual(recogniser.held, { utterances: 2, bytes: 19_200 });
    recogniser.take(part('short', 1, pcm(100)));
    assert.deepEqual(recogniser.held, { utterances: 1, bytes: 6_400 }, '"long" gave way, its audio freed');
    assert.deepEqual(await settled(clock, recogniser.claim('long', 10_000).outcome), {
      kind: 'failed',
      reason:
        "utterance long held the most of the recogniser's 20000 bytes when newer speech needed room; dropped",
    });
    // "short" is now the largest: a bigger newcomer's part does not take its room.
    recogniser.take(part('big', 0, pcm(450)));
    recogniser.take(part('big', 1, pcm(200)));
    assert.deepEqual(recogniser.held, { utterances: 1, bytes: 6_400 }, '"big" refused, its audio gone');
    assert.deepEqual(await settled(clock, recogniser.claim('big', 10_000).outcome), {
      kind: 'failed',
      reason: 'utterance big would take the recogniser past 20000 bytes held; dropped',
    });
  });

  it('holds at most its limit of utterances: one more evicts what nobody claims, the largest first; a claim hears why', async () => {
    const { clock, recogniser } = setup(0, { ...RECOGNISER_LIMITS, maxUtterances: 2 });
    recogniser.take(part('u1', 0, pcm(10)));
    const first = recogniser.claim('u1', 10_000);
    recogniser.take(part('u2', 0, pcm(10)));
    // u1 is claimed: u2, unclaimed, makes way, though u1 is older.
    recogniser.take(part('u3', 0, pcm(10)));
    assert.deepEqual(recogniser.held, { utterances: 2, bytes: 640 });
    assert.deepEqual(await settled(clock, recogniser.claim('u2', 10_000).outcome), {
      kind: 'failed',
      reason:
        "utterance u2 held the most of the recogniser's 2 utterances when newer speech needed room; dropped",
    });
    assert.equal(await settled(clock, first.outcome), 'pending', 'u1 still waits for its END');
    recogniser.take(end('u1', 1));
    const answered = await settled(clock, first.outcome);
    assert.equal(answered !== 'pending' && answered.kind, 'recognised');
    // Of two unclaimed, the one holding the most makes way for the newcomer, however new it is.
    recogniser.take(part('long', 0, pcm(100)));
    assert.deepEqual(recogniser.held, { utterances: 2, bytes: 3_520 });
    recogniser.take(part('short', 0, pcm(10)));
    assert.deepEqual(recogniser.held, { utterances: 2, bytes: 640 }, 'u3 and short held; long evicted');
    recogniser.take(end('u3', 1));
    const third = await settled(clock, recogniser.claim('u3', 10_000).outcome);
    assert.equal(third !== 'pending' && third.kind, 'recognised');
  });

  it('after a storm of abandoned utterances holds nothing and no timer', () => {
    const { clock, recogniser } = setup(0.3);
    for (let index = 0; index < 500; index += 1) {
      const id = `storm-${index}`;
      recogniser.take(part(id, 0, pcm(200)));
      recogniser.take(part(id, 1, pcm(200)));
      recogniser.take(abandoned(id, 2));
    }
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.equal(clock.pending, 0);
  });

  it('a cancelled claim lets the utterance go and never settles; a second claim of one utterance fails', async () => {
    const { clock, recogniser } = setup(0);
    recogniser.take(part('u1', 0, pcm(10)));
    const claim = recogniser.claim('u1', 10_000);
    const second = recogniser.claim('u1', 10_000);
    recogniser.take(end('u1', 1));
    assert.equal((await settled(clock, claim.outcome)) !== 'pending', true, 'the first claim has it');
    assert.deepEqual(await settled(clock, second.outcome), {
      kind: 'failed',
      reason: 'utterance u1 was already answered by an earlier goal',
    });
    recogniser.take(part('u2', 0, pcm(10)));
    const cancelled = recogniser.claim('u2', 10_000);
    cancelled.cancel();
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.equal(clock.pending, 0);
    clock.advance(20_000);
    assert.equal(await settled(clock, cancelled.outcome), 'pending');
  });

  it('tells a late claim of an answered utterance that it was answered', async () => {
    const { clock, recogniser } = setup(0);
    recogniser.take(part('u1', 0, pcm(10)));
    recogniser.take(end('u1', 1));
    await settled(clock, recogniser.claim('u1', 10_000).outcome);
    assert.deepEqual(await settled(clock, recogniser.claim('u1', 10_000).outcome), {
      kind: 'failed',
      reason: 'utterance u1 was already answered by an earlier goal',
    });
  });

  it('drops events whose utterance_id is empty or over its limit, saying why', async () => {
    const { clock, recogniser, logs } = setup(0);
    recogniser.take(part('', 0, pcm(10)));
    recogniser.take(part('x'.repeat(RECOGNISER_LIMITS.maxIdChars + 1), 0, pcm(10)));
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.equal(
      logs.filter(
        (line) =>
          line['msg'] ===
          'ignored an /utterance/audio event: too long or empty an utterance_id, an utterance let go, or no known kind',
      ).length,
      2,
    );
    assert.deepEqual(await settled(clock, recogniser.claim('', 10_000).outcome), {
      kind: 'failed',
      reason: `the recogniser takes utterance ids of 1 to ${RECOGNISER_LIMITS.maxIdChars} characters; goal refused`,
    });
  });

  it('close stops every recognition and settles every claim', async () => {
    const { clock, recogniser } = setup(1);
    recogniser.take(part('u1', 0, pcm(500)));
    const claim = recogniser.claim('u1', 10_000);
    recogniser.close();
    assert.deepEqual(await settled(clock, claim.outcome), {
      kind: 'failed',
      reason: 'the node is shutting down',
    });
    assert.equal(clock.pending, 0);
    recogniser.take(part('u2', 0, pcm(10)));
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 }, 'nothing taken after close');
  });
});
