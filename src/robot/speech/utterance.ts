import type { StandInTimer } from './stand-in-clock.js';
import type { Waiter } from './final-waits.js';

/** One utterance a recogniser holds (streaming-recogniser.ts), from its first event to its end. */
export interface Utterance {
  readonly id: string;
  readonly parts: Uint8Array[];
  bytes: number;
  /** Parts recognised so far; the next one to work on is parts[recognised]. */
  recognised: number;
  heardSeconds: number;
  ended: boolean;
  final: boolean;
  /** The part being worked on (or the final being published). */
  working: StandInTimer | undefined;
  lastActivityAt: number;
  readonly waiters: Set<Waiter>;
}

export const newUtterance = (id: string, now: number): Utterance => ({
  id,
  parts: [],
  bytes: 0,
  recognised: 0,
  heardSeconds: 0,
  ended: false,
  final: false,
  working: undefined,
  lastActivityAt: now,
  waiters: new Set(),
});

/**
 * The utterance still being received, with no goal waiting for it, that holds the most audio (not
 * `keep`; the first of equals): the one that gives way when newer speech needs the room.
 */
export const largestReceiving = (
  utterances: Iterable<Utterance>,
  keep: Utterance | undefined,
): Utterance | undefined => {
  let largest: Utterance | undefined;
  for (const utterance of utterances) {
    if (utterance === keep || utterance.ended || utterance.waiters.size > 0) continue;
    if (largest === undefined || utterance.bytes > largest.bytes) largest = utterance;
  }
  return largest;
};
