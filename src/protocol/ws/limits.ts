import { PCM_BYTES_PER_SECOND, PCM_SAMPLE_RATE, WAV_HEADER_BYTES } from './frames.js';

/** The `/ws` endpoint's limits and their defaults (docs/protocol.md lists them). */

/** The server's default limit for one client audio frame (`--max_audio_frame_bytes`). */
export const DEFAULT_MAX_AUDIO_FRAME_BYTES = 2 * 1024 * 1024;
/** The server's default limit for the audio of one part (`--max_part_bytes`): 2 s of PCM. */
export const DEFAULT_MAX_PART_BYTES = 64 * 1024;

/** Samples that fit one WAV within `maxBytes`. */
export const maxSamplesFor = (maxBytes: number): number =>
  Math.max(0, Math.floor((maxBytes - WAV_HEADER_BYTES) / 2));

/**
 * The longest utterance a session takes, in whole milliseconds of audio: what one WAV frame of
 * `maxBinaryFrameBytes` holds (a streamed utterance's parts may hold no more in all). The `state` message
 * tells the kiosk, so that it never records more than is taken.
 */
export const utteranceAudioMs = (maxBinaryFrameBytes: number): number =>
  Math.floor((maxSamplesFor(maxBinaryFrameBytes) * 1000) / PCM_SAMPLE_RATE);

/** Tunable limits of the conversation endpoint. */
export interface ConversationLimits {
  readonly maxTextFrameBytes: number;
  readonly maxBinaryFrameBytes: number;
  readonly minBinaryFrameBytes: number;
  readonly maxWaitingCalls: number;
  readonly chatTimeoutMs: number;
  readonly clearHistoryTimeoutMs: number;
  readonly maxSessions: number;
  /** 0: no limit. */
  readonly maxSessionsPerAddress: number;
  readonly maxSendBufferBytes: number;
  readonly maxOutboundBytes: number;
  readonly sendTimeoutMs: number;
  readonly maxQueuedAudioBytes: number;
  readonly maxInboundFramesPerSecond: number;
  readonly maxInboundBytesPerSecond: number;
  /** Client frames all sessions together may send per second; past it the addresses sending most are cut. */
  readonly maxProcessInboundFramesPerSecond: number;
  /** Client bytes all sessions together may send per second, shared the same way. */
  readonly maxProcessInboundBytesPerSecond: number;
  /** Largest audio of one part of a streamed utterance. */
  readonly maxPartBytes: number;
  /** How far a streamed utterance's audio may run ahead of the time since its start. */
  readonly maxStreamLeadMs: number;
  /** Longest wait for the next part carrying audio (or the end) of an open utterance before it is abandoned. */
  readonly utteranceStallMs: number;
  /** How far a streamed utterance's audio may fall behind the time since its start. */
  readonly maxStreamLagMs: number;
  /** Longest time an utterance may stay open, whatever it sends. */
  readonly maxUtteranceMs: number;
  /** Audio bytes the sessions of one client address may hold of maxQueuedAudioBytes. */
  readonly maxQueuedAudioBytesPerAddress: number;
}

/** Shares of the process-wide audio budget: the default share of one address is 1/AUDIO_BUDGET_SHARES of it. */
export const AUDIO_BUDGET_SHARES = 16;

/**
 * The default wall-clock limit of a streamed utterance: the audio a whole frame may hold, spoken at real
 * time, plus the lag a stream may fall behind by.
 */
export const defaultMaxUtteranceMs = (maxBinaryFrameBytes: number, maxStreamLagMs: number): number =>
  Math.ceil((maxBinaryFrameBytes * 1000) / PCM_BYTES_PER_SECOND) + maxStreamLagMs;

/** The default share of one address: 1/AUDIO_BUDGET_SHARES of the budget, but never less than one whole frame. */
export const defaultAudioBytesPerAddress = (
  maxQueuedAudioBytes: number,
  maxBinaryFrameBytes: number,
): number =>
  Math.min(
    maxQueuedAudioBytes,
    Math.max(Math.floor(maxQueuedAudioBytes / AUDIO_BUDGET_SHARES), maxBinaryFrameBytes),
  );

/** The service's default limits: its command line's flags default to the same values (cli-options.test.ts). */
export const DEFAULT_LIMITS: ConversationLimits = {
  maxTextFrameBytes: 64 * 1024,
  maxBinaryFrameBytes: DEFAULT_MAX_AUDIO_FRAME_BYTES,
  minBinaryFrameBytes: 1,
  maxWaitingCalls: 4,
  chatTimeoutMs: 60_000,
  clearHistoryTimeoutMs: 5_000,
  maxSessions: 1_000,
  maxSessionsPerAddress: 16,
  maxSendBufferBytes: 16 * 1024 * 1024,
  maxOutboundBytes: 256 * 1024 * 1024,
  sendTimeoutMs: 60_000,
  maxQueuedAudioBytes: 256 * 1024 * 1024,
  maxInboundFramesPerSecond: 20,
  maxInboundBytesPerSecond: 1024 * 1024,
  maxProcessInboundFramesPerSecond: 3_000,
  maxProcessInboundBytesPerSecond: 32 * 1024 * 1024,
  maxPartBytes: DEFAULT_MAX_PART_BYTES,
  maxStreamLeadMs: 2_000,
  utteranceStallMs: 5_000,
  maxStreamLagMs: 5_000,
  maxUtteranceMs: defaultMaxUtteranceMs(DEFAULT_MAX_AUDIO_FRAME_BYTES, 5_000),
  maxQueuedAudioBytesPerAddress: defaultAudioBytesPerAddress(
    256 * 1024 * 1024,
    DEFAULT_MAX_AUDIO_FRAME_BYTES,
  ),
};
