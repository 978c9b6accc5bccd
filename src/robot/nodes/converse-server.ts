import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { echoChatParts, MAX_ECHO_PARTS } from '../echo-chat.js';
import { ConverseOutcome, type ConverseResultMsg } from '../../ros/port/ros-messages.js';
import { ROS_ACTIONS } from '../../ros/port/ros-port.js';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import { speechPublisherQos } from './node-qos.js';
import { bytesToWire } from '../../ros/port/ros-wire.js';
import { createDialogueHistory, type DialogueHistory } from './dialogue-history.js';
import type { WireConverseGoal } from '../../ros/port/ros-wire.js';
import { converseGoalFromWire } from './node-wire.js';
import {
  MAX_RECOGNITION_RT,
  recognitionMs,
  transcriptText,
  utteranceSeconds,
} from '../speech/recognition-cost.js';
import { REAL_CLOCK, type StandInClock } from '../speech/stand-in-clock.js';
import type { StreamingRecogniser, UtteranceOutcome } from './streaming-recogniser.js';

/**
 * The demo chat node's `Converse` action server: the echo answer streamed in parts, as the simulation
 * streams it (`--sim_chat_parts`, `--sim_part_ms`), so the real-graph suite covers the action path. A
 * streamed goal (issue #39) is answered from its utterance's parts, once the streaming recogniser has
 * them all; a whole one pays the same recogniser's cost after the whole utterance. Each turn goes into
 * the dialogue history, where a heard report replaces an interrupted answer by what was heard.
 */

export const CONVERSE_MODES = ['answer', 'silent'] as const;
export type ConverseMode = (typeof CONVERSE_MODES)[number];

export interface ConverseServerOptions {
  /** Parts of the answer (`--converse_parts`, 1 to 50). */
  readonly parts: number;
  /** Wait before each part (`--converse_part_ms`): part k is published k × partMs after the goal. */
  readonly partMs: number;
  /** `silent` accepts goals and never answers (for time-out tests); a cancel still ends them. */
  readonly mode: ConverseMode;
}

export const CONVERSE_LIMITS = { maxParts: MAX_ECHO_PARTS, maxPartMs: 60_000 } as const;
export const DEFAULT_CONVERSE: ConverseServerOptions = { parts: 1, partMs: 0, mode: 'answer' };

/** What the demo chat recognises with, and how long a streamed goal waits for its utterance. */
export interface RecognitionOptions {
  /** `--recognition_rt`: recognising takes rt × the speech's duration (speech/recognition-cost.ts). */
  readonly rt: number;
  /**
   * `--utterance_wait_ms`: how long a streamed goal waits for its utterance's END (then it is answered
   * INVALID). END is published before the goal, but on a topic: it may come after it.
   */
  readonly utteranceWaitMs: number;
}
export const RECOGNITION_LIMITS = { maxRt: MAX_RECOGNITION_RT, minWaitMs: 100, maxWaitMs: 600_000 } as const;
export const DEFAULT_RECOGNITION: RecognitionOptions = { rt: 0, utteranceWaitMs: 10_000 };

/** What the server works with besides its options; each has a default that stands alone. */
export interface ConverseServerDeps {
  readonly recognition?: RecognitionOptions;
  /** Where a streamed goal claims its utterance; without it a streamed goal is answered INVALID. */
  readonly utterances?: Pick<StreamingRecogniser, 'claim'>;
  readonly history?: DialogueHistory;
  readonly clock?: StandInClock;
}

/** The part of rclnodejs's ServerGoalHandle a goal needs; tests pass a fake. */
export interface ConverseGoalLike {
  readonly request: WireConverseGoal;
  /** True once the server accepted a cancel request (status CANCELING). */
  readonly isCancelRequested: boolean;
  publishFeedback(feedback: { emotion: string; text: string; audio: Uint8Array }): void;
  succeed(): void;
  canceled(): void;
  abort(): void;
}

/** What a goal's cancel callback and the node's shutdown wake. */
interface RunningGoal {
  cancelled: boolean;
  wake: () => void;
}

