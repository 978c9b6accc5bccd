import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as v from 'valibot';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { tourFromMsg, tourToMsg } from '../../src/ros/tour-message.js';
import {
  decideTourCreate,
  decideTourGet,
  emptyTourState,
  foldTourEvents,
} from '../../src/robot/tours/tour-rules.js';
import { TOUR_LIMITS, TourNameSchema, TourSchema } from '../../src/protocol/tour-schema.js';
import { fuzzRuns } from '../support/fuzz-runs.js';

// Array.from iterates code points, which is what the 128-character rule counts.
const codePoints = (text: string) => Array.from(text).length;
// Names within the rules: 1–128 code points, no control characters, something visible (a new tour's).
const validName = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: TOUR_LIMITS.nameMaxChars })
  .filter(
    (name) =>
      codePoints(name) <= TOUR_LIMITS.nameMaxChars &&
      !/\p{Cc}/u.test(name) &&
      /[^\s\p{Cc}\p{Cf}]/u.test(name),
  );
// A new tour's name also has to be one a URL can hold (not a dot segment), and must not look like another
// name: in NFC, no white space at either end, no invisible formatting character, no fullwidth form.
const validTourName = validName.filter(
  (name) =>
    name !== '.' &&
    name !== '..' &&
    name === name.normalize('NFC') &&
    !/^\s|\s$/u.test(name) &&
    !/[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\uFF01-\uFFEE]/u.test(
      name,
    ),
);
const optionalText = fc.option(fc.string({ maxLength: 40 }), { nil: null });
// Plain prototypes, as JSON.parse gives: deepEqual compares prototypes too.
const plain = { noNullPrototype: true } as const;
const validTour = fc.record(
  {
    tour_name: validTourName,
    map_name: validName,
    steps: fc.array(
      fc.record(
        { description: fc.string({ maxLength: 40 }), destination: optionalText, dialogue: optionalText },
        plain,
      ),
      { maxLength: 6 },
    ),
  },
  plain,
);

describe('tour schema properties (fast-check)', () => {
  it('accepts exactly the names of 1–128 code points without control characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 140 }), (name) => {
        const expected = name.length > 0 && codePoints(name) <= 128 && !/\p{Cc}/u.test(name);
        assert.equal(v.safeParse(TourNameSchema, name).success, expected, JSON.stringify(name));
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('never throws on arbitrary JSON and names the failing field', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (body) => {
        const parsed = v.safeParse(TourSchema, body);
        if (!parsed.success) {
          for (const issue of parsed.issues) assert.ok(issue.message.length > 0);
        }
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('round-trips every valid tour through the ROS message form, nulls and empty strings apart', () => {
    fc.assert(
      fc.property(validTour, (tour) => {
        assert.equal(v.safeParse(TourSchema, tour).success, true);
        assert.deepEqual(tourFromMsg(tourToMsg(tour)), tour);
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('create then get answers the same tour; a second create is already-exists', () => {
    fc.assert(
      fc.property(validTour, (tour) => {
        const created = decideTourCreate(emptyTourState(), { tour: tourToMsg(tour) });
        assert.equal(created.response.outcome, TourOutcome.OK);
        const state = foldTourEvents(created.events);
        const got = decideTourGet(state, { tour_name: tour.tour_name });
        assert.deepEqual(tourFromMsg(got.response.tour), tour);
        assert.equal(
          decideTourCreate(state, { tour: tourToMsg(tour) }).response.outcome,
          TourOutcome.ALREADY_EXISTS,
        );
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});
