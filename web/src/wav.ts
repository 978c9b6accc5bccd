/** 16-bit PCM WAV: the canonical 44-byte RIFF header, then little-endian samples. */

export const WAV_HEADER_BYTES = 44;

/**
 * Writes `samples` as 16-bit little-endian at `offset`: a DataView, not a typed-array copy, because WAV and
 * streamed parts are little-endian whatever the machine is.
 */
const writePcm = (view: DataView, offset: number, samples: Int16Array): void => {
  for (let index = 0; index < samples.length; index += 1) {
    view.setInt16(offset + index * 2, samples[index] ?? 0, true);
  }
};

/** Mono 16-bit samples as raw little-endian bytes, no header: the audio of a streamed part. */
export const pcmBytes = (samples: Int16Array): Uint8Array => {
  const bytes = new Uint8Array(samples.length * 2);
  writePcm(new DataView(bytes.buffer), 0, samples);
  return bytes;
};

/** Encodes mono 16-bit samples as one WAV file. */
export const encodeWav = (samples: Int16Array, sampleRate: number): ArrayBuffer => {
  const dataBytes = samples.length * 2;
  const buffer = new ArrayBuffer(WAV_HEADER_BYTES + dataBytes);
  const view = new DataView(buffer);
  const ascii = (offset: number, text: string) => {
    for (let index = 0; index < text.length; index += 1) {
      view.setUint8(offset + index, text.charCodeAt(index));
    }
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  writePcm(view, WAV_HEADER_BYTES, samples);
  return buffer;
};

/** Samples that fit one WAV within `maxBytes`. */
export const maxSamplesFor = (maxBytes: number): number =>
  Math.max(0, Math.floor((maxBytes - WAV_HEADER_BYTES) / 2));
