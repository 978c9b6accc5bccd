/**
 * Spins a node with its executor thread asleep until the middleware has work for it.
 *
 * rclnodejs runs rcl_wait on a thread of its own with the timeout given to spin(). A finite timeout
 * makes it wake for nothing: with 10 ms an idle bridge woke 100 times a second. It is needed only
 * because the thread holds the node's handle lock while it waits: creating or destroying an entity
 * (the /play_audio subscription when the first kiosk connects or the last leaves) waits on the main
 * thread until rcl_wait returns, and stop() joins the thread. So the node waits with no timeout, and
 * a guard condition in its wait set wakes the thread first: before every change to the node's entities
 * and before the node is stopped.
 */

/** What this needs of an rclnodejs Node; `syncHandles` is its (untyped) native method that hands the entities to the wait set. */
export interface SpinnableNode {
  readonly spinning: boolean;
  spin(timeout?: number): void;
  createGuardCondition(callback: () => unknown): { trigger(): void };
  syncHandles?: () => void;
}

/** rcl_wait's "no timeout" as rclnodejs takes it: a negative number of milliseconds. */
const WAIT_FOREVER = -1;

export interface AsleepSpin {
  /** Wakes the executor thread so that stopping the node (context.shutdown, node.destroy) can join it. */
  wakeToStop(): void;
}

export const spinAsleep = (node: SpinnableNode): AsleepSpin => {
  const guard = node.createGuardCondition(() => undefined);
  const wakeIfSpinning = (): void => {
    if (node.spinning) guard.trigger();
  };
  const sync = node.syncHandles?.bind(node);
  if (sync === undefined)
    throw new TypeError('this rclnodejs has no Node.syncHandles to wake its executor before');
  // Defined on the node itself: rclnodejs's native class makes the prototype's method read-only, so a
  // plain assignment throws.
  Object.defineProperty(node, 'syncHandles', {
    configurable: true,
    writable: true,
    value: () => {
      wakeIfSpinning();
      sync();
    },
  });
  node.spin(WAIT_FOREVER);
  return { wakeToStop: wakeIfSpinning };
};
