import type { ChatRequestMsg, ChatResponseMsg, ConverseFeedbackMsg } from '../ros/ros-messages.js';

/**
 * The echo answer to a `/chat` request: the audio back, with a text saying how much was heard. Served
 * by the simulation and by the reference demo chat node (src/robot/nodes/demo-chat-node.ts), so a person at
 * a kiosk hears themselves on either.
 */
export const echoChat = (request: ChatRequestMsg): ChatResponseMsg => {
  const bytes = request.audio.byteLength;
  return {
    emotion: bytes === 0 ? 'surprised' : 'happy',
    text: `I heard ${bytes} bytes of audio.`,
    // The same bytes, not a copy: neither side mutates audio, and the copy showed in the chat p99 (GC).
    audio: request.audio,
  };
};

/** Most parts an echo answer is split into (`--sim_chat_parts`). */
export const MAX_ECHO_PARTS = 50;

/**
 * The echo answer in `parts` parts, as a streamed turn (the Converse action) delivers it: the text in
 * `parts` sentences (the first is echoChat's, the others say which part they are), the audio cut in
 * `parts` consecutive slices whose concatenation is exactly the utterance (views, not copies; a slice may
 * be empty when the audio has fewer bytes than parts). One part is echoChat's answer itself.
 */
export const echoChatParts = (request: ChatRequestMsg, parts: number): ConverseFeedbackMsg[] => {
  if (!Number.isInteger(parts) || parts < 1 || parts > MAX_ECHO_PARTS) {
    throw new RangeError(`parts must be a whole number from 1 to ${MAX_ECHO_PARTS}, got ${parts}`);
  }
  const whole = echoChat(request);
  const { audio } = request;
  const length = audio.byteLength;
  const result: ConverseFeedbackMsg[] = [];
  for (let index = 0; index < parts; index += 1) {
    result.push({
      emotion: whole.emotion,
      text: index === 0 ? whole.text : `This is part ${index + 1} of ${parts}.`,
      audio: audio.subarray(Math.floor((index * length) / parts), Math.floor(((index + 1) * length) / parts)),
    });
  }
  return result;
};

/**
 * The echo answer in `parts` parts as one `/chat` response: the parts' texts joined by a space, and the
 * whole audio. One part is exactly echoChat's answer.
 */
export const echoChatWhole = (request: ChatRequestMsg, parts: number): ChatResponseMsg => {
  if (parts === 1) return echoChat(request);
  const texts = echoChatParts(request, parts).map((part) => part.text);
  return { ...echoChat(request), text: texts.join(' ') };
};
