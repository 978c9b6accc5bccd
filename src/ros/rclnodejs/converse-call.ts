import type { ConverseFeedbackMsg, ConverseGoalMsg, ConverseResultMsg } from '../port/ros-messages.js';
import {
  defaultServiceName,
  RosCallFailedError,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type RosCallTicket,
  type RosConverseHandler,
} from '../port/ros-port.js';
import { firstLine } from '../binding/error-text.js';
import { serverMatched } from './service-call.js';
import { missingConverseClient, type CallTargets } from './call-targets.js';
import type { RouterLink } from '../zenoh/router-link.js';
import { bytesFromWire, bytesToWire, type WireConverseGoal } from '../port/ros-wire.js';

/*
 * One Converse goal through an rclnodejs ActionClient (lib/action/client.js): sendGoal with a feedback
 * callback, the goal handle's getResult, and cancelGoal when the caller cancels.
 */

/** What rclnodejs hands the feedback callback and the result promise (plain objects, typed arrays). */
export interface WireConverseFeedback {
  emotion: string;
  text: string;
  audio: number[] | Uint8Array;
}
export interface WireConverseResult {
  success: boolean;
  outcome: number;
  message: string;
}

/** The part of an rclnodejs ClientGoalHandle a goal needs; tests pass a fake. */
export interface ConverseGoalHandleLike {
  isAccepted(): boolean;
  /** Resolves with the result once the goal is done; the handle's status is then final. */
  getResult(): Promise<WireConverseResult>;
  isSucceeded(): boolean;
  isCanceled(): boolean;
  isAborted(): boolean;
  readonly status: number;
  cancelGoal(): Promise<unknown>;
}

/** The part of an rclnodejs ActionClient a goal needs; tests pass a fake. */
export interface ConverseActionClientLike {
  /** A graph query, no waiting: is an action server matched right now. */
  isActionServerAvailable(): boolean;
  sendGoal(
    goal: WireConverseGoal,
    feedbackCallback: (feedback: WireConverseFeedback) => void,
  ): Promise<ConverseGoalHandleLike>;
}

export interface ConverseCallOptions {
  /** The action's name on the graph (remapping applied), for error messages. */
  readonly actionName?: string;
  /**
   * After the result arrives, how long to wait for feedback still on its way, re-armed by each part,
   * before `finished` runs. Feedback is a topic and the result a service answer: rclnodejs takes one
   * feedback message per executor wake, so parts published just before the result (no delay between
   * them) can be processed after it. Bounded by `resultSettleMaxMs`.
   */
  readonly resultSettleMs?: number;
  readonly resultSettleMaxMs?: number;
}

/**
 * What rclnodejs's callbacks of one goal reach: the feedback callback, the goal response and the
 * result. rclnodejs 2.2.0 keeps an accepted goal's feedback callback for good (lib/action/client.js
 * deletes it only for a rejected goal) and a pending goal or result request as long as no answer comes
 * (a server that ignores a cancel). So the callbacks it gets are made at module level and hold this link
 * alone, which is emptied when the goal ends: a few hundred bytes stay, not the turn's handler and audio.
 */
interface GoalLink {
  feedback?: ((feedback: WireConverseFeedback) => void) | undefined;
  accepted?: ((handle: ConverseGoalHandleLike) => void) | undefined;
  result?: ((handle: ConverseGoalHandleLike, result: WireConverseResult) => void) | undefined;
  lost?: ((error: unknown) => void) | undefined;
}

const ignore = (): void => undefined;

/** Cancels an accepted goal on the graph; a node being destroyed has nothing left to cancel on. */
const cancelIfAccepted = (handle: ConverseGoalHandleLike): void => {
  if (!handle.isAccepted()) return;
  try {
    handle.cancelGoal().catch(ignore);
  } catch {
    // The node is being destroyed.
  }
};

/** Sends the goal; rclnodejs's callbacks reach the link only. Throws when the goal cannot be sent. */
const sendGoalThrough = (
  client: ConverseActionClientLike,
  wireGoal: WireConverseGoal,
  link: GoalLink,
): void => {
  client
    .sendGoal(wireGoal, (feedback) => {
      link.feedback?.(feedback);
    })
    .then(
      (handle) => {
        link.accepted?.(handle);
      },
      (error: unknown) => {
        link.lost?.(error);
      },
    );
};

/** Asks for the result; rclnodejs's callbacks reach the link only. Throws when it cannot be asked. */
const getResultThrough = (handle: ConverseGoalHandleLike, link: GoalLink): void => {
  handle.getResult().then(
    (result) => {
      link.result?.(handle, result);
    },
    (error: unknown) => {
      link.lost?.(error);
    },
  );
};

/** The defaults: a few executor wakes (each well under a millisecond on loopback), bounded. */
export const RESULT_SETTLE = { ms: 20, maxMs: 200 } as const;

/**
 * Every field of the goal, the utterance's id and whether it was streamed included: a robot finds a
 * streamed utterance's audio on /utterance/audio by that id, and a heard report names the turn by it.
 */
export const converseGoalToWire = (goal: ConverseGoalMsg): WireConverseGoal => ({
  utterance_id: goal.utterance_id,
  streamed: goal.streamed,
  audio: bytesToWire(goal.audio),
});

export const converseFeedbackFromWire = (feedback: WireConverseFeedback): ConverseFeedbackMsg => ({
  emotion: feedback.emotion,
  text: feedback.text,
  audio: bytesFromWire(feedback.audio),
});

export const converseResultFromWire = (result: WireConverseResult): ConverseResultMsg => ({
  success: result.success,
  outcome: result.outcome,
  message: result.message,
});

