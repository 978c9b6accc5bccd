import { Observable } from 'rxjs';
import type { RosCalls } from '../ros/ros-calls.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../ros/ros-port.js';

/**
 * One ROS service call as a cold observable, for the session actors: subscribing makes the call through
 * the call wrapper (which applies the time-out), it emits the one response and completes, or errors with
 * the wrapper's errors. Unsubscribing before that abandons the call: it is cancelled at the port, and the
 * late answer is dropped. test/unit/ros-call.marble.test.ts pins the behaviour.
 */
export const rosCall$ = <K extends RosServiceKey>(
  calls: Pick<RosCalls, 'call'>,
  service: K,
  request: RosRequest<K>,
): Observable<RosResponse<K>> =>
  new Observable<RosResponse<K>>((subscriber) => {
    let settled = false;
    const ticket = calls.call(service, request, {
      answered: (response) => {
        settled = true;
        subscriber.next(response);
        subscriber.complete();
      },
      failed: (error) => {
        settled = true;
        subscriber.error(error);
      },
    });
    return () => {
      if (settled) return;
      ticket.cancel();
    };
  });
