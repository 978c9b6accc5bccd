import type { ChatRequestMsg, ChatResponseMsg, ConverseFeedbackMsg } from '../ros/port/ros-messages.js';

/** How long a WAV recording lasts (s), from its `fmt ` and `data` chunks; undefined when it is not one. */
export const wavSeconds = (audio: Uint8Array): number | undefined => {
  const view = new DataView(audio.buffer, audio.byteOffset, audio.byteLength);
  const tag = (at: number): string => String.fromCharCode(...audio.subarray(at, at + 4));
  if (audio.byteLength < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') return undefined;
  let byteRate: number | undefined;
  // Each pass moves past one chunk, so this ends within the file.
  for (let at = 12; at + 8 <= audio.byteLength; ) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === 'fmt ' && at + 16 <= audio.byteLength) byteRate = view.getUint32(at + 16, true);
    if (tag(at) === 'data') {
      if (byteRate === undefined || byteRate === 0) return undefined;
      return Math.min(size, audio.byteLength - at - 8) / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
};

/** What the robot says about an utterance it echoes: how long the visitor spoke, as a person would say it. */
const echoText = (audio: Uint8Array): string => {
  if (audio.byteLength === 0) return 'I did not hear anything. Please try again.';
  const seconds = wavSeconds(audio);
  if (seconds === undefined) return 'I heard you. This is what you sent me.';
  // From the tenths the recogniser stand-in's transcript shows beside it ("[2.5 s of speech]",
  // recognition-cost.ts), so the two never disagree: 2.46 s is "2.5 s" there and "about 3 seconds" here.
  const tenths = Number(seconds.toFixed(1));
  if (tenths < 1) return 'You spoke for less than a second. This is what I heard.';
  const whole = Math.round(tenths);
  return `You spoke for about ${whole} second${whole === 1 ? '' : 's'}. This is what I heard.`;
};

/**
 * The echo answer to a `/chat` request: the audio back, with a text saying how long the visitor spoke.
 * Served by the simulation and by the reference demo chat node (src/robot/nodes/demo-chat-node.ts), so a
 * person at a kiosk hears themselves on either.
 */
export const echoChat = (request: ChatRequestMsg): ChatResponseMsg => {
  const bytes = request.audio.byteLength;
  return {
    emotion: bytes === 0 ? 'surprised' : 'happy',
    text: echoText(request.audio),
    // The same bytes, not a copy: neither side mutates audio.
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
