import type {
  ConverseGoalMsg,
  HeardMsg,
  PlayAudioMsg,
  TranscriptMsg,
  UtteranceAudioMsg,
} from '../../ros/port/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../ros/port/ros-port.js';
import {
  requestCopies,
  responseCopies,
  type WireHeard,
  type WirePlayAudio,
  type WireRequest,
  type WireResponse,
  type WireConverseGoal,
  type WireTranscript,
  type WireUtteranceAudio,
} from '../../ros/port/ros-wire.js';
import { bytesFromWire, bytesToWire } from '../../ros/port/ros-wire.js';

/*
 * The server side of the port's services, as the reference nodes serve them: what rclnodejs hands a
 * service callback, and what the callback sends back; the /play_audio the demo chat publishes; the
 * streamed conversation's topics and the Converse goal as the demo chat takes them.
 * The bridge's adapter does the client side (src/ros/rclnodejs/service-call.ts) with the same field copies.
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

export const utteranceAudioFromWire = (message: WireUtteranceAudio): UtteranceAudioMsg => ({
  utterance_id: message.utterance_id,
  sequence: message.sequence,
  event: message.event,
  audio: bytesFromWire(message.audio),
});

export const transcriptToWire = (message: TranscriptMsg): WireTranscript => ({
  utterance_id: message.utterance_id,
  text: message.text,
  final: message.final,
});

export const heardFromWire = (message: WireHeard): HeardMsg => ({
  utterance_id: message.utterance_id,
  played_ms: message.played_ms,
  heard_text: message.heard_text,
});

export const converseGoalFromWire = (goal: WireConverseGoal): ConverseGoalMsg => ({
  utterance_id: goal.utterance_id,
  streamed: goal.streamed,
  audio: bytesFromWire(goal.audio),
});
