import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import {
  RosTimeoutError,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
  type RosServiceNames,
} from '../ros/ros-port.js';
import type { Gauge } from './resource-gauges.js';

/**
 * What a caller of ROS services needs: the calls, and the services' names on the graph for the
 * time-out's message (RosTimeoutError is raised here, not by the port).
 */
export type RosCaller = Pick<RosPort, 'call'> & RosServiceNames;

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
 *
 * Written as one Observable rather than `defer` + `take(1)` + `timeout` + gauge + `tap`/`finalize`: it runs
 * behind every HTTP request and every chat frame, and the operator chain's allocations were a visible share
 * of the request path (docs/performance.md). test/unit/ros-call.marble.test.ts pins the behaviour.
 */
export const callWithTimeout = <K extends RosServiceKey>(
  port: RosCaller,
  service: K,
  request: RosRequest<K>,
  { timeoutMs, scheduler, inFlight, onAbandoned }: RosCallOptions,
): Observable<RosResponse<K>> =>
  new Observable<RosResponse<K>>((subscriber) => {
    inFlight?.increment();
    // Settled: answered, failed, completed empty or timed out. Unsubscribing before that abandons the call.
    let settled = false;
    let call: Subscription | undefined;
    let timer: Subscription | undefined;
    try {
      // Called at subscription, like `defer`: a port that throws fails this call only.
      call = port.call(service, request).subscribe({
        next: (response) => {
          if (settled) return;
          settled = true;
          // The port promises one response; completing also leaves the port (the teardown below).
          subscriber.next(response);
          subscriber.complete();
        },
        error: (error: unknown) => {
          if (settled) return;
          settled = true;
          subscriber.error(error);
        },
        complete: () => {
          if (settled) return;
          settled = true;
          subscriber.complete();
        },
      });
    } catch (error) {
      settled = true;
      subscriber.error(error);
    }
    if (!settled) {
      timer = scheduler.schedule(() => {
        if (settled) return;
        settled = true;
        call?.unsubscribe();
        subscriber.error(new RosTimeoutError(service, timeoutMs, port.serviceName(service)));
      }, timeoutMs);
    }
    return () => {
      timer?.unsubscribe();
      call?.unsubscribe();
      inFlight?.decrement();
      if (!settled) onAbandoned?.();
    };
  });
