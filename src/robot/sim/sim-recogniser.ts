import { UtteranceEvent, type TranscriptMsg, type UtteranceAudioMsg } from '../../port/ros-messages.js';
import { wavOfPcmParts } from '../../protocol/pcm-wav.js';
import { pcmSeconds, recognitionMs, transcriptText } from '../speech/recognition-cost.js';
import type { StandInClock, StandInTimer } from '../speech/stand-in-clock.js';
import { RecentOutcomes } from '../speech/recent-outcomes.js';

/**
 * The simulated robot's streaming recogniser: it takes the `/utterance/audio` events of each utterance,
 * works on each part as it arrives, one after another (a part starts once it has arrived and the previous
 * one is done, and takes rt × its duration on the simulation's clock), publishes a partial transcript
 * after each and the final one once the END has come and the last part is done. A streamed Converse goal
 * waits here for its utterance's final recognition and gets the utterance's audio as a WAV file.
 *
 * It recognises no words: a transcript says how much speech it has heard (transcriptText).
 */

/** What the recogniser may hold; beyond it, utterances are dropped (counted in the stats). */
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

/** Why an utterance left the recogniser without being answered. */
export type DropReason = 'abandoned' | 'out_of_order' | 'incomplete' | 'limit' | 'stale';

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

/** A streamed goal's wait for its utterance. */
export interface FinalListener {
  /** The final transcript is out; the utterance's audio as a 16 kHz mono 16-bit WAV file. */
  recognised(wav: Uint8Array): void;
  /** It will never come; why, for the goal's result. */
  invalid(message: string): void;
}

