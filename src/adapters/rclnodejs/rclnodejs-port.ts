import type { Context, Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { Observable, Subject } from 'rxjs';
import type { PlayAudioMsg } from '../../ros/ros-messages.js';
import {
  ROS_ACTIONS,
  ROS_MICROPHONE_SERVICE,
  ROS_MICROPHONE_STATE_TOPIC,
  RosCallFailedError,
  RosServiceUnavailableError,
  SETTLED_CALL,
  ROS_NODE_NAME,
  ROS_PLAY_AUDIO_TOPIC,
  ROS_SERVICE_KEYS,
  ROS_SERVICES,
  type MicrophoneRequest,
  type RosPort,
  type RosCallHandler,
  type RosCallTicket,
  type RosRequest,
  type RosServiceKey,
} from '../../ros/ros-port.js';
import { callConverse, type ConverseActionClientLike } from './converse-call.js';
import { firstLine } from '../../rcl/error-text.js';
import { spinAsleep } from '../../rcl/spin-asleep.js';
import { createMicrophoneHandler } from './microphone-service.js';
import type { Rclnodejs } from '../../rcl/rclnodejs-loader.js';
import { ALWAYS_UP, type RouterLink } from '../../zenoh/router-link.js';
import type { AttachMessageLost } from './message-lost.js';
import { converseFeedbackQos, microphoneStateQos, playAudioQos, serviceQos } from './qos.js';
import { describeReadiness } from './readiness.js';
import { callRosService, type RosServiceClients, type ServiceClientLike } from './service-call.js';
import type { WirePlayAudio, WireRequest, WireResponse, WireServiceType } from '../../ros/ros-wire.js';
import { playAudioFromWire, setBoolRequestFromWire } from './wire.js';

/**
 * The name rcl gave an entity: its fully qualified name with remapping (`--ros-args -r`) applied, as
 * rclnodejs reads it back (rcl_client_get_service_name, rcl_subscription_get_topic_name, …). The
 * given name when it cannot be read.
 */
const resolvedName = (read: () => unknown, given: string): string => {
  try {
    const name = read();
    return typeof name === 'string' && name !== '' ? name : given;
  } catch {
    return given;
  }
};

/**
 * The bridge's node without the entities rclnodejs adds to every node by default and the bridge never
 * uses: the six parameter services (it has no ROS parameters; its settings are command-line flags), the
 * type description service and the /rosout publisher (it logs with pino, to stdout). Each is one more
 * endpoint the middleware announces to the whole graph and one more entry in every rcl_wait.
 * Node-local arguments and useGlobalArguments stay at their defaults, so rcl applies the ROS arguments
 * given to rcl_init (`--ros-args -r …`) to this node's names.
 */
const bridgeNodeOptions = (rcl: Rclnodejs): InstanceType<Rclnodejs['NodeOptions']> => {
  const options = new rcl.NodeOptions();
  options.startParameterServices = false;
  // Declared by rclnodejs's NodeOptions (a setter) but missing from its typings.
  (options as { startTypeDescriptionService?: boolean }).startTypeDescriptionService = false;
  options.enableRosout = false;
  return options;
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
 * server matches; the feedback as above.
 */
const createConverseClient = (rcl: Rclnodejs, node: Node, actionName: string): ConverseActionClientLike =>
  new rcl.ActionClient<'tour_guide_interfaces/action/Converse'>(node, ROS_ACTIONS.converse.type, actionName, {
    qos: { feedbackSubQosProfile: converseFeedbackQos(rcl) },
  });

export interface RclnodejsPortOptions {
  readonly rcl: Rclnodejs;
  /** An initialised context owned by the port: close() shuts it down. */
  readonly context: Context;
  readonly logger: Logger;
  readonly rmw: string;
  /**
   * `--chat_interface`: with `action` the Converse action client is required (its creation failing
   * fails the start, e.g. a tour_guide_interfaces built without the action) and /ready names a missing
   * action server. Default `service`: the client is still created when it can be, so converse works,
   * but a missing server or type is not an operator's concern.
   */
  readonly chatInterface?: 'service' | 'action';
  /** Whether the middleware's router answers (rmw_zenoh in client mode); closed with the port. */
  readonly routerLink?: RouterLink;
  /** Counts /play_audio messages the middleware lost (./message-lost.ts), where rclnodejs allows it. */
  readonly attachMessageLost?: AttachMessageLost;
}

/**
 * Creates the bridge's node and its entities in `context` and starts spinning. Throws when an entity
 * cannot be created (e.g. tour_guide_interfaces is not in the sourced workspace); the caller then
 * shuts the context down, which destroys whatever was created.
 */
export const createRclnodejsPort = ({
  rcl,
  context,
  logger,
  rmw,
  chatInterface = 'service',
  routerLink = ALWAYS_UP,
  attachMessageLost,
}: RclnodejsPortOptions): RosPort => {
  const lifetime = new AbortController();
  const playAudio = new Subject<PlayAudioMsg>();
  const microphoneRequests = new Subject<MicrophoneRequest>();
  let spinning = false;
  let closing: Promise<void> | undefined;

  const node = new rcl.Node(ROS_NODE_NAME, '', context, bridgeNodeOptions(rcl));
  const nodeName = node.getFullyQualifiedName();
  const clients = createClients(rcl, node);
  // The names on the graph, after remapping: what `ros2 service list` shows and an operator looks for
  // in /ready, the log and error messages.
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
  let converseClient: ConverseActionClientLike | undefined;
  let converseMissing: unknown;
  try {
    converseClient = createConverseClient(rcl, node, converseName);
  } catch (error) {
    if (chatInterface === 'action') throw error;
    converseMissing = error;
    logger.warn(
      { err: error, action: converseName },
      'no Converse action client (tour_guide_interfaces built without action/Converse?); --chat_interface action would fail',
    );
  }

  const playAudioLost = new Subject<number>();
  const playAudioTopic = resolvedName(
    () => node.resolveTopicName(ROS_PLAY_AUDIO_TOPIC.name),
    ROS_PLAY_AUDIO_TOPIC.name,
  );
  /**
   * The /play_audio subscription exists only while someone (a kiosk's session, through the hub's shared
   * stream) listens: with no kiosk connected the middleware delivers nothing to this process and no CPU
   * goes into taking or converting speech nobody hears. Created on the first listener, destroyed after
   * the last.
   */
  let playAudioSubscription: ReturnType<Node['createSubscription']> | undefined;
  const subscribePlayAudio = (): void => {
    const created = node.createSubscription(
      ROS_PLAY_AUDIO_TOPIC.type,
      ROS_PLAY_AUDIO_TOPIC.name,
      { qos: playAudioQos(rcl), enableTypedArray: true },
      // Annotated: the overload's callback type is a union (typed or raw message) that gives no contextual type.
      (message: WirePlayAudio) => {
        // An exception here would escape into rclnodejs's executor callback and end the process.
        try {
          const converted = playAudioFromWire(message);
          logger.debug(
            { emotion: converted.emotion, audioBytes: converted.audio.byteLength },
            '/play_audio message',
          );
          playAudio.next(converted);
        } catch (error) {
          logger.warn({ err: error }, 'dropped a /play_audio message that could not be read');
        }
      },
    );
    playAudioSubscription = created;
    attachMessageLost?.(node, created, (count) => {
      playAudioLost.next(count);
    });
    logger.info({ topic: playAudioTopic }, 'subscribed to /play_audio: a kiosk is connected');
  };
  const unsubscribePlayAudio = (): void => {
    const subscription = playAudioSubscription;
    playAudioSubscription = undefined;
    // After close the node and its entities are gone already.
    if (subscription === undefined || lifetime.signal.aborted) return;
    try {
      node.destroySubscription(subscription);
      logger.info({ topic: playAudioTopic }, 'unsubscribed from /play_audio: no kiosk is connected');
    } catch (error) {
      logger.warn({ err: error }, 'could not destroy the /play_audio subscription');
    }
  };
  const playAudio$ = new Observable<PlayAudioMsg>((subscriber) => {
    if (lifetime.signal.aborted) {
      subscriber.complete();
      return undefined;
    }
    // The first listener makes the subscription; whether anyone listens is the Subject's own count.
    if (!playAudio.observed) {
      try {
        subscribePlayAudio();
      } catch (error) {
        subscriber.error(error);
        return undefined;
      }
    }
    const inner = playAudio.subscribe(subscriber);
    return () => {
      inner.unsubscribe();
      if (!playAudio.observed) unsubscribePlayAudio();
    };
  });

  const handleMicrophone = createMicrophoneHandler({
    hasListeners: () => microphoneRequests.observed,
    emit: (request) => {
      microphoneRequests.next(request);
    },
    isClosed: () => lifetime.signal.aborted,
    logger,
  });
  const microphoneService = node.createService(
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

  const microphoneState = node.createPublisher<'std_msgs/msg/Bool'>(
    ROS_MICROPHONE_STATE_TOPIC.type,
    ROS_MICROPHONE_STATE_TOPIC.name,
    { qos: microphoneStateQos(rcl) },
  );

  // Waits for work on a background thread and runs callbacks on the event loop (uv_async); the
  // pending async handle keeps the process alive until close().
  const asleep = spinAsleep(node);
  spinning = true;
  logger.info(
    {
      node: nodeName,
      rmw,
      services: ROS_SERVICE_KEYS.map((key) => serviceNames[key]),
      action: converseName,
      chatInterface,
      subscribes: playAudioTopic,
      provides: resolvedName(() => microphoneService.serviceName, ROS_MICROPHONE_SERVICE.name),
      publishes: resolvedName(() => microphoneState.topic, ROS_MICROPHONE_STATE_TOPIC.name),
      countsPlayAudioLost: attachMessageLost !== undefined,
    },
    'ROS node spinning',
  );

  const servicesWithoutServer = (): string[] =>
    ROS_SERVICE_KEYS.filter((key) => {
      try {
        return !clients[key].isServiceServerAvailable();
      } catch {
        return true;
      }
    }).map((key) => serviceNames[key]);

  /** The Converse action server counts as a called service only with `--chat_interface action`. */
  const converseWithoutServer = (): string[] => {
    if (chatInterface !== 'action') return [];
    try {
      return converseClient?.isActionServerAvailable() === true ? [] : [converseName];
    } catch {
      return [converseName];
    }
  };

  // Synchronous underneath (rclnodejs destroys and shuts down synchronously); a promise for the port's contract.
  const closeNow = (): Promise<void> => {
    spinning = false;
    routerLink.close();
    // First: later calls are refused (calls outstanding are the call wrapper's to fail, RosCallSettings.closing).
    lifetime.abort();
    try {
      asleep.wakeToStop();
      // Destroys the node (stopping its executor thread) and shuts rcl down for this context.
      context.shutdown();
    } catch (error) {
      logger.error({ err: error }, 'error while shutting the ROS node down');
    }
    playAudio.complete();
    playAudioLost.complete();
    microphoneRequests.complete();
    logger.info({ node: nodeName }, 'ROS node closed');
    return Promise.resolve();
  };

  const distro = process.env['ROS_DISTRO'] ?? 'unknown distro';
  return {
    backend: 'ros',
    description: `ROS 2 (${distro}) via rclnodejs, node ${nodeName} on ${rmw}`,
    call<K extends RosServiceKey>(
      service: K,
      request: RosRequest<K>,
      handler: RosCallHandler<K>,
    ): RosCallTicket {
      const routerDown = routerLink.down();
      if (routerDown !== undefined) {
        handler.failed(new RosServiceUnavailableError(service, serviceNames[service], routerDown));
        return SETTLED_CALL;
      }
      return callRosService(service, clients[service], request, lifetime.signal, handler, {
        serviceName: serviceNames[service],
      });
    },
    converse: (goal, handler) => {
      const routerDown = routerLink.down();
      if (routerDown !== undefined) {
        handler.failed(new RosServiceUnavailableError('converse', converseName, routerDown));
        return SETTLED_CALL;
      }
      if (converseClient === undefined) {
        handler.failed(
          lifetime.signal.aborted
            ? new RosServiceUnavailableError('converse', converseName)
            : new RosCallFailedError('converse', `no action client: ${firstLine(converseMissing)}`, {
                cause: converseMissing,
                serviceName: converseName,
              }),
        );
        return SETTLED_CALL;
      }
      return callConverse(converseClient, goal, lifetime.signal, handler, { actionName: converseName });
    },
    // Asked by the call wrapper before a call waits for a place: no server, or no router, means no wait.
    serverAvailable: (service) => {
      if (lifetime.signal.aborted || routerLink.down() !== undefined) return false;
      if (service !== 'converse') return clients[service].isServiceServerAvailable();
      return converseClient?.isActionServerAvailable() ?? false;
    },
    serviceName: (service) => (service === 'converse' ? converseName : serviceNames[service]),
    playAudio$,
    playAudioLost$: playAudioLost.asObservable(),
    microphoneRequests$: microphoneRequests.asObservable(),
    publishMicrophoneEnabled: (enabled) => {
      if (lifetime.signal.aborted) return;
      try {
        microphoneState.publish({ data: enabled });
      } catch (error) {
        logger.error({ err: error, enabled }, `failed to publish ${ROS_MICROPHONE_STATE_TOPIC.name}`);
      }
    },
    readiness: () =>
      describeReadiness({
        spinning,
        nodeName,
        rmw,
        servicesWithoutServer: spinning ? [...servicesWithoutServer(), ...converseWithoutServer()] : [],
        routerDown: routerLink.down(),
      }),
    close: () => (closing ??= closeNow()),
  };
};
