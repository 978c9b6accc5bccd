import { UtteranceEvent, type TranscriptMsg, type UtteranceAudioMsg } from '../../ros/port/ros-messages.js';
import { wavOfPcmParts } from '../../protocol/ws/index.js';
import { pcmSeconds, recognitionMs, transcriptText } from './recognition-cost.js';
import type { StandInClock, StandInTimer } from './stand-in-clock.js';
import { RecentOutcomes } from './recent-outcomes.js';
import { FinalWaits, type FinalListener, type Waiter } from './final-waits.js';
import type { RecogniserLimits } from './recogniser-limits.js';
import { noCounts, noDrops, type DropReason, type RecognitionStats } from './recognition-stats.js';
import { largestReceiving, newUtterance, type Utterance } from './utterance.js';

/**
 * The robot's one streaming recogniser stand-in, the simulation's (sim/sim-backend.ts) and the reference
 * node's (nodes/streaming-recogniser.ts): it takes the `/utterance/audio` events of each utterance,
 * works on each part as it arrives, one after another (a part starts once it has arrived and the previous
 * one is done, and takes rt × its duration on the clock it is given), publishes a partial transcript
 * after each and the final one once the END has come and the last part is done. A streamed Converse goal
 * waits here for its utterance's final recognition and gets the utterance's audio as a WAV file.
 *
 * It recognises no words: a transcript says how much speech it has heard (transcriptText).
 */
export class UtteranceRecogniser {
  readonly #utterances = new Map<string, Utterance>();
  readonly #waits: FinalWaits;
  /** Recently dropped or answered utterances, to answer a late goal with the reason. */
  readonly #recent: RecentOutcomes;
  #bytes = 0;
  #sweep: StandInTimer | undefined;
  #closed = false;
  readonly #counts = noCounts();
  readonly #dropped: Record<DropReason, number> = noDrops();

