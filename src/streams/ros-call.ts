import { defer, finalize, take, tap, throwError, timeout, type Observable, type SchedulerLike } from 'rxjs';
import {
  RosTimeoutError,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros/ros-port.js';
import { trackSubscription, type Gauge } from './resource-gauges.js';

export interface RosCallOptions {
  readonly timeoutMs: number;
  /** The time-out runs on this scheduler, so tests can use virtual time. */
  readonly scheduler: SchedulerLike;
  /** Counts the call while it is subscribed. */
  readonly inFlight?: Gauge;
  /** Told when the caller unsubscribes before any answer: the late answer, if one comes, is dropped. */
  readonly onAbandoned?: () => void;
}

/**
 * One ROS service call: emits the single response and completes, or errors with the port's errors or
 * RosTimeoutError. Both the time-out and unsubscribing abandon the port call, so a late answer is dropped
 * by the adapter rather than delivered.
 */
export const callWithTimeout = <K extends RosServiceKey>(
  port: Pick<RosPort, 'call'>,
  service: K,
  request: RosRequest<K>,
  options: RosCallOptions,
): Observable<RosResponse<K>> => {
  const call$ = defer(() => port.call(service, request)).pipe(
    // The port promises one response; take(1) also ends our subscription to the port right after it.
    take(1),
    timeout({
      first: options.timeoutMs,
      scheduler: options.scheduler,
      with: () => throwError(() => new RosTimeoutError(service, options.timeoutMs)),
    }),
  );
  const tracked$ = options.inFlight === undefined ? call$ : call$.pipe(trackSubscription(options.inFlight));
  const { onAbandoned } = options;
  if (onAbandoned === undefined) return tracked$;
  return defer(() => {
    let settled = false;
    const settle = () => {
      settled = true;
    };
    return tracked$.pipe(
      tap({ next: settle, error: settle, complete: settle }),
      finalize(() => {
        if (!settled) onAbandoned();
      }),
    );
  });
};
