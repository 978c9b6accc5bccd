import type { PlayAudioMsg } from '../../port/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../port/ros-port.js';
import {
  requestCopies,
  responseCopies,
  type WirePlayAudio,
  type WireRequest,
  type WireResponse,
} from '../../port/ros-wire.js';
import { bytesFromWire, bytesToWire } from '../../binding/wire-bytes.js';

/*
 * The server side of the port's services, as the reference nodes serve them: what rclnodejs hands a
 * service callback, and what the callback sends back; and the /play_audio the demo chat publishes.
 * The bridge's adapter does the client side (src/adapters/rclnodejs/wire.ts) with the same field copies.
 */

export const REQUEST_FROM_WIRE: {
  readonly [K in RosServiceKey]: (request: WireRequest<K>) => RosRequest<K>;
} = requestCopies(bytesFromWire);

export const RESPONSE_TO_WIRE: {
  readonly [K in RosServiceKey]: (response: RosResponse<K>) => WireResponse<K>;
} = responseCopies(bytesToWire);

export const playAudioToWire = (message: PlayAudioMsg): WirePlayAudio => ({
  emotion: message.emotion,
  text: message.text,
  audio: bytesToWire(message.audio),
});