export interface ConverseServer {
  /** The action server's execute callback. */
  execute(goal: ConverseGoalLike): Promise<ConverseResultMsg>;
  /** The action server's cancel callback: accepts, and wakes the goal, which stops publishing. */
  cancel(goal: ConverseGoalLike): boolean;
  /** Wakes every running goal (the node is closing): they return without touching the goal handles. */
  close(): void;
  readonly stats: { readonly goals: number; readonly cancels: number };
  readonly history: DialogueHistory;
}

/** How many event-loop turns a woken goal waits for rclnodejs to move it to CANCELING. */
const CANCELING_TURNS = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What the server heard of a goal's utterance before answering it. */
type Heard =
  | { readonly kind: 'heard'; readonly audio: Uint8Array; readonly transcript: string }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'woken' };

export const createConverseServer = (
  options: ConverseServerOptions,
  logger: Logger,
  isClosed: () => boolean,
  {
    recognition = DEFAULT_RECOGNITION,
    utterances,
    history = createDialogueHistory(),
    clock = REAL_CLOCK,
  }: ConverseServerDeps = {},
): ConverseServer => {
  const running = new Map<ConverseGoalLike, RunningGoal>();
  const stats = { goals: 0, cancels: 0 };

  /** Resolves after `ms`, or at once when the goal is woken (cancel, close). */
  const wait = (state: RunningGoal, ms: number | undefined): Promise<void> =>
    new Promise((resolve) => {
      const timer = ms === undefined ? undefined : clock.later(ms, done);
      function done() {
        timer?.cancel();
        resolve();
      }
      state.wake = done;
    });

  /** A whole utterance (the goal's audio): recognised after it all arrived, at rt × its duration. */
  const hearWhole = async (audio: Uint8Array, state: RunningGoal): Promise<Heard> => {
    const seconds = utteranceSeconds(audio);
    const costMs = recognitionMs(recognition.rt, seconds);
    if (costMs > 0) await wait(state, costMs);
    if (state.cancelled || isClosed()) return { kind: 'woken' };
    return { kind: 'heard', audio, transcript: transcriptText(seconds) };
  };

  /** A streamed utterance: recognised part by part as it arrived; waits (bounded) for its end. */
  const hearStreamed = async (utteranceId: string, state: RunningGoal): Promise<Heard> => {
    if (utterances === undefined) {
      return { kind: 'invalid', reason: 'this Converse server takes no streamed utterances' };
    }
    const claim = utterances.claim(utteranceId, recognition.utteranceWaitMs);
    const outcome = await new Promise<UtteranceOutcome | undefined>((resolve) => {
      state.wake = () => {
        resolve(undefined);
      };
      void claim.outcome.then(resolve);
    });
    if (outcome === undefined) {
      claim.cancel();
      return { kind: 'woken' };
    }
    if (outcome.kind === 'failed') return { kind: 'invalid', reason: outcome.reason };
    // As a WAV: the echo answer plays back what was heard, and a kiosk decodes a WAV it is sent.
    return { kind: 'heard', audio: outcome.wav, transcript: outcome.transcript };
  };

  const endCancelled = async (
    goal: ConverseGoalLike,
    sent: number,
    total: number,
  ): Promise<ConverseResultMsg> => {
    // rclnodejs calls the cancel callback, then moves the goal to CANCELING: only from there may it end canceled.
    for (let turn = 0; turn < CANCELING_TURNS && !goal.isCancelRequested; turn += 1) await nextTurn();
    if (goal.isCancelRequested) goal.canceled();
    else goal.abort();
    logger.info({ partsSent: sent, parts: total }, 'converse goal canceled');
    return {
      success: false,
      outcome: ConverseOutcome.ERROR,
      message: `canceled after ${sent} of ${total} part(s)`,
    };
  };

  return {
    stats,
    history,
    execute: async (goal) => {
      stats.goals += 1;
      const state: RunningGoal = { cancelled: false, wake: () => undefined };
      running.set(goal, state);
      try {
        const request = converseGoalFromWire(goal.request);
        const utteranceId = request.utterance_id;
        logger.info(
          {
            utteranceId,
            streamed: request.streamed,
            audioBytes: request.audio.byteLength,
            parts: options.parts,
            mode: options.mode,
          },
          'converse goal accepted',
        );
        if (options.mode === 'silent') {
          await wait(state, undefined);
          if (isClosed()) return closedResult;
          return await endCancelled(goal, 0, options.parts);
        }
        const heard = request.streamed
          ? await hearStreamed(utteranceId, state)
          : await hearWhole(request.audio, state);
        if (isClosed()) return closedResult;
        if (heard.kind === 'woken') return await endCancelled(goal, 0, options.parts);
        if (heard.kind === 'invalid') {
          // Succeeded with OUTCOME_INVALID: the bridge shows the message to the visitor's kiosk.
          goal.succeed();
          logger.warn({ utteranceId, reason: heard.reason }, 'converse goal answered INVALID');
          return { success: false, outcome: ConverseOutcome.INVALID, message: heard.reason };
        }
        history.visitor(utteranceId, heard.transcript);
        // The simulation's split (src/robot/echo-chat.ts): a kiosk hears the same answer from either.
        const parts = echoChatParts({ audio: heard.audio }, options.parts);
        for (const [index, part] of parts.entries()) {
          if (options.partMs > 0 && !state.cancelled) await wait(state, options.partMs);
          if (isClosed()) return closedResult;
          if (state.cancelled || goal.isCancelRequested) return await endCancelled(goal, index, parts.length);
          goal.publishFeedback({ emotion: part.emotion, text: part.text, audio: bytesToWire(part.audio) });
          history.said(utteranceId, part.text);
          logger.debug({ part: index + 1, parts: parts.length }, 'converse part published');
        }
        goal.succeed();
        logger.info({ utteranceId, parts: parts.length }, 'converse goal succeeded');
        return {
          success: true,
          outcome: ConverseOutcome.OK,
          message: `answered in ${parts.length} part(s)`,
        };
      } finally {
        running.delete(goal);
      }
    },
    cancel: (goal) => {
      stats.cancels += 1;
      const state = running.get(goal);
      logger.info({ running: state !== undefined }, 'converse cancel requested');
      if (state !== undefined) {
        state.cancelled = true;
        state.wake();
      }
      return true;
    },
    close: () => {
      for (const state of running.values()) state.wake();
    },
  };
};

