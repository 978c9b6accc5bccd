/** What the simulated recogniser may hold; beyond it, utterances are dropped (counted in the stats). */
export interface RecogniserLimits {
  /** Utterances held at once: being received or recognised, or recognised and awaiting their goal. */
  readonly maxUtterances: number;
  /** PCM bytes held by all of them together. */
  readonly maxBytes: number;
  /** An utterance with nothing happening for this long is dropped: its END, or its goal, never came. */
  readonly staleMs: number;
  /**
   * How long a streamed goal waits for its utterance's END (the topic and the action are separate
   * channels, so the goal may come first); then it is answered INVALID. Once the END has come, the wait is
   * bounded by the recognition work still queued.
   */
  readonly endWaitMs: number;
  /** Streamed goals waiting at once for their utterance's final recognition. */
  readonly maxWaitingGoals: number;
  /** Longest utterance id kept (the bridge's are a few tens of characters); longer ones are refused. */
  readonly maxIdChars: number;
}

export const DEFAULT_RECOGNISER_LIMITS: RecogniserLimits = {
  maxUtterances: 256,
  // 32 utterances of the bridge's largest (2 MiB, 65 s of speech).
  maxBytes: 64 * 1024 * 1024,
  staleMs: 30_000,
  endWaitMs: 10_000,
  maxWaitingGoals: 256,
  maxIdChars: 256,
};
