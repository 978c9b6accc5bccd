import type { MessageType, ServiceRequestMessage, ServiceResponseMessage } from 'rclnodejs';
import type { TourMsg, TourOutcomeFields } from './ros-messages.js';
import {
  ROS_HEARD_TOPIC,
  ROS_PLAY_AUDIO_TOPIC,
  ROS_SERVICES,
  ROS_TRANSCRIPT_TOPIC,
  ROS_UTTERANCE_AUDIO_TOPIC,
  type RosServiceKey,
} from './ros-port.js';

/*
 * The port's messages as rclnodejs types them (type-only: nothing here loads rclnodejs), and the field
 * copies every program here that runs rclnodejs makes: the bridge's adapter (src/ros/rclnodejs/) as a
 * client, subscriber and publisher, the reference nodes (src/robot/nodes/node-wire.ts) as servers. A copy
 * takes only the fields the port knows, so an interface that grew a field on the robot does not leak
 * unchecked data into the service; a uint8[] field becomes a plain Uint8Array, copied only when rclnodejs
 * would otherwise send the wrong bytes.
 */

export type WireServiceType<K extends RosServiceKey> = (typeof ROS_SERVICES)[K]['type'];
export type WireRequest<K extends RosServiceKey> = ServiceRequestMessage<WireServiceType<K>>;
export type WireResponse<K extends RosServiceKey> = ServiceResponseMessage<WireServiceType<K>>;
export type WirePlayAudio = MessageType<(typeof ROS_PLAY_AUDIO_TOPIC)['type']>;
export type WireUtteranceAudio = MessageType<(typeof ROS_UTTERANCE_AUDIO_TOPIC)['type']>;
export type WireTranscript = MessageType<(typeof ROS_TRANSCRIPT_TOPIC)['type']>;
export type WireHeard = MessageType<(typeof ROS_HEARD_TOPIC)['type']>;
export type WireSetBoolRequest = ServiceRequestMessage<'std_srvs/srv/SetBool'>;

/**
 * A Converse goal as rclnodejs carries it: what the bridge's action client sends, and what the reference
 * node's execute callback is handed (a uint8[] field as a plain array or a typed one).
 */
export interface WireConverseGoal {
  readonly utterance_id: string;
  readonly streamed: boolean;
  readonly audio: number[] | Uint8Array;
}

/**
 * A uint8[] field as received, as a plain Uint8Array. rclnodejs delivers Uint8Array by default
 * (enableTypedArray), number[] when a subscription or client asks for `serializationMode: 'plain'`;
 * a Buffer (a Uint8Array subclass with different `slice` semantics) is re-viewed, not copied.
 */
export const bytesFromWire = (bytes: number[] | Uint8Array): Uint8Array => {
  if (!(bytes instanceof Uint8Array)) return Uint8Array.from(bytes);
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

/**
 * A Uint8Array rclnodejs will serialise correctly. Its generated array wrappers copy
 * `typedArray.buffer` from offset 0 (rosidl_gen/templates/message-template.cjs, `freeze`), so a view
 * into a larger buffer (a subarray, a pooled Buffer, a WebSocket frame slice) would send the wrong
 * bytes. Such views are copied into an array that owns its whole buffer.
 */
export const bytesToWire = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 &&
  bytes.byteLength === bytes.buffer.byteLength &&
  bytes.buffer instanceof ArrayBuffer
    ? bytes
    : new Uint8Array(bytes);

/** A tour, its arrays copied into plain arrays (rclnodejs may hand typed arrays or its own wrappers). */
export const copyTour = (tour: TourMsg): TourMsg => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: Array.from(tour.steps, (step) => ({
    description: step.description,
    destination: Array.from(step.destination),
    dialogue: Array.from(step.dialogue),
  })),
});

export const copyOutcome = (response: TourOutcomeFields): TourOutcomeFields => ({
  success: response.success,
  outcome: response.outcome,
  message: response.message,
});

/**
 * Each service's request copied field by field, its uint8[] fields through `bytes`: to the wire
 * (bytesToWire) for a client, from it (bytesFromWire) for a server. Each side types the table it makes.
 */
export const requestCopies = <In>(bytes: (audio: In) => Uint8Array) => ({
  chat: (request: { readonly audio: In }) => ({ audio: bytes(request.audio) }),
  clear_history: () => ({}),
  tour_list: () => ({}),
  tour_get: (request: { readonly tour_name: string }) => ({ tour_name: request.tour_name }),
  tour_create: (request: { readonly tour: TourMsg }) => ({ tour: copyTour(request.tour) }),
  tour_update: (request: { readonly tour: TourMsg }) => ({ tour: copyTour(request.tour) }),
  tour_delete: (request: { readonly tour_name: string }) => ({ tour_name: request.tour_name }),
});

/** Each service's response copied field by field, as requestCopies does requests. */
export const responseCopies = <In>(bytes: (audio: In) => Uint8Array) => ({
  chat: (response: { readonly emotion: string; readonly text: string; readonly audio: In }) => ({
    emotion: response.emotion,
    text: response.text,
    audio: bytes(response.audio),
  }),
  clear_history: () => ({}),
  // Literals, not `{ ...copyOutcome(response), … }`: V8 (Node 20) copies a spread object on a slow path,
  // and these run for every tour request.
  tour_list: (response: TourOutcomeFields & { readonly tour_names: ArrayLike<string> }) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour_names: Array.from(response.tour_names),
  }),
  tour_get: (response: TourOutcomeFields & { readonly tour: TourMsg }) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour: copyTour(response.tour),
  }),
  tour_create: copyOutcome,
  tour_update: copyOutcome,
  tour_delete: copyOutcome,
});
