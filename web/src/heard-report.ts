import { COMMAND } from '../../src/protocol/ws/index.js';

/**
 * How much of an answer the visitor heard before cutting it short, for the `heard` report
 * (docs/protocol.md): read from where the player placed each part on the audio clock, not from what
 * arrived. Pure: the kiosk tells it when parts start and asks it at the cut.
 */

export interface HeardReport {
  readonly service: typeof COMMAND.heard;
  readonly turn: number;
  /** Milliseconds of the turn's answer played in all: its earlier parts whole, and the cut part's share. */
  readonly playedMs: number;
  /** The part playing at the cut (or, between parts, the last one that played). */
  readonly messageId: number;
  readonly partPlayedMs: number;
  readonly partMs: number;
}

/** A part's place on the audio clock, in seconds. */
export interface ClockSlot {
  readonly start: number;
  readonly end: number;
}

const ms = (seconds: number): number => Math.max(0, Math.round(seconds * 1000));

export class AnswerProgress {
  /** The turn whose parts played last, the whole parts before its latest, and that latest part. */
  private current:
    | { readonly turn: number; earlierMs: number; last: { readonly messageId: number; slot: ClockSlot } }
    | undefined;

  /** The turn whose answer played last, if one did. */
  get turn(): number | undefined {
    return this.current?.turn;
  }

  /**
   * A part starts playing in `slot`. Parts without a turn (`/play_audio`) answer no utterance and are not
   * counted. A part without playable audio counts for the time its text is shown, which is how long the
   * player gives it.
   */
  started(turn: number | undefined, messageId: number, slot: ClockSlot): void {
    if (turn === undefined) return;
    const current = this.current;
    if (current?.turn !== turn) {
      this.current = { turn, earlierMs: 0, last: { messageId, slot } };
      return;
    }
    current.earlierMs += ms(current.last.slot.end - current.last.slot.start);
    current.last = { messageId, slot };
  }

  /** The report for a cut at `clock` (the audio clock, s); forgets the turn, whose answer is over. */
  cut(clock: number): HeardReport | undefined {
    const current = this.current;
    this.current = undefined;
    if (current === undefined) return undefined;
    const { slot, messageId } = current.last;
    const partMs = ms(slot.end - slot.start);
    const partPlayedMs = Math.min(partMs, ms(clock - slot.start));
    return {
      service: COMMAND.heard,
      turn: current.turn,
      playedMs: current.earlierMs + partPlayedMs,
      messageId,
      partPlayedMs,
      partMs,
    };
  }

  /** A new session: its turns are numbered afresh. */
  reset(): void {
    this.current = undefined;
  }
}
