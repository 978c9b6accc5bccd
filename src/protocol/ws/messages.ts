import * as v from 'valibot';
import { jsonShapeProblem, type JsonShape } from '../json-shape.js';
import {
  COMMAND,
  COMMAND_SERVICES,
  ERROR_CODE_NAMES,
  MAX_TURN,
  TURN_OUTCOME_NAMES,
  type CommandService,
  type ErrorCode,
} from './codes.js';
import { MAX_MESSAGE_ID } from './frames.js';

/**
 * The text frames of `/ws`: each message's valibot schema, the one source of its type (`v.InferOutput`),
 * and how each end reads the other's: the service parses a client's command strictly, a client reads the
 * service's messages through a tolerant view derived from the same schemas.
 */

export const MessageIdSchema = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_MESSAGE_ID));
export type MessageId = v.InferOutput<typeof MessageIdSchema>;
/** The number of a kiosk utterance in its session, from 1 (docs/protocol.md, "Turns"). */
export const TurnSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TURN));
export type TurnNumber = v.InferOutput<typeof TurnSchema>;

// ---------------------------------------------------------------------------------------------------------
// Client → server

/**
 * What every command has, read before the command's own schema so an unknown service is told apart from a
 * malformed one. An `object` (not a loose one, which would copy every other member into its output) reads
 * `service` alone.
 */
export const CommandEnvelopeSchema = v.object({
  service: v.string('service must be a string'),
});

/** A command is one flat object of a few members; a text over this shape is refused before it is parsed. */
export const COMMAND_SHAPE = { maxDepth: 1, maxMembers: 8 } as const satisfies JsonShape;

export const ClearHistoryCommandSchema = v.strictObject({
  service: v.literal(COMMAND.clearHistory),
});

/** Barge-in: stops the running turn and drops the queued ones; processed at once, not queued. */
export const CancelCommandSchema = v.strictObject({
  service: v.literal(COMMAND.cancel),
});

/** Opens a streamed utterance: the session's next turn, whose parts follow as binary frames. */
export const UtteranceStartCommandSchema = v.strictObject({
  service: v.literal(COMMAND.utteranceStart),
});

const Uint32Schema = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffff_ffff));

/** Closes the open utterance after `parts` parts: its turn starts. */
export const UtteranceEndCommandSchema = v.strictObject({
  service: v.literal(COMMAND.utteranceEnd),
  turn: TurnSchema,
  parts: Uint32Schema,
});

/**
 * How much of turn `turn`'s answer the kiosk played before the visitor interrupted it: `playedMs` in all;
 * the part playing then was message `messageId`, of which `partPlayedMs` of `partMs` played (the parts of
 * the turn before it played whole).
 */
export const HeardCommandSchema = v.strictObject({
  service: v.literal(COMMAND.heard),
  turn: TurnSchema,
  playedMs: Uint32Schema,
  messageId: MessageIdSchema,
  partPlayedMs: Uint32Schema,
  partMs: Uint32Schema,
});

export type HeardCommand = v.InferOutput<typeof HeardCommandSchema>;

export const ClientCommandSchema = v.variant('service', [
  ClearHistoryCommandSchema,
  CancelCommandSchema,
  UtteranceStartCommandSchema,
  UtteranceEndCommandSchema,
  HeardCommandSchema,
]);
export type ClientCommand = v.InferOutput<typeof ClientCommandSchema>;

// ---------------------------------------------------------------------------------------------------------
// Server → client

