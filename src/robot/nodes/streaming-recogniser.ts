import type { Logger } from 'pino';
import { UtteranceEvent, type TranscriptMsg, type UtteranceAudioMsg } from '../../ros/port/ros-messages.js';
import { pcmSeconds, recognitionMs, transcriptText } from '../speech/recognition-cost.js';
import type { StandInClock, StandInTimer } from '../speech/stand-in-clock.js';
import { RecentOutcomes } from '../speech/recent-outcomes.js';
import { RECOGNISER_LIMITS, type RecogniserLimits } from '../speech/recogniser-limits.js';

/*
 * The demo chat's streaming recogniser stand-in: it takes /utterance/audio as the bridge publishes it,
 * recognises each part as it arrives, one after another (a part starts once it has arrived and the one
 * before is done, and takes `rt` × its duration: speech/recognition-cost.ts), publishes a partial transcript
 * after each part and the final one once END has come and the last part is done. A Converse goal then
 * claims the utterance (its PCM and transcript) by its id. Everything it holds is bounded.
 */

/** What a claim of an utterance gets: its audio and what was recognised, or why there is none. */
export type UtteranceOutcome =
  | { readonly kind: 'recognised'; readonly pcm: Uint8Array; readonly transcript: string }
  | { readonly kind: 'failed'; readonly reason: string };

export interface UtteranceClaim {
  /** Settles once the utterance is recognised, fails, or the wait runs out; never rejects. */
  readonly outcome: Promise<UtteranceOutcome>;
  /** The goal went away (cancelled): the utterance is dropped; the outcome stays unsettled. */
  cancel(): void;
}

export interface StreamingRecogniser {
  /** One /utterance/audio event as taken from the graph, in order. */
  take(event: UtteranceAudioMsg): void;
  /**
   * A streamed goal's wait for its utterance: settles when it is recognised (END came, every part done),
   * or failed (abandoned, a part missing, too large, evicted), or after `waitMs` without that. Either way
   * the utterance is then let go: its audio goes with the outcome.
   */
  claim(utteranceId: string, waitMs: number): UtteranceClaim;
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
  /**
   * RECOGNISER_LIMITS by default. Of them it keeps `maxUtterances` (one more evicts one: a bridge that
   * died never ends its utterances, and one on `--chat_interface service` never claims them), the bytes
   * of one and of all, `maxIdChars` and `remembered`; a claim's wait is the caller's (`waitMs`).
   */
  readonly limits?: RecogniserLimits;
}

interface Utterance {
  readonly id: string;
  /** The parts received, in order; emptied when it fails. */
  parts: Uint8Array[];
  bytes: number;
  recognisedParts: number;
  recognisedBytes: number;
  /** The current part's recognition, while one runs. */
  working: StandInTimer | undefined;
  /** END's count of parts, once it came. */
  endedAfter: number | undefined;
  /** Recognised: END came and every part is done; the final transcript is out. */
  recognised: boolean;
  /** Why it cannot be answered; its audio is dropped then. */
  failure: string | undefined;
  /** The goal waiting for it, with its wait's timer. */
  waiter: { settle: (outcome: UtteranceOutcome) => void; timer: StandInTimer } | undefined;
}

const concat = (parts: readonly Uint8Array[], bytes: number): Uint8Array => {
  const joined = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.byteLength;
  }
  return joined;
};

