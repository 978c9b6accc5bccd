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
} from '../../port/ros-port.js';
import { firstLine } from '../../binding/error-text.js';
import { serverMatched } from './server-matched.js';
import type { WireRequest, WireResponse } from '../../port/ros-wire.js';
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

export interface ServiceCallOptions {
  /** The service's name on the graph (remapping applied), for error messages. Default: the default name. */
  readonly serviceName?: string;
}

/**
 * One service call, sent at once: a missing server is answered at once. `cancel()` abandons it: the
 * request's signal aborts and rclnodejs drops the late answer. `backendLifetime` is aborted when the port
 * closes: later calls are unavailable. Time-outs, the in-flight limit and failing the calls outstanding
 * when the port closes are the call wrapper's (src/port/ros-calls.ts), which cancels them here.
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
