import type { Observable } from 'rxjs';
import type { ConverseFeedbackMsg, ConverseResultMsg } from '../../src/ros/port/ros-messages.js';
import {
  ROS_SERVICE_KEYS,
  type RosConverseHandler,
  type RosCallHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';

/** How a scripted call reads its source: which value ends it, where values go, and how it fails. */
interface ScriptedCall<T> {
  /** True for the value that ends the call (the source is left at once, before it is delivered). */
  readonly isLast: (value: T) => boolean;
  readonly deliver: (value: T) => void;
  readonly failed: (error: Error) => void;
  /** The failure when the source completes before its last value. */
  readonly endedEarly: string;
}

/**
 * Test doubles of the ROS port script their answers as observables (marbles, subjects). This runs one
 * such observable as a port call: subscribed when the call is made, its values delivered until the last
 * one, its error the failure; cancelling the call unsubscribes, and nothing is heard after it ends.
 */
const scriptedCall = <T>(source: Observable<T>, call: ScriptedCall<T>): RosCallTicket => {
  let settled = false;
  const isSettled = () => settled;
  let subscription: { unsubscribe(): void } | undefined = undefined;
  subscription = source.subscribe({
    next: (value) => {
      if (settled) return;
      if (call.isLast(value)) {
        settled = true;
        // A source that emits its last value and never completes is left at once.
        subscription?.unsubscribe();
      }
      call.deliver(value);
    },
    error: (error: unknown) => {
      if (settled) return;
      settled = true;
      call.failed(error instanceof Error ? error : new Error(String(error)));
    },
    complete: () => {
      if (settled) return;
      settled = true;
      call.failed(new Error(call.endedEarly));
    },
  });
  // Ended during subscribe: `next` ran before the subscription existed to be left.
  if (isSettled()) subscription.unsubscribe();
  return {
    cancel: () => {
      settled = true;
      subscription.unsubscribe();
    },
  };
};

/** A scripted service call: the source's first value is the answer. */
export const callFromObservable = <K extends RosServiceKey>(
  source: Observable<RosResponse<K>>,
  handler: RosCallHandler<K>,
): RosCallTicket =>
  scriptedCall(source, {
    isLast: () => true,
    deliver: (response) => {
      handler.answered(response);
    },
    failed: (error) => {
      handler.failed(error);
    },
    endedEarly: 'the ROS call completed without a response',
  });

/** What a scripted Converse goal emits: parts (feedback), and a result (it has `outcome`) that ends it. */
export type ConverseEmission = ConverseFeedbackMsg | ConverseResultMsg;

const isResult = (value: ConverseEmission): value is ConverseResultMsg => 'outcome' in value;

/**
 * One scripted Converse goal: each feedback value is a part, the first result value ends the goal
 * (`finished`), an error fails it, completing without a result fails it. Cancelling the ticket
 * unsubscribes, as cancelling the goal on the ROS side stops its feedback.
 */
export const converseFromObservable = (
  source: Observable<ConverseEmission>,
  handler: RosConverseHandler,
): RosCallTicket =>
  scriptedCall(source, {
    isLast: isResult,
    deliver: (value) => {
      if (isResult(value)) handler.finished(value);
      else handler.part(value);
    },
    failed: (error) => {
      handler.failed(error);
    },
    endedEarly: 'the Converse goal ended without a result',
  });

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
