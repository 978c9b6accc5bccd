import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { echoChatParts, MAX_ECHO_PARTS } from '../echo-chat.js';
import { ConverseOutcome, type ConverseResultMsg } from '../../port/ros-messages.js';
import { ROS_ACTIONS } from '../../port/ros-port.js';
import type { Rclnodejs } from '../../binding/rclnodejs-loader.js';
import { speechPublisherQos } from './node-qos.js';
import { bytesFromWire, bytesToWire } from '../../binding/wire-bytes.js';

/**
 * The demo chat node's `Converse` action server: the echo answer streamed in parts, as the simulation
 * streams it (`--sim_chat_parts`, `--sim_part_ms`), so the real-graph suite covers the action path.
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

/** The part of rclnodejs's ServerGoalHandle a goal needs; tests pass a fake. */
export interface ConverseGoalLike {
  readonly request: { audio: number[] | Uint8Array };
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
}

/** How many event-loop turns a woken goal waits for rclnodejs to move it to CANCELING. */
const CANCELING_TURNS = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export const createConverseServer = (
  options: ConverseServerOptions,
  logger: Logger,
  isClosed: () => boolean,
): ConverseServer => {
  const running = new Map<ConverseGoalLike, RunningGoal>();
  const stats = { goals: 0, cancels: 0 };

  /** Resolves after `ms`, or at once when the goal is woken (cancel, close). */
  const wait = (state: RunningGoal, ms: number | undefined): Promise<void> =>
    new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      state.wake = done;
    });

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
    execute: async (goal) => {
      stats.goals += 1;
      const state: RunningGoal = { cancelled: false, wake: () => undefined };
      running.set(goal, state);
      try {
        const audio = bytesFromWire(goal.request.audio);
        // The simulation's split (src/robot/echo-chat.ts): a kiosk hears the same answer from either.
        const parts = echoChatParts({ audio }, options.parts);
        logger.info(
          { audioBytes: audio.byteLength, parts: parts.length, mode: options.mode },
          'converse goal accepted',
        );
        if (options.mode === 'silent') {
          await wait(state, undefined);
          if (isClosed()) return closedResult;
          return await endCancelled(goal, 0, parts.length);
        }
        for (const [index, part] of parts.entries()) {
          if (options.partMs > 0 && !state.cancelled) await wait(state, options.partMs);
          if (isClosed()) return closedResult;
          if (state.cancelled || goal.isCancelRequested) return await endCancelled(goal, index, parts.length);
          goal.publishFeedback({ emotion: part.emotion, text: part.text, audio: bytesToWire(part.audio) });
          logger.debug({ part: index + 1, parts: parts.length }, 'converse part published');
        }
        goal.succeed();
        logger.info({ parts: parts.length }, 'converse goal succeeded');
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
