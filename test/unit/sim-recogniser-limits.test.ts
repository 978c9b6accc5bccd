import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConverseOutcome, type HeardMsg } from '../../src/ros/port/ros-messages.js';
import { HEARD_HISTORY_LENGTH } from '../../src/robot/sim/heard-history.js';
import { abandoned, end, goalRecorder, part, pcm, simOnVirtualTime } from '../support/sim-speech.js';

const streamedGoal = (id: string) => ({ utterance_id: id, streamed: true, audio: new Uint8Array() });
const INVALID = `result ${ConverseOutcome.INVALID} false`;

describe('the simulation’s recogniser: abandonment, bad order, time-outs', () => {
  it('drops an abandoned utterance: its work stops, its bytes go, a goal naming it is INVALID with the reason', () => {
    const { sim, at, transcripts, scheduler } = simOnVirtualTime({ recognitionRt: 1 });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('u', 0, pcm(500)));
      sim.publishUtteranceAudio(part('u', 1, pcm(500)));
    });
    at(100, () => {
      assert.equal(sim.recognitionStats().bytesHeld, 32_000);
      sim.publishUtteranceAudio(abandoned('u', 2));
    });
    at(200, () => sim.converse(streamedGoal('u'), goal.handler));
    scheduler.flush();
    assert.deepEqual(transcripts, [], 'the work under way when it was abandoned published nothing');
    assert.deepEqual(goal.heard, [`${INVALID} @200`]);
    assert.equal(goal.message(), 'utterance u was abandoned after 2 parts');
    const stats = sim.recognitionStats();
    assert.equal(stats.utterances, 0);
    assert.equal(stats.bytesHeld, 0);
    assert.equal(stats.dropped.abandoned, 1);
    assert.equal(scheduler.actions.length, 0, 'no timer is left');
  });

  it('tells a goal already waiting that its utterance was abandoned', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recognitionRt: 0.3 });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => sim.converse(streamedGoal('u'), goal.handler));
    at(10, () => {
      sim.publishUtteranceAudio(part('u', 0, pcm(100)));
    });
    at(20, () => {
      sim.publishUtteranceAudio(abandoned('u', 1));
    });
    scheduler.flush();
    assert.deepEqual(goal.heard, [`${INVALID} @20`]);
    assert.match(goal.message(), /abandoned/);
  });

  it('drops an utterance whose parts come out of order, or whose END counts other parts', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recognitionRt: 0.3 });
    const skipped = goalRecorder(() => scheduler.now());
    const miscounted = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('a', 0, pcm(100)));
      sim.publishUtteranceAudio(part('a', 2, pcm(100)));
      // Parts after the drop name no utterance held: ignored.
      sim.publishUtteranceAudio(part('a', 3, pcm(100)));
      sim.publishUtteranceAudio(part('b', 0, pcm(100)));
      sim.publishUtteranceAudio(end('b', 2));
      sim.converse(streamedGoal('a'), skipped.handler);
      sim.converse(streamedGoal('b'), miscounted.handler);
    });
    scheduler.flush();
    assert.equal(
      skipped.message(),
      'part 2 of utterance a came when part 1 was next; the simulated recogniser dropped it',
    );
    assert.equal(
      miscounted.message(),
      'the END of utterance b counts 2 parts, the simulated recogniser received 1; dropped',
    );
    const stats = sim.recognitionStats();
    assert.equal(stats.dropped.out_of_order, 1);
    assert.equal(stats.dropped.incomplete, 1);
    assert.equal(stats.ignoredEvents, 1);
    assert.equal(stats.invalidGoals, 2);
    assert.equal(stats.bytesHeld, 0);
  });

  it('answers INVALID when the END does not come within the wait; once it has come, waits for the work', () => {
    const { sim, at, scheduler } = simOnVirtualTime({
      recognitionRt: 2,
      recogniserLimits: { endWaitMs: 1000 },
    });
    const never = goalRecorder(() => scheduler.now());
    const slow = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.converse(streamedGoal('never'), never.handler);
      // 1 s of speech at rt 2: 2 s of work, longer than the END wait, but the END is in.
      sim.publishUtteranceAudio(part('slow', 0, pcm(1000)));
      sim.publishUtteranceAudio(end('slow', 1));
      sim.converse(streamedGoal('slow'), slow.handler);
    });
    scheduler.flush();
    assert.deepEqual(never.heard, [`${INVALID} @1000`]);
    assert.equal(
      never.message(),
      'the simulated recogniser got no END of utterance never within 1000 ms of its goal',
    );
    assert.deepEqual(slow.heard, ['part 1 @2000', `result ${ConverseOutcome.OK} true @2000`]);
    assert.equal(sim.recognitionStats().waitingGoals, 0);
  });

  it('hands an utterance to one goal only; a second goal naming it is told it was answered', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ chatParts: 1 });
    const first = goalRecorder(() => scheduler.now());
    const second = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('u', 0, pcm(100)));
      sim.publishUtteranceAudio(end('u', 1));
      sim.converse(streamedGoal('u'), first.handler);
    });
    at(5, () => sim.converse(streamedGoal('u'), second.handler));
    scheduler.flush();
    assert.deepEqual(first.heard, ['part 1 @0', `result ${ConverseOutcome.OK} true @0`]);
    assert.deepEqual(second.heard, [`${INVALID} @5`]);
    assert.equal(second.message(), 'utterance u was already answered by an earlier goal');
  });

  it('a cancelled goal hears nothing; its utterance is dropped at once, not left to go stale', () => {
    const { sim, at, scheduler } = simOnVirtualTime({
      recognitionRt: 0.3,
      recogniserLimits: { staleMs: 5000 },
    });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('u', 0, pcm(1000)));
      sim.publishUtteranceAudio(end('u', 1));
      const ticket = sim.converse(streamedGoal('u'), goal.handler);
      ticket.cancel();
      const stats = sim.recognitionStats();
      assert.equal(stats.utterances, 0, 'its goal gone, nobody will claim it');
      assert.equal(stats.bytesHeld, 0);
      assert.equal(stats.dropped.abandoned, 1);
    });
    scheduler.flush();
    assert.deepEqual(goal.heard, []);
    assert.equal(sim.recognitionStats().dropped.stale, 0);
  });
});

