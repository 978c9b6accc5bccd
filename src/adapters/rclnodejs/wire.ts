import type { SetBoolRequestMsg } from '../../port/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../port/ros-port.js';
import {
  requestCopies,
  responseCopies,
  type WireRequest,
  type WireResponse,
  type WireSetBoolRequest,
} from '../../port/ros-wire.js';
import { bytesFromWire, bytesToWire } from '../../binding/wire-bytes.js';

/*
 * The client side of the conversions between the port's message shapes (src/port/ros-messages.ts) and
 * what rclnodejs takes and gives: requests out, responses in (/play_audio: play-audio-source.ts), /microphone/set_enabled's
 * requests in (our one service). The reference nodes serve the other side (src/robot/nodes/node-wire.ts).
 */

export const REQUEST_TO_WIRE: { readonly [K in RosServiceKey]: (request: RosRequest<K>) => WireRequest<K> } =
  requestCopies(bytesToWire);

export const RESPONSE_FROM_WIRE: {
  readonly [K in RosServiceKey]: (response: WireResponse<K>) => RosResponse<K>;
} = responseCopies(bytesFromWire);

export const setBoolRequestFromWire = (request: WireSetBoolRequest): SetBoolRequestMsg => ({
  data: request.data,
});
