import type { PlayAudioMsg } from '../../port/ros-messages.js';

/** The tone's shape: a quarter second of 660 Hz, 16 kHz mono 16-bit PCM, faded in and out. */
const SAMPLE_RATE = 16_000;
const DURATION_S = 0.25;
const FREQUENCY_HZ = 660;
const FADE_SAMPLES = 400;

/**
 * A short tone as a WAV file. The spec leaves the audio format open; WAV names its own format, so
 * a browser kiosk can decode it without knowing it in advance.
 */
export const greetingTone = (): Uint8Array => {
  const samples = Math.round(SAMPLE_RATE * DURATION_S);
  const dataBytes = samples * 2;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(SAMPLE_RATE, 24);
  wav.writeUInt32LE(SAMPLE_RATE * 2, 28); // bytes per second
  wav.writeUInt16LE(2, 32); // bytes per frame
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
  for (let index = 0; index < samples; index += 1) {
    const fade = Math.min(1, index / FADE_SAMPLES, (samples - 1 - index) / FADE_SAMPLES);
    const value = Math.sin((2 * Math.PI * FREQUENCY_HZ * index) / SAMPLE_RATE) * 0.3 * fade;
    wav.writeInt16LE(Math.round(value * 32767), 44 + index * 2);
  }
  return new Uint8Array(wav.buffer, wav.byteOffset, wav.byteLength).slice();
};

export const greetingMessage = (): PlayAudioMsg => ({
  emotion: 'happy',
  text: 'Hello! I am the demo robot. Talk to me and I will repeat what I heard.',
  audio: greetingTone(),
});
