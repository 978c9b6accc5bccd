import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { tourFromMsg, tourToMsg } from '../../src/ros/tour-message.js';
import {
  applyTourEvent,
  decideTourCreate,
  decideTourDelete,
  decideTourGet,
  decideTourList,
  decideTourUpdate,
  emptyTourState,
  foldTourEvents,
  SAMPLE_TOUR,
} from '../../src/robot/tours/tour-rules.js';
import { TourNameSchema, TourSchema, type Tour } from '../../src/protocol/tour-schema.js';

const tour = (name: string, map = 'm'): Tour => ({ tour_name: name, map_name: map, steps: [] });

describe('tour rules (shared by the simulation and the reference tour store)', () => {
  it('folds events into state in order', () => {
    const state = foldTourEvents([
      { type: 'tour.created', tour: tour('a') },
      { type: 'tour.created', tour: tour('b') },
      { type: 'tour.updated', tour: tour('a', 'roof') },
      { type: 'tour.deleted', tourName: 'b' },
    ]);
    assert.deepEqual([...state.keys()], ['a']);
    assert.equal(state.get('a')?.map_name, 'roof');
  });

  it('never mutates the state it is given', () => {
    const before = emptyTourState();
    const after = applyTourEvent(before, { type: 'tour.created', tour: tour('a') });
    assert.equal(before.size, 0);
    assert.equal(after.size, 1);
  });

  it('creates once, then answers already-exists without an event', () => {
    const first = decideTourCreate(emptyTourState(), { tour: tourToMsg(tour('a')) });
    assert.equal(first.response.outcome, TourOutcome.OK);
    assert.equal(first.response.success, true);
    assert.equal(first.events.length, 1);
    const state = foldTourEvents(first.events);
    const second = decideTourCreate(state, { tour: tourToMsg(tour('a')) });
    assert.equal(second.response.outcome, TourOutcome.ALREADY_EXISTS);
    assert.equal(second.response.success, false);
    assert.deepEqual(second.events, []);
  });

  it('answers not-found for update, get and delete of an absent tour', () => {
    const state = emptyTourState();
    assert.equal(
      decideTourUpdate(state, { tour: tourToMsg(tour('x')) }).response.outcome,
      TourOutcome.NOT_FOUND,
    );
    assert.equal(decideTourGet(state, { tour_name: 'x' }).response.outcome, TourOutcome.NOT_FOUND);
    assert.equal(decideTourDelete(state, { tour_name: 'x' }).response.outcome, TourOutcome.NOT_FOUND);
  });

  it('answers invalid for tours that break the schema (the ROS side validates too)', () => {
    const invalid = decideTourCreate(emptyTourState(), { tour: { ...tourToMsg(tour('x')), tour_name: '' } });
    assert.equal(invalid.response.outcome, TourOutcome.INVALID);
    assert.match(invalid.response.message, /tour_name/);
  });

  it('refuses a new tour named "." or "..", which no URL can name, and takes names that only hold dots', () => {
    for (const name of ['.', '..']) {
      const refused = decideTourCreate(emptyTourState(), { tour: tourToMsg(tour(name)) });
      assert.equal(refused.response.outcome, TourOutcome.INVALID, name);
      assert.match(refused.response.message, /must not be "\." or "\.\."/);
    }
    for (const name of ['...', '.hidden', 'a..b']) {
      assert.equal(
        decideTourCreate(emptyTourState(), { tour: tourToMsg(tour(name)) }).response.outcome,
        TourOutcome.OK,
        name,
      );
    }
    // Stored before the rule (or by another node): still updated by its name.
    const state = foldTourEvents([{ type: 'tour.created', tour: tour('..') }]);
    assert.equal(
      decideTourUpdate(state, { tour: tourToMsg(tour('..', 'new map')) }).response.outcome,
      TourOutcome.OK,
    );
  });

  it('refuses a new tour whose name or map name is blank, but updates a stored one that has such a name', () => {
    for (const blank of [tour('   '), tour('\u200b'), tour('ok', ' \u00a0')]) {
      const refused = decideTourCreate(emptyTourState(), { tour: tourToMsg(blank) });
      assert.equal(refused.response.outcome, TourOutcome.INVALID, JSON.stringify(blank));
      assert.match(refused.response.message, /must not be blank/);
    }
    // A tour stored before the rule (or by another node) stays editable.
    const state = foldTourEvents([{ type: 'tour.created', tour: tour('   ') }]);
    assert.equal(
      decideTourUpdate(state, { tour: tourToMsg(tour('   ', 'new map')) }).response.outcome,
      TourOutcome.OK,
    );
  });

  it('answers not found for get and delete of any name it does not hold, valid or not (spec: 404)', () => {
    for (const name of ['a\nb', '', 'x'.repeat(129)]) {
      assert.equal(
        decideTourGet(emptyTourState(), { tour_name: name }).response.outcome,
        TourOutcome.NOT_FOUND,
      );
      assert.equal(
        decideTourDelete(emptyTourState(), { tour_name: name }).response.outcome,
        TourOutcome.NOT_FOUND,
      );
    }
  });

  it('lists names in creation order', () => {
    const state = foldTourEvents([
      { type: 'tour.created', tour: tour('z') },
      { type: 'tour.created', tour: tour('a') },
    ]);
    assert.deepEqual(decideTourList(state).response.tour_names, ['z', 'a']);
  });

  it('ships a sample tour that passes its own schema', () => {
    assert.equal(v.safeParse(TourSchema, SAMPLE_TOUR).success, true);
  });
});

describe('tour schema and ROS conversion', () => {
  it('limits names to 1–128 code points without control characters', () => {
    assert.equal(v.safeParse(TourNameSchema, 'a'.repeat(128)).success, true);
    assert.equal(v.safeParse(TourNameSchema, '😀'.repeat(128)).success, true);
    assert.equal(v.safeParse(TourNameSchema, 'a'.repeat(129)).success, false);
    assert.equal(v.safeParse(TourNameSchema, '').success, false);
    assert.equal(v.safeParse(TourNameSchema, 'a\u0000b').success, false);
    assert.equal(v.safeParse(TourNameSchema, 'a\u007fb').success, false);
  });

  it('fills absent optional fields with null', () => {
    const parsed = v.parse(TourSchema, { tour_name: 'a', map_name: 'm', steps: [{ description: 'd' }] });
    assert.deepEqual(parsed.steps[0], { description: 'd', destination: null, dialogue: null });
  });

  it('encodes null as an empty sequence and a string (even empty) as one element', () => {
    const message = tourToMsg({
      tour_name: 'a',
      map_name: 'm',
      steps: [{ description: 'd', destination: null, dialogue: '' }],
    });
    assert.deepEqual(message.steps[0], { description: 'd', destination: [], dialogue: [''] });
    assert.deepEqual(tourFromMsg(message).steps[0], { description: 'd', destination: null, dialogue: '' });
  });
});
