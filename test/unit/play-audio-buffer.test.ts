import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject, type Observable } from 'rxjs';
import { createLossReporter } from '../../src/log/loss-reporter.js';
import { createMessageIdAllocator, type AudioPairFrame } from '../../src/protocol/ws/index.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import {
  playAudioFanOut,
  WriteScheduler,
  type PlayAudioDropped,
} from '../../src/streams/play-audio/fan-out.js';
import { capturingLogger } from '../support/log-capture.js';

const message = (text: string, bytes: number): PlayAudioMsg => ({
  emotion: 'neutral',
  text,
  audio: new Uint8Array(bytes),
});

/** The text a pair carries. */
const textOf = (pair: AudioPairFrame): string => (JSON.parse(pair.meta) as { text: string }).text;

/** The fan-out's buffer over `source`: `budgetBytes` of audio, its drops told to `dropped`. */
const bufferOver = (
  source: Observable<PlayAudioMsg>,
  budgetBytes: number,
  playAudioDropped: PlayAudioDropped,
  schedule: (task: () => void) => void,
): Observable<AudioPairFrame> =>
  playAudioFanOut(source, {
    bufferBytes: budgetBytes,
    messageIds: createMessageIdAllocator(),
    writes: new WriteScheduler({ totalCapBytes: Number.POSITIVE_INFINITY }),
    playAudioDropped,
    schedule,
  });

/** Delivery turns run only when the test says so. */
const manualTurns = () => {
  const tasks: (() => void)[] = [];
  return {
    schedule: (task: () => void) => tasks.push(task),
    runAll: () => {
      for (let turns = 0; tasks.length > 0 && turns < 10_000; turns += 1) tasks.shift()?.();
    },
  };
};

describe('/play_audio buffer between ROS and the kiosks (the fan-out)', () => {
  it('keeps a burst that fits the byte budget whole and in order, handing one message on per turn', () => {
    const turns = manualTurns();
    // What was dropped: reason, count and bytes (the message 'one byte over' is the only 1-byte one).
    const dropped: unknown[][] = [];
    const source = new Subject<PlayAudioMsg>();
    const pairs$ = bufferOver(source, 10_000, (...drop) => dropped.push(drop), turns.schedule);
    const seen: string[] = [];
    pairs$.subscribe((pair) => seen.push(textOf(pair)));
    for (let index = 0; index < 200; index += 1) source.next(message(`m${String(index)}`, 50));
    assert.deepEqual(seen, [], 'taking does not deliver in the same turn');
    // The budget is full: one more byte does not fit.
    source.next(message('one byte over', 1));
    assert.deepEqual(dropped, [['buffer_full', 1, 1]]);
    turns.runAll();
    assert.deepEqual(
      seen,
      Array.from({ length: 200 }, (_, index) => `m${String(index)}`),
    );
    // All handed on, so all released: the whole budget fits again.
    source.next(message('whole budget', 10_000));
    turns.runAll();
    assert.deepEqual(seen.slice(-1), ['whole budget']);
    assert.equal(dropped.length, 1);
  });

  it('drops the messages that would pass the budget, reports each, and takes again once there is room', () => {
    const turns = manualTurns();
    // The bytes of each message dropped: c's 100, then the 251 of 'too big alone'.
    const dropped: number[] = [];
    const source = new Subject<PlayAudioMsg>();
    const pairs$ = bufferOver(source, 250, (_, __, bytes) => dropped.push(bytes ?? -1), turns.schedule);
    const seen: string[] = [];
    pairs$.subscribe((pair) => seen.push(textOf(pair)));
    source.next(message('a', 100));
    source.next(message('b', 100));
    source.next(message('c', 100)); // 300 > 250
    source.next(message('d', 50)); // 250: fits
    source.next(message('too big alone', 251));
    assert.deepEqual(dropped, [100, 251]);
    turns.runAll();
    source.next(message('e', 250));
    turns.runAll();
    assert.deepEqual(seen, ['a', 'b', 'd', 'e']);
  });

  it('hands on what it holds before the source’s end or failure, and releases it on unsubscribe', () => {
    const turns = manualTurns();
    const source = new Subject<PlayAudioMsg>();
    const ended$ = bufferOver(source, 1_000, () => undefined, turns.schedule);
    const events: string[] = [];
    ended$.subscribe({
      next: (pair) => events.push(textOf(pair)),
      error: () => events.push('error'),
    });
    source.next(message('a', 10));
    source.error(new Error('subscription failed'));
    turns.runAll();
    assert.deepEqual(events, ['a', 'error']);

    // Held while one kiosk listens, the bytes count against the room of what comes next; released when
    // the last kiosk leaves.
    const other = new Subject<PlayAudioMsg>();
    const droppedBytes: number[] = [];
    const pairs$ = bufferOver(other, 1_000, (_, __, bytes) => droppedBytes.push(bytes ?? -1), turns.schedule);
    const subscription = pairs$.subscribe();
    other.next(message('held', 100));
    const thirdSeen: string[] = [];
    other.next(message('does not fit beside it', 901));
    assert.deepEqual(droppedBytes, [901]);
    subscription.unsubscribe();
    pairs$.subscribe((pair) => {
      thirdSeen.push(textOf(pair));
    });
    other.next(message('fits once it is released', 1_000));
    turns.runAll();
    assert.deepEqual(thirdSeen, ['fits once it is released']);
  });
});

describe('loss reporter (rate-limited log of drops)', () => {
  it('logs the first loss at once, then one summary per interval, and again at once after a quiet interval', async () => {
    const { logger: log, lines } = capturingLogger('info');
    const lineCount = () => lines.length;
    const reporter = createLossReporter({ log, message: 'dropped', intervalMs: 40 });
    for (let index = 0; index < 1_000; index += 1) reporter.lost(10);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.['dropped'], 1);
    // Bounded wait: the summary of the other 999 comes after one interval.
    const deadline = Date.now() + 2_000;
    while (lineCount() === 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(
      [lines[1]?.['dropped'], lines[1]?.['droppedBytes'], lines[1]?.['droppedTotal']],
      [999, 9_990, 1_000],
    );
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(lines.length, 2, 'nothing logged while nothing is lost');
    reporter.lost(5);
    assert.equal(lines.length, 3, 'the first loss after a quiet interval is logged at once');
    reporter.close();
  });

  it('takes a count lost at once (a middleware reports a million) in one step, and ignores a count that is not one', () => {
    const { logger: log, lines } = capturingLogger('info');
    const reporter = createLossReporter({ log, message: 'lost', countField: 'lost', withBytes: false });
    reporter.lostMany(1_000_000);
    for (const bad of [0, -3, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) reporter.lostMany(bad);
    reporter.lostMany(2);
    reporter.close();
    assert.deepEqual(
      lines.map((line) => [line['lost'], line['lostTotal'], 'lostBytes' in line]),
      [
        [1_000_000, 1_000_000, false],
        [2, 1_000_002, false],
      ],
    );
  });
});
