import type { PlayAudioMsg, SetBoolRequestMsg } from '../../ros/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../ros/ros-port.js';
import {
  requestCopies,
  responseCopies,
  type WirePlayAudio,
  type WireRequest,
  type WireResponse,
  type WireSetBoolRequest,
} from '../../ros/ros-wire.js';
import { bytesFromWire, bytesToWire } from '../../rcl/wire-bytes.js';

/*
 * The client side of the conversions between the port's message shapes (src/ros/ros-messages.ts) and
 * what rclnodejs takes and gives: requests out, responses and /play_audio in, /microphone/set_enabled's
 * requests in (our one service). The reference nodes serve the other side (src/robot/nodes/node-wire.ts).
 */

export const REQUEST_TO_WIRE: { readonly [K in RosServiceKey]: (request: RosRequest<K>) => WireRequest<K> } =
  requestCopies(bytesToWire);

export const RESPONSE_FROM_WIRE: {
  readonly [K in RosServiceKey]: (response: WireResponse<K>) => RosResponse<K>;
} = responseCopies(bytesFromWire);

export const playAudioFromWire = (message: WirePlayAudio): PlayAudioMsg => ({
  emotion: message.emotion,
  text: message.text,
  audio: bytesFromWire(message.audio),
});

export const setBoolRequestFromWire = (request: WireSetBoolRequest): SetBoolRequestMsg => ({
  data: request.data,
});
