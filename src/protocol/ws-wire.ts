/**
 * The `/ws` protocol as both ends read it: the frame header, the audio format and limit, the commands and
 * error codes, and every message the service sends, with the parser a client uses. The service
 * (ws-protocol.ts, ws-frames.ts) and the kiosk (web/src, bundled by `npm run build:web`) compile against
 * this one module, so it imports nothing and uses nothing of Node.js or the DOM.
 */

/** The 4-byte big-endian message id that heads every server binary frame. */
export const AUDIO_HEADER_BYTES = 4;
/** The server's default limit for one client audio frame (`--max_audio_frame_bytes`). */
export const DEFAULT_MAX_AUDIO_FRAME_BYTES = 2 * 1024 * 1024;
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
/** The server's default limit for the audio of one part (`--max_part_bytes`): 2 s of PCM. */
export const DEFAULT_MAX_PART_BYTES = 64 * 1024;

/** The commands a client sends in a text frame, `{"service": …}`. */
export const COMMAND = {
  clearHistory: 'clear_history',
  cancel: 'cancel',
  utteranceStart: 'utterance_start',
  utteranceEnd: 'utterance_end',
  heard: 'heard',
} as const;
export const COMMAND_SERVICES = [
  COMMAND.clearHistory,
  COMMAND.cancel,
  COMMAND.utteranceStart,
  COMMAND.utteranceEnd,
  COMMAND.heard,
] as const;
export type CommandService = (typeof COMMAND_SERVICES)[number];

/**
 * The codes of `error` messages (docs/protocol.md, "Error codes"). A client's tables keyed by them are
 * typed by `ErrorCode`, so a code renamed here fails to compile there.
 */
export const ERROR_CODE_NAMES = [
  'invalid_json',
  'invalid_command',
  'unknown_service',
  'text_frame_too_large',
  'audio_too_short',
  'busy',
  'microphone_disabled',
  'chat_failed',
  'chat_timeout',
  'chat_unavailable',
  'clear_history_failed',
  'clear_history_timeout',
  'clear_history_unavailable',
  'utterance_open',
  'part_invalid',
  'part_out_of_order',
  'part_too_large',
  'utterance_too_large',
  'utterance_too_fast',
  'utterance_incomplete',
  'utterance_stalled',
  'part_odd_length',
  'utterance_too_long',
  'utterance_too_slow',
  'heard_invalid',
] as const;
export type ErrorCode = (typeof ERROR_CODE_NAMES)[number];

export interface StateMessage {
  readonly type: 'state';
  readonly emotion: string;
  readonly text: string;
  readonly microphone: { readonly enabled: boolean };
}
export interface AudioMessage {
  readonly type: 'audio';
  readonly emotion: string;
  readonly text: string;
  readonly messageId: number;
  /** The kiosk utterance this answers (1 for the session's first); absent on /play_audio messages. */
  readonly turn?: number;
}
export interface MicrophoneMessage {
  readonly type: 'microphone';
  readonly enabled: boolean;
}
export interface AckMessage {
  readonly type: 'ack';
  readonly service: string;
}
export interface ErrorMessage {
  readonly type: 'error';
  readonly code: ErrorCode;
  readonly message: string;
  /** Set when the error is about one utterance (busy, chat_timeout, …). */
  readonly turn?: number;
}
/** Sent once per utterance, after every pair and error of it. */
export interface TurnEndMessage {
  readonly type: 'turn_end';
  readonly turn: number;
  /** 'answered', 'failed', 'refused' or 'cancelled'; any other value still ends the turn. */
  readonly outcome: string;
}
/**
 * What the robot's recogniser heard so far of a streamed utterance (`turn`); each replaces the previous
 * one, and `final` is the last.
 */
export interface TranscriptMessage {
  readonly type: 'transcript';
  readonly turn: number;
  readonly text: string;
  readonly final: boolean;
}
/** `/play_audio` messages this kiosk did not get: it was slower than a burst (the oldest were dropped). */
export interface AudioDroppedMessage {
  readonly type: 'audio_dropped';
  readonly count: number;
}

export type ServerMessage =
  | StateMessage
  | AudioMessage
  | MicrophoneMessage
  | AckMessage
  | ErrorMessage
  | TurnEndMessage
  | TranscriptMessage
  | AudioDroppedMessage;

/**
 * An `error` frame whose code is not in ERROR_CODE_NAMES: a newer service's, met by a page loaded before the
 * upgrade. A client still learns that something failed, and about which turn.
 */
export interface UnknownErrorMessage {
  readonly type: 'unknown_error';
  readonly code: string;
  readonly message: string;
  readonly turn?: number;
}

/** What a client reads from a server text frame. */
export type ReceivedMessage = ServerMessage | UnknownErrorMessage;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isMessageId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;

const isErrorCode = (value: string): value is ErrorCode =>
  (ERROR_CODE_NAMES as readonly string[]).includes(value);

const isTurn = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

/**
 * A frame's optional `turn`: `{}` when absent, `{ turn }` when valid, undefined (the frame is malformed)
 * otherwise. Spread into the result so an absent turn leaves no key behind.
 */
const optionalTurn = (value: unknown): { turn?: number } | undefined => {
  if (value === undefined) return {};
  return isTurn(value) ? { turn: value } : undefined;
};

/**
 * Reads a server text frame. Anything malformed or of an unknown type gives `undefined` and is ignored,
 * so a newer server can add message types without breaking older kiosks; an error of a code added later
 * gives an UnknownErrorMessage.
 */
export const parseServerMessage = (text: string): ReceivedMessage | undefined => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(json)) return undefined;
  const { type } = json;
  switch (type) {
    case 'state': {
      const { emotion, text: said, microphone } = json;
      if (typeof emotion !== 'string' || typeof said !== 'string' || !isRecord(microphone)) return undefined;
      const { enabled } = microphone;
      if (typeof enabled !== 'boolean') return undefined;
      return { type, emotion, text: said, microphone: { enabled } };
    }
    case 'audio': {
      const { emotion, text: said, messageId } = json;
      const turn = optionalTurn(json['turn']);
      if (typeof emotion !== 'string' || typeof said !== 'string' || !isMessageId(messageId) || !turn)
        return undefined;
      return { type, emotion, text: said, messageId, ...turn };
    }
    case 'microphone':
      return typeof json['enabled'] === 'boolean' ? { type, enabled: json['enabled'] } : undefined;
    case 'ack':
      return typeof json['service'] === 'string' ? { type, service: json['service'] } : undefined;
    case 'error': {
      const { code, message } = json;
      const turn = optionalTurn(json['turn']);
      if (typeof code !== 'string' || typeof message !== 'string' || !turn) return undefined;
      return isErrorCode(code)
        ? { type, code, message, ...turn }
        : { type: 'unknown_error', code, message, ...turn };
    }
    case 'turn_end': {
      const { turn, outcome } = json;
      return isTurn(turn) && typeof outcome === 'string' ? { type, turn, outcome } : undefined;
    }
    case 'transcript': {
      const { turn, text: heard, final } = json;
      return isTurn(turn) && typeof heard === 'string' && typeof final === 'boolean'
        ? { type, turn, text: heard, final }
        : undefined;
    }
    case 'audio_dropped': {
      const { count } = json;
      return typeof count === 'number' && Number.isSafeInteger(count) && count >= 1
        ? { type, count }
        : undefined;
    }
    default:
      return undefined;
  }
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
