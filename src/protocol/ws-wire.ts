/**
 * The `/ws` protocol as both ends read it: the frame header, the audio format and limit, and every message
 * the service sends, with the parser a client uses. The service (ws-protocol.ts, ws-frames.ts) and the
 * kiosk (web/src, bundled by `npm run build:web`) compile against this one module, so it imports nothing
 * and uses nothing of Node.js or the DOM.
 */

/** The 4-byte big-endian message id that heads every server binary frame. */
export const AUDIO_HEADER_BYTES = 4;
/** The server's default limit for one client audio frame (`--max_audio_frame_bytes`). */
export const DEFAULT_MAX_AUDIO_FRAME_BYTES = 2 * 1024 * 1024;
/** What the kiosk records and sends: 16-bit PCM WAV, 16 kHz, mono (docs/protocol.md, "Audio format"). */
export const PCM_SAMPLE_RATE = 16_000;

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
  readonly code: string;
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
  | AudioDroppedMessage;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isMessageId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;

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
 * so a newer server can add message types without breaking older kiosks.
 */
export const parseServerMessage = (text: string): ServerMessage | undefined => {
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
      return typeof code === 'string' && typeof message === 'string' && turn
        ? { type, code, message, ...turn }
        : undefined;
    }
    case 'turn_end': {
      const { turn, outcome } = json;
      return isTurn(turn) && typeof outcome === 'string' ? { type, turn, outcome } : undefined;
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
