import { WAV_HEADER_BYTES, writeWavHeader } from './ws/index.js';

/**
 * A streamed utterance's PCM parts as one WAV recording, the format a kiosk's whole binary frame carries:
 * what `/chat` gets for a streamed utterance, since a robot without streaming knows only whole recordings.
 * One copy of the bytes, into the new buffer.
 */
export const wavOfPcmParts = (parts: readonly Uint8Array[]): Uint8Array => {
  let dataBytes = 0;
  for (const part of parts) dataBytes += part.byteLength;
  const wav = new Uint8Array(WAV_HEADER_BYTES + dataBytes);
  writeWavHeader(new DataView(wav.buffer), dataBytes);
  let at = WAV_HEADER_BYTES;
  for (const part of parts) {
    wav.set(part, at);
    at += part.byteLength;
  }
  return wav;
};