describe('the simulation’s recogniser: bounded', () => {
  it('drops an open utterance nothing happens to for the stale time, and then runs no timer', () => {
    const { sim, at, scheduler } = simOnVirtualTime({
      recognitionRt: 0.3,
      recogniserLimits: { staleMs: 3000 },
    });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('quiet', 0, pcm(100)));
    });
    at(2000, () => {
      sim.publishUtteranceAudio(part('quiet', 1, pcm(100)));
    });
    scheduler.flush();
    // Its last activity: the second part's work, done at 2030.
    assert.equal(scheduler.now(), 5030);
    assert.equal(sim.recognitionStats().dropped.stale, 1);
    assert.equal(scheduler.actions.length, 0);
    at(0, () => sim.converse(streamedGoal('quiet'), goal.handler));
    scheduler.flush();
    assert.equal(
      goal.message(),
      'utterance quiet had no event for 3000 ms; the simulated recogniser dropped it',
    );
  });

  it('holds at most maxUtterances: recognised ones nobody claimed make way, then the one holding the most, else the new one is dropped', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxUtterances: 2 } });
    const goals = [0, 1, 2, 3].map(() => goalRecorder(() => scheduler.now()));
    at(0, () => {
      // "done" is recognised and unclaimed (a /chat turn's streamed audio), "long" is still spoken.
      sim.publishUtteranceAudio(part('done', 0, pcm(100)));
      sim.publishUtteranceAudio(end('done', 1));
      sim.publishUtteranceAudio(part('long', 0, pcm(400)));
      sim.converse(streamedGoal('long'), goals[0]!.handler);
    });
    at(10, () => {
      sim.publishUtteranceAudio(part('new', 0, pcm(100)));
      assert.equal(sim.recognitionStats().evicted, 1);
      // "long" has its goal waiting: it keeps its place; "new" holds the most of the rest.
      sim.publishUtteranceAudio(part('short', 0, pcm(50)));
      assert.equal(sim.recognitionStats().dropped.fair_share, 1, '"new" gave way');
      sim.converse(streamedGoal('new'), goals[1]!.handler);
      sim.converse(streamedGoal('short'), goals[2]!.handler);
      // Both held have their goals waiting: nothing gives way, the newcomer is dropped.
      sim.publishUtteranceAudio(part('refused', 0, pcm(100)));
      sim.publishUtteranceAudio(part('refused', 1, pcm(100)));
      sim.converse(streamedGoal('refused'), goals[3]!.handler);
    });
    at(20, () => {
      const stats = sim.recognitionStats();
      assert.equal(stats.utterances, 2);
      assert.equal(stats.receiving, 2);
      assert.equal(stats.dropped.limit, 1);
      assert.equal(stats.ignoredEvents, 1, 'the refused utterance’s second part');
    });
    scheduler.flush();
    assert.match(
      goals[1]!.message(),
      /utterance new held the most of the simulated recogniser's 2 utterances/,
    );
    assert.equal(
      goals[3]!.message(),
      'the simulated recogniser holds at most 2 utterances; utterance refused dropped',
    );
  });

  it('a part past maxBytes takes the room of the utterance being received that holds the most, never of a smaller one', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxBytes: 20_000 } });
    at(0, () => {
      // A long utterance holds most of the room; a short one comes after it.
      for (let sequence = 0; sequence < 5; sequence += 1) {
        sim.publishUtteranceAudio(part('long', sequence, pcm(100)));
      }
      sim.publishUtteranceAudio(part('short', 0, pcm(100)));
      assert.equal(sim.recognitionStats().bytesHeld, 16_000 + 3_200);
      sim.publishUtteranceAudio(part('short', 1, pcm(100)));
      const stats = sim.recognitionStats();
      assert.equal(stats.dropped.fair_share, 1, '"long" gave way');
      assert.equal(stats.bytesHeld, 6_400, 'the short one, whole');
      // The short one is now the largest: a bigger newcomer's part does not take its room.
      sim.publishUtteranceAudio(part('big', 0, pcm(450)));
      sim.publishUtteranceAudio(part('big', 1, pcm(200)));
      assert.equal(sim.recognitionStats().dropped.limit, 1, '"big" dropped, not "short"');
      assert.equal(sim.recognitionStats().bytesHeld, 6_400);
    });
    scheduler.flush();
  });

  it('holds at most maxBytes: a part beyond drops its utterance, after evicting what nobody claimed', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxBytes: 10_000 } });
    at(0, () => {
      sim.publishUtteranceAudio(part('done', 0, pcm(200)));
      sim.publishUtteranceAudio(end('done', 1));
    });
    at(10, () => {
      sim.publishUtteranceAudio(part('big', 0, pcm(200)));
      assert.equal(sim.recognitionStats().evicted, 1, '6,400 + 6,400 bytes: "done" made way');
      assert.equal(sim.recognitionStats().bytesHeld, 6_400);
      sim.publishUtteranceAudio(part('big', 1, pcm(200)));
    });
    scheduler.flush();
    const stats = sim.recognitionStats();
    assert.equal(stats.dropped.limit, 1);
    assert.equal(stats.bytesHeld, 0);
    assert.equal(stats.utterances, 0);
  });

  it('holds at most maxUtteranceBytes of one utterance: a part beyond drops it, its goal hears why', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxUtteranceBytes: 6_400 } });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.converse(streamedGoal('long'), goal.handler);
      sim.publishUtteranceAudio(part('long', 0, pcm(100)));
      sim.publishUtteranceAudio(part('long', 1, pcm(100)));
      assert.equal(sim.recognitionStats().bytesHeld, 6_400, 'up to the limit, kept');
      sim.publishUtteranceAudio(part('long', 2, new Uint8Array(2)));
      const stats = sim.recognitionStats();
      assert.equal(stats.dropped.limit, 1);
      assert.deepEqual([stats.utterances, stats.bytesHeld], [0, 0], 'freed at once');
    });
    scheduler.flush();
    assert.deepEqual(goal.heard, [`${INVALID} @0`]);
    assert.equal(
      goal.message(),
      "utterance long would be over the simulated recogniser's 6400 bytes of one utterance; dropped",
    );
  });

  it('refuses goals beyond maxWaitingGoals, whether their utterance is known or not', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxWaitingGoals: 2 } });
    const goals = [0, 1, 2].map(() => goalRecorder(() => scheduler.now()));
    at(0, () => {
      // One goal waits for an utterance being spoken, one for an unknown one; the third is one too many.
      sim.publishUtteranceAudio(part('spoken', 0, pcm(100)));
      sim.converse(streamedGoal('spoken'), goals[0]!.handler);
      sim.converse(streamedGoal('unknown'), goals[1]!.handler);
      sim.converse(streamedGoal('spoken'), goals[2]!.handler);
    });
    at(1, () => {
      assert.equal(sim.recognitionStats().waitingGoals, 2);
    });
    scheduler.flush();
    assert.deepEqual(
      goals.map((goal) => goal.heard),
      [[`${INVALID} @10000`], [`${INVALID} @10000`], [`${INVALID} @0`]],
    );
    assert.equal(
      goals[2]!.message(),
      'the simulated recogniser has 2 goals waiting; goal for spoken refused',
    );
    assert.equal(sim.recognitionStats().waitingGoals, 0);
  });

  it('refuses utterance ids longer than maxIdChars: events ignored, goals INVALID', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recogniserLimits: { maxIdChars: 8 } });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () => {
      sim.publishUtteranceAudio(part('123456789', 0, pcm(100)));
      sim.publishUtteranceAudio(part('12345678', 0, pcm(100)));
      sim.converse(streamedGoal('123456789'), goal.handler);
    });
    at(1, () => {
      const stats = sim.recognitionStats();
      assert.equal(stats.ignoredEvents, 1);
      assert.equal(stats.utterances, 1, 'an id of 8 characters is kept');
      assert.equal(stats.bytesHeld, 3_200);
    });
    scheduler.flush();
    assert.deepEqual(goal.heard, [`${INVALID} @0`]);
    assert.equal(
      goal.message(),
      'the simulated recogniser takes utterance ids of 1 to 8 characters; goal refused',
    );
  });

  it('returns to idle after a storm of abandoned utterances and goals: nothing held, no timer', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ recognitionRt: 0.3, chatParts: 2, partMs: 50 });
    const outcomes = new Map<string, number>();
    const handler = {
      part: () => undefined,
      finished: (result: { outcome: number }) => {
        outcomes.set(String(result.outcome), (outcomes.get(String(result.outcome)) ?? 0) + 1);
      },
      failed: (error: Error) => assert.fail(error),
    };
    for (let index = 0; index < 500; index += 1) {
      const id = `s${index}`;
      at(index, () => {
        sim.publishUtteranceAudio(part(id, 0, pcm(100)));
        sim.publishUtteranceAudio(part(id, 1, pcm(100)));
        if (index % 5 === 0) {
          sim.publishUtteranceAudio(end(id, 2));
          sim.converse(streamedGoal(id), handler);
        } else {
          if (index % 2 === 0) sim.converse(streamedGoal(id), handler);
          sim.publishUtteranceAudio(abandoned(id, 2));
        }
      });
    }
    at(600, () => {
      assert.equal(sim.recognitionStats().dropped.abandoned, 400);
    });
    scheduler.flush();
    assert.deepEqual(Object.fromEntries(outcomes), {
      [String(ConverseOutcome.OK)]: 100,
      [String(ConverseOutcome.INVALID)]: 200,
    });
    const stats = sim.recognitionStats();
    assert.deepEqual(
      { utterances: stats.utterances, bytesHeld: stats.bytesHeld, waitingGoals: stats.waitingGoals },
      { utterances: 0, bytesHeld: 0, waitingGoals: 0 },
    );
    assert.equal(stats.answered, 100);
    assert.equal(scheduler.actions.length, 0);
  });

  it('closing drops everything: no transcript or answer after, the transcripts end, publishing throws', async () => {
    const { sim, at, transcripts, scheduler } = simOnVirtualTime({ recognitionRt: 1 });
    const goal = goalRecorder(() => scheduler.now());
    let completed = false;
    sim.transcripts$.subscribe({ complete: () => (completed = true) });
    at(0, () => {
      sim.publishUtteranceAudio(part('u', 0, pcm(1000)));
      sim.publishUtteranceAudio(end('u', 1));
      sim.converse(streamedGoal('u'), goal.handler);
    });
    at(100, () => void sim.close());
    scheduler.flush();
    await Promise.resolve();
    assert.deepEqual(transcripts, []);
    assert.deepEqual(goal.heard, []);
    assert.ok(completed);
    assert.equal(sim.recognitionStats().utterances, 0);
    assert.throws(() => {
      sim.publishUtteranceAudio(part('v', 0, pcm(100)));
    }, /closed/);
  });
});

describe('the simulation’s heard reports', () => {
  const report = (index: number): HeardMsg => ({
    utterance_id: `u${index}`,
    played_ms: index * 100,
    heard_text: `words ${index}`,
  });

  it('keeps the latest 16, oldest first, as copies', () => {
    const { sim } = simOnVirtualTime();
    const reused = report(0);
    sim.publishHeard(reused);
    reused.heard_text = 'changed by the publisher';
    assert.deepEqual(sim.heardHistory(), [report(0)]);
    for (let index = 1; index < 20; index += 1) sim.publishHeard(report(index));
    const history = sim.heardHistory();
    assert.equal(history.length, HEARD_HISTORY_LENGTH);
    assert.deepEqual(
      history.map((heard) => heard.utterance_id),
      Array.from({ length: 16 }, (_, index) => `u${index + 4}`),
    );
    assert.deepEqual(history.at(-1), report(19));
  });

  it('receives nothing once closed', async () => {
    const { sim } = simOnVirtualTime();
    sim.publishHeard(report(1));
    await sim.close();
    sim.publishHeard(report(2));
    assert.deepEqual(sim.heardHistory(), [report(1)]);
  });
});
