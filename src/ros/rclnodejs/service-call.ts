import { Observable } from 'rxjs';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros-port.js';
import { firstLine } from './error-text.js';
import { REQUEST_TO_WIRE, RESPONSE_FROM_WIRE, type WireRequest, type WireResponse } from './wire.js';

/** The part of an rclnodejs Client a call needs; tests pass a fake. */
export interface ServiceClientLike<Request, Response> {
  isServiceServerAvailable(): boolean;
  sendRequestAsync(request: Request, options: { signal: AbortSignal }): Promise<Response>;
}

export type RosServiceClients = {
  readonly [K in RosServiceKey]: ServiceClientLike<WireRequest<K>, WireResponse<K>>;
};

/**
 * One service call as a cold observable: nothing is sent until subscription, and unsubscribing
 * abandons the call. `backendLifetime` aborts when the port closes, which fails calls still waiting
 * (their answers could no longer arrive: the node is gone).
 */
export const callRosService = <K extends RosServiceKey>(
  service: K,
  client: ServiceClientLike<WireRequest<K>, WireResponse<K>>,
  request: RosRequest<K>,
  backendLifetime: AbortSignal,
): Observable<RosResponse<K>> =>
  new Observable<RosResponse<K>>((subscriber) => {
    const failed = (detail: string, cause: unknown) => new RosCallFailedError(service, detail, { cause });

    if (backendLifetime.aborted) {
      subscriber.error(new RosServiceUnavailableError(service));
      return undefined;
    }
    let available: boolean;
    let wireRequest: WireRequest<K>;
    try {
      // A graph query: answers "is a server matched right now", without waiting.
      available = client.isServiceServerAvailable();
      wireRequest = REQUEST_TO_WIRE[service](request);
    } catch (error) {
      subscriber.error(failed(firstLine(error), error));
      return undefined;
    }
    if (!available) {
      subscriber.error(new RosServiceUnavailableError(service));
      return undefined;
    }

    const abandon = new AbortController();
    const signal = AbortSignal.any([abandon.signal, backendLifetime]);
    let pending: Promise<WireResponse<K>>;
    try {
      // rclnodejs serialises the request here (a too-long bounded sequence rejects the promise) and
      // rejects with its AbortError when the signal fires, dropping the callback for a late answer.
      pending = client.sendRequestAsync(wireRequest, { signal });
    } catch (error) {
      subscriber.error(failed(firstLine(error), error));
      return undefined;
    }
    pending.then(
      (response) => {
        let converted: RosResponse<K>;
        try {
          converted = RESPONSE_FROM_WIRE[service](response);
        } catch (error) {
          subscriber.error(failed(`unexpected response: ${firstLine(error)}`, error));
          return;
        }
        subscriber.next(converted);
        subscriber.complete();
      },
      (error: unknown) => {
        // Abandoned by the subscriber: nobody is listening, and the rejection is handled here.
        if (abandon.signal.aborted) return;
        subscriber.error(
          backendLifetime.aborted
            ? failed('the ROS backend closed before the answer arrived', error)
            : failed(firstLine(error), error),
        );
      },
    );
    return () => {
      abandon.abort();
    };
  });