  constructor(
    readonly rt: number,
    readonly clock: StandInClock,
    readonly limits: RecogniserLimits,
    readonly publish: (transcript: TranscriptMsg) => void,
    /** How the reasons told to goals name this recogniser, e.g. "the simulated recogniser". */
    readonly name: string,
    /** Hears each utterance dropped unanswered, with why (the reference node logs it). */
    readonly onDropped?: (id: string, why: string) => void,
  ) {
    this.#recent = new RecentOutcomes(limits.remembered);
    this.#waits = new FinalWaits(
      clock,
      limits,
      name,
      (id) => this.#utterances.get(id)?.waiters,
      (id, why) => {
        // Unclaimed and not ended: nobody will take it, so it goes now rather than when stale.
        const utterance = this.#utterances.get(id);
        if (utterance?.waiters.size === 0 && !utterance.ended) this.#drop(utterance, 'stale', why);
      },
    );
  }

  receive(message: UtteranceAudioMsg): void {
    if (this.#closed) return;
    if (!this.#fitsId(message.utterance_id)) {
      this.#counts.ignoredEvents += 1;
      return;
    }
    if (message.event === UtteranceEvent.PART) this.#part(message);
    else if (message.event === UtteranceEvent.END) this.#end(message);
    else if (message.event === UtteranceEvent.ABANDONED) this.#abandon(message);
    else this.#counts.ignoredEvents += 1;
  }

  /**
   * A streamed goal's wait for utterance `id`: the listener hears the outcome once, always later than
   * this call (never from inside it). The returned timer's `cancel` drops the wait (the goal was cancelled).
   */
  awaitFinal(id: string, listener: FinalListener, endWaitMs?: number): StandInTimer {
    const waiter: Waiter = { id, listener, timer: undefined, endWaitMs };
    const cancel = this.#cancelOf(waiter);
    if (this.#closed) return cancel;
    if (!this.#fitsId(id)) {
      this.#waits.tellInvalid(
        waiter,
        `${this.name} takes utterance ids of 1 to ${this.limits.maxIdChars} characters; goal refused`,
      );
      return cancel;
    }
    if (this.stats().waitingGoals >= this.limits.maxWaitingGoals) {
      this.#waits.tellInvalid(
        waiter,
        `${this.name} has ${this.limits.maxWaitingGoals} goals waiting; goal for ${id} refused`,
      );
      return cancel;
    }
    const utterance = this.#utterances.get(id);
    if (utterance !== undefined) {
      utterance.waiters.add(waiter);
      if (utterance.final) {
        waiter.timer = this.clock.later(0, () => {
          waiter.timer = undefined;
          this.#claim(utterance, waiter);
        });
      } else if (!utterance.ended) this.#waits.waitForEnd(waiter);
      return cancel;
    }
    const known = this.#recent.get(id);
    if (known !== undefined) {
      this.#waits.tellInvalid(waiter, known);
      return cancel;
    }
    this.#waits.awaitUnheard(waiter);
    return cancel;
  }

  #fitsId = (id: string): boolean => id.length > 0 && id.length <= this.limits.maxIdChars;

  /** A goal's cancel: its wait dropped, and its utterance once no goal waits (freed now, not when stale). */
  #cancelOf(waiter: Waiter): StandInTimer {
    const dropWait = this.#waits.cancelOf(waiter);
    return {
      cancel: () => {
        dropWait.cancel();
        const utterance = this.#utterances.get(waiter.id);
        if (utterance === undefined || utterance.waiters.size > 0) return;
        this.#drop(utterance, 'abandoned', `the goal for utterance ${waiter.id} was cancelled; dropped`);
      },
    };
  }

  stats(): RecognitionStats {
    let receiving = 0;
    let waitingGoals = 0;
    for (const utterance of this.#utterances.values()) {
      if (!utterance.ended) receiving += 1;
      waitingGoals += utterance.waiters.size;
    }
    waitingGoals += this.#waits.pendingGoals();
    return {
      utterances: this.#utterances.size,
      receiving,
      bytesHeld: this.#bytes,
      waitingGoals,
      ...this.#counts,
      invalidGoals: this.#waits.invalidGoals,
      dropped: { ...this.#dropped },
    };
  }

  /** Drops everything without telling anyone: a closed port answers nothing (its caller fails the calls). */
  close(): void {
    this.#closed = true;
    for (const utterance of this.#utterances.values()) {
      utterance.working?.cancel();
      for (const waiter of utterance.waiters) waiter.timer?.cancel();
    }
    this.#waits.close();
    this.#utterances.clear();
    this.#bytes = 0;
    this.#sweep?.cancel();
    this.#sweep = undefined;
  }

  /**
   * The utterance a PART or END of `id` belongs to, opened by the first (sequence 0: its first part, or the
   * END of an utterance of no parts). An event of an utterance not held (dropped before) or already ended
   * is ignored.
   */
  #heldFor(id: string, sequence: number): Utterance | undefined {
    const held = this.#utterances.get(id);
    const utterance = held ?? (sequence === 0 ? this.#open(id) : undefined);
    if (utterance === undefined || utterance.ended) {
      if (held !== undefined || sequence !== 0) this.#counts.ignoredEvents += 1;
      return undefined;
    }
    return utterance;
  }

  #part(message: UtteranceAudioMsg): void {
    const { utterance_id: id, sequence } = message;
    const utterance = this.#heldFor(id, sequence);
    if (utterance === undefined) return;
    if (sequence !== utterance.parts.length) {
      this.#drop(
        utterance,
        'out_of_order',
        `part ${sequence} of utterance ${id} came when part ${utterance.parts.length} was next; ${this.name} dropped it`,
      );
      return;
    }
    const bytes = message.audio.byteLength;
    const { maxUtteranceBytes, maxBytes } = this.limits;
    const over =
      utterance.bytes + bytes > maxUtteranceBytes
        ? `be over ${this.name}'s ${maxUtteranceBytes} bytes of one utterance`
        : !this.#makeRoom(bytes, utterance) && `take ${this.name} past ${maxBytes} bytes held`;
    if (over !== false) {
      this.#drop(utterance, 'limit', `utterance ${id} would ${over}; dropped`);
      return;
    }
    // A copy: on a graph the message is the robot's own, whatever the publisher does with its buffer.
    utterance.parts.push(message.audio.slice());
    utterance.bytes += bytes;
    this.#bytes += bytes;
    utterance.lastActivityAt = this.clock.now();
    if (utterance.working === undefined) this.#workOnNext(utterance);
  }

  #end(message: UtteranceAudioMsg): void {
    const { utterance_id: id, sequence } = message;
    const utterance = this.#heldFor(id, sequence);
    if (utterance === undefined) return;
    if (sequence !== utterance.parts.length) {
      this.#drop(
        utterance,
        'incomplete',
        `the END of utterance ${id} counts ${sequence} parts, ${this.name} received ${utterance.parts.length}; dropped`,
      );
      return;
    }
    utterance.ended = true;
    utterance.lastActivityAt = this.clock.now();
    // From here the final is certain, after the work queued: the goals' wait for the END is over.
    for (const waiter of utterance.waiters) {
      waiter.timer?.cancel();
      waiter.timer = undefined;
    }
    if (utterance.working === undefined) {
      utterance.working = this.clock.later(0, () => {
        utterance.working = undefined;
        this.#finish(utterance);
      });
    }
  }

  #abandon(message: UtteranceAudioMsg): void {
    const id = message.utterance_id;
    const text = `utterance ${id} was abandoned after ${message.sequence} parts`;
    const utterance = this.#utterances.get(id);
    if (utterance !== undefined) {
      this.#drop(utterance, 'abandoned', text);
      return;
    }
    if (this.#recent.has(id)) {
      this.#counts.ignoredEvents += 1;
      return;
    }
    // Abandoned before its first part: nothing held, but a goal naming it learns why.
    this.#dropped.abandoned += 1;
    this.#recent.remember(id, text);
    this.#waits.failPending(id, text);
  }

  /** A new utterance, if there is room for one more (recognised ones nobody claimed make way). */
  #open(id: string): Utterance | undefined {
    while (this.#utterances.size >= this.limits.maxUtterances && this.#evictOne(undefined));
    if (this.#utterances.size >= this.limits.maxUtterances) {
      this.#giveWay(0, undefined, `${this.limits.maxUtterances} utterances`);
    }
    if (this.#utterances.size >= this.limits.maxUtterances) {
      const text = `${this.name} holds at most ${this.limits.maxUtterances} utterances; utterance ${id} dropped`;
      this.#dropped.limit += 1;
      this.#recent.remember(id, text);
      this.#waits.failPending(id, text);
      return undefined;
    }
    const utterance = newUtterance(id, this.clock.now());
    this.#recent.forget(id);
    this.#utterances.set(id, utterance);
    const waiting = this.#waits.takePending(id);
    if (waiting !== undefined) for (const waiter of waiting) utterance.waiters.add(waiter);
    this.#armSweep();
    return utterance;
  }

  /**
   * Makes room for `bytes` more of `keep`: recognised, unclaimed utterances go first (oldest first), then
   * the one being received that holds the most, while it holds more than `keep` would: a fair share per
   * utterance, so a few long ones cannot hold the room against the others. Whether they fit.
   */
  #makeRoom(bytes: number, keep: Utterance): boolean {
    const over = () => this.#bytes + bytes > this.limits.maxBytes;
    while (over() && this.#evictOne(keep));
    while (over() && this.#giveWay(keep.bytes + bytes, keep, `${this.limits.maxBytes} bytes`));
    return !over();
  }

  /** The utterance being received that holds the most gives way, if it holds more than `than` bytes. */
  #giveWay(than: number, keep: Utterance | undefined, limit: string): boolean {
    const largest = largestReceiving(this.#utterances.values(), keep);
    if (largest === undefined || largest.bytes <= than) return false;
    const text = `utterance ${largest.id} held the most of ${this.name}'s ${limit} when newer speech needed room; dropped`;
    this.#drop(largest, 'fair_share', text);
    return true;
  }

  /** Drops the oldest utterance recognised and awaiting a goal (not `keep`); false when there is none. */
  #evictOne(keep: Utterance | undefined): boolean {
    for (const utterance of this.#utterances.values()) {
      if (utterance === keep || !utterance.final || utterance.waiters.size > 0) continue;
      this.#release(utterance);
      this.#counts.evicted += 1;
      this.#recent.remember(
        utterance.id,
        `utterance ${utterance.id} was recognised but no goal claimed it before newer speech needed the room`,
      );
      return true;
    }
    return false;
  }

  #workOnNext(utterance: Utterance): void {
    const part = utterance.parts[utterance.recognised];
    if (part === undefined) return;
    const seconds = pcmSeconds(part.byteLength);
    utterance.working = this.clock.later(recognitionMs(this.rt, seconds), () => {
      utterance.working = undefined;
      utterance.recognised += 1;
      utterance.heardSeconds += seconds;
      utterance.lastActivityAt = this.clock.now();
      this.#counts.partsRecognised += 1;
      this.#tellHeard(utterance, false);
      // Whoever heard the transcript may have abandoned the utterance meanwhile.
      if (this.#utterances.get(utterance.id) !== utterance) return;
      if (utterance.recognised < utterance.parts.length) this.#workOnNext(utterance);
      else if (utterance.ended) this.#finish(utterance);
    });
  }

  /** The transcript of what was recognised so far: partial, or the final one. */
  #tellHeard(utterance: Utterance, final: boolean): void {
    this.publish({ utterance_id: utterance.id, text: transcriptText(utterance.heardSeconds), final });
  }

  #finish(utterance: Utterance): void {
    utterance.final = true;
    utterance.lastActivityAt = this.clock.now();
    this.#counts.finals += 1;
    this.#tellHeard(utterance, true);
    if (this.#utterances.get(utterance.id) !== utterance) return;
    const [first] = utterance.waiters;
    if (first !== undefined) this.#claim(utterance, first);
  }

  /** Hands the recognised utterance to one goal; any other goal naming it is told it was taken. */
  #claim(utterance: Utterance, waiter: Waiter): void {
    if (this.#utterances.get(utterance.id) !== utterance) return;
    const text = `utterance ${utterance.id} was already answered by an earlier goal`;
    this.#release(utterance);
    this.#recent.remember(utterance.id, text);
    this.#counts.answered += 1;
    utterance.waiters.delete(waiter);
    for (const other of utterance.waiters) this.#waits.tellInvalid(other, text);
    waiter.listener.recognised(wavOfPcmParts(utterance.parts), transcriptText(utterance.heardSeconds));
  }

  #drop(utterance: Utterance, reason: DropReason, text: string): void {
    this.onDropped?.(utterance.id, text);
    this.#release(utterance);
    this.#dropped[reason] += 1;
    this.#recent.remember(utterance.id, text);
    for (const waiter of utterance.waiters) this.#waits.tellInvalid(waiter, text);
  }

  /** Forgets the utterance's audio and work; its waiters are the caller's to tell. */
  #release(utterance: Utterance): void {
    utterance.working?.cancel();
    utterance.working = undefined;
    this.#utterances.delete(utterance.id);
    this.#bytes -= utterance.bytes;
    if (this.#utterances.size === 0) {
      this.#sweep?.cancel();
      this.#sweep = undefined;
    }
  }

  /** One timer for the earliest possible stale utterance, only while some are held. */
  #armSweep(): void {
    if (this.#sweep !== undefined || this.#utterances.size === 0) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const utterance of this.#utterances.values()) {
      earliest = Math.min(earliest, utterance.lastActivityAt);
    }
    const delay = Math.max(0, earliest + this.limits.staleMs - this.clock.now());
    this.#sweep = this.clock.later(delay, () => {
      this.#sweep = undefined;
      const now = this.clock.now();
      for (const utterance of [...this.#utterances.values()]) {
        if (utterance.working !== undefined) {
          // Being recognised is activity: move its deadline on, so the sweep does not spin on it.
          utterance.lastActivityAt = now;
        } else if (now - utterance.lastActivityAt >= this.limits.staleMs) {
          this.#drop(
            utterance,
            'stale',
            `utterance ${utterance.id} had no event for ${this.limits.staleMs} ms; ${this.name} dropped it`,
          );
        }
      }
      this.#armSweep();
    });
  }
}
