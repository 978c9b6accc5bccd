import type { Observable } from 'rxjs';
import type {
  ChatRequestMsg,
  ChatResponseMsg,
  ConverseFeedbackMsg,
  ConverseGoalMsg,
  ConverseResultMsg,
  EmptyRequestMsg,
  HeardMsg,
  EmptyResponseMsg,
  PlayAudioMsg,
  SetBoolResponseMsg,
  TranscriptMsg,
  TourCreateRequestMsg,
  TourCreateResponseMsg,
  TourDeleteRequestMsg,
  TourDeleteResponseMsg,
  TourGetRequestMsg,
  TourGetResponseMsg,
  TourListRequestMsg,
  TourListResponseMsg,
  TourUpdateRequestMsg,
  TourUpdateResponseMsg,
  UtteranceAudioMsg,
} from './ros-messages.js';

/**
 * The ROS graph as the rest of the service sees it. Every ROS interaction passes through this port;
 * the rclnodejs adapter and the in-process simulation are its two implementations.
 */

/** The seven services this bridge calls, keyed by a short name, with their request/response shapes. */
export interface RosServiceMap {
  chat: { request: ChatRequestMsg; response: ChatResponseMsg };
  clear_history: { request: EmptyRequestMsg; response: EmptyResponseMsg };
  tour_list: { request: TourListRequestMsg; response: TourListResponseMsg };
  tour_get: { request: TourGetRequestMsg; response: TourGetResponseMsg };
  tour_create: { request: TourCreateRequestMsg; response: TourCreateResponseMsg };
  tour_update: { request: TourUpdateRequestMsg; response: TourUpdateResponseMsg };
  tour_delete: { request: TourDeleteRequestMsg; response: TourDeleteResponseMsg };
}
export type RosServiceKey = keyof RosServiceMap;
export type RosRequest<K extends RosServiceKey> = RosServiceMap[K]['request'];
export type RosResponse<K extends RosServiceKey> = RosServiceMap[K]['response'];

/** ROS names and types of everything the bridge touches. Names are absolute; ROS remapping applies. */
export const ROS_SERVICES = {
  chat: { name: '/chat', type: 'tour_guide_interfaces/srv/Chat' },
  clear_history: { name: '/clear_history', type: 'std_srvs/srv/Empty' },
  tour_list: { name: '/tour_list', type: 'tour_guide_interfaces/srv/TourList' },
  tour_get: { name: '/tour_get', type: 'tour_guide_interfaces/srv/TourGet' },
  tour_create: { name: '/tour_create', type: 'tour_guide_interfaces/srv/TourCreate' },
  tour_update: { name: '/tour_update', type: 'tour_guide_interfaces/srv/TourUpdate' },
  tour_delete: { name: '/tour_delete', type: 'tour_guide_interfaces/srv/TourDelete' },
} as const satisfies Record<RosServiceKey, { name: string; type: string }>;

/** The action the bridge calls instead of `/chat` with `--chat_interface action`: a streamed turn. */
export const ROS_ACTIONS = {
  converse: { name: '/converse', type: 'tour_guide_interfaces/action/Converse' },
} as const;
export type RosActionKey = keyof typeof ROS_ACTIONS;
/** What a call names: a service, or the Converse action. The errors below carry it. */
export type RosCallKey = RosServiceKey | RosActionKey;

export const ROS_PLAY_AUDIO_TOPIC = {
  name: '/play_audio',
  type: 'tour_guide_interfaces/msg/PlayAudio',
} as const;
export const ROS_MICROPHONE_SERVICE = {
  name: '/microphone/set_enabled',
  type: 'std_srvs/srv/SetBool',
} as const;
/**
 * The microphone's state as we publish it: transient local (a node joining later gets the last value),
 * reliable, keep-last 1; at start and on each change.
 */
export const ROS_MICROPHONE_STATE_TOPIC = {
  name: '/microphone/enabled',
  type: 'std_msgs/msg/Bool',
} as const;
/**
 * A streamed utterance, published as it is spoken: its parts in order, then its end or abandonment.
 * Reliable, keep-last 256, volatile (docs/robot.md): 256 parts are 25 s of audio at 100 ms a part, more
 * than a recogniser lagging a few seconds behind needs, and a late-joining recogniser gets no stale audio.
 */
