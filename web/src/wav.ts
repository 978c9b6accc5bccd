import { PCM_SAMPLE_RATE, WAV_HEADER_BYTES, writeWavHeader } from '../../src/protocol/ws/index.js';

/**
 * The kiosk's recordings as bytes: 16-bit PCM at PCM_SAMPLE_RATE, mono, little-endian; as one WAV file
 * (the header is the wire module's, which the service writes too) or as a streamed part's raw samples.
 */

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

/** Encodes mono 16-bit samples at PCM_SAMPLE_RATE as one WAV file. */
export const encodeWav = (samples: Int16Array): ArrayBuffer => {
  const dataBytes = samples.length * 2;
  const buffer = new ArrayBuffer(WAV_HEADER_BYTES + dataBytes);
  const view = new DataView(buffer);
  writeWavHeader(view, dataBytes);
  writePcm(view, WAV_HEADER_BYTES, samples);
  return buffer;
};

/** Milliseconds of `samples` at PCM_SAMPLE_RATE. */
export const samplesMs = (samples: number): number => (samples * 1000) / PCM_SAMPLE_RATE;
