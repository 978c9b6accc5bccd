import { PCM_BYTES_PER_SECOND, PCM_SAMPLE_RATE } from '../../protocol/ws-wire.js';

/** The canonical RIFF header of 16-bit PCM WAV. */
export const WAV_HEADER_BYTES = 44;

/**
 * A streamed utterance's parts (16-bit little-endian PCM, 16 kHz, mono) as one WAV file, the form a whole
 * utterance has: the simulated Converse server echoes it, as it echoes a whole one.
 */
export const pcmPartsToWav = (parts: readonly Uint8Array[]): Uint8Array => {
  const dataBytes = parts.reduce((total, part) => total + part.byteLength, 0);
  const wav = new Uint8Array(WAV_HEADER_BYTES + dataBytes);
  const view = new DataView(wav.buffer);
  const ascii = (at: number, text: string): void => {
    for (let index = 0; index < text.length; index += 1) wav[at + index] = text.charCodeAt(index);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, PCM_SAMPLE_RATE, true);
  view.setUint32(28, PCM_BYTES_PER_SECOND, true);
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  let at = WAV_HEADER_BYTES;
  for (const part of parts) {
    wav.set(part, at);
    at += part.byteLength;
  }
  return wav;
};
