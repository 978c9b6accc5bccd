import type { Logger } from 'pino';
import type { SetBoolRequestMsg, SetBoolResponseMsg } from '../../ros/ros-messages.js';
import { ROS_MICROPHONE_SERVICE, type MicrophoneRequest } from '../../ros/ros-port.js';

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
