import { ERROR_CODES, type CommandService, type ErrorCode, type TurnOutcome } from './codes.js';
import type {
  AckMessage,
  ErrorMessage,
  MessageId,
  ServerMessage,
  TurnEndMessage,
  TurnNumber,
} from './messages.js';

/**
 * The frames of `/ws` as they go on the wire. Binary frames, server → client: the 4-byte big-endian message
 * id, then the audio of the `audio` message with that id; client → server: a whole recording (16-bit PCM
 * WAV), or, in a session that streams, one part of the open utterance behind an 8-byte header. Then what
 * the service sends, built: the outbound items a session hands to the transport (a text frame, an audio
 * pair, a close), and the message ids that pair an `audio` message with its binary frame. Nothing here
 * touches a socket.
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

// ---------------------------------------------------------------------------------------------------------
// What the service sends

/** One server → client text frame. `message` is kept for logs and metrics; `text` is what goes on the wire. */
export interface TextFrame {
  readonly kind: 'text';
  readonly message: ServerMessage;
  readonly text: string;
}

/**
 * An `audio` metadata frame and its binary frame. One item, so the transport writes both in one corked call
 * and nothing can come between them. The binary frame is one WebSocket message written from `binary`: the
 * whole frame, or the message-id header and the audio as two fragments (RFC 6455 §5.4; clients reassemble
 * them), so a session's own answer is never copied behind its header. Play-audio pairs are shared by every
 * session: never mutate their bytes.
 */
export interface AudioPairFrame {
  readonly kind: 'pair';
  readonly messageId: MessageId;
  readonly meta: string;
  readonly binary: readonly [frame: Uint8Array] | readonly [header: Uint8Array, audio: Uint8Array];
}

/** Ends the session with a WebSocket close frame. */
export interface CloseFrame {
  readonly kind: 'close';
  readonly code: number;
  readonly reason: string;
}

export type OutboundFrame = TextFrame | AudioPairFrame | CloseFrame;

export const serializeServerMessage = (message: ServerMessage): string => JSON.stringify(message);

export const textFrame = (message: ServerMessage): TextFrame => ({
  kind: 'text',
  message,
  text: serializeServerMessage(message),
});

export const errorMessage = (
  code: ErrorCode,
  message: string = ERROR_CODES[code].description,
  turn?: TurnNumber,
): ErrorMessage =>
  turn === undefined ? { type: 'error', code, message } : { type: 'error', code, message, turn };

/** Why a frame was answered with `busy`. */
export type BusyCause =
  | { readonly kind: 'queue'; readonly maxWaitingCalls: number }
  | { readonly kind: 'audio'; readonly maxQueuedAudioBytes: number }
  | { readonly kind: 'address'; readonly maxAudioBytesPerAddress: number };

/**
 * The `message` of a `busy` error. The session (src/actors/session/session-refusals.ts) and the documented
 * examples (test/support/ws-examples.ts) both build it here, so the page shows exactly what a kiosk receives.
 */
export const busyMessage = (service: 'chat' | CommandService, cause: BusyCause): string =>
  cause.kind === 'queue'
    ? `1 call running and ${cause.maxWaitingCalls} waiting; ${service} dropped`
    : cause.kind === 'audio'
      ? `audio queued by all sessions would exceed ${cause.maxQueuedAudioBytes} bytes; ${service} dropped`
      : `audio queued by the sessions of this address would exceed its share of ${cause.maxAudioBytesPerAddress} bytes; ${service} dropped`;

/** An error frame; `turn` when it is about a kiosk utterance. */
export const errorFrame = (code: ErrorCode, message?: string, turn?: TurnNumber): TextFrame =>
  textFrame(errorMessage(code, message, turn));

/** The end of a turn; the last frame of that turn. */
export const turnEndFrame = (turn: TurnNumber, outcome: TurnOutcome): TextFrame => {
  const end: TurnEndMessage = { type: 'turn_end', turn, outcome };
  return textFrame(end);
};

export const ackFrame = (service: CommandService): TextFrame => {
  const ack: AckMessage = { type: 'ack', service };
  return textFrame(ack);
};

export const closeFrame = (close: { readonly code: number; readonly reason: string }): CloseFrame => ({
  kind: 'close',
  code: close.code,
  reason: close.reason,
});

/**
 * Hands out message ids. The process holds one allocator shared by chat answers and /play_audio
 * messages, so an id is unique across every session at a time and ids increase in the order frames are built.
 */
export interface MessageIdAllocator {
  next(): MessageId;
}

/** Ids start at `first` and wrap from 2^32 − 1 to 0, matching the unsigned 32-bit header. */
export const createMessageIdAllocator = (first: MessageId = 0): MessageIdAllocator => {
  if (!Number.isInteger(first) || first < 0 || first > MAX_MESSAGE_ID) {
    throw new RangeError(`first message id ${first} is not an unsigned 32-bit integer`);
  }
  let upcoming = first;
  return {
    next: () => {
      const id = upcoming;
      upcoming = id === MAX_MESSAGE_ID ? 0 : id + 1;
      return id;
    },
  };
};

export interface AudioContent {
  readonly emotion: string;
  readonly text: string;
  readonly audio: Uint8Array;
}

const audioMeta = (messageId: MessageId, content: AudioContent, turn?: TurnNumber): string =>
  serializeServerMessage(
    turn === undefined
      ? { type: 'audio', emotion: content.emotion, text: content.text, messageId }
      : { type: 'audio', emotion: content.emotion, text: content.text, messageId, turn },
  );

/**
 * A pair for one session (a `/chat` answer, or one part of a streamed turn), carrying the `turn` it answers:
 * the audio goes out as it is, a fragment behind the header, not copied into a 4 + N byte frame. Under chat
 * load those copies, outside the V8 heap, drove the garbage collector (docs/performance.md).
 */
export const encodeAudioPair = (
  messageId: MessageId,
  content: AudioContent,
  turn?: TurnNumber,
): AudioPairFrame => ({
  kind: 'pair',
  messageId,
  meta: audioMeta(messageId, content, turn),
  binary: [encodeAudioHeader(messageId), content.audio],
});

/**
 * A pair written to many sessions (a `/play_audio` fan-out): the whole binary frame is built once, so each
 * socket gets one write. A fragment costs a write of its own where uWebSockets.js cannot cork the socket
 * (the simulation's fan-out runs inside an HTTP handler, which holds the cork).
 */
export const encodeSharedAudioPair = (messageId: MessageId, content: AudioContent): AudioPairFrame => ({
  kind: 'pair',
  messageId,
  meta: audioMeta(messageId, content),
  binary: [encodeAudioBinary(messageId, content.audio)],
});