export const ROS_UTTERANCE_AUDIO_TOPIC = {
  name: '/utterance/audio',
  type: 'tour_guide_interfaces/msg/UtteranceAudio',
  depth: 256,
} as const;
/** What the robot's recogniser heard of a streamed utterance so far; reliable, keep-last 16, volatile. */
export const ROS_TRANSCRIPT_TOPIC = {
  name: '/utterance/transcript',
  type: 'tour_guide_interfaces/msg/Transcript',
  depth: 16,
} as const;
/** How much of an interrupted answer the visitor heard; reliable, keep-last 16, volatile. */
export const ROS_HEARD_TOPIC = {
  name: '/conversation/heard',
  type: 'tour_guide_interfaces/msg/Heard',
  depth: 16,
} as const;
export const ROS_NODE_NAME = 'tour_bridge';

export const ROS_SERVICE_KEYS = Object.keys(ROS_SERVICES) as RosServiceKey[];

/** A call to our `/microphone/set_enabled` service, waiting for its answer. */
export interface MicrophoneRequest {
  readonly enabled: boolean;
  /**
   * Who asked, as far as the way in can tell: `std_srvs/SetBool` carries no identity, so a ROS call is
   * known only by the service it came through.
   */
  readonly source: string;
  /** Answers the caller. Only the first answer is sent; later ones are ignored. */
  respond(response: SetBoolResponseMsg): void;
}

export interface BackendReadiness {
  readonly ready: boolean;
  /** One line an operator can act on: what is connected, or what is awaited. */
  readonly detail: string;
}

/** The default (un-remapped) name of a service: what the simulation uses and the API documents. */
export const defaultServiceName = (service: RosCallKey): string =>
  service === 'converse' ? ROS_ACTIONS.converse.name : ROS_SERVICES[service].name;

/**
 * Receives the outcome of one service call: exactly one of the two methods runs, at most once, and never
 * after the call was cancelled. Either may run before `call` returns (a service known to be missing).
 */
export interface RosCallHandler<K extends RosServiceKey> {
  answered(response: RosResponse<K>): void;
  /** RosServiceUnavailableError, RosCallFailedError, or RosTimeoutError from the call wrapper. */
  failed(error: Error): void;
}

/**
 * Receives what one Converse goal brings: zero or more parts (feedback, in the order the action server
 * published them), then exactly one of `finished` (the result) or `failed` (RosServiceUnavailableError:
 * no action server; RosCallFailedError: goal rejected, aborted or lost). Nothing runs after the goal's
 * ticket was cancelled.
 */
export interface RosConverseHandler {
  part(feedback: ConverseFeedbackMsg): void;
  finished(result: ConverseResultMsg): void;
  failed(error: Error): void;
}

/** A call under way. `cancel` abandons it: a late answer is dropped. Idempotent; nothing once settled. */
export interface RosCallTicket {
  cancel(): void;
}

/** The ticket of a call that settled before `call` returned, or never will: nothing to cancel. */
export const SETTLED_CALL: RosCallTicket = { cancel: () => undefined };

export interface RosPort {
  /** Which implementation this is. `sim` is never chosen without being asked for. */
  readonly backend: 'ros' | 'sim';
  /** Human-readable label for logs and /ready. */
  readonly description: string;

  /**
   * Names a service as the port calls it on the graph: after ROS remapping (`--ros-args -r
   * /tour_get:=/robot/tour_get`), the name an operator finds with `ros2 service list`, so error texts
   * use it. The simulation uses the default names.
   */
  serviceName(service: RosCallKey): string;

  /**
   * Whether a server of `service` (or the Converse action) is on the graph right now, asked without
   * waiting; throws when the graph cannot tell. The call wrapper asks before a call waits for a place in
   * the in-flight limit, so a missing server is answered at once, not after the queue (`call` and
   * `converse` check again when they send). Absent where every call is sent at once (the simulation).
   */
  serverAvailable?(service: RosCallKey): boolean;

