import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject } from 'rxjs';
import {
  createQuietGc,
  MEMORY_REDUCING_GC,
  QUIET_GC_AFTER_MS,
  type QuietTimer,
} from '../../src/app/quiet-gc.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import { createMessageIdAllocator } from '../../src/protocol/ws/index.js';
import { playAudioFanOut, WriteScheduler } from '../../src/streams/play-audio/fan-out.js';
import { audioOf } from '../support/conversation-fakes.js';

/** A virtual clock with Node.js's timeout semantics the collector relies on: refresh and unref. */
const virtualClock = () => {
  let now = 0;
  const pending = new Set<{ due: number; ms: number; task: () => void; unrefed: boolean }>();
  const entries = new Map<QuietTimer, { due: number; ms: number; task: () => void; unrefed: boolean }>();
  let armed = 0;
  const setTimer = (task: () => void, ms: number): QuietTimer => {
    armed += 1;
    const entry = { due: now + ms, ms, task, unrefed: false };
    pending.add(entry);
    const timer: QuietTimer = {
      refresh: () => {
        entry.due = now + entry.ms;
        pending.add(entry);
      },
      unref: () => {
        entry.unrefed = true;
      },
    };
    entries.set(timer, entry);
    return timer;
  };
  return {
    setTimer,
    clearTimer: (timer: QuietTimer) => {
      const entry = entries.get(timer);
      if (entry !== undefined) pending.delete(entry);
    },
    advance: (ms: number) => {
      const until = now + ms;
      // Bounded: each pass runs or drops one timeout.
      for (let pass = 0; pass < 1_000; pass += 1) {
        const next = [...pending].sort((x, y) => x.due - y.due)[0];
        if (next === undefined || next.due > until) break;
        now = next.due;
        pending.delete(next);
        next.task();
      }
      now = until;
    },
    pending: () => pending.size,
    allUnrefed: () => [...pending].every((entry) => entry.unrefed),
    armed: () => armed,
  };
};

const setUp = (gcExposed = true) => {
  const clock = virtualClock();
  const collections: number[] = [];
  const lines: unknown[] = [];
  const quietGc = createQuietGc({
    gc: gcExposed ? () => collections.push(1) : undefined,
    log: { debug: (fields: unknown) => lines.push(fields) } as never,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  });
  return { clock, collections, lines, quietGc };
};

describe('one full GC after /play_audio goes quiet', () => {
  it('collects once, the quiet period after the last message, and logs how long it took', () => {
    const { clock, collections, lines, quietGc } = setUp();
    for (let message = 0; message < 20; message += 1) quietGc.traffic();
    assert.equal(clock.allUnrefed(), true, 'a pending collection keeps no process alive');
    clock.advance(QUIET_GC_AFTER_MS - 1);
    assert.equal(collections.length, 0, 'not before the quiet period');
    clock.advance(1);
    assert.equal(collections.length, 1);
    assert.equal(lines.length, 1);
    assert.equal(typeof (lines[0] as { gcMs: unknown }).gcMs, 'number');
    clock.advance(10 * QUIET_GC_AFTER_MS);
    assert.equal(collections.length, 1, 'nothing more until the next traffic');
    assert.equal(clock.pending(), 0, 'no timer left while idle');
  });

  it('lets each message postpone the collection: traffic that keeps coming keeps it away', () => {
    const { clock, collections, quietGc } = setUp();
    for (let step = 0; step < 50; step += 1) {
      quietGc.traffic();
      clock.advance(QUIET_GC_AFTER_MS / 2);
    }
    assert.equal(collections.length, 0);
    assert.equal(clock.armed(), 1, 'one timer, refreshed, not one per message');
    clock.advance(QUIET_GC_AFTER_MS / 2);
    assert.equal(collections.length, 1);
  });

  it('collects again after the next burst, once', () => {
    const { clock, collections, quietGc } = setUp();
    quietGc.traffic();
    clock.advance(QUIET_GC_AFTER_MS);
    quietGc.traffic();
    quietGc.traffic();
    clock.advance(QUIET_GC_AFTER_MS);
    clock.advance(QUIET_GC_AFTER_MS);
    assert.equal(collections.length, 2);
  });

  it('never collects without traffic', () => {
    const { clock, collections } = setUp();
    clock.advance(100 * QUIET_GC_AFTER_MS);
    assert.equal(collections.length, 0);
    assert.equal(clock.armed(), 0, 'no timer at all while idle');
  });

  it('does nothing when the process cannot collect (no --expose-gc)', () => {
    const { clock, quietGc } = setUp(false);
    quietGc.traffic();
    clock.advance(100 * QUIET_GC_AFTER_MS);
    assert.equal(clock.armed(), 0);
  });

  it("asks the exposed gc() for V8's memory-reducing collection, which gives pooled pages back", () => {
    const clock = virtualClock();
    const calls: unknown[][] = [];
    const holder = globalThis as { gc?: unknown };
    const exposed = holder.gc;
    holder.gc = (...args: unknown[]) => calls.push(args);
    try {
      const quietGc = createQuietGc({
        log: { debug: () => undefined } as never,
        setTimer: clock.setTimer,
        clearTimer: clock.clearTimer,
      });
      quietGc.traffic();
      clock.advance(QUIET_GC_AFTER_MS);
    } finally {
      holder.gc = exposed;
    }
    assert.deepEqual(calls, [[{ type: 'major', execution: 'sync', flavor: 'last-resort' }]]);
    assert.deepEqual(calls[0]?.[0], MEMORY_REDUCING_GC);
  });

  it('drops a pending collection when closed', () => {
    const { clock, collections, quietGc } = setUp();
    quietGc.traffic();
    quietGc.close();
    clock.advance(2 * QUIET_GC_AFTER_MS);
    assert.equal(collections.length, 0);
  });

  it('hears each /play_audio message once, however many sessions listen', () => {
    const topic = new Subject<PlayAudioMsg>();
    let heard = 0;
    const pairs$ = playAudioFanOut(topic, {
      bufferBytes: 1024,
      messageIds: createMessageIdAllocator(),
      writes: new WriteScheduler({ totalCapBytes: Number.POSITIVE_INFINITY }),
      onPair: () => (heard += 1),
      schedule: (task) => {
        task();
      },
    });
    const sessions = [1, 2, 3].map(() => pairs$.subscribe());
    for (let message = 0; message < 4; message += 1) {
      topic.next({ emotion: 'neutral', text: 'hi', audio: audioOf(1, 2) });
    }
    for (const session of sessions) session.unsubscribe();
    assert.equal(heard, 4);
  });
});
