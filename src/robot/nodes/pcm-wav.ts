import { PCM_SAMPLE_RATE } from '../../protocol/ws-wire.js';

/** A RIFF/WAVE header's size before the samples (PCM format chunk, then the data chunk's header). */
export const WAV_HEADER_BYTES = 44;

/**
 * 16-bit mono PCM at 16 kHz (what /utterance/audio carries, and what the kiosk records) as a WAV file:
 * the format names itself, so a kiosk decodes an answer that echoes it, as it decodes a recorded one.
 */
export const pcmToWav = (pcm: Uint8Array): Uint8Array => {
  const wav = new Uint8Array(WAV_HEADER_BYTES + pcm.byteLength);
  const view = new DataView(wav.buffer);
  const ascii = (at: number, text: string) => {
    for (let index = 0; index < text.length; index += 1) view.setUint8(at + index, text.charCodeAt(index));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + pcm.byteLength, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, PCM_SAMPLE_RATE, true);
  view.setUint32(28, PCM_SAMPLE_RATE * 2, true); // bytes per second
  view.setUint16(32, 2, true); // bytes per frame
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, pcm.byteLength, true);
  wav.set(pcm, WAV_HEADER_BYTES);
  return wav;
};
