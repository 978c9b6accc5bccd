import type { MessageType, ServiceRequestMessage, ServiceResponseMessage } from 'rclnodejs';
import type { PlayAudioMsg, SetBoolRequestMsg, TourMsg, TourOutcomeFields } from '../ros-messages.js';
import {
  ROS_PLAY_AUDIO_TOPIC,
  ROS_SERVICES,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros-port.js';

/*
 * Conversions between the port's message shapes (src/ros/ros-messages.ts) and what rclnodejs takes
 * and gives. They copy only the fields the port knows, so an interface that grew a field on the robot
 * does not leak unchecked data into the service.
 */

export type WireServiceType<K extends RosServiceKey> = (typeof ROS_SERVICES)[K]['type'];
export type WireRequest<K extends RosServiceKey> = ServiceRequestMessage<WireServiceType<K>>;
export type WireResponse<K extends RosServiceKey> = ServiceResponseMessage<WireServiceType<K>>;
export type WirePlayAudio = MessageType<(typeof ROS_PLAY_AUDIO_TOPIC)['type']>;
export type WireSetBoolRequest = ServiceRequestMessage<'std_srvs/srv/SetBool'>;

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

const tourToWire = (tour: TourMsg): TourMsg => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: tour.steps.map((step) => ({
    description: step.description,
    destination: [...step.destination],
    dialogue: [...step.dialogue],
  })),
});

const tourFromWire = (tour: TourMsg): TourMsg => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: Array.from(tour.steps, (step) => ({
    description: step.description,
    destination: Array.from(step.destination),
    dialogue: Array.from(step.dialogue),
  })),
});

const outcomeFromWire = (response: TourOutcomeFields): TourOutcomeFields => ({
  success: response.success,
  outcome: response.outcome,
  message: response.message,
});

export const REQUEST_TO_WIRE: { readonly [K in RosServiceKey]: (request: RosRequest<K>) => WireRequest<K> } =
  {
    chat: (request) => ({ audio: bytesToWire(request.audio) }),
    clear_history: () => ({}),
    tour_list: () => ({}),
    tour_get: (request) => ({ tour_name: request.tour_name }),
    tour_create: (request) => ({ tour: tourToWire(request.tour) }),
    tour_update: (request) => ({ tour: tourToWire(request.tour) }),
    tour_delete: (request) => ({ tour_name: request.tour_name }),
  };

export const RESPONSE_FROM_WIRE: {
  readonly [K in RosServiceKey]: (response: WireResponse<K>) => RosResponse<K>;
} = {
  chat: (response) => ({
    emotion: response.emotion,
    text: response.text,
    audio: bytesFromWire(response.audio),
  }),
  clear_history: () => ({}),
  // Literals, not `{ ...outcomeFromWire(response), … }`: V8 (Node 20) copies a spread object on a slow path
  // (about 1 µs, measured), and these run for every tour request.
  tour_list: (response) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour_names: Array.from(response.tour_names),
  }),
  tour_get: (response) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour: tourFromWire(response.tour),
  }),
  tour_create: outcomeFromWire,
  tour_update: outcomeFromWire,
  tour_delete: outcomeFromWire,
};

export const playAudioFromWire = (message: WirePlayAudio): PlayAudioMsg => ({
  emotion: message.emotion,
  text: message.text,
  audio: bytesFromWire(message.audio),
});

export const setBoolRequestFromWire = (request: WireSetBoolRequest): SetBoolRequestMsg => ({
  data: request.data,
});

/*
 * The server side, used by the reference nodes (src/robot/nodes): what rclnodejs hands a service callback,
 * and what the callback sends back. The same field copies, the other way round.
 */

export const REQUEST_FROM_WIRE: {
  readonly [K in RosServiceKey]: (request: WireRequest<K>) => RosRequest<K>;
} = {
  chat: (request) => ({ audio: bytesFromWire(request.audio) }),
  clear_history: () => ({}),
  tour_list: () => ({}),
  tour_get: (request) => ({ tour_name: request.tour_name }),
  tour_create: (request) => ({ tour: tourFromWire(request.tour) }),
  tour_update: (request) => ({ tour: tourFromWire(request.tour) }),
  tour_delete: (request) => ({ tour_name: request.tour_name }),
};

export const RESPONSE_TO_WIRE: {
  readonly [K in RosServiceKey]: (response: RosResponse<K>) => WireResponse<K>;
} = {
  chat: (response) => ({
    emotion: response.emotion,
    text: response.text,
    audio: bytesToWire(response.audio),
  }),
  clear_history: () => ({}),
  tour_list: (response) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour_names: [...response.tour_names],
  }),
  tour_get: (response) => ({
    success: response.success,
    outcome: response.outcome,
    message: response.message,
    tour: tourToWire(response.tour),
  }),
  tour_create: outcomeFromWire,
  tour_update: outcomeFromWire,
  tour_delete: outcomeFromWire,
};

export const playAudioToWire = (message: PlayAudioMsg): WirePlayAudio => ({
  emotion: message.emotion,
  text: message.text,
  audio: bytesToWire(message.audio),
});
