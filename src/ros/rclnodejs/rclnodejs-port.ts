import type { ChatInterface } from '../../protocol/ws/index.js';
import type { Context } from 'rclnodejs';
import type { Logger } from 'pino';
import { spinAsleep, type AsleepSpin } from '../binding/spin-asleep.js';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import { ROS_NODE_NAME, ROS_SERVICE_KEYS, type RosPort } from '../port/ros-port.js';
import { ALWAYS_UP, type RouterLink } from '../zenoh/router-link.js';
import { calledWithoutServer, createCallTargets, type CallTargets } from './call-targets.js';
import { converseCalls } from './converse-call.js';
import type { AttachMessageLost } from './message-lost.js';
import { createMicrophoneEntities, type MicrophoneEntities } from './microphone-service.js';
import { describeReadiness } from './readiness.js';
import { serviceCalls } from './service-call.js';
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
  const parts: PortParts = {
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
  };
  logSpinning(parts, attachMessageLost !== undefined);
  return portOver(parts);
};

/** The node's name and every entity it made, in one log line. */
const logSpinning = (parts: PortParts, countsPlayAudioLost: boolean): void => {
  const { targets, microphone, conversation } = parts;
  parts.logger.info(
    {
      node: parts.nodeName,
      rmw: parts.rmw,
      services: ROS_SERVICE_KEYS.map((key) => targets.serviceNames[key]),
      action: targets.converseName,
      chatInterface: parts.chatInterface,
      subscribes: parts.playAudio.topic,
      provides: microphone.serviceName,
      publishes: microphone.stateTopic,
      utteranceAudio: conversation.utteranceAudioTopic,
      transcripts: parts.transcripts.topic,
      heard: conversation.heardTopic,
      countsPlayAudioLost,
    },
    'ROS node spinning',
  );
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

/**
 * The RosPort over the spinning node: calls, streams, readiness and close. `call` and `converse` are the
 * service and action calls themselves (./service-call.ts, ./converse-call.ts), resolved here once.
 */
const portOver = (parts: PortParts): RosPort => {
  const { rmw, chatInterface, routerLink, lifetime, nodeName, targets } = parts;
  const { clients, serviceNames, converseName } = targets;
  let closing: Promise<void> | undefined;
  const distro = process.env['ROS_DISTRO'] ?? 'unknown distro';
  return {
    backend: 'ros',
    description: `ROS 2 (${distro}) via rclnodejs, node ${nodeName} on ${rmw}`,
    call: serviceCalls(clients, serviceNames, lifetime.signal, routerLink),
    converse: converseCalls(targets, lifetime.signal, routerLink),
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
