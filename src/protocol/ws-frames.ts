import * as v from 'valibot';
import {
  AUDIO_HEADER_BYTES,
  ClientCommandSchema,
  COMMAND_SERVICES,
  COMMAND_SHAPE,
  CommandEnvelopeSchema,
  ERROR_CODES,
  MAX_MESSAGE_ID,
  ServerMessageSchema,
  type AckMessage,
  type ClientCommand,
  type CommandService,
  type ErrorCode,
  type ErrorMessage,
  type MessageId,
  type ServerMessage,
  type Turn,
  type TurnEndMessage,
  type TurnOutcome,
} from './ws-protocol.js';
import { jsonShapeProblem } from './json-shape.js';

/**
 * Pure encoding and decoding of `/ws` frames, and the outbound items a session hands to the transport.
 * Nothing here touches a socket.
 */

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

// ---------------------------------------------------------------------------------------------------------
// Server → client

export const serializeServerMessage = (message: ServerMessage): string => JSON.stringify(message);

export const textFrame = (message: ServerMessage): TextFrame => ({
  kind: 'text',
  message,
  text: serializeServerMessage(message),
});

export const errorMessage = (
  code: ErrorCode,
  message: string = ERROR_CODES[code].description,
  turn?: Turn,
): ErrorMessage =>
  turn === undefined ? { type: 'error', code, message } : { type: 'error', code, message, turn };

/** Why a frame was answered with `busy`. */
export type BusyCause =
  | { readonly kind: 'queue'; readonly maxWaitingCalls: number }
  | { readonly kind: 'audio'; readonly maxQueuedAudioBytes: number }
  | { readonly kind: 'address'; readonly maxAudioBytesPerAddress: number };

/**
 * The `message` of a `busy` error. The session (src/actors/session/session-outbox.ts) and the documented
 * examples (test/support/ws-examples.ts) both build it here, so the page shows exactly what a kiosk receives.
 */
export const busyMessage = (service: 'chat' | CommandService, cause: BusyCause): string =>
  cause.kind === 'queue'
    ? `1 call running and ${cause.maxWaitingCalls} waiting; ${service} dropped`
    : cause.kind === 'audio'
      ? `audio queued by all sessions would exceed ${cause.maxQueuedAudioBytes} bytes; ${service} dropped`
      : `audio queued by the sessions of this address would exceed its share of ${cause.maxAudioBytesPerAddress} bytes; ${service} dropped`;

/** An error frame; `turn` when it is about a kiosk utterance. */
export const errorFrame = (code: ErrorCode, message?: string, turn?: Turn): TextFrame =>
  textFrame(errorMessage(code, message, turn));

/** The end of a turn; the last frame of that turn. */
export const turnEndFrame = (turn: Turn, outcome: TurnOutcome): TextFrame => {
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

export interface AudioContent {
  readonly emotion: string;
  readonly text: string;
  readonly audio: Uint8Array;
}

const audioMeta = (messageId: MessageId, content: AudioContent, turn?: Turn): string =>
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
  turn?: Turn,
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

/** Parses a server text frame, as a client (or a test) does. Throws on anything off-protocol. */
export const parseServerMessage = (text: string): ServerMessage =>
  v.parse(ServerMessageSchema, JSON.parse(text));

// ---------------------------------------------------------------------------------------------------------
// Client → server

export type ClientTextResult =
  | { readonly ok: true; readonly command: ClientCommand }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

const fail = (code: ErrorCode, message: string): ClientTextResult => ({ ok: false, code, message });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

const byteLength = (data: string | Uint8Array): number =>
  typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;

const isCommandService = (service: string): service is CommandService =>
  (COMMAND_SERVICES as readonly string[]).includes(service);

/** Names the offending field, so a client developer sees what to fix. */
const describeIssue = (issue: v.BaseIssue<unknown>): string => {
  const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
  if (issue.expected === 'never') return `unknown field "${path}"`;
  if (issue.received === 'undefined') return `field "${path}" is required`;
  return path === '' ? issue.message : `field "${path}": ${issue.message}`;
};

/**
 * Decodes, size-checks and validates one client text frame. Text may come as a string or as the raw bytes
 * (then invalid UTF-8 is reported instead of being replaced).
 */
export const parseClientText = (data: string | Uint8Array, maxTextFrameBytes: number): ClientTextResult => {
  const size = byteLength(data);
  if (size > maxTextFrameBytes) {
    return fail(
      'text_frame_too_large',
      `text frame of ${size} bytes exceeds the limit of ${maxTextFrameBytes}`,
    );
  }
  const bytes = typeof data === 'string' ? utf8Encoder.encode(data) : data;
  const shapeProblem = jsonShapeProblem(bytes, COMMAND_SHAPE);
  if (shapeProblem !== undefined) {
    return fail('invalid_command', `a command is one flat JSON object; this text has ${shapeProblem}`);
  }
  let text: string;
  try {
    text = typeof data === 'string' ? data : strictUtf8.decode(data);
  } catch {
    return fail('invalid_json', 'text frame is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail('invalid_json', error instanceof Error ? error.message : 'text frame is not valid JSON');
  }
  // valibot accepts arrays as objects; a command is a plain JSON object.
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return fail('invalid_command', 'a command must be a JSON object with a "service" field');
  }
  const envelope = v.safeParse(CommandEnvelopeSchema, json, { abortEarly: true });
  if (!envelope.success) return fail('invalid_command', describeIssue(envelope.issues[0]));
  const { service } = envelope.output;
  if (!isCommandService(service)) {
    return fail(
      'unknown_service',
      `unknown service ${JSON.stringify(service)}; supported: ${COMMAND_SERVICES.join(', ')}`,
    );
  }
  const command = v.safeParse(ClientCommandSchema, json, { abortEarly: true });
  if (!command.success) return fail('invalid_command', describeIssue(command.issues[0]));
  return { ok: true, command: command.output };
};