export const StateMessageSchema = v.strictObject({
  type: v.literal('state'),
  emotion: v.string(),
  text: v.string(),
  microphone: v.strictObject({ enabled: v.boolean() }),
  /** The longest utterance the service takes, in milliseconds of audio (utteranceAudioMs). */
  limits: v.strictObject({ utteranceMs: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
});
export type StateMessage = v.InferOutput<typeof StateMessageSchema>;

/**
 * Metadata of an audio answer; the binary frame with the same message id follows it directly. `turn`
 * names the kiosk utterance it answers (absent on /play_audio pairs).
 */
export const AudioMessageSchema = v.strictObject({
  type: v.literal('audio'),
  emotion: v.string(),
  text: v.string(),
  messageId: MessageIdSchema,
  turn: v.exactOptional(TurnSchema),
});
export type AudioMessage = v.InferOutput<typeof AudioMessageSchema>;

export const MicrophoneMessageSchema = v.strictObject({
  type: v.literal('microphone'),
  enabled: v.boolean(),
});
export type MicrophoneMessage = v.InferOutput<typeof MicrophoneMessageSchema>;

export const AckMessageSchema = v.strictObject({
  type: v.literal('ack'),
  service: v.picklist(COMMAND_SERVICES),
});
export type AckMessage = v.InferOutput<typeof AckMessageSchema>;

/** An error; `turn` when it is about a turn (busy, microphone_disabled, chat_*). */
export const ErrorMessageSchema = v.strictObject({
  type: v.literal('error'),
  code: v.picklist(ERROR_CODE_NAMES),
  message: v.string(),
  turn: v.exactOptional(TurnSchema),
});
export type ErrorMessage = v.InferOutput<typeof ErrorMessageSchema>;

/** The end of a turn: exactly once per turn, after every pair and error frame of that turn. */
export const TurnEndMessageSchema = v.strictObject({
  type: v.literal('turn_end'),
  turn: TurnSchema,
  outcome: v.picklist(TURN_OUTCOME_NAMES),
});
export type TurnEndMessage = v.InferOutput<typeof TurnEndMessageSchema>;

/** What the robot heard so far of the streamed utterance `turn`; each replaces the last, `final` ends them. */
export const TranscriptMessageSchema = v.strictObject({
  type: v.literal('transcript'),
  turn: TurnSchema,
  text: v.string(),
  final: v.boolean(),
});
export type TranscriptMessage = v.InferOutput<typeof TranscriptMessageSchema>;

/**
 * `/play_audio` messages this kiosk did not get: its connection was slower than a burst, and the oldest
 * messages waiting for it were dropped whole. Sent before the next message it does get.
 */
export const AudioDroppedMessageSchema = v.strictObject({
  type: v.literal('audio_dropped'),
  count: v.pipe(v.number(), v.integer(), v.minValue(1)),
});
export type AudioDroppedMessage = v.InferOutput<typeof AudioDroppedMessageSchema>;

export const ServerMessageSchema = v.variant('type', [
  StateMessageSchema,
  AudioMessageSchema,
  MicrophoneMessageSchema,
  AckMessageSchema,
  ErrorMessageSchema,
  TurnEndMessageSchema,
  TranscriptMessageSchema,
  AudioDroppedMessageSchema,
]);
export type ServerMessage = v.InferOutput<typeof ServerMessageSchema>;

/** Parses a server text frame as the service means it (a test's check of what it sent). Throws off-protocol. */
export const parseServerMessage = (text: string): ServerMessage =>
  v.parse(ServerMessageSchema, JSON.parse(text));

// ---------------------------------------------------------------------------------------------------------
// Server → client, as a client reads it

/**
 * A client's view of the server's messages, derived from their schemas: a newer service may send members
 * this module does not name (they are left out), acks of other services and outcomes of other names; any
 * other message off-protocol, or of a type this module does not name, reads as nothing.
 */
const KnownReceivedSchema = v.variant('type', [
  v.object({
    ...StateMessageSchema.entries,
    microphone: v.object(StateMessageSchema.entries.microphone.entries),
  }),
  v.object(AudioMessageSchema.entries),
  v.object(MicrophoneMessageSchema.entries),
  v.object({ ...AckMessageSchema.entries, service: v.string() }),
  v.object(ErrorMessageSchema.entries),
  v.object({ ...TurnEndMessageSchema.entries, outcome: v.string() }),
  v.object(TranscriptMessageSchema.entries),
  v.object(AudioDroppedMessageSchema.entries),
]);

/**
 * An `error` frame whose code is not in ERROR_CODE_NAMES: a newer service's, met by a page loaded before the
 * upgrade. A client still learns that something failed, and about which turn.
 */
const UnknownErrorSchema = v.pipe(
  v.object({ ...ErrorMessageSchema.entries, code: v.string() }),
  v.transform((error) => ({ ...error, type: 'unknown_error' as const })),
);

export const ReceivedMessageSchema = v.union([KnownReceivedSchema, UnknownErrorSchema]);
/** What a client reads from a server text frame. */
export type ReceivedMessage = v.InferOutput<typeof ReceivedMessageSchema>;
/** The received message of one `type` (`unknown_error` for an error of a code this module does not name). */
export type Received<Type extends ReceivedMessage['type']> = Extract<ReceivedMessage, { type: Type }>;

/** Reads a server text frame as a client does: `undefined` for anything malformed or of an unknown type. */
export const readServerMessage = (text: string): ReceivedMessage | undefined => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const read = v.safeParse(ReceivedMessageSchema, json);
  return read.success ? read.output : undefined;
};

// ---------------------------------------------------------------------------------------------------------
// Client → server, as the service reads it

export type ClientTextResult =
  | { readonly ok: true; readonly command: ClientCommand }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

const fail = (code: ErrorCode, message: string): ClientTextResult => ({ ok: false, code, message });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

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
  const bytes = typeof data === 'string' ? utf8Encoder.encode(data) : data;
  const size = bytes.byteLength;
  if (size > maxTextFrameBytes) {
    return fail(
      'text_frame_too_large',
      `text frame of ${size} bytes exceeds the limit of ${maxTextFrameBytes}`,
    );
  }
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
