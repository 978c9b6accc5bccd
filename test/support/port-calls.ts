import type { Observable } from 'rxjs';
import type { ConverseFeedbackMsg, ConverseResultMsg } from '../../src/ros/ros-messages.js';
import {
  ROS_SERVICE_KEYS,
  type RosConverseHandler,
  type RosCallHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/ros-port.js';

/**
 * Test doubles of the ROS port script their answers as observables (marbles, subjects). This makes one
 * such observable a port call: subscribed when the call is made, its first value is the answer, its error
 * the failure; cancelling the call unsubscribes.
 */
export const callFromObservable = <K extends RosServiceKey>(
  source: Observable<RosResponse<K>>,
  handler: RosCallHandler<K>,
): RosCallTicket => {
  let settled = false;
  const isSettled = () => settled;
  let subscription: { unsubscribe(): void } | undefined = undefined;
  subscription = source.subscribe({
    next: (response) => {
      if (settled) return;
      settled = true;
      // The port's one answer: a source that emits and never completes is left at once.
      subscription?.unsubscribe();
      handler.answered(response);
    },
    error: (error: unknown) => {
      if (settled) return;
      settled = true;
      handler.failed(error instanceof Error ? error : new Error(String(error)));
    },
    complete: () => {
      if (settled) return;
      settled = true;
      handler.failed(new Error('the ROS call completed without a response'));
    },
  });
  // Answered during subscribe: `next` ran before the subscription existed to be left.
  if (isSettled()) subscription.unsubscribe();
  return {
    cancel: () => {
      settled = true;
      subscription.unsubscribe();
    },
  };
};

/** What a scripted Converse goal emits: parts (feedback), and a result (it has `outcome`) that ends it. */
export type ConverseEmission = ConverseFeedbackMsg | ConverseResultMsg;

const isResult = (value: ConverseEmission): value is ConverseResultMsg => 'outcome' in value;

/**
 * One scripted Converse goal: subscribed when the goal is sent; each feedback value is a part, the first
 * result value ends the goal (`finished`), an error fails it, completing without a result fails it.
 * Cancelling the ticket unsubscribes, as cancelling the goal on the ROS side stops its feedback.
 */
export const converseFromObservable = (
  source: Observable<ConverseEmission>,
  handler: RosConverseHandler,
): RosCallTicket => {
  let settled = false;
  const isSettled = () => settled;
  let subscription: { unsubscribe(): void } | undefined = undefined;
  subscription = source.subscribe({
    next: (value) => {
      if (settled) return;
      if (!isResult(value)) {
        handler.part(value);
        return;
      }
      settled = true;
      subscription?.unsubscribe();
      handler.finished(value);
    },
    error: (error: unknown) => {
      if (settled) return;
      settled = true;
      handler.failed(error instanceof Error ? error : new Error(String(error)));
    },
    complete: () => {
      if (settled) return;
      settled = true;
      handler.failed(new Error('the Converse goal ended without a result'));
    },
  });
  // Ended during subscribe: leave the source at once.
  if (isSettled()) subscription.unsubscribe();
  return {
    cancel: () => {
      settled = true;
      subscription.unsubscribe();
    },
  };
};

/** Makes one call on a port (or the call wrapper) and waits for its outcome. */
export const callOnce = <K extends RosServiceKey>(
  port: Pick<RosPort, 'call'>,
  service: K,
  request: RosRequest<K>,
): Promise<RosResponse<K>> =>
  new Promise((resolve, reject) => {
    port.call(service, request, { answered: resolve, failed: reject });
  });

/** Time-outs for the call wrapper: `chatMs` for /chat, `otherMs` for every other service. */
export const callTimeouts = (chatMs: number, otherMs = chatMs): Record<RosServiceKey, number> =>
  Object.fromEntries(
    ROS_SERVICE_KEYS.map((service) => [service, service === 'chat' ? chatMs : otherMs]),
  ) as Record<RosServiceKey, number>;
