import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canAddStep,
  countCharacters,
  counterText,
  draftFingerprint,
  draftFromTour,
  emptyDraft,
  emptyStep,
  fieldLabel,
  fieldMessage,
  moveItem,
  normalizeDraft,
  parseProblem,
  parseTour,
  TOUR_LIMITS,
  tourFromDraft,
  validateDraft,
  versionFromEtag,
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

describe('the page’s own rules', () => {
  it('trims a new tour’s name and every map name, but never an existing tour’s name', () => {
    const draft = { ...draftFromTour(tour), tour_name: '  garden ', map_name: '\tpark  ' };
    assert.deepEqual(
      [normalizeDraft(draft, 'create').tour_name, normalizeDraft(draft, 'create').map_name],
      ['garden', 'park'],
    );
    assert.equal(normalizeDraft(draft, 'edit').tour_name, '  garden ');
    assert.equal(normalizeDraft(draft, 'edit').map_name, 'park');
  });

  it('refuses blank names and steps without a description, naming the fields as the API does', () => {
    assert.deepEqual(validateDraft(draftFromTour(tour)), []);
    const draft = draftFromTour(tour);
    const junk = {
      ...draft,
      tour_name: '   ',
      map_name: '',
      steps: draft.steps.map((step, index) => (index === 1 ? { ...step, description: ' \n ' } : step)),
    };
    assert.deepEqual(validateDraft(junk), [
      { field: 'tour_name', message: 'Give the tour a name.' },
      { field: 'map_name', message: 'Give the name of its map.' },
      { field: 'steps.1.description', message: 'Describe step 2, or remove it.' },
    ]);
    // A new tour as the page opens it cannot be saved as it is.
    assert.equal(validateDraft(emptyDraft()).length, 3);
  });

  it('refuses a tour without steps unless the operator said to save it so', () => {
    const none = { ...draftFromTour(tour), steps: [] };
    assert.deepEqual(validateDraft(none), [{ field: 'steps', message: 'Add at least one step.' }]);
    assert.deepEqual(validateDraft(none, true), []);
  });

  it('counts characters as the API does (code points) and refuses text over a limit instead of cutting it', () => {
    assert.equal(countCharacters('abc'), 3);
    assert.equal(countCharacters('😀😀'), 2);
    assert.equal('😀😀'.length, 4);
    assert.deepEqual(counterText('x'.repeat(12), 128), { text: '12 / 128', over: false });
    assert.deepEqual(counterText('x'.repeat(10_000), 4096), {
      text: '10,000 / 4,096: 5,904 too many',
      over: true,
    });
    // 128 emoji are 256 UTF-16 units but 128 characters: within the name limit.
    assert.equal(counterText('😀'.repeat(128), TOUR_LIMITS.nameMaxChars).over, false);

    const draft = draftFromTour(tour);
    const long = {
      ...draft,
      tour_name: 'n'.repeat(TOUR_LIMITS.nameMaxChars + 1),
      steps: draft.steps.map((step, index) =>
        index === 1
          ? {
              ...step,
              description: 'd'.repeat(10_000),
              dialogue: 'x'.repeat(TOUR_LIMITS.dialogueMaxChars + 2),
            }
          : step,
      ),
    };
    assert.deepEqual(validateDraft(long), [
      {
        field: 'tour_name',
        message: 'Too long: 129 characters, at most 128. Shorten it to save.',
        summary: 'Too long: at most 128 characters. Shorten it to save.',
      },
      {
        field: 'steps.1.description',
        message: 'Too long: 10,000 characters, at most 4,096. Shorten it to save.',
        summary: 'Too long: at most 4,096 characters. Shorten it to save.',
      },
      {
        field: 'steps.1.dialogue',
        message: 'Too long: 16,386 characters, at most 16,384. Shorten it to save.',
        summary: 'Too long: at most 16,384 characters. Shorten it to save.',
      },
    ]);
    // Exactly at the limits is fine.
    const full = { ...draft, tour_name: 'n'.repeat(TOUR_LIMITS.nameMaxChars) };
    assert.deepEqual(validateDraft(full), []);
  });

  it('refuses names made only of spaces or invisible characters, as the API does for a new tour', () => {
    const draft = { ...draftFromTour(tour), tour_name: '\u00a0\u200b ' };
    assert.deepEqual(validateDraft(draft), [{ field: 'tour_name', message: 'Give the tour a name.' }]);
  });

  it('names fields as the form does: Step 1 description, not steps.0.description', () => {
    assert.equal(fieldLabel('tour_name'), 'Tour name');
    assert.equal(fieldLabel('map_name'), 'Map name');
    assert.equal(fieldLabel('steps'), 'Steps');
    assert.equal(fieldLabel('steps.0'), 'Step 1');
    assert.equal(fieldLabel('steps.0.description'), 'Step 1 description');
    assert.equal(fieldLabel('steps.41.dialogue'), 'Step 42 dialogue');
    assert.equal(fieldLabel('(body)'), 'The tour');
    assert.equal(fieldLabel('extra'), 'extra');
    // The API's messages start with the JSON name the label already says.
    assert.equal(
      fieldMessage('tour_name', 'tour_name must not contain control characters'),
      'Must not contain control characters',
    );
    assert.equal(
      fieldMessage('steps.0.description', 'description must be at most 4096 characters'),
      'Must be at most 4096 characters',
    );
    assert.equal(
      fieldMessage('steps.0', 'expected step object, got number'),
      'expected step object, got number',
    );
  });

  it('tells an edited draft from one that saves the tour unchanged', () => {
    const draft = draftFromTour(tour);
    const baseline = draftFingerprint(draft);
    assert.equal(draftFingerprint({ ...draft }), baseline);
    // New keys (a re-render) are not a change; a changed field or order is.
    assert.equal(draftFingerprint(draftFromTour(tour)), baseline);
    assert.notEqual(draftFingerprint({ ...draft, map_name: 'park2' }), baseline);
    assert.notEqual(draftFingerprint({ ...draft, steps: moveItem(draft.steps, 0, 1) }), baseline);
  });
});

