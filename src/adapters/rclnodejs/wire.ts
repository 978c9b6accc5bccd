import type {
  HeardMsg,
  SetBoolRequestMsg,
  TranscriptMsg,
  UtteranceAudioMsg,
} from '../../port/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../port/ros-port.js';
import {
  requestCopies,
  responseCopies,
  type WireRequest,
  type WireHeard,
  type WireResponse,
  type WireSetBoolRequest,
  type WireTranscript,
  type WireUtteranceAudio,
} from '../../port/ros-wire.js';
import { bytesFromWire, bytesToWire } from '../../binding/wire-bytes.js';

/*
 * The client side of the conversions between the port's message shapes (src/port/ros-messages.ts) and
 * what rclnodejs takes and gives: requests out, responses in (/play_audio: play-audio-source.ts), /microphone/set_enabled's
 * requests in (our one service), a streamed utterance's events and the heard reports out, transcripts in. The reference nodes serve the other side (src/robot/nodes/node-wire.ts).
 */

export const REQUEST_TO_WIRE: { readonly [K in RosServiceKey]: (request: RosRequest<K>) => WireRequest<K> } =
  requestCopies(bytesToWire);

export const RESPONSE_FROM_WIRE: {
  readonly [K in RosServiceKey]: (response: WireResponse<K>) => RosResponse<K>;
} = responseCopies(bytesFromWire);

export const setBoolRequestFromWire = (request: WireSetBoolRequest): SetBoolRequestMsg => ({
  data: request.data,
});

export const utteranceAudioToWire = (message: UtteranceAudioMsg): WireUtteranceAudio => ({
  utterance_id: message.utterance_id,
  sequence: message.sequence,
  event: message.event,
  audio: bytesToWire(message.audio),
});

export const heardToWire = (message: HeardMsg): WireHeard => ({
  utterance_id: message.utterance_id,
  played_ms: message.played_ms,
  heard_text: message.heard_text,
});

export const transcriptFromWire = (message: WireTranscript): TranscriptMsg => ({
  utterance_id: message.utterance_id,
  text: message.text,
  final: message.final,
});
