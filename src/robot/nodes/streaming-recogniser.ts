import type { Logger } from 'pino';
import { UtteranceEvent, type TranscriptMsg, type UtteranceAudioMsg } from '../../ros/port/ros-messages.js';
import type { StandInClock } from '../speech/stand-in-clock.js';
import { RECOGNISER_LIMITS, type RecogniserLimits } from '../speech/recogniser-limits.js';
import { UtteranceRecogniser } from '../speech/streaming-recogniser.js';

/*
 * The demo chat's streaming recogniser: the robot's one stand-in (speech/streaming-recogniser.ts) behind
 * the Converse server's `claim`, a promise per goal in place of a listener, with the node's logs.
 */

/** What a claim of an utterance gets: its audio (a WAV file) and what was recognised, or why there is none. */
export type UtteranceOutcome =
  | { readonly kind: 'recognised'; readonly wav: Uint8Array; readonly transcript: string }
  | { readonly kind: 'failed'; readonly reason: string };

export interface UtteranceClaim {
  /** Settles once the utterance is recognised, fails, or its END does not come in time; never rejects. */
  readonly outcome: Promise<UtteranceOutcome>;
  /** The goal went away (cancelled): the utterance is dropped; the outcome stays unsettled. */
  cancel(): void;
}

export interface StreamingRecogniser {
  /** One /utterance/audio event as taken from the graph, in order. */
  take(event: UtteranceAudioMsg): void;
  /**
   * A streamed goal's wait for its utterance: settles when it is recognised (END came, every part done),
   * or failed (abandoned, a part missing, too large, let go for room), or when its END does not come
   * within `endWaitMs`. Either way the utterance is then let go: its audio goes with the outcome.
   */
  claim(utteranceId: string, endWaitMs: number): UtteranceClaim;
  /** Utterances held, and the bytes of audio they hold. */
  readonly held: { readonly utterances: number; readonly bytes: number };
  /** Stops every recognition under way; claims waiting settle failed. */
  close(): void;
}

export interface StreamingRecogniserOptions {
  /** `--recognition_rt`: the cost, × real time. */
  readonly rt: number;
  readonly clock: StandInClock;
  readonly logger: Logger;
  /** Publishes a transcript (partial after each part, final after END). */
  readonly publish: (transcript: TranscriptMsg) => void;
  /** RECOGNISER_LIMITS by default; a claim's wait for END is the caller's (`endWaitMs`). */
  readonly limits?: RecogniserLimits;
}

const SHUTTING_DOWN = 'the node is shutting down';
const IGNORED =
  'ignored an /utterance/audio event: too long or empty an utterance_id, an utterance let go, or no known kind';

export const createStreamingRecogniser = ({
  rt,
  clock,
  logger,
  publish,
  limits = RECOGNISER_LIMITS,
}: StreamingRecogniserOptions): StreamingRecogniser => {
  const recogniser = new UtteranceRecogniser(
    rt,
    clock,
    limits,
    (transcript) => {
      try {
        publish(transcript);
      } catch (error) {
        logger.warn({ err: error, utteranceId: transcript.utterance_id }, 'could not publish a transcript');
      }
    },
    'the recogniser',
    (utteranceId, why) => {
      logger.warn({ utteranceId }, `not recognised: ${why}`);
    },
  );
  /** The claims not settled yet, each settled once: closing the node tells them. */
  const open = new Set<(outcome: UtteranceOutcome) => void>();
  let closed = false;

  return {
    take: (event) => {
      if (closed) return;
      if (event.event === UtteranceEvent.ABANDONED) {
        logger.info({ utteranceId: event.utterance_id, parts: event.sequence }, 'utterance abandoned');
      }
      const ignoredBefore = recogniser.stats().ignoredEvents;
      recogniser.receive(event);
      if (recogniser.stats().ignoredEvents > ignoredBefore) {
        logger.warn(
          { utteranceId: event.utterance_id.slice(0, limits.maxIdChars), event: event.event },
          IGNORED,
        );
      }
    },

    claim: (utteranceId, endWaitMs) => {
      let resolve: (outcome: UtteranceOutcome) => void = () => undefined;
      const outcome = new Promise<UtteranceOutcome>((settle) => {
        resolve = settle;
      });
      if (closed) {
        resolve({ kind: 'failed', reason: SHUTTING_DOWN });
        return { outcome, cancel: () => undefined };
      }
      const settle = (result: UtteranceOutcome) => {
        if (!open.delete(settle)) return;
        resolve(result);
      };
      open.add(settle);
      const wait = recogniser.awaitFinal(
        utteranceId,
        {
          recognised: (wav, transcript) => {
            settle({ kind: 'recognised', wav, transcript });
          },
          invalid: (reason) => {
            settle({ kind: 'failed', reason });
          },
        },
        endWaitMs,
      );
      return {
        outcome,
        cancel: () => {
          if (!open.delete(settle)) return;
          wait.cancel();
        },
      };
    },

    get held() {
      const { utterances, bytesHeld } = recogniser.stats();
      return { utterances, bytes: bytesHeld };
    },

    close: () => {
      closed = true;
      recogniser.close();
      for (const settle of [...open]) settle({ kind: 'failed', reason: SHUTTING_DOWN });
    },
  };
};
