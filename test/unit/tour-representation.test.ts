import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tourMsgToJson } from '../../src/ros/tour-message.js';
import { createTourRepresentations } from '../../src/transport/routes/tour-routes.js';
import { tourEntityTag } from '../../src/protocol/tour-version.js';
import type { TourMsg } from '../../src/ros/port/ros-messages.js';

const tourMsg = (name: string, description = 'Roses'): TourMsg => ({
  tour_name: name,
  map_name: 'park',
  steps: [
    { description, destination: ['gate'], dialogue: [] },
    { description: 'Pond', destination: [], dialogue: ['Look at the ducks'] },
  ],
});

/** What the representation must be, written and hashed afresh. */
const expected = (tour: TourMsg) => {
  const json = tourMsgToJson(tour);
  return { json, etag: tourEntityTag(json) };
};

describe('a tour representation (the body and ETag of GET /tour/{name})', () => {
  const tourRepresentation = createTourRepresentations();

  it('is the tour JSON and its tag, the first time and again for an equal message', () => {
    assert.deepEqual(tourRepresentation(tourMsg('garden')), expected(tourMsg('garden')));
    assert.deepEqual(tourRepresentation(tourMsg('garden')), expected(tourMsg('garden')));
  });

  it('follows every change of the tour, even one made in place on the message it came from', () => {
    const tour = tourMsg('orchard');
    const before = tourRepresentation(tour);
    const changes: ((message: TourMsg) => void)[] = [
      (message) => {
        message.map_name = 'farm';
      },
      (message) => {
        message.steps[0]!.description = 'Apples';
      },
      (message) => {
        message.steps[0]!.destination = [];
      },
      (message) => {
        message.steps[1]!.dialogue[0] = 'Look at the geese';
      },
      (message) => {
        message.steps[1]!.dialogue = [''];
      },
      (message) => {
        message.steps.pop();
      },
    ];
    let previous = before.etag;
    for (const change of changes) {
      change(tour);
      const now = tourRepresentation(tour);
      assert.deepEqual(now, expected(tour));
      assert.notEqual(now.etag, previous);
      previous = now.etag;
    }
  });

  it('stays right when many tours pass, and for a tour too long to keep', () => {
    for (let round = 0; round < 2; round += 1) {
      for (let index = 0; index < 100; index += 1) {
        const tour = tourMsg(`tour-${index}`, `step of round ${round}`);
        assert.deepEqual(tourRepresentation(tour), expected(tour));
      }
    }
    const long = tourMsg('long', 'R'.repeat(20_000));
    assert.deepEqual(tourRepresentation(long), expected(long));
    long.steps[0]!.description = 'S'.repeat(20_000);
    assert.deepEqual(tourRepresentation(long), expected(long));
  });

  it('is kept per service: one service reuses what it wrote, another writes its own', () => {
    const [first, second] = [createTourRepresentations(), createTourRepresentations()];
    const kept = first(tourMsg('shared'));
    assert.equal(first(tourMsg('shared')), kept, 'the same object again from the same service');
    const other = second(tourMsg('shared'));
    assert.notEqual(other, kept, 'another service does not hand out the first one’s object');
    assert.deepEqual(other, kept);
  });
});
