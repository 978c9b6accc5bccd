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
} from '../port/ros-port.js';
import { firstLine } from '../binding/error-text.js';
import {
  bytesFromWire,
  bytesToWire,
  requestCopies,
  responseCopies,
  type WireRequest,
  type WireResponse,
} from '../port/ros-wire.js';
import type { RouterLink } from '../zenoh/router-link.js';

/*
 * A service call through an rclnodejs Client, and the conversions it needs: the port's message shapes
 * (src/ros/port/ros-messages.ts) to what rclnodejs takes, and back (the reference nodes serve the other side
 * with the same field copies, src/robot/nodes/node-wire.ts).
 */

export const REQUEST_TO_WIRE: { readonly [K in RosServiceKey]: (request: RosRequest<K>) => WireRequest<K> } =
  requestCopies(bytesToWire);

export const RESPONSE_FROM_WIRE: {
  readonly [K in RosServiceKey]: (response: WireResponse<K>) => RosResponse<K>;
} = responseCopies(bytesFromWire);

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

/**
 * Asks the graph, without waiting, whether a server is matched for a client (a service's or an action's),
 * and fails the call when none is, or when rcl cannot tell: a missing server is answered at once, not
 * after the call's time-out.
 */
export const serverMatched = (
  isAvailable: () => boolean,
  handler: { failed(error: Error): void },
  failure: (detail: string, cause: unknown) => Error,
  unavailable: () => Error,
): boolean => {
  let available: boolean;
  try {
    available = isAvailable();
  } catch (error) {
    handler.failed(failure(firstLine(error), error));
    return false;
  }
  if (!available) handler.failed(unavailable());
  return available;
};

/**
 * The port's `call`, resolved once per port: the router's state, then the service's client and name.
 * `backendLifetime` aborts when the port closes.
 */
export const serviceCalls =
  (
    clients: RosServiceClients,
    serviceNames: Readonly<Record<RosServiceKey, string>>,
    backendLifetime: AbortSignal,
    routerLink: RouterLink,
  ) =>
  <K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket => {
    const serviceName = serviceNames[service];
    const routerDown = routerLink.down();
    if (routerDown === undefined) {
      return callRosService(service, clients[service], request, backendLifetime, handler, { serviceName });
    }
    handler.failed(new RosServiceUnavailableError(service, serviceName, routerDown));
    return SETTLED_CALL;
  };

export interface ServiceCallOptions {
  /** The service's name on the graph (remapping applied), for error messages. Default: the default name. */
  readonly serviceName?: string;
}

/**
 * One service call, sent at once: a missing server is answered at once. `cancel()` abandons it: the
 * request's signal aborts and rclnodejs drops the late answer. `backendLifetime` is aborted when the port
 * closes: later calls are unavailable. Time-outs, the in-flight limit and failing the calls outstanding
 * when the port closes are the call wrapper's (src/ros/port/ros-calls.ts), which cancels them here.
 */
export const callRosService = <K extends RosServiceKey>(
  service: K,
  client: ServiceClientLike<WireRequest<K>, WireResponse<K>>,
  request: RosRequest<K>,
  backendLifetime: AbortSignal,
  handler: RosCallHandler<K>,
  { serviceName = defaultServiceName(service) }: ServiceCallOptions = {},
): RosCallTicket => {
  const failed = (detail: string, cause: unknown) =>
    new RosCallFailedError(service, detail, { cause, serviceName });
  const unavailable = () => new RosServiceUnavailableError(service, serviceName);

  if (backendLifetime.aborted) {
    handler.failed(unavailable());
    return SETTLED_CALL;
  }
  if (!serverMatched(() => client.isServiceServerAvailable(), handler, failed, unavailable)) {
    return SETTLED_CALL;
  }
  let wireRequest: WireRequest<K>;
  try {
    wireRequest = REQUEST_TO_WIRE[service](request);
  } catch (error) {
    handler.failed(failed(firstLine(error), error));
    return SETTLED_CALL;
  }

  const cancel = new AbortController();
  let pending: Promise<WireResponse<K>>;
  try {
    // rclnodejs serialises the request here (a too-long bounded sequence rejects the promise) and
    // rejects with its AbortError when the signal fires, dropping the callback for a late answer.
    pending = client.sendRequestAsync(wireRequest, { signal: cancel.signal });
  } catch (error) {
    handler.failed(failed(firstLine(error), error));
    return SETTLED_CALL;
  }
  pending.then(
    (response) => {
      if (cancel.signal.aborted) return;
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
      // Abandoned by the caller: nobody is listening, and the rejection is handled here.
      if (cancel.signal.aborted) return;
      handler.failed(failed(firstLine(error), error));
    },
  );
  return {
    cancel: () => {
      cancel.abort();
    },
  };
};