export const createStreamingRecogniser = ({
  rt,
  clock,
  logger,
  publish,
  limits = RECOGNISER_LIMITS,
}: StreamingRecogniserOptions): StreamingRecogniser => {
  /** In arrival order: the first is the oldest, evicted first. */
  const utterances = new Map<string, Utterance>();
  /** Utterances let go, with why. */
  const letGo = new RecentOutcomes(limits.remembered);
  let bytesHeld = 0;
  let closed = false;

  /** Lets the utterance go, settling its claim with `outcome` if one waits. */
  const release = (utterance: Utterance, why: string, outcome?: UtteranceOutcome) => {
    utterance.working?.cancel();
    utterance.working = undefined;
    bytesHeld -= utterance.bytes;
    utterance.bytes = 0;
    utterance.parts = [];
    utterances.delete(utterance.id);
    letGo.remember(utterance.id, why);
    const { waiter } = utterance;
    utterance.waiter = undefined;
    if (waiter !== undefined) {
      waiter.timer.cancel();
      waiter.settle(outcome ?? { kind: 'failed', reason: why });
    }
  };

  /** It cannot be answered: its audio goes now; a claim waiting (or coming) hears why. */
  const fail = (utterance: Utterance, reason: string) => {
    const why = `utterance ${utterance.id}: ${reason}`;
    logger.warn({ utteranceId: utterance.id }, `not recognised: ${why}`);
    if (utterance.waiter !== undefined) {
      release(utterance, why);
      return;
    }
    utterance.working?.cancel();
    utterance.working = undefined;
    bytesHeld -= utterance.bytes;
    utterance.bytes = 0;
    utterance.parts = [];
    utterance.failure = why;
  };

  const transcribe = (utterance: Utterance, final: boolean) => {
    try {
      publish({
        utterance_id: utterance.id,
        text: transcriptText(pcmSeconds(utterance.recognisedBytes)),
        final,
      });
    } catch (error) {
      logger.warn({ err: error, utteranceId: utterance.id }, 'could not publish a transcript');
    }
  };

  const finishIfDone = (utterance: Utterance) => {
    if (
      utterance.recognised ||
      utterance.working !== undefined ||
      utterance.endedAfter === undefined ||
      utterance.recognisedParts < utterance.parts.length
    ) {
      return;
    }
    utterance.recognised = true;
    transcribe(utterance, true);
    logger.info(
      { utteranceId: utterance.id, parts: utterance.parts.length, bytes: utterance.bytes },
      'utterance recognised',
    );
    if (utterance.waiter !== undefined) answer(utterance);
  };

  const answer = (utterance: Utterance) => {
    const pcm = concat(utterance.parts, utterance.bytes);
    release(utterance, `utterance ${utterance.id} was answered already`, {
      kind: 'recognised',
      pcm,
      transcript: transcriptText(pcmSeconds(pcm.byteLength)),
    });
  };

  /** Recognises the parts that arrived, one after another, each for rt × its duration. */
  const advance = (utterance: Utterance) => {
    // Each pass recognises one received part; the parts are bounded (limits.maxUtteranceBytes).
    while (utterance.working === undefined && utterance.recognisedParts < utterance.parts.length) {
      const part = utterance.parts[utterance.recognisedParts] ?? new Uint8Array();
      const done = () => {
        utterance.working = undefined;
        utterance.recognisedParts += 1;
        utterance.recognisedBytes += part.byteLength;
        transcribe(utterance, false);
      };
      const costMs = recognitionMs(rt, pcmSeconds(part.byteLength));
      if (costMs <= 0) {
        done();
        continue;
      }
      utterance.working = clock.later(costMs, () => {
        done();
        advance(utterance);
      });
    }
    finishIfDone(utterance);
  };

  /**
   * Which utterance makes room for a new one: the oldest that failed or was recognised with no goal to claim
   * it, else the one being received unclaimed that holds the most audio (a fair share per utterance: a few
   * long ones cannot keep the newer out), else the oldest.
   */
  const evictable = (): Utterance | undefined => {
    let largest: Utterance | undefined;
    for (const utterance of utterances.values()) {
      if (utterance.waiter !== undefined) continue;
      if (utterance.failure !== undefined || utterance.recognised) return utterance;
      if (largest === undefined || utterance.bytes > largest.bytes) largest = utterance;
    }
    return largest ?? utterances.values().next().value;
  };

  /**
   * Room for `bytes` more of `keep` within `maxBytes`: the unclaimed utterance holding the most gives way
   * while it holds more than `keep` would (a fair share per utterance). Whether they fit.
   */
  const makeRoom = (keep: Utterance, bytes: number): boolean => {
    while (bytesHeld + bytes > limits.maxBytes) {
      let largest: Utterance | undefined;
      for (const utterance of utterances.values()) {
        if (utterance === keep || utterance.waiter !== undefined) continue;
        if (largest === undefined || utterance.bytes > largest.bytes) largest = utterance;
      }
      if (largest === undefined || largest.bytes <= keep.bytes + bytes) return false;
      const why = `utterance ${largest.id} held the most of the recogniser's ${limits.maxBytes} bytes when newer speech needed room`;
      logger.warn({ utteranceId: largest.id }, why);
      release(largest, why);
    }
    return true;
  };

  const open = (id: string): Utterance => {
    const existing = utterances.get(id);
    if (existing !== undefined) return existing;
    // Each pass lets one go, so this ends once there is room.
    while (utterances.size >= limits.maxUtterances) {
      const evicted = evictable();
      if (evicted === undefined) break;
      const why = `utterance ${evicted.id} was evicted: more than ${limits.maxUtterances} utterances held at once`;
      logger.warn({ utteranceId: evicted.id }, why);
      release(evicted, why);
    }
    const utterance: Utterance = {
      id,
      parts: [],
      bytes: 0,
      recognisedParts: 0,
      recognisedBytes: 0,
      working: undefined,
      endedAfter: undefined,
      recognised: false,
      failure: undefined,
      waiter: undefined,
    };
    utterances.set(id, utterance);
    return utterance;
  };

  const takePart = (utterance: Utterance, event: UtteranceAudioMsg) => {
    if (utterance.endedAfter !== undefined) {
      fail(utterance, `part ${event.sequence} came after END`);
      return;
    }
    if (event.sequence !== utterance.parts.length) {
      fail(
        utterance,
        `part ${event.sequence} came where part ${utterance.parts.length} was due (a part was lost or reordered)`,
      );
      return;
    }
    if (utterance.bytes + event.audio.byteLength > limits.maxUtteranceBytes) {
      fail(utterance, `its audio is over the ${limits.maxUtteranceBytes}-byte limit of an utterance`);
      return;
    }
    if (!makeRoom(utterance, event.audio.byteLength)) {
      fail(utterance, `its audio would take the recogniser past ${limits.maxBytes} bytes held in all`);
      return;
    }
    // A copy: the message's buffer belongs to rclnodejs.
    utterance.parts.push(event.audio.slice());
    utterance.bytes += event.audio.byteLength;
    bytesHeld += event.audio.byteLength;
    advance(utterance);
  };

  const takeEnd = (utterance: Utterance, event: UtteranceAudioMsg) => {
    if (event.sequence !== utterance.parts.length) {
      fail(utterance, `END counts ${event.sequence} part(s) but ${utterance.parts.length} arrived`);
      return;
    }
    utterance.endedAfter = event.sequence;
    advance(utterance);
  };

  return {
    take: (event) => {
      if (closed) return;
      const id = event.utterance_id;
      if (id === '' || id.length > limits.maxIdChars) {
        logger.warn(
          { idChars: id.length },
          `dropped an /utterance/audio event: its utterance_id must have 1 to ${limits.maxIdChars} characters`,
        );
        return;
      }
      if (letGo.has(id)) {
        logger.debug({ utteranceId: id, event: event.event }, 'event of an utterance let go; ignored');
        return;
      }
      if (event.event === UtteranceEvent.ABANDONED) {
        const utterance = utterances.get(id);
        const why = `utterance ${id} was abandoned by the bridge after ${event.sequence} part(s)`;
        logger.info({ utteranceId: id, parts: event.sequence }, 'utterance abandoned');
        if (utterance === undefined) letGo.remember(id, why);
        else release(utterance, why);
        return;
      }
      if (event.event !== UtteranceEvent.PART && event.event !== UtteranceEvent.END) {
        logger.warn(
          { utteranceId: id, event: event.event },
          'dropped an /utterance/audio event of no known kind',
        );
        return;
      }
      const utterance = open(id);
      if (utterance.failure !== undefined) return;
      if (event.event === UtteranceEvent.PART) takePart(utterance, event);
      else takeEnd(utterance, event);
    },

    claim: (utteranceId, waitMs) => {
      let settle: (outcome: UtteranceOutcome) => void = () => undefined;
      const outcome = new Promise<UtteranceOutcome>((resolve) => {
        settle = resolve;
      });
      const gone = letGo.get(utteranceId);
      if (closed || gone !== undefined) {
        settle({ kind: 'failed', reason: closed ? 'the node is shutting down' : (gone ?? '') });
        return { outcome, cancel: () => undefined };
      }
      if (utteranceId === '' || utteranceId.length > limits.maxIdChars) {
        settle({
          kind: 'failed',
          reason: `a streamed goal's utterance_id must have 1 to ${limits.maxIdChars} characters`,
        });
        return { outcome, cancel: () => undefined };
      }
      // The goal may come before the utterance's first event: topic and action are separate channels.
      const utterance = open(utteranceId);
      if (utterance.waiter !== undefined) {
        settle({ kind: 'failed', reason: `utterance ${utteranceId} is claimed by another goal already` });
        return { outcome, cancel: () => undefined };
      }
      if (utterance.failure !== undefined) {
        const why = utterance.failure;
        release(utterance, why);
        settle({ kind: 'failed', reason: why });
        return { outcome, cancel: () => undefined };
      }
      const timer = clock.later(waitMs, () => {
        const why =
          utterance.endedAfter === undefined
            ? `no END of utterance ${utteranceId} within ${waitMs} ms (${utterance.parts.length} part(s) arrived)`
            : `utterance ${utteranceId} was not recognised within ${waitMs} ms`;
        logger.warn({ utteranceId }, why);
        release(utterance, why);
      });
      utterance.waiter = { settle, timer };
      if (utterance.recognised) answer(utterance);
      return {
        outcome,
        cancel: () => {
          if (utterance.waiter?.settle !== settle) return;
          utterance.waiter = undefined;
          timer.cancel();
          release(utterance, `the goal of utterance ${utteranceId} was cancelled`);
        },
      };
    },

    get held() {
      return { utterances: utterances.size, bytes: bytesHeld };
    },

    close: () => {
      closed = true;
      for (const utterance of [...utterances.values()]) release(utterance, 'the node is shutting down');
    },
  };
};
