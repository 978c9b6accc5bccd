import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';

/*
 * Messages the middleware lost before a subscription saw them: rmw's MESSAGE_LOST event. rmw_zenoh
 * raises it from gaps in each publisher's sequence numbers (a message its congestion control dropped,
 * for instance); Cyclone DDS from samples a reliable reader gave up on.
 *
 * rclnodejs 2.2.0 has the event (SubscriptionEventCallbacks, lib/event_handler.js) but its public
 * entry does not export the class, and Node.createSubscription checks `instanceof` against a copy
 * bundled in dist/index.js. So the class is loaded from the package's own lib/event_handler.js (the
 * package's exports do not list that path: by file URL), and its handlers are attached the way the
 * Subscription constructor attaches its own: in the node's `_events` (which the native executor adds to
 * its wait set) and in the subscription's `events` (which destroySubscription releases). Should a later
 * rclnodejs change any of this, the bridge starts without the count and says so once.
 */

interface SubscriptionEventCallbacksLike {
  messageLost: ((status: unknown) => void) | null;
  createEventHandlers(subscriptionHandle: unknown): unknown[];
}
type SubscriptionEventCallbacksClass = new () => SubscriptionEventCallbacksLike;

interface NodeWithEvents {
  _events?: unknown;
  /** rclnodejs's ShadowNode: hands the node's entities (`_events` among them) to the executor's wait set. */
  syncHandles?: () => void;
}
interface SubscriptionWithEvents {
  readonly handle: unknown;
  events: unknown;
}

/** Attaches a message-lost callback to a subscription; false when this rclnodejs cannot. */
export type AttachMessageLost = (
  node: unknown,
  subscription: unknown,
  onLost: (count: number) => void,
) => boolean;

/** The number of messages a MESSAGE_LOST event reports as newly lost (rmw_message_lost_status_t). */
export const lostInEvent = (status: unknown): number => {
  if (typeof status !== 'object' || status === null) return 0;
  const record = status as Record<string, unknown>;
  const change = record['total_count_change'] ?? record['totalCountChange'];
  const count = typeof change === 'bigint' ? Number(change) : change;
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
};

export const loadMessageLostEvents = async (logger: Logger): Promise<AttachMessageLost | undefined> => {
  let Callbacks: SubscriptionEventCallbacksClass;
  try {
    const entry = createRequire(import.meta.url).resolve('rclnodejs');
    const file = join(dirname(entry), '..', 'lib', 'event_handler.js');
    const loaded = (await import(pathToFileURL(file).href)) as { SubscriptionEventCallbacks?: unknown };
    if (typeof loaded.SubscriptionEventCallbacks !== 'function')
      throw new Error('no SubscriptionEventCallbacks');
    Callbacks = loaded.SubscriptionEventCallbacks as SubscriptionEventCallbacksClass;
  } catch (error) {
    logger.info(
      { err: error },
      'this rclnodejs offers no message-lost event: /play_audio messages the middleware loses are not counted',
    );
    return undefined;
  }
  return (node, subscription, onLost) => {
    const owner = node as NodeWithEvents;
    const target = subscription as SubscriptionWithEvents;
    if (!Array.isArray(owner._events)) return false;
    try {
      const callbacks = new Callbacks();
      callbacks.messageLost = (status) => {
        const lost = lostInEvent(status);
        if (lost > 0) onLost(lost);
      };
      const handlers = callbacks.createEventHandlers(target.handle);
      target.events = handlers;
      (owner._events as unknown[]).push(...handlers);
      // A subscription made while the node spins (the bridge subscribes when a kiosk connects): its
      // events reach the wait set only with the next sync, which createSubscription ran before they existed.
      owner.syncHandles?.();
      return true;
    } catch (error) {
      logger.info(
        { err: error },
        'could not attach the message-lost event: losses in the middleware are not counted',
      );
      return false;
    }
  };
};
