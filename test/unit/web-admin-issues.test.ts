import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issueLine, issuesFrom, pathIn, stillWrong } from '../../web/src/admin-issues.js';
import { draftFromTour, validateDraft, type TourDraft } from '../../web/src/tour-model.js';

const draft: TourDraft = draftFromTour({
  tour_name: 'garden',
  map_name: 'park',
  steps: [
    { description: 'Roses', destination: null, dialogue: null },
    { description: '', destination: null, dialogue: null },
    { description: 'Exit', destination: null, dialogue: 'x'.repeat(16_385) },
  ],
});
const withoutStep = (from: TourDraft, index: number): TourDraft => ({
  ...from,
  steps: from.steps.filter((_, each) => each !== index),
});
const lines = (issues: ReturnType<typeof stillWrong>, now: TourDraft) =>
  issues.map((issue) => issueLine(now, issue));

describe('the field errors the operator page’s problem panel names', () => {
  it('ties a step’s error to the step, so removing another renumbers it and removing its own drops it', () => {
    const issues = issuesFrom(draft, validateDraft(draft), 'check');
    assert.deepEqual(lines(issues, draft), [
      'Step 2 description: Describe step 2, or remove it.',
      'Step 3 dialogue: Too long: at most 16,384 characters. Shorten it to save.',
    ]);
    const firstGone = withoutStep(draft, 0);
    assert.deepEqual(lines(stillWrong(issues, firstGone), firstGone), [
      'Step 1 description: Describe step 1, or remove it.',
      'Step 2 dialogue: Too long: at most 16,384 characters. Shorten it to save.',
    ]);
    const ownGone = withoutStep(draft, 1);
    assert.deepEqual(lines(stillWrong(issues, ownGone), ownGone), [
      'Step 2 dialogue: Too long: at most 16,384 characters. Shorten it to save.',
    ]);
    assert.equal(pathIn(ownGone, issues[0]!), undefined);
  });

  it('drops a checked error once the check passes, and says what is wrong now if it still fails', () => {
    const issues = issuesFrom(draft, validateDraft(draft), 'check');
    const steps = draft.steps.map((step, index) =>
      index === 1
        ? { ...step, description: 'd'.repeat(4_097) }
        : index === 2
          ? { ...step, dialogue: 'Bye' }
          : step,
    );
    const now = { ...draft, steps };
    assert.deepEqual(lines(stillWrong(issues, now), now), [
      'Step 2 description: Too long: at most 4,096 characters. Shorten it to save.',
    ]);
    // A field the panel did not name is not added to it (the next save names it).
    const blankName = { ...draft, tour_name: ' ' };
    assert.equal(stillWrong(issues, blankName).length, 2);
  });

  it('drops the robot’s error once its field is edited, and a taken name once it is another', () => {
    const answered = issuesFrom(
      draft,
      [{ field: 'tour_name', message: 'Must not contain control characters' }],
      'answer',
    );
    assert.equal(stillWrong(answered, { ...draft, map_name: 'lawn' }).length, 1);
    assert.equal(stillWrong(answered, { ...draft, tour_name: 'garden 2' }).length, 0);
    const taken = issuesFrom(draft, [{ field: 'tour_name', message: 'Taken by another tour.' }], 'taken');
    assert.equal(stillWrong(taken, { ...draft, tour_name: 'garden ' }).length, 1);
    assert.equal(stillWrong(taken, { ...draft, tour_name: 'gardens' }).length, 0);
  });

  it('drops "Add at least one step" once a step is added', () => {
    const empty = { ...draft, steps: [] };
    const issues = issuesFrom(empty, validateDraft(empty), 'check');
    assert.deepEqual(lines(issues, empty), ['Steps: Add at least one step.']);
    assert.equal(stillWrong(issues, empty).length, 1);
    assert.equal(stillWrong(issues, { ...empty, steps: draft.steps.slice(0, 1) }).length, 0);
  });
});
