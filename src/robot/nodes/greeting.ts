import type { PlayAudioMsg } from '../../ros/port/ros-messages.js';
import { PCM_SAMPLE_RATE } from '../../protocol/ws/index.js';
import { wavOfPcmParts } from '../../protocol/ws/index.js';

/** The tone's shape: a quarter second of 660 Hz, 16 kHz mono 16-bit PCM, faded in and out. */
const DURATION_S = 0.25;
const FREQUENCY_HZ = 660;
const FADE_SAMPLES = 400;

/**
 * A short tone as a WAV file. The spec leaves the audio format open; WAV names its own format, so
 * a browser kiosk can decode it without knowing it in advance.
 */
export const greetingTone = (): Uint8Array => {
  const samples = Math.round(PCM_SAMPLE_RATE * DURATION_S);
  const pcm = new DataView(new ArrayBuffer(samples * 2));
  for (let index = 0; index < samples; index += 1) {
    const fade = Math.min(1, index / FADE_SAMPLES, (samples - 1 - index) / FADE_SAMPLES);
    const value = Math.sin((2 * Math.PI * FREQUENCY_HZ * index) / PCM_SAMPLE_RATE) * 0.3 * fade;
    pcm.setInt16(index * 2, Math.round(value * 32767), true);
  }
  return wavOfPcmParts([new Uint8Array(pcm.buffer)]);
};

export const greetingMessage = (): PlayAudioMsg => ({
  emotion: 'happy',
  text: 'Hello! I am the demo robot. Talk to me and I will repeat what I heard.',
  audio: greetingTone(),
});
