import type { ChatRequestMsg, ChatResponseMsg } from '../ros/ros-messages.js';

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