interface Utterance {
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

interface Waiter {
  readonly id: string;
  readonly listener: FinalListener;
  /** The bounded wait for the END; then the telling of the outcome. */
  timer: StandInTimer | undefined;
}

/** Recently dropped or answered utterances kept to answer a late goal with the reason. */
const RECENT_OUTCOMES = 64;

export class SimRecogniser {
  readonly #utterances = new Map<string, Utterance>();
  /** Goals naming an utterance not heard of yet, by its id. */
  readonly #pending = new Map<string, Set<Waiter>>();
  readonly #recent = new RecentOutcomes(RECENT_OUTCOMES);
  #bytes = 0;
  #sweep: StandInTimer | undefined;
  #closed = false;
  readonly #counts = {
    partsRecognised: 0,
    finals: 0,
    answered: 0,
    evicted: 0,
    ignoredEvents: 0,
    invalidGoals: 0,
  };
  readonly #dropped: Record<DropReason, number> = {
    abandoned: 0,
    out_of_order: 0,
    incomplete: 0,
    limit: 0,
    stale: 0,
  };

  constructor(
    readonly rt: number,
    readonly clock: StandInClock,
    readonly limits: RecogniserLimits,
    readonly publish: (transcript: TranscriptMsg) => void,
  ) {}

  /** One `/utterance/audio` event. */
  receive(message: UtteranceAudioMsg): void {
    if (this.#closed) return;
    if (message.utterance_id.length > this.limits.maxIdChars) {
      this.#counts.ignoredEvents += 1;
      return;
    }
    switch (message.event) {
      case UtteranceEvent.PART:
        this.#part(message);
        return;
      case UtteranceEvent.END:
        this.#end(message);
        return;
      case UtteranceEvent.ABANDONED:
        this.#abandon(message);
        return;
      default:
        this.#counts.ignoredEvents += 1;
    }
  }

  /**
   * A streamed goal's wait for utterance `id`: the listener hears the outcome once, always later than
   * this call (never from inside it). The returned timer's `cancel` drops the wait (the goal was cancelled).
   */
  awaitFinal(id: string, listener: FinalListener): StandInTimer {
    const waiter: Waiter = { id, listener, timer: undefined };
    const cancel: StandInTimer = {
      cancel: () => {
        waiter.timer?.cancel();
        waiter.timer = undefined;
        this.#utterances.get(id)?.waiters.delete(waiter);
        const waiting = this.#pending.get(id);
        waiting?.delete(waiter);
        if (waiting?.size === 0) this.#pending.delete(id);
      },
    };
    if (this.#closed) return cancel;
    if (id.length > this.limits.maxIdChars) {
      this.#tellInvalid(
        waiter,
        `the simulated recogniser takes utterance ids of at most ${this.limits.maxIdChars} characters; goal refused`,
      );
      return cancel;
    }
    if (this.stats().waitingGoals >= this.limits.maxWaitingGoals) {
      this.#tellInvalid(
        waiter,
        `the simulated recogniser has ${this.limits.maxWaitingGoals} goals waiting; goal for ${id} refused`,
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
      } else if (!utterance.ended) this.#waitForEnd(waiter);
      return cancel;
    }
    const known = this.#recent.get(id);
    if (known !== undefined) {
      this.#tellInvalid(waiter, known);
      return cancel;
    }
    const waiting = this.#pending.get(id) ?? new Set<Waiter>();
    waiting.add(waiter);
    this.#pending.set(id, waiting);
    this.#waitForEnd(waiter);
    return cancel;
  }

  stats(): RecognitionStats {
    let receiving = 0;
    let waitingGoals = 0;
    for (const utterance of this.#utterances.values()) {
      if (!utterance.ended) receiving += 1;
      waitingGoals += utterance.waiters.size;
    }
    for (const waiting of this.#pending.values()) waitingGoals += waiting.size;
    return {
      utterances: this.#utterances.size,
      receiving,
      bytesHeld: this.#bytes,
      waitingGoals,
      ...this.#counts,
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
    for (const waiting of this.#pending.values()) for (const waiter of waiting) waiter.timer?.cancel();
    this.#utterances.clear();
    this.#pending.clear();
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
        `part ${sequence} of utterance ${id} came when part ${utterance.parts.length} was next; the simulated recogniser dropped it`,
      );
      return;
    }
    const bytes = message.audio.byteLength;
    if (!this.#makeRoom(bytes, utterance)) {
      this.#drop(
        utterance,
        'limit',
        `utterance ${id} would take the simulated recogniser past ${this.limits.maxBytes} bytes held; dropped`,
      );
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
        `the END of utterance ${id} counts ${sequence} parts, the simulated recogniser received ${utterance.parts.length}; dropped`,
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
    this.#failPending(id, text);
  }

  /** A new utterance, if there is room for one more (recognised ones nobody claimed make way). */
  #open(id: string): Utterance | undefined {
    while (this.#utterances.size >= this.limits.maxUtterances && this.#evictOne(undefined));
    if (this.#utterances.size >= this.limits.maxUtterances) {
      const text = `the simulated recogniser holds at most ${this.limits.maxUtterances} utterances; utterance ${id} dropped`;
      this.#dropped.limit += 1;
      this.#recent.remember(id, text);
      this.#failPending(id, text);
      return undefined;
    }
    const utterance: Utterance = {
      id,
      parts: [],
      bytes: 0,
      recognised: 0,
      heardSeconds: 0,
      ended: false,
      final: false,
      working: undefined,
      lastActivityAt: this.clock.now(),
      waiters: new Set(),
    };
    this.#recent.forget(id);
    this.#utterances.set(id, utterance);
    const waiting = this.#pending.get(id);
    if (waiting !== undefined) {
      this.#pending.delete(id);
      for (const waiter of waiting) utterance.waiters.add(waiter);
    }
    this.#armSweep();
    return utterance;
  }

  /** Evicts recognised, unclaimed utterances (oldest first) until `bytes` more fit; whether they do. */
  #makeRoom(bytes: number, keep: Utterance): boolean {
    while (this.#bytes + bytes > this.limits.maxBytes && this.#evictOne(keep));
    return this.#bytes + bytes <= this.limits.maxBytes;
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
    for (const other of utterance.waiters) this.#tellInvalid(other, text);
    waiter.listener.recognised(wavOfPcmParts(utterance.parts));
  }

  #drop(utterance: Utterance, reason: DropReason, text: string): void {
    this.#release(utterance);
    this.#dropped[reason] += 1;
    this.#recent.remember(utterance.id, text);
    for (const waiter of utterance.waiters) this.#tellInvalid(waiter, text);
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

  #failPending(id: string, text: string): void {
    const waiting = this.#pending.get(id);
    if (waiting === undefined) return;
    this.#pending.delete(id);
    for (const waiter of waiting) this.#tellInvalid(waiter, text);
  }

  #waitForEnd(waiter: Waiter): void {
    const { endWaitMs } = this.limits;
    waiter.timer = this.clock.later(endWaitMs, () => {
      waiter.timer = undefined;
      this.#utterances.get(waiter.id)?.waiters.delete(waiter);
      const waiting = this.#pending.get(waiter.id);
      waiting?.delete(waiter);
      if (waiting?.size === 0) this.#pending.delete(waiter.id);
      this.#counts.invalidGoals += 1;
      waiter.listener.invalid(
        `the simulated recogniser got no END of utterance ${waiter.id} within ${endWaitMs} ms of its goal`,
      );
    });
  }

  /** Tells a waiter the final will not come, later (never from inside the caller's publish or goal). */
  #tellInvalid(waiter: Waiter, text: string): void {
    waiter.timer?.cancel();
    waiter.timer = this.clock.later(0, () => {
      waiter.timer = undefined;
      this.#counts.invalidGoals += 1;
      waiter.listener.invalid(text);
    });
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
            `utterance ${utterance.id} had no event for ${this.limits.staleMs} ms; the simulated recogniser dropped it`,
          );
        }
      }
      this.#armSweep();
    });
  }
}