const closedResult: ConverseResultMsg = {
  success: false,
  outcome: ConverseOutcome.ERROR,
  message: 'the node is shutting down',
};

/**
 * Serves `server` as the `/converse` action on `node`, with rclnodejs's default action QoS but for the
 * feedback (reliable keep-all, speechPublisherQos). Every goal
 * is accepted; every cancel request of a running goal is accepted. The name is resolved here, remapping
 * applied, as the bridge's client does: Jazzy's rcl_action does not remap action names itself.
 * Returns the name served.
 */
export const serveConverseAction = (
  rcl: Pick<Rclnodejs, 'ActionServer' | 'CancelResponse' | 'QoS'>,
  node: Node,
  server: ConverseServer,
): string => {
  const name = node.resolveTopicName(ROS_ACTIONS.converse.name);
  new rcl.ActionServer<'tour_guide_interfaces/action/Converse'>(
    node,
    ROS_ACTIONS.converse.type,
    name,
    (goal) => server.execute(goal),
    undefined,
    undefined,
    (goal) =>
      goal !== undefined && server.cancel(goal) ? rcl.CancelResponse.ACCEPT : rcl.CancelResponse.REJECT,
    // rclnodejs names the server's feedback publisher's profile so too. Speech QoS: a publisher keeping
    // 10 would drop parts of a burst not yet acknowledged, and on rmw_zenoh only keep-all blocks.
    { qos: { feedbackSubQosProfile: speechPublisherQos(rcl) } },
  );
  return name;
};
