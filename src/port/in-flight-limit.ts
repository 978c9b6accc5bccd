/**
 * Bounds the calls to one ROS service (or Converse goals) outstanding at once, so a burst cannot overflow
 * the RMW's keep-last service queues, where calls would be lost silently. The call wrapper
 * (./ros-calls.ts) keeps one per service; the bound is `--ros_calls_in_flight`, and src/cli/options.ts
 * explains its default, the depth of the services QoS profile.
 */
export interface InFlightLimit {
  /**
   * Runs `start` now if fewer than `limit` are running, or once a place frees, in arrival order.
   * Returns `leave`: gives up the place in the queue, or frees the running place. Idempotent.
   */
  enter(start: () => void): () => void;
  /** Whether a call entering now would wait. */
  readonly full: boolean;
}

export const createInFlightLimit = (limit: number): InFlightLimit => {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer: ${limit}`);
  let running = 0;
  // A Set keeps insertion order and removes an abandoned waiter in O(1).
  const queue = new Set<() => void>();

  const startNext = () => {
    while (running < limit) {
      const next = queue.values().next();
      if (next.done === true) return;
      queue.delete(next.value);
      running += 1;
      next.value();
    }
  };

  return {
    enter: (start) => {
      let state: 'waiting' | 'running' | 'left' = 'waiting';
      const run = () => {
        state = 'running';
        start();
      };
      const leave = () => {
        if (state === 'waiting') queue.delete(run);
        if (state === 'running') {
          running -= 1;
          state = 'left';
          startNext();
          return;
        }
        state = 'left';
      };
      if (running < limit && queue.size === 0) {
        running += 1;
        run();
      } else {
        queue.add(run);
      }
      return leave;
    },
    get full() {
      return running >= limit || queue.size > 0;
    },
  };
};