describe('reading API answers', () => {
  it('accepts a tour and rejects anything else', () => {
    assert.deepEqual(parseTour(JSON.parse(JSON.stringify(tour))), tour);
    assert.equal(parseTour({ tour_name: 'x', map_name: 'y', steps: [{ description: 1 }] }), undefined);
    assert.equal(parseTour([]), undefined);
  });

  it('takes a tour’s version from its ETag, also when a compressing proxy marked it weak', () => {
    const tag = `"${'a'.repeat(43)}"`;
    assert.equal(versionFromEtag(tag), tag);
    assert.equal(versionFromEtag(`W/${tag}`), tag);
    assert.equal(versionFromEtag(null), undefined);
    assert.equal(versionFromEtag(''), undefined);
  });

  it('reads problem+json with its per-field errors, bounded', () => {
    const problem = parseProblem(422, {
      title: 'Validation failed',
      detail: 'steps.0.description: too long',
      errors: Array.from({ length: 50 }, (_, index) => ({
        field: `steps.${index}.description`,
        message: 'too long',
      })),
    });
    assert.equal(problem.title, 'Validation failed');
    assert.equal(problem.detail, 'steps.0.description: too long');
    assert.equal(problem.errors.length, 20);
    assert.deepEqual(problem.errors[0], { field: 'steps.0.description', message: 'too long' });
  });

  it('turns a body that is not a problem (a proxy’s HTML page) into a sentence, never the body', () => {
    const problem = parseProblem(502, undefined);
    assert.equal(problem.title, 'Bad Gateway');
    assert.equal(
      problem.detail,
      'A proxy between this page and the service answered HTTP 502 Bad Gateway: the service is not reachable right now (stopped, restarting or too slow). Try again in a moment.',
    );
    assert.deepEqual(problem.errors, []);
    assert.equal(
      parseProblem(418, { message: 'teapot' }).detail,
      'The service answered HTTP 418 without details this page can read.',
    );
  });
});
