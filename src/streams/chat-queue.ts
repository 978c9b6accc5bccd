import { map, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { RosCallFailedError, RosServiceUnavailableError, RosTimeoutError } from '../ros/ros-port.js';
import { ackFrame, encodeAudioPair, errorFrame, type OutboundFrame } from '../protocol/ws-frames.js';
import { busyMessage, type ConversationLimits, type ErrorCode } from '../protocol/ws-protocol.js';
import { boundedSerialQueue, type QueueOutcome, type Reserve } from './bounded-serial-queue.js';
import type { MessageIdAllocator } from '../protocol/message-ids.js';
import type { ByteBudget, Gauge } from './resource-gauges.js';
import { callWithTimeout, type RosCaller } from './ros-call.js';

/** A ROS call a session asks for. */
export type ConversationRequest =
  | { readonly service: 'chat'; readonly audio: Uint8Array }
  | { readonly service: 'clear_history' };

/** The answer of a call, before it becomes frames. */
type ConversationAnswer =
  | { readonly service: 'chat'; readonly emotion: string; readonly text: string; readonly audio: Uint8Array }
  | { readonly service: 'clear_history' };

export interface ChatQueueDeps {
  readonly port: RosCaller;
  readonly messageIds: MessageIdAllocator;
  readonly scheduler: SchedulerLike;
  readonly limits: Pick<ConversationLimits, 'maxWaitingCalls' | 'chatTimeoutMs' | 'clearHistoryTimeoutMs'>;
  readonly inFlightRosCalls?: Gauge;
  /**
   * Process-wide budget of audio bytes held by chat calls, running or waiting (`maxQueuedAudioBytes`). An
   * audio frame that does not fit is answered with `busy`; its bytes are given back when its call is
   * answered, fails or times out, or when the session ends. Default: no budget.
   */
  readonly audioBudget?: ByteBudget;
  /** A call was abandoned (the session stopped) before its answer came. */
  readonly onCallAbandoned?: (service: ConversationRequest['service']) => void;
}

const runRequest = (deps: ChatQueueDeps, request: ConversationRequest): Observable<ConversationAnswer> => {
  const inFlight = {
    ...(deps.inFlightRosCalls === undefined ? {} : { inFlight: deps.inFlightRosCalls }),
    ...(deps.onCallAbandoned === undefined
      ? {}
      : { onAbandoned: () => deps.onCallAbandoned?.(request.service) }),
  };
  if (request.service === 'chat') {
    return callWithTimeout(
      deps.port,
      'chat',
      { audio: request.audio },
      { timeoutMs: deps.limits.chatTimeoutMs, scheduler: deps.scheduler, ...inFlight },
    ).pipe(map((response) => ({ service: 'chat' as const, ...response })));
  }
  return callWithTimeout(
    deps.port,
    'clear_history',
    {},
    { timeoutMs: deps.limits.clearHistoryTimeoutMs, scheduler: deps.scheduler, ...inFlight },
  ).pipe(map(() => ({ service: 'clear_history' as const })));
};

const failureCode = (service: ConversationRequest['service'], error: unknown): ErrorCode => {
  if (error instanceof RosTimeoutError) return `${service}_timeout`;
  if (error instanceof RosServiceUnavailableError) return `${service}_unavailable`;
  return `${service}_failed`;
};

// Port errors carry operator-readable text (service name, time-out); anything else stays generic.
const failureMessage = (error: unknown): string | undefined =>
  error instanceof RosTimeoutError ||
  error instanceof RosServiceUnavailableError ||
  error instanceof RosCallFailedError
    ? error.message
    : undefined;

const toFrame = (
  deps: ChatQueueDeps,
  outcome: QueueOutcome<ConversationRequest, ConversationAnswer>,
): OutboundFrame => {
  switch (outcome.kind) {
    case 'done':
      if (outcome.value.service === 'clear_history') return ackFrame('clear_history');
      // The id is taken when the answer is sent, so ids increase in the order pairs leave the process.
      return encodeAudioPair(deps.messageIds.next(), outcome.value);
    case 'failed':
      return errorFrame(failureCode(outcome.item.service, outcome.error), failureMessage(outcome.error));
    case 'busy':
      return errorFrame(
        'busy',
        busyMessage(
          outcome.item.service,
          outcome.reason === 'full'
            ? { kind: 'queue', maxWaitingCalls: deps.limits.maxWaitingCalls }
            : { kind: 'audio', maxQueuedAudioBytes: deps.audioBudget?.limit ?? 0 },
        ),
      );
  }
};

const NOTHING_HELD = (): void => undefined;

/** Audio takes its bytes from the budget; clear_history holds nothing. */
const reserveAudio =
  (budget: ByteBudget): Reserve<ConversationRequest> =>
  (request) =>
    request.service === 'chat' ? budget.take(request.audio.byteLength) : NOTHING_HELD;

/**
 * The calls of one session: chat and clear_history share one bounded serial queue, so a clear_history issued
 * after some audio clears the history only once that audio has been answered. Each call has its own time-out,
 * counted from when the queue starts it, so it includes any wait inside the port (the rclnodejs adapter's
 * per-service in-flight cap): the visitor waits for the whole of it. Emits exactly one outbound frame per
 * request: a pair, an ack or an error.
 */
export const chatQueue =
  (deps: ChatQueueDeps): OperatorFunction<ConversationRequest, OutboundFrame> =>
  (requests) =>
    requests.pipe(
      boundedSerialQueue(
        (request: ConversationRequest) => runRequest(deps, request),
        deps.limits.maxWaitingCalls,
        deps.audioBudget === undefined ? undefined : reserveAudio(deps.audioBudget),
      ),
      map((outcome) => toFrame(deps, outcome)),
    );
