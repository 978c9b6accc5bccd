/**
 * Decodes 16-bit PCM WAV answers without the browser's decoder: synchronously, with an exact duration
 * (frames ÷ rate), and, the reason it exists, across the parts of one turn. The simulation (and any robot
 * that streams one WAV) cuts the answer's bytes into consecutive slices, so only the first part has a
 * header: a later part of the same turn without one continues the previous part's samples, and a sample
 * split between two parts is carried over. Anything else (MP3, Opus, other WAV encodings) is left to
 * decodeAudioData. Pure: bytes in, samples out.
 */

export interface PcmFormat {
  readonly sampleRate: number;
  readonly channels: number;
}

export interface PcmAudio {
  readonly format: PcmFormat;
  /** One array per channel, samples in [-1, 1). */
  readonly channels: readonly Float32Array<ArrayBuffer>[];
  readonly frames: number;
}

export interface PcmWavHeader {
  readonly format: PcmFormat;
  readonly dataOffset: number;
  /** As declared; the file (or this part of it) may hold fewer. */
  readonly dataBytes: number;
}

const ascii = (bytes: Uint8Array, offset: number): string =>
  String.fromCharCode(...bytes.subarray(offset, offset + 4));

/** Reads a RIFF/WAVE header whose format is 16-bit linear PCM, walking its chunks up to `data`. */
export const readPcmWavHeader = (bytes: Uint8Array): PcmWavHeader | undefined => {
  if (bytes.length < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: PcmFormat | undefined;
  // Each step moves forward by at least 8 bytes, so the walk ends.
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const id = ascii(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) return undefined;
      const tag = view.getUint16(body, true);
      const channels = view.getUint16(body + 2, true);
      const sampleRate = view.getUint32(body + 4, true);
      const bits = view.getUint16(body + 14, true);
      if (tag !== 1 || bits !== 16 || channels < 1 || channels > 8 || sampleRate < 3_000) return undefined;
      format = { sampleRate, channels };
    } else if (id === 'data') {
      return format === undefined ? undefined : { format, dataOffset: body, dataBytes: size };
    }
    offset = body + size + (size % 2);
  }
  return undefined;
};

/** Whole frames of `bytes` as planar floats; the bytes of a trailing partial frame are returned apart. */
const toFloat = (format: PcmFormat, bytes: Uint8Array): { audio: PcmAudio; rest: Uint8Array } => {
  const frameBytes = 2 * format.channels;
  const frames = Math.floor(bytes.length / frameBytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const channels = Array.from({ length: format.channels }, () => new Float32Array(frames));
  for (let frame = 0; frame < frames; frame += 1) {
    for (const [channel, samples] of channels.entries()) {
      samples[frame] = view.getInt16(frame * frameBytes + 2 * channel, true) / 0x8000;
    }
  }
  return { audio: { format, channels, frames }, rest: bytes.slice(frames * frameBytes) };
};

export class PcmPartDecoder {
  /** The turn whose WAV is being continued, its format, and the bytes of a sample split off its last part. */
  private stream: { readonly turn: number; readonly format: PcmFormat; carry: Uint8Array } | undefined;

  /** The part's samples, or undefined when it is not PCM this decoder reads (the browser's decoder may). */
  decode(audio: Uint8Array, turn: number | undefined): PcmAudio | undefined {
    const header = readPcmWavHeader(audio);
    if (header !== undefined) {
      const end = Math.min(audio.length, header.dataOffset + header.dataBytes);
      const { audio: samples, rest } = toFloat(header.format, audio.subarray(header.dataOffset, end));
      this.stream = turn === undefined ? undefined : { turn, format: header.format, carry: rest };
      return samples;
    }
    const stream = this.stream;
    if (turn === undefined || stream?.turn !== turn) {
      this.stream = undefined;
      return undefined;
    }
    const joined = new Uint8Array(stream.carry.length + audio.length);
    joined.set(stream.carry);
    joined.set(audio, stream.carry.length);
    const { audio: samples, rest } = toFloat(stream.format, joined);
    stream.carry = rest;
    return samples;
  }

  /** Forgets the stream, e.g. when its turn was cancelled or the session ended. */
  reset(): void {
    this.stream = undefined;
  }
}
