/**
 * A FIFO with a fixed capacity. When full, `push` drops the **oldest** waiting item and returns it: for a
 * robot that talks, the newest message is the one that matches what is happening now, and a kiosk that
 * fell behind should catch up rather than replay the past.
 */
export class BoundedQueue<T> {
  private readonly items: T[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be at least 1');
  }

  get size(): number {
    return this.items.length;
  }

  /** Adds `item`; returns the item dropped to make room, if any. */
  push(item: T): T | undefined {
    const dropped = this.items.length >= this.capacity ? this.items.shift() : undefined;
    this.items.push(item);
    return dropped;
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  /** Empties the queue, returning what it held. */
  drain(): T[] {
    return this.items.splice(0, this.items.length);
  }
}
