import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import {
  ConverseOutcome,
  type ConverseFeedbackMsg,
  type ConverseGoalMsg,
} from '../../ros/port/ros-messages.js';
import type { RosCallTicket, RosConverseHandler } from '../../ros/port/ros-port.js';
import { echoChatParts } from '../echo-chat.js';
import type { StandInTimer } from '../speech/stand-in-clock.js';
import type { UtteranceRecogniser } from '../speech/streaming-recogniser.js';

/** The modelled answer pipeline a Converse goal is answered on (SimBackendOptions says what each is). */
export interface SimConverseOptions {
  readonly latencyMs: number;
  readonly chatParts: number;
  readonly partMs: number;
  readonly scheduler: SchedulerLike | undefined;
  /** Where a streamed goal waits for its utterance's final recognition. */
  readonly recogniser: UtteranceRecogniser;
  /** The whole-utterance path's recognition, for a goal that carries its audio. */
  readonly wholeRecognitionMs: (audio: Uint8Array) => number;
}

/**
 * The simulated robot's Converse action, once a goal is accepted: a goal with its audio is answered on
 * the modelled pipeline's schedule; a streamed one first waits for the recogniser's final transcript.
 */
export const simConverseAnswers = (
  options: SimConverseOptions,
): ((goal: ConverseGoalMsg, handler: RosConverseHandler) => RosCallTicket) => {
  const { latencyMs, chatParts, partMs, scheduler, recogniser, wholeRecognitionMs } = options;

  /**
   * One Converse goal: part k (from 1) at recognition + latency + k × partMs after the goal starts to be
   * answered, on the scheduler (each part timed from that start, not from the previous part, so timer
   * lateness does not add up), then the result with the last part. Without recognition time, latency, part
   * time or a test scheduler, the parts and the result come on the next microtask. Cancelling stops every
   * part not yet sent.
   */
  class SimTurn implements RosCallTicket {
    cancelled = false;
    timer: Subscription | undefined = undefined;
    sent = 0;
    readonly start: number;
    constructor(
      readonly parts: readonly ConverseFeedbackMsg[],
      readonly handler: RosConverseHandler,
      readonly clock: SchedulerLike | undefined,
      /** The whole utterance's recognition, before the answer's schedule. */
      readonly recognitionMs: number,
    ) {
      this.start = clock?.now() ?? 0;
    }
    cancel(): void {
      this.cancelled = true;
      this.timer?.unsubscribe();
    }
    isCancelled(): boolean {
      return this.cancelled;
    }
    /** Sends every part that is due, then schedules the next or finishes. */
    step(): void {
      if (this.cancelled) return;
      const { clock } = this;
      do {
        const part = this.parts[this.sent];
        if (part === undefined) break;
        this.sent += 1;
        this.handler.part(part);
        // The handler may have cancelled the goal.
        if (this.isCancelled()) return;
      } while (clock === undefined || clock.now() >= this.dueAt(this.sent + 1));
      if (this.sent >= this.parts.length) {
        this.handler.finished({ success: true, outcome: ConverseOutcome.OK, message: '' });
        return;
      }
      if (clock === undefined) return;
      this.timer = clock.schedule(
        () => {
          this.step();
        },
        Math.max(0, this.dueAt(this.sent + 1) - clock.now()),
      );
    }
    /** When part k (from 1) is due. */
    dueAt(k: number): number {
      return this.start + this.recognitionMs + latencyMs + k * partMs;
    }
  }

  /** Answers a goal whose utterance has been recognised (`recognitionMs` still to pay before the schedule). */
  const startTurn = (audio: Uint8Array, handler: RosConverseHandler, turnRecognitionMs: number): SimTurn => {
    const timed = latencyMs > 0 || partMs > 0 || turnRecognitionMs > 0 || scheduler !== undefined;
    const turnClock = timed ? (scheduler ?? asyncScheduler) : undefined;
    const turn = new SimTurn(echoChatParts({ audio }, chatParts), handler, turnClock, turnRecognitionMs);
    if (turnClock === undefined) {
      void Promise.resolve(turn).then(stepTurn);
    } else {
      turn.timer = turnClock.schedule(
        () => {
          turn.step();
        },
        turn.dueAt(1) - turn.start,
      );
    }
    return turn;
  };

  /**
   * A goal whose audio was streamed on /utterance/audio: it waits (bounded) for the recogniser's final
   * transcript of its utterance, then is answered as a whole goal is, with the utterance's audio; or its
   * result is INVALID, saying why the final will not come.
   */
  class StreamedGoal implements RosCallTicket {
    readonly wait: StandInTimer;
    turn: SimTurn | undefined = undefined;
    cancelled = false;
    constructor(
      readonly utteranceId: string,
      readonly handler: RosConverseHandler,
    ) {
      this.wait = recogniser.awaitFinal(utteranceId, {
        recognised: (wav) => {
          if (!this.cancelled) this.turn = startTurn(wav, handler, 0);
        },
        invalid: (message) => {
          if (!this.cancelled)
            handler.finished({ success: false, outcome: ConverseOutcome.INVALID, message });
        },
      });
    }
    cancel(): void {
      this.cancelled = true;
      this.wait.cancel();
      this.turn?.cancel();
    }
  }

  const stepTurn = (turn: SimTurn): void => {
    turn.step();
  };

  return (goal, handler) => {
    if (goal.streamed) return new StreamedGoal(goal.utterance_id, handler);
    return startTurn(goal.audio, handler, wholeRecognitionMs(goal.audio));
  };
};
