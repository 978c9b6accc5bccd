import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { Subject, type Observable } from 'rxjs';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import type { SetBoolRequestMsg, SetBoolResponseMsg } from '../port/ros-messages.js';
import {
  ROS_MICROPHONE_SERVICE,
  ROS_MICROPHONE_STATE_TOPIC,
  type MicrophoneRequest,
} from '../port/ros-port.js';
import { microphoneStateQos, serviceQos } from './qos.js';
import { resolvedName } from './resolved-name.js';
import type { WireSetBoolRequest } from '../port/ros-wire.js';

/** A SetBool request as the port types it. */
const setBoolRequestFromWire = (request: WireSetBoolRequest): SetBoolRequestMsg => ({
  data: request.data,
});

export const NOT_READY_ANSWER: SetBoolResponseMsg = {
  success: false,
  message: 'tour-bridge is not ready to switch the microphone',
};

/** A SetBool request carries no caller identity: the service is all the audit log can name. */
export const MICROPHONE_SOURCE = `ROS service ${ROS_MICROPHONE_SERVICE.name}`;

/** The part of rclnodejs's ServiceResponse the handler needs; tests pass a fake. */
export interface ServiceResponder<Response> {
  send(response: Response): void;
}

export interface MicrophoneHandlerDeps {
  /** Whether anyone listens for requests; when nobody does, the port answers for them. */
  readonly hasListeners: () => boolean;
  readonly emit: (request: MicrophoneRequest) => void;
  /** After close the service handle is gone; answering then would touch a destroyed rcl service. */
  readonly isClosed: () => boolean;
  readonly logger: Logger;
}

/**
 * The callback of our `/microphone/set_enabled` server. It returns nothing on purpose: rclnodejs
 * (lib/service.js, processRequest) sends the callback's return value when it is truthy and no
 * response was sent yet. The answer is instead sent by `respond`, possibly many ticks later, which
 * rclnodejs supports: the Response keeps the request header (a native handle freed only by GC) and
 * `send` serialises and calls rcl_send_response whenever it is called.
 */
export const createMicrophoneHandler =
  (deps: MicrophoneHandlerDeps) =>
  (request: SetBoolRequestMsg, response: ServiceResponder<SetBoolResponseMsg>): void => {
    let answered = false;
    const respond = (answer: SetBoolResponseMsg): void => {
      // rclnodejs's Response.send does not refuse a second answer; the port contract says "first wins".
      if (answered) return;
      answered = true;
      if (deps.isClosed()) {
        deps.logger.debug(
          { enabled: request.data },
          'microphone request not answered: the ROS node is closed',
        );
        return;
      }
      try {
        response.send({ success: answer.success, message: answer.message });
      } catch (error) {
        deps.logger.warn(
          { err: error, enabled: request.data },
          'could not answer a /microphone/set_enabled call',
        );
      }
    };

    deps.logger.debug({ enabled: request.data }, '/microphone/set_enabled called');
    if (!deps.hasListeners()) {
      respond(NOT_READY_ANSWER);
      return;
    }
    deps.emit({ enabled: request.data, source: MICROPHONE_SOURCE, respond });
  };

/** The microphone's side of the graph: the /microphone/set_enabled service and the state topic. */
export interface MicrophoneEntities {
  /** The service's and the topic's names after remapping. */
  readonly serviceName: string;
  readonly stateTopic: string;
  readonly requests$: Observable<MicrophoneRequest>;
  readonly publishEnabled: (enabled: boolean) => void;
  /** Ends the requests (the port closed). */
  complete(): void;
}

/**
 * Provides /microphone/set_enabled, whose calls go to `requests$` (answered "not ready" while nobody
 * listens), and publishes the microphone's state.
 */
export const createMicrophoneEntities = (
  rcl: Rclnodejs,
  node: Node,
  lifetime: AbortSignal,
  logger: Logger,
): MicrophoneEntities => {
  const microphoneRequests = new Subject<MicrophoneRequest>();
  const handleMicrophone = createMicrophoneHandler({
    hasListeners: () => microphoneRequests.observed,
    emit: (request) => {
      microphoneRequests.next(request);
    },
    isClosed: () => lifetime.aborted,
    logger,
  });
  const service = node.createService(
    ROS_MICROPHONE_SERVICE.type,
    ROS_MICROPHONE_SERVICE.name,
    { qos: serviceQos(rcl) },
    (request, response) => {
      try {
        handleMicrophone(setBoolRequestFromWire(request), response);
      } catch (error) {
        logger.error({ err: error }, 'failed to handle a /microphone/set_enabled call');
      }
    },
  );
  const state = node.createPublisher<'std_msgs/msg/Bool'>(
    ROS_MICROPHONE_STATE_TOPIC.type,
    ROS_MICROPHONE_STATE_TOPIC.name,
    { qos: microphoneStateQos(rcl) },
  );

  return {
    serviceName: resolvedName(() => service.serviceName, ROS_MICROPHONE_SERVICE.name),
    stateTopic: resolvedName(() => state.topic, ROS_MICROPHONE_STATE_TOPIC.name),
    requests$: microphoneRequests.asObservable(),
    publishEnabled: (enabled) => {
      if (lifetime.aborted) return;
      try {
        state.publish({ data: enabled });
      } catch (error) {
        logger.error({ err: error, enabled }, `failed to publish ${ROS_MICROPHONE_STATE_TOPIC.name}`);
      }
    },
    complete: () => {
      microphoneRequests.complete();
    },
  };
};
