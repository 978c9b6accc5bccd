import {
  defaultServiceName,
  RosCallFailedError,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type RosCallHandler,
  type RosCallTicket,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros-port.js';
import { firstLine } from '../../rcl/error-text.js';
import { serverMatched } from './server-matched.js';
import type { InFlightLimit } from './in-flight-limit.js';
import type { WireRequest, WireResponse } from '../ros-wire.js';
import { REQUEST_TO_WIRE, RESPONSE_FROM_WIRE } from './wire.js';

/** The part of an rclnodejs Client a call needs; tests pass a fake. */
export interface ServiceClientLike<Request, Response> {
  /** The service's name on the graph, remapping applied (rclnodejs reads it from rcl). */
  readonly serviceName?: string;
  isServiceServerAvailable(): boolean;
  sendRequestAsync(request: Request, options: { signal: AbortSignal }): Promise<Response>;
}

export type RosServiceClients = {
  readonly [K in RosServiceKey]: ServiceClientLike<WireRequest<K>, WireResponse<K>>;
};

/** No limit: every call is sent at once. */
const UNLIMITED: InFlightLimit = {
  enter: (start) => {
    start();
    return () => undefined;
  },
  running: 0,
  waiting: 0,
};

export interface ServiceCallOptions {
  /**
   * Bounds the calls of this service outstanding at once (./in-flight-limit.ts); a call beyond it
   * waits in order before it is sent, its caller's time-out running meanwhile. Default: no bound.
   */
  readonly limit?: InFlightLimit;
  /** The service's name on the graph (remapping applied), for error messages. Default: the default name. */
  readonly serviceName?: string;
}

/**
 * The calls sent and not yet settled, per backend lifetime signal, each by the function that aborts it.
 * One abort listener per signal fails them all when the backend closes: a listener per call put up to
 * `--ros_calls_in_flight` × 7 listeners on one signal, past Node's limit of 10
 * (MaxListenersExceededWarning under load). Weak: a signal that is gone takes its set with it.
 */
const outstandingByLifetime = new WeakMap<AbortSignal, Set<() => void>>();

const outstandingOn = (lifetime: AbortSignal): Set<() => void> => {
  let calls = outstandingByLifetime.get(lifetime);
  if (calls === undefined) {
    const created = new Set<() => void>();
    lifetime.addEventListener(
      'abort',
      () => {
        const closing = [...created];
        created.clear();
        for (const abortCall of closing) abortCall();
      },
      { once: true },
    );
    outstandingByLifetime.set(lifetime, created);
    calls = created;
  }
  return calls;
};

/**
 * One service call. A missing server is answered at once; otherwise the call takes its place in the
 * in-flight limit and is sent when its turn comes. `cancel()` abandons it: rclnodejs drops the late
 * answer. `backendLifetime` aborts when the port closes, which fails calls still waiting (their answers
 * could no longer arrive: the node is gone).
 */
export const callRosService = <K extends RosServiceKey>(
  service: K,
  client: ServiceClientLike<WireRequest<K>, WireResponse<K>>,
  request: RosRequest<K>,
  backendLifetime: AbortSignal,
  handler: RosCallHandler<K>,
  { limit = UNLIMITED, serviceName = defaultServiceName(service) }: ServiceCallOptions = {},
): RosCallTicket => {
  const failed = (detail: string, cause: unknown) =>
    new RosCallFailedError(service, detail, { cause, serviceName });
  const unavailable = () => new RosServiceUnavailableError(service, serviceName);
  const matched = (): boolean =>
    serverMatched(() => client.isServiceServerAvailable(), handler, failed, unavailable);

  if (backendLifetime.aborted) {
    handler.failed(unavailable());
    return SETTLED_CALL;
  }
  // Checked before waiting for a place too: a missing server is answered at once, not after a queue.
  if (!matched()) return SETTLED_CALL;
  let wireRequest: WireRequest<K>;
  try {
    wireRequest = REQUEST_TO_WIRE[service](request);
  } catch (error) {
    handler.failed(failed(firstLine(error), error));
    return SETTLED_CALL;
  }

  // Aborted when the caller abandons the call or the backend closes. Not `AbortSignal.any` with the
  // long-lived lifetime signal: on Node 20 every such combined signal stays reachable from it for good
  // (nodejs/node#55351), about 5 KB per call, without bound. An entry removed when the call settles
  // keeps nothing.
  const cancel = new AbortController();
  let abandoned = false;
  const outstanding = outstandingOn(backendLifetime);
  const onBackendClosed = () => {
    cancel.abort();
  };
  const stopWatchingBackend = () => {
    outstanding.delete(onBackendClosed);
  };
  let waited = false;
  let sending = false;
  const send = (): void => {
    sending = true;
    if (backendLifetime.aborted) {
      handler.failed(unavailable());
      return;
    }
    // After a wait in the queue the server may have gone meanwhile.
    if (waited && !matched()) return;
    outstanding.add(onBackendClosed);
    let pending: Promise<WireResponse<K>>;
    try {
      // rclnodejs serialises the request here (a too-long bounded sequence rejects the promise) and
      // rejects with its AbortError when the signal fires, dropping the callback for a late answer.
      pending = client.sendRequestAsync(wireRequest, { signal: cancel.signal });
    } catch (error) {
      stopWatchingBackend();
      handler.failed(failed(firstLine(error), error));
      return;
    }
    pending.then(
      (response) => {
        stopWatchingBackend();
        // The answer is in: the place goes to the next call before this one is processed.
        leave();
        if (abandoned) return;
        let converted: RosResponse<K>;
        try {
          converted = RESPONSE_FROM_WIRE[service](response);
        } catch (error) {
          handler.failed(failed(`unexpected response: ${firstLine(error)}`, error));
          return;
        }
        handler.answered(converted);
      },
      (error: unknown) => {
        stopWatchingBackend();
        leave();
        // Abandoned by the caller: nobody is listening, and the rejection is handled here.
        if (abandoned) return;
        handler.failed(
          backendLifetime.aborted
            ? failed('the ROS backend closed before the answer arrived', error)
            : failed(firstLine(error), error),
        );
      },
    );
  };
  const leave = limit.enter(send);
  waited = !sending;
  return {
    cancel: () => {
      if (abandoned) return;
      abandoned = true;
      stopWatchingBackend();
      cancel.abort();
      leave();
    },
  };
};