  /**
   * Calls a ROS service; the handler hears the one outcome: the response, or RosServiceUnavailableError
   * / RosCallFailedError. Callbacks rather than an Observable or a Promise: this runs behind every HTTP
   * request, and each layer of either adds its objects and calls to every one. Time-outs
   * are the call wrapper's (src/ros/port/ros-calls.ts), which is the only caller.
   */
  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket;

  /**
   * Sends a goal to the Converse action server (default `/converse`, remappable). The handler hears the
   * parts as they arrive, then the result. `cancel()` on the ticket cancels the goal on the ROS side and
   * drops anything that arrives after. Time-outs are the call wrapper's.
   */
  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket;

  /** Messages of the `/play_audio` topic. Hot: only messages after subscription are seen. */
  readonly playAudio$: Observable<PlayAudioMsg>;

  /**
   * How many `/play_audio` messages the middleware reports lost before the bridge saw them (rmw's
   * MESSAGE_LOST event), as it reports them. Absent where the backend cannot tell. Hot.
   */
  readonly playAudioLost$?: Observable<number>;

  /**
   * Calls to the `/microphone/set_enabled` service we provide. Hot. Each request must be answered
   * with `respond`; a request that arrives while nobody subscribes is answered with a failure by the port.
   */
  readonly microphoneRequests$: Observable<MicrophoneRequest>;

  /**
   * Publishes the microphone's state on `/microphone/enabled` (transient local, so late joiners see the
   * last value). Optional: a backend without a graph has nobody to tell.
   */
  publishMicrophoneEnabled?(enabled: boolean): void;

  /**
   * Publishes one event of a streamed utterance on `/utterance/audio`, in the order given. Never throws
   * for a graph without subscribers (the message is simply not received); throws only when the port is
   * closed.
   */
  publishUtteranceAudio(message: UtteranceAudioMsg): void;

  /** Messages of `/utterance/transcript`: the robot's transcripts of streamed utterances. Hot. */
  readonly transcripts$: Observable<TranscriptMsg>;

  /** Publishes on `/conversation/heard` how much of an interrupted answer the visitor heard. */
  publishHeard(message: HeardMsg): void;

  readiness(): BackendReadiness;

  /**
   * Releases every ROS entity and stops spinning. Idempotent. Calls still outstanding are not answered:
   * the call wrapper fails them when the port closes (RosCallSettings.closing).
   */
  close(): Promise<void>;
}

/*
 * The errors carry the service's key (for error codes and metrics) and its name on the graph (for the
 * message, an operator's first clue): the port that knows the remapped name passes it; without one it
 * is the default name.
 */

/** The service has no server on the graph, or the graph cannot be reached (HTTP 503). */
export class RosServiceUnavailableError extends Error {
  override readonly name = 'RosServiceUnavailableError';
  constructor(
    readonly service: RosCallKey,
    readonly serviceName: string = defaultServiceName(service),
    /** Why, when it is not "no server" (e.g. the middleware's router does not answer). */
    reason?: string,
  ) {
    super(
      `ROS ${service === 'converse' ? 'action' : 'service'} ${serviceName} is not available` +
        (reason === undefined ? '' : `: ${reason}`),
    );
  }
}

/** The service did not answer in time (HTTP 504). */
export class RosTimeoutError extends Error {
  override readonly name = 'RosTimeoutError';
  constructor(
    readonly service: RosCallKey,
    readonly timeoutMs: number,
    readonly serviceName: string = defaultServiceName(service),
  ) {
    super(
      service === 'converse'
        ? `ROS action ${serviceName} did not finish within ${timeoutMs} ms`
        : `ROS service ${serviceName} did not answer within ${timeoutMs} ms`,
    );
  }
}

/** The call failed on the ROS side without a known outcome (HTTP 502). */
export class RosCallFailedError extends Error {
  override readonly name = 'RosCallFailedError';
  readonly serviceName: string;
  constructor(
    readonly service: RosCallKey,
    detail: string,
    options?: { cause?: unknown; serviceName?: string },
  ) {
    const serviceName = options?.serviceName ?? defaultServiceName(service);
    super(
      `ROS ${service === 'converse' ? 'action' : 'service'} ${serviceName} failed: ${detail}`,
      options !== undefined && 'cause' in options ? { cause: options.cause } : undefined,
    );
    this.serviceName = serviceName;
  }
}
