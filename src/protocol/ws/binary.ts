import type { MessageId } from './messages.js';

/**
 * The binary frames of `/ws` and the audio they carry. Server → client: the 4-byte big-endian message id,
 * then the audio of the `audio` message with that id. Client → server: a whole recording (16-bit PCM WAV),
 * or, in a session that streams, one part of the open utterance behind an 8-byte header.
 */

/** The 4-byte big-endian message id that heads every server binary frame. */
export const AUDIO_HEADER_BYTES = 4;
/** Message ids are unsigned 32-bit: they wrap from this value to 0. */
export const MAX_MESSAGE_ID = 0xffff_ffff;
/** What the kiosk records and sends: 16-bit PCM WAV, 16 kHz, mono (docs/protocol.md, "Audio format"). */
export const PCM_SAMPLE_RATE = 16_000;

/** Bytes a second of that audio takes: 16-bit mono samples. */
export const PCM_BYTES_PER_SECOND = PCM_SAMPLE_RATE * 2;

/**
 * The header of a client binary frame that is one part of a streamed utterance (docs/protocol.md,
 * "Streamed utterances"): the utterance's turn, then the part's sequence number from 0, both 4-byte
 * big-endian unsigned; raw 16-bit little-endian PCM at PCM_SAMPLE_RATE follows.
 */
export const PART_HEADER_BYTES = 8;

const assertMessageId = (messageId: number): void => {
  if (!Number.isInteger(messageId) || messageId < 0 || messageId > MAX_MESSAGE_ID) {
    throw new RangeError(`message id ${messageId} is not an unsigned 32-bit integer`);
  }
};

/** The head of a server binary frame: the message id, big-endian. */
export const encodeAudioHeader = (messageId: MessageId): Uint8Array => {
  assertMessageId(messageId);
  const header = new Uint8Array(AUDIO_HEADER_BYTES);
  new DataView(header.buffer).setUint32(0, messageId, false);
  return header;
};

/** The server binary frame as a client receives it: big-endian message id, then the audio (copied). */
export const encodeAudioBinary = (messageId: MessageId, audio: Uint8Array): Uint8Array => {
  const frame = new Uint8Array(AUDIO_HEADER_BYTES + audio.byteLength);
  frame.set(encodeAudioHeader(messageId));
  frame.set(audio, AUDIO_HEADER_BYTES);
  return frame;
};

/** Splits a server binary frame into its message id and audio; `undefined` when shorter than the header. */
export const readAudioFrame = (
  frame: ArrayBuffer,
): { readonly messageId: number; readonly audio: ArrayBuffer } | undefined => {
  if (frame.byteLength < AUDIO_HEADER_BYTES) return undefined;
  return {
    messageId: new DataView(frame).getUint32(0, false),
    audio: frame.slice(AUDIO_HEADER_BYTES),
  };
};

/** The canonical 44-byte header of a 16-bit mono PCM WAV recording at PCM_SAMPLE_RATE. */
export const WAV_HEADER_BYTES = 44;

/** Writes that header for `dataBytes` of samples at the start of `view`. */
export const writeWavHeader = (view: DataView, dataBytes: number): void => {
  const ascii = (at: number, text: string): void => {
    for (let index = 0; index < text.length; index += 1) view.setUint8(at + index, text.charCodeAt(index));
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
};

/**
 * One part of a streamed utterance as a client sends it: the header (turn, sequence) and the PCM bytes, in
 * one new buffer.
 */
export const encodePartFrame = (turn: number, sequence: number, pcm: Uint8Array): Uint8Array => {
  const frame = new Uint8Array(PART_HEADER_BYTES + pcm.byteLength);
  const view = new DataView(frame.buffer);
  view.setUint32(0, turn, false);
  view.setUint32(4, sequence, false);
  frame.set(pcm, PART_HEADER_BYTES);
  return frame;
};

/** The header of a part frame; `undefined` when the frame is shorter than the header. */
export const readPartHeader = (
  frame: Uint8Array,
): { readonly turn: number; readonly sequence: number } | undefined => {
  if (frame.byteLength < PART_HEADER_BYTES) return undefined;
  const view = new DataView(frame.buffer, frame.byteOffset, PART_HEADER_BYTES);
  return { turn: view.getUint32(0, false), sequence: view.getUint32(4, false) };
};
