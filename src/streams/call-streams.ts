import { Observable, ignoreElements } from 'rxjs';
import type { ChatInterface, ErrorCode } from '../protocol/ws/index.js';
import type { RosCalls } from '../ros/port/ros-calls.js';
import {
  ConverseOutcome,
  type ConverseFeedbackMsg,
  type ConverseGoalMsg,
  type ConverseResultMsg,
} from '../ros/port/ros-messages.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros/port/ros-port.js';

/*
 * The session's ROS calls as cold observables: a service call, a Converse goal, and a turn (whichever
 * `--chat_interface` says). Subscribing makes the call through the call wrapper; unsubscribing abandons
 * it. test/unit/ros-call.marble.test.ts and test/unit/turn.marble.test.ts pin the behaviour.
 */

/**
 * One ROS service call: it emits the one response and completes, or errors with the wrapper's errors (its
 * time-out among them). Unsubscribing before that abandons the call: it is cancelled at the port, and the
 * late answer is dropped.
 */
export const rosCall$ = <K extends RosServiceKey>(
  calls: Pick<RosCalls, 'call'>,
  service: K,
  request: RosRequest<K>,
): Observable<RosResponse<K>> =>
  new Observable<RosResponse<K>>((subscriber) => {
    let settled = false;
    const ticket = calls.call(service, request, {
      answered: (response) => {
        settled = true;
        subscriber.next(response);
        subscriber.complete();
      },
      failed: (error) => {
        settled = true;
        subscriber.error(error);
      },
    });
    return () => {
      if (settled) return;
      ticket.cancel();
    };
  });

/** One part of a turn's answer: what an answer pair carries. */
export interface TurnPart {
  readonly emotion: string;
  readonly text: string;
  readonly audio: Uint8Array;
}

/** A Converse goal whose result's outcome is not OK: the turn failed, and the result says why. */
export class ConverseOutcomeError extends Error {
  override readonly name = 'ConverseOutcomeError';
  constructor(readonly result: ConverseResultMsg) {
    super(
      result.message === ''
        ? `the Converse goal ended with outcome ${result.outcome} and no message`
        : result.message,
    );
  }
}

/**
 * One Converse goal as a cold observable: subscribing sends the goal through the call wrapper (the chat
 * time-out bounds the whole turn); each feedback is emitted the moment it arrives; a result with outcome OK
 * completes, any other outcome errors with ConverseOutcomeError; the port's and the wrapper's errors pass
 * through. Unsubscribing before the result cancels the goal (on the ROS side too): nothing more is emitted.
 */
export const converse$ = (
  calls: Pick<RosCalls, 'converse'>,
  goal: ConverseGoalMsg,
): Observable<ConverseFeedbackMsg> =>
  new Observable<ConverseFeedbackMsg>((subscriber) => {
    let settled = false;
    const ticket = calls.converse(goal, {
      part: (feedback) => {
        subscriber.next(feedback);
      },
      finished: (result) => {
        settled = true;
        if (result.outcome === ConverseOutcome.OK) subscriber.complete();
        else subscriber.error(new ConverseOutcomeError(result));
      },
      failed: (error) => {
        settled = true;
        subscriber.error(error);
      },
    });
    return () => {
      if (!settled) ticket.cancel();
    };
  });

/**
 * One turn as a stream of its answer's parts, whichever the interface: with `service`, the one `/chat`
 * response, then complete; with `action`, every Converse feedback as it arrives, then complete. Errors are
 * the turn's failure; unsubscribing abandons the call or cancels the goal.
 * test/unit/turn.marble.test.ts pins the behaviour.
 */
export const turn$ = (
  calls: Pick<RosCalls, 'call' | 'converse'>,
  chatInterface: ChatInterface,
  utterance: TurnUtterance,
): Observable<TurnPart> =>
  chatInterface === 'action'
    ? converse$(calls, { utterance_id: utterance.id, streamed: utterance.streamed, audio: utterance.audio })
    : rosCall$(calls, 'chat', { audio: utterance.audio });

/** How a session's running call ended. */
export type CallOutcome =
  /** A `/chat` answer carries its one part; a Converse goal's parts went out as they came. */
  | { readonly kind: 'answered'; readonly part?: TurnPart | undefined }
  | { readonly kind: 'failed'; readonly error: unknown };

/** What a session's running call tells its chart. */
export type CallEvent =
  /** One part of the running turn's answer (Converse feedback): its pair is sent at once. */
  | { readonly type: 'call.part'; readonly part: TurnPart }
  | { readonly type: 'call.settled'; readonly outcome: CallOutcome };

/**
 * A session's running request as the chart's events: with the Converse action a `call.part` per part as it
 * arrives, then `call.settled`; with `/chat` and clear_history only `call.settled`, the answer in it.
 * Unsubscribed before it settles: the call abandoned (a Converse goal cancelled) and `abandoned` told.
 * test/unit/turn.marble.test.ts pins the behaviour.
 */
export const sessionCall$ = (
  calls: Pick<RosCalls, 'call' | 'converse'>,
  chatInterface: ChatInterface,
  request:
    | { readonly service: 'clear_history' }
    | { readonly service: 'chat'; readonly utterance: TurnUtterance },
  abandoned: () => void,
): Observable<CallEvent> =>
  new Observable<CallEvent>((subscriber) => {
    const answer$: Observable<TurnPart> =
      request.service === 'clear_history'
        ? rosCall$(calls, 'clear_history', {}).pipe(ignoreElements())
        : turn$(calls, chatInterface, request.utterance);
    // clear_history answers no part; a `/chat` answer is one, carried by the settling event.
    const partByPart = chatInterface === 'action';
    let wholeAnswer: TurnPart | undefined;
    let settled = false;
    const settle = (outcome: CallOutcome): void => {
      settled = true;
      subscriber.next({ type: 'call.settled', outcome });
      subscriber.complete();
    };
    const call = answer$.subscribe({
      next: (part) => {
        if (partByPart) subscriber.next({ type: 'call.part', part });
        else wholeAnswer = part;
      },
      complete: () => {
        settle({ kind: 'answered', part: wholeAnswer });
      },
      error: (cause: unknown) => {
        settle({ kind: 'failed', error: cause });
      },
    });
    return () => {
      call.unsubscribe();
      if (!settled) abandoned();
    };
  });

/**
 * What a turn sends the robot: its name on the graph, and its audio. A streamed utterance's audio went to the
 * robot as it was spoken: the Converse goal names it (`streamed`, audio empty), while `/chat`, which knows
 * only whole recordings, gets it whole.
 */
export interface TurnUtterance {
  readonly id: string;
  readonly streamed: boolean;
  readonly audio: Uint8Array;
}

/**
 * What a failed call of a session tells its kiosk: the code (`<service>_timeout`, `_unavailable` or
 * `_failed`), and the message of the port's errors and of a Converse result, which operators can read
 * (the service's name, the time-out); anything else stays generic.
 */
export const callFailure = (
  service: 'chat' | 'clear_history',
  error: unknown,
): { readonly code: ErrorCode; readonly message: string | undefined } => {
  const code: ErrorCode =
    error instanceof RosTimeoutError
      ? `${service}_timeout`
      : error instanceof RosServiceUnavailableError
        ? `${service}_unavailable`
        : `${service}_failed`;
  const readable =
    error instanceof RosTimeoutError ||
    error instanceof RosServiceUnavailableError ||
    error instanceof RosCallFailedError ||
    error instanceof ConverseOutcomeError;
  return { code, message: readable ? error.message : undefined };
};
