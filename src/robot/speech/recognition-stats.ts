/**
 * Why an utterance left a recogniser without being answered (`abandoned`: the bridge said so,
 * or its goal was cancelled; `fair_share`: it held the most when newer speech needed room).
 */
export type DropReason = 'abandoned' | 'out_of_order' | 'incomplete' | 'limit' | 'fair_share' | 'stale';

/** A recogniser's gauges and counters. */
export interface RecognitionStats {
  /** Utterances held now (a gauge), and how many of those are still being received. */
  readonly utterances: number;
  readonly receiving: number;
  /** PCM bytes held now (a gauge). */
  readonly bytesHeld: number;
  /** Streamed goals waiting for a final recognition now (a gauge). */
  readonly waitingGoals: number;
  /** Counters since the simulation started. */
  readonly partsRecognised: number;
  readonly finals: number;
  /** Utterances handed to their goal. */
  readonly answered: number;
  /** Recognised utterances dropped to make room for new speech, never claimed by a goal. */
  readonly evicted: number;
  readonly dropped: Readonly<Record<DropReason, number>>;
  /** Events naming no utterance the recogniser holds (a part after a drop, a second END), or too long an id. */
  readonly ignoredEvents: number;
  /** Goals answered INVALID: the utterance was dropped, unknown, or its END did not come in time. */
  readonly invalidGoals: number;
}

/** No utterance dropped yet, for any reason. */
export const noDrops = (): Record<DropReason, number> => ({
  abandoned: 0,
  out_of_order: 0,
  incomplete: 0,
  limit: 0,
  fair_share: 0,
  stale: 0,
});

/** Nothing counted yet. */
export const noCounts = () => ({ partsRecognised: 0, finals: 0, answered: 0, evicted: 0, ignoredEvents: 0 });
