import type { ChatInterface } from '../../protocol/ws-protocol.js';
import type { Context } from 'rclnodejs';
import type { Logger } from 'pino';
import { spinAsleep, type AsleepSpin } from '../../binding/spin-asleep.js';
import type { Rclnodejs } from '../../binding/rclnodejs-loader.js';
import {
  ROS_NODE_NAME,
  ROS_SERVICE_KEYS,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type RosCallHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosServiceKey,
} from '../../port/ros-port.js';
import { ALWAYS_UP, type RouterLink } from '../../zenoh/router-link.js';
import {
  calledWithoutServer,
  createCallTargets,
  missingConverseClient,
  type CallTargets,
} from './call-targets.js';
import { callConverse } from './converse-call.js';
import type { AttachMessageLost } from './message-lost.js';
import { createMicrophoneEntities, type MicrophoneEntities } from './microphone-service.js';
import { describeReadiness } from './readiness.js';
import { callRosService } from './service-call.js';
import { createPlayAudioSource, type PlayAudioSource } from './play-audio-source.js';
import { createConversationPublishers, type ConversationPublishers } from './conversation-publishers.js';
import { createTranscriptSource, type TranscriptSource } from './transcript-source.js';

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
  // Aborted by close(): later calls are refused and late callbacks touch no destroyed entity.
  const lifetime = new AbortController();
  const node = new rcl.Node(ROS_NODE_NAME, '', context, bridgeNodeOptions(rcl));
  const nodeName = node.getFullyQualifiedName();
  const targets = createCallTargets(rcl, node, chatInterface, logger);
  const playAudio = createPlayAudioSource(rcl, node, lifetime.signal, logger, attachMessageLost);
  const microphone = createMicrophoneEntities(rcl, node, lifetime.signal, logger);
  const conversation = createConversationPublishers(rcl, node, lifetime.signal, logger);
  const transcripts = createTranscriptSource(rcl, node, logger);

  // Waits for work on a background thread and runs callbacks on the event loop (uv_async); the
  // pending async handle keeps the process alive until close().
  const asleep = spinAsleep(node);
  logger.info(
    {
      node: nodeName,
      rmw,
      services: ROS_SERVICE_KEYS.map((key) => targets.serviceNames[key]),
      action: targets.converseName,
      chatInterface,
      subscribes: playAudio.topic,
      provides: microphone.serviceName,
      publishes: microphone.stateTopic,
      utteranceAudio: conversation.utteranceAudioTopic,
      transcripts: transcripts.topic,
      heard: conversation.heardTopic,
      countsPlayAudioLost: attachMessageLost !== undefined,
    },
    'ROS node spinning',
  );
  return portOver({
    context,
    logger,
    rmw,
    chatInterface,
    routerLink,
    lifetime,
    nodeName,
    asleep,
    targets,
    playAudio,
    microphone,
    conversation,
    transcripts,
  });
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

/** What the port's methods reach: what createRclnodejsPort made, and the options they read. */
interface PortParts {
  readonly context: Context;
  readonly logger: Logger;
  readonly rmw: string;
  readonly chatInterface: ChatInterface;
  readonly routerLink: RouterLink;
  readonly lifetime: AbortController;
  readonly nodeName: string;
  readonly asleep: AsleepSpin;
  readonly targets: CallTargets;
  readonly playAudio: PlayAudioSource;
  readonly microphone: MicrophoneEntities;
  readonly conversation: ConversationPublishers;
  readonly transcripts: TranscriptSource;
}

/** The RosPort over the spinning node: calls, streams, readiness and close. */
const portOver = (parts: PortParts): RosPort => {
  const { rmw, chatInterface, routerLink, lifetime, nodeName, targets } = parts;
  const { clients, serviceNames, converseName } = targets;
  let closing: Promise<void> | undefined;
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
      const { converseClient } = targets;
      if (converseClient === undefined) {
        handler.failed(missingConverseClient(targets, lifetime.signal));
        return SETTLED_CALL;
      }
      return callConverse(converseClient, goal, lifetime.signal, handler, { actionName: converseName });
    },
    // Asked by the call wrapper before a call waits for a place: no server, or no router, means no wait.
    serverAvailable: (service) => {
      if (lifetime.signal.aborted || routerLink.down() !== undefined) return false;
      if (service !== 'converse') return clients[service].isServiceServerAvailable();
      return targets.converseClient?.isActionServerAvailable() ?? false;
    },
    serviceName: (service) => (service === 'converse' ? converseName : serviceNames[service]),
    playAudio$: parts.playAudio.messages$,
    playAudioLost$: parts.playAudio.lost$,
    microphoneRequests$: parts.microphone.requests$,
    publishMicrophoneEnabled: parts.microphone.publishEnabled,
    publishUtteranceAudio: parts.conversation.publishUtteranceAudio,
    transcripts$: parts.transcripts.messages$,
    publishHeard: parts.conversation.publishHeard,
    readiness: () => {
      // The node spins from its creation until close().
      const spinning = !lifetime.signal.aborted;
      return describeReadiness({
        spinning,
        nodeName,
        rmw,
        servicesWithoutServer: spinning ? calledWithoutServer(targets, chatInterface) : [],
        routerDown: routerLink.down(),
      });
    },
    close: () => (closing ??= closeNow(parts)),
  };
};

/**
 * Stops the node and ends the port's streams. Synchronous underneath (rclnodejs destroys and shuts down
 * synchronously); a promise for the port's contract.
 */
const closeNow = ({
  context,
  logger,
  routerLink,
  lifetime,
  nodeName,
  asleep,
  playAudio,
  microphone,
  transcripts,
}: PortParts): Promise<void> => {
  routerLink.close();
  // Before the shutdown: later calls are refused (calls outstanding are the call wrapper's to fail,
  // RosCallSettings.closing).
  lifetime.abort();
  try {
    asleep.wakeToStop();
    // Destroys the node (stopping its executor thread) and shuts rcl down for this context.
    context.shutdown();
  } catch (error) {
    logger.error({ err: error }, 'error while shutting the ROS node down');
  }
  playAudio.complete();
  microphone.complete();
  transcripts.complete();
  logger.info({ node: nodeName }, 'ROS node closed');
  return Promise.resolve();
};
