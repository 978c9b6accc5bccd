/**
 * When each answer plays, on the audio clock (seconds): pure, so the scheduling is unit-tested without a
 * browser; player.ts does the decoding, the audio nodes and the timers.
 *
 * Items play back to back in arrival order: the next one is placed at the exact end of the one before it,
 * never started late by a timer, so the parts of one answer join without a gap. Only the item right after
 * the playing one is placed ahead; the others wait in a bounded queue, and when it overflows the **oldest
 * waiting** item (placed or not) is dropped: a kiosk that fell behind catches up with what the robot says
 * now rather than replaying the past.
 */

export interface Slot {
  readonly start: number;
  readonly end: number;
}

export interface Entry<T> {
  readonly item: T;
  /** Set once it is decoded and placed on the clock. */
  slot: Slot | undefined;
}

/** What the player must do after a change. */
export interface Actions<T> {
  /** Decode this (the first waiting item), then call `place`. */
  readonly prepare: T | undefined;
  /** Dropped unplayed; a placed one must have its audio unscheduled. */
  readonly dropped: readonly Entry<T>[];
}

export interface Advance<T> {
  /** In order: what ended, then what started (so a page never shows two items at once). */
  readonly ended: readonly Entry<T>[];
  readonly started: readonly Entry<T>[];
  readonly prepare: T | undefined;
}

export class PlaybackTimeline<T> {
  private playing: Entry<T> | undefined;
  private readonly waiting: Entry<T>[] = [];
  /** The item handed out to be decoded, so it is asked for once. */
  private preparing: T | undefined;

  /** `capacity`: items waiting behind the playing one, at most. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be at least 1');
  }

  /** True while an item plays or waits. */
  get busy(): boolean {
    return this.playing !== undefined || this.waiting.length > 0;
  }

  /** Every item held, playing first. */
  get items(): readonly T[] {
    return [...(this.playing === undefined ? [] : [this.playing.item]), ...this.waiting.map((e) => e.item)];
  }

  /** The next time something starts or ends, on the audio clock; undefined when nothing is placed. */
  get nextBoundary(): number | undefined {
    if (this.playing !== undefined) return this.playing.slot?.end;
    return this.waiting[0]?.slot?.start;
  }

  add(item: T): Actions<T> {
    this.waiting.push({ item, slot: undefined });
    const dropped: Entry<T>[] = [];
    while (this.waiting.length > this.capacity) {
      const oldest = this.waiting.shift();
      if (oldest !== undefined) dropped.push(oldest);
    }
    return { prepare: this.toPrepare(), dropped };
  }

  /**
   * The first waiting item is decoded and lasts `duration` seconds: it is placed at the end of the playing
   * item, or at `now` when nothing plays (or the playing item is already over). Undefined when the item is
   * no longer the first waiting one (it was dropped while it decoded).
   */
  place(item: T, duration: number, now: number): Slot | undefined {
    const head = this.waiting[0];
    if (this.preparing !== item) return undefined;
    this.preparing = undefined;
    if (head?.item !== item) return undefined;
    const start = Math.max(now, this.playing?.slot?.end ?? now);
    head.slot = { start, end: start + duration };
    return head.slot;
  }

  /**
   * The placed item could only be started at `at`, later than its slot (the audio clock moved on while it
   * was being scheduled, by whole render quanta under load): its slot moves there, so the item after it is
   * placed at its real end, not overlapping it. Returns the slot it now has.
   */
  delay(item: T, at: number): Slot | undefined {
    const head = this.waiting[0];
    if (head?.item !== item || head.slot === undefined) return undefined;
    if (at > head.slot.start) head.slot = { start: at, end: at + (head.slot.end - head.slot.start) };
    return head.slot;
  }

  /** The clock reached `now`: the playing item ends at its end, the placed one starts at its start. */
  advance(now: number): Advance<T> {
    const ended: Entry<T>[] = [];
    const started: Entry<T>[] = [];
    // Each pass retires one item, so this ends within the queue's length.
    for (;;) {
      if (this.playing !== undefined) {
        const end = this.playing.slot?.end;
        if (end === undefined || end > now) break;
        ended.push(this.playing);
        this.playing = undefined;
      }
      const head = this.waiting[0];
      if (head?.slot === undefined || head.slot.start > now) break;
      this.waiting.shift();
      this.playing = head;
      started.push(head);
    }
    return { ended, started, prepare: this.toPrepare() };
  }

  /** Drops everything at once (barge-in); returns the playing entry and the waiting ones. */
  clear(): { readonly playing: Entry<T> | undefined; readonly dropped: readonly Entry<T>[] } {
    const playing = this.playing;
    const dropped = this.waiting.splice(0, this.waiting.length);
    this.playing = undefined;
    this.preparing = undefined;
    return { playing, dropped };
  }

  /** The first waiting item, if it still needs decoding and nobody is decoding it. */
  private toPrepare(): T | undefined {
    const head = this.waiting[0];
    if (head === undefined || head.slot !== undefined || this.preparing === head.item) return undefined;
    this.preparing = head.item;
    return head.item;
  }
}
