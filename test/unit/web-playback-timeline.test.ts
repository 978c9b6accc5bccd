import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlaybackTimeline, type Slot } from '../../web/src/playback-timeline.js';

/** Adds `item` and, as the player does, decodes and places whatever the timeline asks for. */
const feed = (
  timeline: PlaybackTimeline<string>,
  item: string,
  durations: Record<string, number>,
  now: number,
): Slot[] => {
  const slots: Slot[] = [];
  let prepare = timeline.add(item).prepare;
  while (prepare !== undefined) {
    const slot = timeline.place(prepare, durations[prepare] ?? 1, now);
    if (slot !== undefined) slots.push(slot);
    prepare = timeline.advance(now).prepare;
  }
  return slots;
};

describe('PlaybackTimeline', () => {
  it('places the first item now and each next one at the exact end of the one before', () => {
    const timeline = new PlaybackTimeline<string>(8);
    const durations = { a: 0.4, b: 0.35, c: 0.5 };
    assert.deepEqual(feed(timeline, 'a', durations, 10), [{ start: 10, end: 10.4 }]);
    // b arrives while a plays: placed at a's end, not at its arrival.
    assert.deepEqual(feed(timeline, 'b', durations, 10.1), [{ start: 10.4, end: 10.75 }]);
    // c arrives while a still plays and b is placed: it waits, asks for nothing yet.
    assert.deepEqual(feed(timeline, 'c', durations, 10.2), []);
    assert.equal(timeline.nextBoundary, 10.4);
    // At a's end: a ends, then b starts, and c is asked for and placed at b's end.
    const step = timeline.advance(10.4);
    assert.deepEqual(
      step.ended.map((e) => e.item),
      ['a'],
    );
    assert.deepEqual(
      step.started.map((e) => e.item),
      ['b'],
    );
    assert.equal(step.prepare, 'c');
    assert.deepEqual(timeline.place('c', 0.5, 10.41), { start: 10.75, end: 11.25 });
  });

  it('moves a placed item to when it could really start, and the next one to its real end', () => {
    const timeline = new PlaybackTimeline<string>(8);
    const prepare = timeline.add('a').prepare;
    assert.equal(prepare, 'a');
    assert.deepEqual(timeline.place('a', 0.4, 10), { start: 10, end: 10.4 });
    // The clock read 10.0116 when start() was called: a plays from there, not from 10.
    assert.deepEqual(timeline.delay('a', 10.0116), { start: 10.0116, end: 10.4116 });
    // An earlier clock never moves it back.
    assert.deepEqual(timeline.delay('a', 10), { start: 10.0116, end: 10.4116 });
    assert.equal(timeline.delay('nobody', 11), undefined);
    timeline.advance(10.02);
    const next = timeline.add('b').prepare;
    assert.equal(next, 'b');
    assert.deepEqual(timeline.place('b', 0.3, 10.1), { start: 10.4116, end: 10.7116 });
  });

  it('starts an item that arrives after the last one ended at its arrival, not in the past', () => {
    const timeline = new PlaybackTimeline<string>(8);
    feed(timeline, 'a', { a: 1 }, 0);
    const step = timeline.advance(1.5);
    assert.deepEqual(
      step.ended.map((e) => e.item),
      ['a'],
    );
    assert.equal(timeline.busy, false);
    assert.deepEqual(feed(timeline, 'b', { b: 1 }, 2), [{ start: 2, end: 3 }]);
  });

  it('places at the playing item’s end even when the clock is already past it (a late timer)', () => {
    const timeline = new PlaybackTimeline<string>(8);
    feed(timeline, 'a', { a: 1 }, 0);
    timeline.add('b');
    // The timer that should have ended a came late; b is still placed right after a — it starts at once.
    assert.deepEqual(timeline.place('b', 1, 1.2), { start: 1.2, end: 2.2 });
  });

  it('ends and starts several items in order when the clock jumps past them', () => {
    const timeline = new PlaybackTimeline<string>(8);
    feed(timeline, 'a', { a: 1 }, 0);
    timeline.add('b');
    timeline.place('b', 1, 0.1);
    const step = timeline.advance(2.5);
    assert.deepEqual(
      step.ended.map((e) => e.item),
      ['a', 'b'],
    );
    assert.deepEqual(
      step.started.map((e) => e.item),
      ['b'],
    );
    assert.equal(timeline.busy, false);
  });

  it('drops the oldest waiting item when full, placed or not, and asks for the new first one', () => {
    const timeline = new PlaybackTimeline<string>(2);
    feed(timeline, 'a', {}, 0);
    assert.equal(timeline.add('b').prepare, 'b');
    timeline.place('b', 1, 0);
    assert.equal(timeline.add('c').prepare, undefined);
    const overflow = timeline.add('d');
    assert.deepEqual(
      overflow.dropped.map((e) => [e.item, e.slot !== undefined]),
      [['b', true]],
    );
    assert.equal(overflow.prepare, 'c');
    assert.deepEqual(timeline.items, ['a', 'c', 'd']);
  });

  it('ignores a decode that finishes after its item was dropped', () => {
    const timeline = new PlaybackTimeline<string>(1);
    feed(timeline, 'a', {}, 0);
    assert.equal(timeline.add('b').prepare, 'b');
    const overflow = timeline.add('c');
    assert.equal(overflow.prepare, 'c');
    assert.equal(timeline.place('b', 1, 0.5), undefined);
    assert.deepEqual(timeline.place('c', 1, 0.5), { start: 1, end: 2 });
  });

  it('asks for each item to be decoded once', () => {
    const timeline = new PlaybackTimeline<string>(8);
    assert.equal(timeline.add('a').prepare, 'a');
    assert.equal(timeline.add('b').prepare, undefined);
    assert.equal(timeline.advance(0).prepare, undefined);
  });

  it('clears everything at once for a barge-in, and a decode finishing later places nothing', () => {
    const timeline = new PlaybackTimeline<string>(8);
    feed(timeline, 'a', {}, 0);
    timeline.add('b');
    timeline.place('b', 1, 0);
    timeline.add('c');
    const cleared = timeline.clear();
    assert.equal(cleared.playing?.item, 'a');
    assert.deepEqual(
      cleared.dropped.map((e) => e.item),
      ['b', 'c'],
    );
    assert.equal(timeline.busy, false);
    assert.equal(timeline.nextBoundary, undefined);
    assert.equal(timeline.place('c', 1, 0), undefined);
    // What comes next starts at once, not after the cleared items' slots.
    assert.deepEqual(feed(timeline, 'd', { d: 1 }, 0.2), [{ start: 0.2, end: 1.2 }]);
  });

  it('refuses a capacity below one', () => {
    assert.throws(() => new PlaybackTimeline(0), RangeError);
  });
});
