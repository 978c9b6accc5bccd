/**
 * Calls to one ROS service that may be outstanding at once. The services QoS profile (rmw's
 * `rmw_qos_profile_services_default`, which rclcpp, rclpy and this bridge use) keeps the last 10
 * samples: a server's request queue and a client's response queue each hold 10 unread messages, and
 * every RMW drops the oldest beyond that (DDS keep-last history; rmw_zenoh's query and reply queues
 * likewise). A burst of more concurrent calls than that loses requests or answers silently, and each
 * lost one ends as a time-out. Found with `npm run test:ros`: 100 concurrent GET /tour/{name} on a real
 * graph answered 80 times 504. With at most this many calls outstanding per service, neither queue
 * can overflow, whatever the server's RMW, and further calls wait in order in the bridge.
 */
export const SERVICE_CALLS_IN_FLIGHT = 10;

export interface InFlightLimit {
  /**
   * Runs `start` now if fewer than `limit` are running, or once a place frees, in arrival order.
   * Returns `leave`: gives up the place in the queue, or frees the running place. Idempotent.
   */
  enter(start: () => void): () => void;
  /** Running now. */
  readonly running: number;
  /** Waiting for a place. */
  readonly waiting: number;
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
    get running() {
      return running;
    },
    get waiting() {
      return queue.size;
    },
  };
};
