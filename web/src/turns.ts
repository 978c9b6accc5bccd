/**
 * The kiosk's own count of its utterances ("turns", docs/protocol.md): the server numbers every whole
 * binary frame and every `utterance_start` of a session 1, 2, …, so the kiosk knows each utterance's number
 * by counting what it sent. Pure: it decides which answers still count, whether the robot is thinking, and
 * what a barge-in cancels.
 */

/**
 * A turn that never ends stops showing "thinking" after this long: a server that predates turns never
 * sends `turn_end`. Longer than the service's default turn time-out (60 s), after which it ends the turn.
 */
export const THINKING_MAX_MS = 70_000;

/** Open turns kept at most; only a server that never ends turns comes near it. */
const MAX_OPEN = 64;

export type Verdict = 'show' | 'ignore';

export class TurnTracker {
  /** Utterances sent on this session: the number of the latest one. */
  private sent = 0;
  /** Answers to turns up to this one are dropped: they were cancelled (or ended before the cancel). */
  private cancelledThrough = 0;
  /**
   * Turns sent and not ended, with when they were sent (undefined while a streamed one is still spoken)
   * and whether anything of them arrived yet.
   */
  private readonly open = new Map<number, { sentAt: number | undefined; heard: boolean }>();
  /** Set by the first frame that carries a turn: until then an untagged answer may be an old server's. */
  private serverKnowsTurns = false;

  /** The number of the latest utterance sent (0 before the first). */
  get latest(): number {
    return this.sent;
  }

  /** Records one utterance sent whole now; returns its turn number. */
  utteranceSent(now: number): number {
    const turn = this.utteranceOpened();
    this.utteranceClosed(turn, now);
    return turn;
  }

  /** Records a streamed utterance opened now (`utterance_start`); returns its turn number. */
  utteranceOpened(): number {
    this.sent += 1;
    this.open.set(this.sent, { sentAt: undefined, heard: false });
    // A Map iterates in insertion order: the first key is the oldest turn.
    if (this.open.size > MAX_OPEN) this.open.delete(this.open.keys().next().value ?? 0);
    return this.sent;
  }

  /** The streamed utterance `turn` was closed (`utterance_end`) now: the robot works on it from here. */
  utteranceClosed(turn: number, now: number): void {
    const entry = this.open.get(turn);
    if (entry !== undefined) entry.sentAt = now;
  }

  /** An answer pair arrived: whether to play it. Untagged pairs (/play_audio) always play. */
  pair(turn: number | undefined): Verdict {
    if (turn === undefined) {
      // A server without turns tags nothing: its untagged answer is what the kiosk was waiting for.
      if (!this.serverKnowsTurns) for (const entry of this.open.values()) entry.heard = true;
      return 'show';
    }
    return this.heard(turn);
  }

  /** An error frame arrived: whether to tell the visitor. One about a cancelled turn is old news. */
  error(turn: number | undefined): Verdict {
    return turn === undefined ? 'show' : this.heard(turn);
  }

  /**
   * A transcript of a streamed utterance arrived: shown while its turn is the latest and neither cancelled
   * nor ended. It is no answer: the robot still thinks.
   */
  transcript(turn: number): Verdict {
    return turn === this.sent && turn > this.cancelledThrough && this.open.has(turn) ? 'show' : 'ignore';
  }

  turnEnded(turn: number): void {
    this.serverKnowsTurns = true;
    this.open.delete(turn);
  }

  /**
   * Barge-in: every turn sent so far is cancelled, whatever of it still arrives is dropped. Returns
   * whether any turn was still open (the `cancel` command is worth sending).
   */
  cancelAll(): boolean {
    this.cancelledThrough = this.sent;
    const any = this.open.size > 0;
    // Their `turn_end` (cancelled) still comes; until then none of them is waited for.
    for (const entry of this.open.values()) entry.heard = true;
    return any;
  }

  /** Whether a barge-in cancelled `turn`: whatever still comes of it is old news. */
  cancelled(turn: number): boolean {
    return turn <= this.cancelledThrough;
  }

  /** Whether `turn` was sent and has not ended: more of its answer may come. */
  pending(turn: number): boolean {
    return this.open.has(turn);
  }

  /** Whether a turn is under way and has sent some of its answer: the robot is answering. */
  get answering(): boolean {
    // A server without turns could not cancel one.
    if (!this.serverKnowsTurns) return false;
    for (const [turn, entry] of this.open) if (entry.heard && turn > this.cancelledThrough) return true;
    return false;
  }

  /**
   * Whether an utterance sent and not cancelled has not ended yet (whatever of its answer came). One still
   * being spoken is not a question yet.
   */
  get unanswered(): boolean {
    for (const [turn, entry] of this.open) {
      if (turn > this.cancelledThrough && entry.sentAt !== undefined) return true;
    }
    return false;
  }

  /** Whether the robot is working on an utterance and nothing of its answer has come yet. */
  thinking(now: number): boolean {
    for (const [turn, { heard, sentAt }] of this.open) {
      if (heard || turn <= this.cancelledThrough || sentAt === undefined) continue;
      if (now - sentAt < THINKING_MAX_MS) return true;
    }
    return false;
  }

  /** A new session counts from 1 again. */
  reset(): void {
    this.sent = 0;
    this.cancelledThrough = 0;
    this.open.clear();
    this.serverKnowsTurns = false;
  }

  private heard(turn: number): Verdict {
    this.serverKnowsTurns = true;
    if (turn <= this.cancelledThrough) return 'ignore';
    const entry = this.open.get(turn);
    if (entry !== undefined) entry.heard = true;
    return 'show';
  }
}
