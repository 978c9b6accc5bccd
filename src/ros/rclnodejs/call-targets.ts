import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { firstLine } from '../binding/error-text.js';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import {
  ROS_ACTIONS,
  ROS_SERVICE_KEYS,
  ROS_SERVICES,
  RosCallFailedError,
  RosServiceUnavailableError,
  type RosServiceKey,
} from '../port/ros-port.js';
import type { WireRequest, WireResponse, WireServiceType } from '../port/ros-wire.js';
import type { ConverseActionClientLike } from './converse-call.js';
import { converseFeedbackQos, serviceQos } from './qos.js';
import { resolvedName } from './resolved-name.js';
import type { RosServiceClients, ServiceClientLike } from './service-call.js';

/** The services and the action the bridge calls, with their names on the graph after remapping. */
export interface CallTargets {
  readonly clients: RosServiceClients;
  /**
   * The names after remapping: what `ros2 service list` shows and an operator looks for in /ready, the
   * log and error messages.
   */
  readonly serviceNames: Readonly<Record<RosServiceKey, string>>;
  readonly converseName: string;
  /** Undefined when it could not be created; `converseMissing` is why. */
  readonly converseClient: ConverseActionClientLike | undefined;
  readonly converseMissing: unknown;
}

/**
 * A client per service and the Converse action client. Without `--chat_interface action`, a Converse
 * client that cannot be created is logged and left out; with it, the start fails.
 */
export const createCallTargets = (
  rcl: Rclnodejs,
  node: Node,
  chatInterface: 'service' | 'action',
  logger: Logger,
): CallTargets => {
  const clients = createClients(rcl, node);
  const serviceNames = Object.fromEntries(
    ROS_SERVICE_KEYS.map((key) => [
      key,
      resolvedName(() => clients[key].serviceName, ROS_SERVICES[key].name),
    ]),
  ) as Record<RosServiceKey, string>;
  /*
   * The action's name with remapping applied, resolved here and given to rcl_action as is: Jazzy's
   * rcl_action does not apply remapping rules to an action name (only to the services and topics it
   * derives, `/converse/_action/send_goal` and so on), so `-r /converse:=/robot1/converse` would
   * otherwise change nothing. Newer rcl_action resolves it too, which leaves a resolved name unchanged.
   */
  const converseName = resolvedName(
    () => node.resolveTopicName(ROS_ACTIONS.converse.name),
    ROS_ACTIONS.converse.name,
  );
  try {
    const converseClient = createConverseClient(rcl, node, converseName);
    return { clients, serviceNames, converseName, converseClient, converseMissing: undefined };
  } catch (error) {
    if (chatInterface === 'action') throw error;
    logger.warn(
      { err: error, action: converseName },
      'no Converse action client (tour_guide_interfaces built without action/Converse?); --chat_interface action would fail',
    );
    return { clients, serviceNames, converseName, converseClient: undefined, converseMissing: error };
  }
};

const createClient = <K extends RosServiceKey>(
  rcl: Rclnodejs,
  node: Node,
  service: K,
): ServiceClientLike<WireRequest<K>, WireResponse<K>> =>
  // The type argument is explicit: inferred from a generic key it would widen to every service type.
  node.createClient<WireServiceType<K>>(ROS_SERVICES[service].type, ROS_SERVICES[service].name, {
    qos: serviceQos(rcl),
  });

const createClients = (rcl: Rclnodejs, node: Node): RosServiceClients => ({
  chat: createClient(rcl, node, 'chat'),
  clear_history: createClient(rcl, node, 'clear_history'),
  tour_list: createClient(rcl, node, 'tour_list'),
  tour_get: createClient(rcl, node, 'tour_get'),
  tour_create: createClient(rcl, node, 'tour_create'),
  tour_update: createClient(rcl, node, 'tour_update'),
  tour_delete: createClient(rcl, node, 'tour_delete'),
});

/**
 * The Converse action client on `actionName`: rclnodejs's default QoS for the goal, result and cancel
 * services (services default) and the status topic (transient local), as rclcpp and rclpy use, so any
 * server matches; the feedback with converseFeedbackQos (./qos.ts), which a burst of parts does not overflow.
 */
const createConverseClient = (rcl: Rclnodejs, node: Node, actionName: string): ConverseActionClientLike =>
  new rcl.ActionClient<'tour_guide_interfaces/action/Converse'>(node, ROS_ACTIONS.converse.type, actionName, {
    qos: { feedbackSubQosProfile: converseFeedbackQos(rcl) },
  });

/** Why a converse call fails when there is no action client: the port is closed, or it could not be made. */
export const missingConverseClient = (targets: CallTargets, lifetime: AbortSignal): Error =>
  lifetime.aborted
    ? new RosServiceUnavailableError('converse', targets.converseName)
    : new RosCallFailedError('converse', `no action client: ${firstLine(targets.converseMissing)}`, {
        cause: targets.converseMissing,
        serviceName: targets.converseName,
      });

/**
 * What /ready names as missing: the services without a server, and the Converse action server with
 * `--chat_interface action`.
 */
export const calledWithoutServer = (targets: CallTargets, chatInterface: 'service' | 'action'): string[] => {
  const services = ROS_SERVICE_KEYS.filter((key) => {
    try {
      return !targets.clients[key].isServiceServerAvailable();
    } catch {
      return true;
    }
  }).map((key) => targets.serviceNames[key]);
  if (chatInterface !== 'action') return services;
  let converseUp: boolean;
  try {
    converseUp = targets.converseClient?.isActionServerAvailable() === true;
  } catch {
    converseUp = false;
  }
  return converseUp ? services : [...services, targets.converseName];
};
