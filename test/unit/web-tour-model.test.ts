import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canAddStep,
  draftFromTour,
  emptyDraft,
  emptyStep,
  moveItem,
  parseProblem,
  parseTour,
  TOUR_LIMITS,
  tourFromDraft,
  type Tour,
} from '../../web/src/tour-model.js';

const tour: Tour = {
  tour_name: 'garden',
  map_name: 'park',
  steps: [
    { description: 'Roses', destination: 'rose_bed', dialogue: null },
    { description: 'Pond', destination: '', dialogue: '' },
    { description: 'Exit', destination: null, dialogue: 'Bye' },
  ],
};

describe('tour drafts', () => {
  it('round-trips a tour, keeping null and "" apart', () => {
    assert.deepEqual(tourFromDraft(draftFromTour(tour)), tour);
  });

  it('turns a field emptied in the form into null, or "" where the tour had ""', () => {
    const draft = draftFromTour(tour);
    const emptied = {
      ...draft,
      steps: draft.steps.map((step) => ({ ...step, destination: '', dialogue: '' })),
    };
    assert.deepEqual(
      tourFromDraft(emptied).steps.map((step) => [step.destination, step.dialogue]),
      [
        [null, null],
        ['', ''],
        [null, null],
      ],
    );
  });

  it('moves steps up and down, and not past either end', () => {
    assert.deepEqual(moveItem(['a', 'b', 'c'], 2, -1), ['a', 'c', 'b']);
    assert.deepEqual(moveItem(['a', 'b', 'c'], 0, 1), ['b', 'a', 'c']);
    assert.deepEqual(moveItem(['a', 'b', 'c'], 0, -1), ['a', 'b', 'c']);
    assert.deepEqual(moveItem(['a', 'b', 'c'], 2, 1), ['a', 'b', 'c']);
  });

  it('gives every step its own key and stops adding at the step limit', () => {
    const keys = new Set([emptyStep().key, emptyStep().key, ...draftFromTour(tour).steps.map((s) => s.key)]);
    assert.equal(keys.size, 5);
    const full = { ...emptyDraft(), steps: Array.from({ length: TOUR_LIMITS.maxSteps }, emptyStep) };
    assert.equal(canAddStep(full), false);
    assert.equal(canAddStep(emptyDraft()), true);
  });
});

describe('reading API answers', () => {
  it('accepts a tour and rejects anything else', () => {
    assert.deepEqual(parseTour(JSON.parse(JSON.stringify(tour))), tour);
    assert.equal(parseTour({ tour_name: 'x', map_name: 'y', steps: [{ description: 1 }] }), undefined);
    assert.equal(parseTour([]), undefined);
  });

  it('reads problem+json with its per-field errors, bounded', () => {
    const problem = parseProblem(
      422,
      {
        title: 'Validation failed',
        detail: 'steps.0.description: too long',
        errors: Array.from({ length: 50 }, (_, index) => ({
          field: `steps.${index}.description`,
          message: 'too long',
        })),
      },
      '',
    );
    assert.equal(problem.title, 'Validation failed');
    assert.equal(problem.detail, 'steps.0.description: too long');
    assert.equal(problem.errors.length, 20);
    assert.deepEqual(problem.errors[0], { field: 'steps.0.description', message: 'too long' });
  });

  it('turns a body that is not a problem into one naming the status', () => {
    const problem = parseProblem(502, undefined, '<html>Bad gateway</html>');
    assert.equal(problem.title, 'HTTP 502');
    assert.equal(problem.detail, '<html>Bad gateway</html>');
    assert.deepEqual(problem.errors, []);
  });
});