/**
 * The port's `converse`, resolved once per port: the router's state, then the action client (absent
 * when it could not be created). `backendLifetime` aborts when the port closes.
 */
export const converseCalls =
  (targets: CallTargets, backendLifetime: AbortSignal, routerLink: RouterLink) =>
  (goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket => {
    const { converseClient, converseName } = targets;
    const routerDown = routerLink.down();
    if (routerDown !== undefined) {
      handler.failed(new RosServiceUnavailableError('converse', converseName, routerDown));
      return SETTLED_CALL;
    }
    if (converseClient === undefined) {
      handler.failed(missingConverseClient(targets, backendLifetime));
      return SETTLED_CALL;
    }
    return callConverse(converseClient, goal, backendLifetime, handler, { actionName: converseName });
  };

/**
 * Sends one goal at once. A missing action server is answered at once (RosServiceUnavailableError).
 * Parts go to `handler.part` in arrival order, then the result to `finished` (goal succeeded), or
 * `failed` (RosCallFailedError: rejected, aborted, canceled by the server, or lost).
 *
 * `cancel()` drops everything later and cancels the goal on the ROS side (at once if accepted, or as
 * soon as the acceptance arrives). `backendLifetime` is aborted when the port closes: later goals are
 * unavailable. Time-outs, the in-flight limit and failing the goals outstanding when the port closes are
 * the call wrapper's (src/ros/port/ros-calls.ts), which cancels them here (on the graph too).
 */
const callConverse = (
  client: ConverseActionClientLike,
  goal: ConverseGoalMsg,
  backendLifetime: AbortSignal,
  handler: RosConverseHandler,
  {
    actionName = defaultServiceName('converse'),
    resultSettleMs = RESULT_SETTLE.ms,
    resultSettleMaxMs = RESULT_SETTLE.maxMs,
  }: ConverseCallOptions,
): RosCallTicket => {
  const failure = (detail: string, cause?: unknown) =>
    new RosCallFailedError('converse', detail, { cause, serviceName: actionName });
  const unavailable = () => new RosServiceUnavailableError('converse', actionName);

  if (backendLifetime.aborted) {
    handler.failed(unavailable());
    return SETTLED_CALL;
  }
  if (!serverMatched(() => client.isActionServerAvailable(), handler, failure, unavailable)) {
    return SETTLED_CALL;
  }

  /** Settled (finished or failed) or cancelled: nothing more reaches the handler. */
  let done = false;
  let cancelRequested = false;
  let goalHandle: ConverseGoalHandleLike | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  let settleCap: NodeJS.Timeout | undefined;

  const cancelOnGraph = () => {
    if (goalHandle !== undefined) cancelIfAccepted(goalHandle);
  };
  const link: GoalLink = {};
  /** Stops listening: rclnodejs's callbacks reach nothing of this goal. */
  const end = () => {
    done = true;
    link.feedback = link.accepted = link.result = link.lost = undefined;
    clearTimeout(settleTimer);
    clearTimeout(settleCap);
  };
  const fail = (error: Error) => {
    if (done) return;
    end();
    handler.failed(error);
  };

  const onFeedback = (feedback: WireConverseFeedback) => {
    if (done) return;
    let part: ConverseFeedbackMsg;
    try {
      part = converseFeedbackFromWire(feedback);
    } catch (error) {
      cancelOnGraph();
      fail(failure(`unexpected feedback: ${firstLine(error)}`, error));
      return;
    }
    if (settleTimer !== undefined) settleTimer.refresh();
    handler.part(part);
  };

  const onResult = (handle: ConverseGoalHandleLike, result: WireConverseResult) => {
    if (done) return;
    if (!handle.isSucceeded()) {
      const detail = firstLine(result.message);
      fail(
        failure(
          handle.isAborted()
            ? `goal aborted: ${detail}`
            : handle.isCanceled()
              ? `goal canceled by the action server: ${detail}`
              : `goal ended in status ${handle.status}: ${detail}`,
        ),
      );
      return;
    }
    let converted: ConverseResultMsg;
    try {
      converted = converseResultFromWire(result);
    } catch (error) {
      fail(failure(`unexpected result: ${firstLine(error)}`, error));
      return;
    }
    const finish = () => {
      if (done) return;
      end();
      handler.finished(converted);
    };
    if (resultSettleMs <= 0) {
      finish();
      return;
    }
    // Feedback still being taken re-arms the timer (refresh); the cap bounds a server that never stops.
    settleTimer = setTimeout(finish, resultSettleMs);
    settleCap = setTimeout(finish, resultSettleMaxMs);
  };

  const onAccepted = (handle: ConverseGoalHandleLike) => {
    goalHandle = handle;
    if (!handle.isAccepted()) {
      fail(failure('goal rejected by the action server'));
      return;
    }
    try {
      getResultThrough(handle, link);
    } catch (error) {
      cancelOnGraph();
      fail(failure(firstLine(error), error));
    }
  };
  const onLost = (error: unknown) => {
    fail(failure(firstLine(error), error));
  };

  link.feedback = onFeedback;
  link.accepted = onAccepted;
  link.result = onResult;
  link.lost = onLost;
  try {
    // rclnodejs serialises the goal here and sends it; a throw is a goal that never left.
    sendGoalThrough(client, converseGoalToWire(goal), link);
  } catch (error) {
    fail(failure(firstLine(error), error));
    return SETTLED_CALL;
  }
  return {
    cancel: () => {
      if (cancelRequested) return;
      cancelRequested = true;
      if (done) return;
      cancelOnGraph();
      end();
      // Cancelled while the goal request is on its way: cancel it once it has an id on the server.
      if (goalHandle === undefined) link.accepted = cancelIfAccepted;
    },
  };
};
