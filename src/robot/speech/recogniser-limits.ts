/**
 * What a recogniser stand-in may hold, the one set of limits of the shared recogniser
 * (speech/streaming-recogniser.ts, the simulation's) and the reference node's (nodes/streaming-recogniser.ts). Beyond a limit an utterance is let go, and
 * what it held is freed at once; a goal naming it is told why.
 */
export interface RecogniserLimits {
  /** Utterances held at once: being received or recognised, or recognised and awaiting their goal. */
  readonly maxUtterances: number;
  /** PCM bytes held by all of them together. */
  readonly maxBytes: number;
  /** PCM bytes of one utterance: twice the bridge's default limit of a whole one (2 MiB, about a minute). */
  readonly maxUtteranceBytes: number;
  /** An utterance with nothing happening for this long is dropped: its END, or its goal, never came. */
  readonly staleMs: number;
  /**
   * How long a streamed goal waits for its utterance's END (the topic and the action are separate
   * channels, so the goal may come first); then it is answered INVALID.
   */
  readonly endWaitMs: number;
  /** Streamed goals waiting at once for their utterance's final recognition. */
  readonly maxWaitingGoals: number;
  /** Longest utterance id kept (the bridge's are a few tens of characters); longer ones are refused. */
  readonly maxIdChars: number;
  /** Utterances let go whose reason is kept, so that a late event is ignored and a late goal told why. */
  readonly remembered: number;
}

export const RECOGNISER_LIMITS: RecogniserLimits = {
  maxUtterances: 256,
  // 32 utterances of the bridge's largest (2 MiB, 65 s of speech).
  maxBytes: 64 * 1024 * 1024,
  maxUtteranceBytes: 4 * 1024 * 1024,
  staleMs: 30_000,
  endWaitMs: 10_000,
  maxWaitingGoals: 256,
  maxIdChars: 256,
  remembered: 64,
};
