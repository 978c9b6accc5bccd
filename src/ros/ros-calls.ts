import type { SchedulerLike } from 'rxjs';
import {
  Deadlines,
  PROCESS_CLOCK,
  schedulerClock,
  type DeadlineEntry,
  type DeadlineList,
} from './deadlines.js';
import type { ConverseFeedbackMsg, ConverseGoalMsg, ConverseResultMsg } from './ros-messages.js';
import {
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosCallHandler,
  type RosCallKey,
  type RosConverseHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from './ros-port.js';

/**
 * The one way the bridge calls ROS: every HTTP tour request and every kiosk's /chat and /clear_history
 * go through `RosCalls.call`, every streamed turn (the Converse action) through `RosCalls.converse`,
 * built once over the port by the composition root. It owns what every call needs: the time-out, the
 * count of calls in flight, cancellation (the caller goes away: the port drops the late answer; for the
 * action, the goal is cancelled on the ROS side), and the call metrics.
 */

/** How a call ended, as the `ros_calls_total` metric counts it. */
export type RosCallOutcome = 'ok' | 'unavailable' | 'failed' | 'abandoned';

/**
 * Told once per call when it ends; `seconds` is the time to the answer (outcome `ok` only). A Converse
 * goal is labelled `converse`; it is `ok` when its result arrives (whatever the result's outcome), and
 * its time is the time to the result.
 */
export interface RosCallObserver {
  settled(service: RosCallKey, outcome: RosCallOutcome, seconds: number): void;
}

export interface RosCallSettings {
  readonly port: Pick<RosPort, 'call' | 'serviceName'> & Partial<Pick<RosPort, 'converse'>>;
  /**
   * Time a call of each service may take, from the moment it is made, before RosTimeoutError. A Converse
   * goal (a whole turn) has the time-out of `chat`.
   */
  readonly timeoutsMs: Readonly<Record<RosServiceKey, number>>;
  /** Deadlines run on it; a TestScheduler in marble tests. Default: the process's clock. */
  readonly scheduler?: SchedulerLike;
  readonly observer?: RosCallObserver;
}

export interface RosCalls {
  /**
   * Calls `service`; the handler hears the response, the port's error, or RosTimeoutError once the
   * service's time-out has passed. `cancel()` abandons the call: the handler hears nothing more.
   */
  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket;
  /**
   * Sends a Converse goal: the handler hears each part as it arrives, then the result or the port's
   * error, or RosTimeoutError once the chat time-out has passed since this call (the goal is then
   * cancelled on the ROS side). `cancel()` cancels the goal: the handler hears nothing more.
   */
  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket;
  /** The service's (or action's) name on the graph (remapped), as the errors name it. */
  serviceName(service: RosCallKey): string;
  /** Calls made and not yet answered, failed, timed out or abandoned. */
  readonly inFlight: number;
}

const NO_OBSERVER: RosCallObserver = { settled: () => undefined };

/**
 * What every call and goal shares: the deadline entry, the port's ticket, and how it fails, times out or
 * is cancelled. One object per call holds the handler the port answers, the deadline entry and the
 * caller's ticket, so a call allocates this and nothing else of its own.
 */
abstract class Pending implements RosCallTicket, DeadlineEntry {
  deadline = 0;
  previous: DeadlineEntry | undefined = undefined;
  next: DeadlineEntry | undefined = undefined;
  list: DeadlineList | undefined = undefined;
  portCall: RosCallTicket | undefined = undefined;
  settled = false;

  constructor(
    protected readonly calls: RosCallsImpl,
    readonly service: RosCallKey,
    private readonly onFailure: { failed(error: Error): void },
  ) {}

  failed(error: Error): void {
    if (this.settled) return;
    this.calls.end(this, error instanceof RosServiceUnavailableError ? 'unavailable' : 'failed');
    this.onFailure.failed(error);
  }

  expire(): void {
    if (this.settled) return;
    this.calls.end(this, 'abandoned');
    this.portCall?.cancel();
    this.onFailure.failed(this.calls.timeoutError(this.service));
  }

  cancel(): void {
    if (this.settled) return;
    this.calls.end(this, 'abandoned');
    this.portCall?.cancel();
  }
}

/** One service call: the response ends it. */
class PendingCall<K extends RosServiceKey> extends Pending implements RosCallHandler<K> {
  constructor(
    calls: RosCallsImpl,
    service: K,
    private readonly handler: RosCallHandler<K>,
  ) {
    super(calls, service, handler);
  }

  answered(response: RosResponse<K>): void {
    if (this.settled) return;
    this.calls.end(this, 'ok');
    this.handler.answered(response);
  }
}

/** One Converse goal: parts pass through while it runs, the result ends it. */
class PendingTurn extends Pending implements RosConverseHandler {
  constructor(
    calls: RosCallsImpl,
    private readonly handler: RosConverseHandler,
  ) {
    super(calls, 'converse', handler);
  }

  part(feedback: ConverseFeedbackMsg): void {
    if (this.settled) return;
    this.handler.part(feedback);
  }

  finished(result: ConverseResultMsg): void {
    if (this.settled) return;
    this.calls.end(this, 'ok');
    this.handler.finished(result);
  }
}

const portWithoutConverse = (): never => {
  throw new Error('this ROS port does not offer the Converse action');
};

class RosCallsImpl implements RosCalls {
  inFlight = 0;
  readonly #port: RosCallSettings['port'];
  readonly #timeoutsMs: RosCallSettings['timeoutsMs'];
  readonly #deadlines: Deadlines;
  readonly #observer: RosCallObserver;

  constructor(settings: RosCallSettings) {
    this.#port = settings.port;
    this.#timeoutsMs = settings.timeoutsMs;
    this.#deadlines = new Deadlines(
      settings.scheduler === undefined ? PROCESS_CLOCK : schedulerClock(settings.scheduler),
    );
    this.#observer = settings.observer ?? NO_OBSERVER;
  }

  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket {
    const pending = new PendingCall(this, service, handler);
    this.inFlight += 1;
    this.#deadlines.add(pending, this.#timeoutsMs[service]);
    try {
      pending.portCall = this.#port.call(service, request, pending);
    } catch (error) {
      // A port that throws fails this call only.
      pending.failed(error instanceof Error ? error : new Error(String(error)));
    }
    return pending;
  }

  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket {
    const pending = new PendingTurn(this, handler);
    this.inFlight += 1;
    this.#deadlines.add(pending, this.timeoutMs('converse'));
    try {
      const port = this.#port;
      pending.portCall = port.converse === undefined ? portWithoutConverse() : port.converse(goal, pending);
    } catch (error) {
      pending.failed(error instanceof Error ? error : new Error(String(error)));
    }
    return pending;
  }

  serviceName(service: RosCallKey): string {
    return this.#port.serviceName(service);
  }

  /** A call's time-out: its service's; a Converse goal's is the chat time-out (a whole turn). */
  timeoutMs(service: RosCallKey): number {
    return this.#timeoutsMs[service === 'converse' ? 'chat' : service];
  }

  /** Called once per call, by the call, when it ends however it ends. */
  end(pending: Pending, outcome: RosCallOutcome): void {
    pending.settled = true;
    this.inFlight -= 1;
    this.#deadlines.remove(pending);
    // The deadline is the start plus the time-out, on the same clock: no second reading at the start.
    const { clock } = this.#deadlines;
    const seconds =
      outcome === 'ok' ? (clock.now() - (pending.deadline - this.timeoutMs(pending.service))) / 1000 : 0;
    this.#observer.settled(pending.service, outcome, seconds);
  }

  timeoutError(service: RosCallKey): RosTimeoutError {
    return new RosTimeoutError(service, this.timeoutMs(service), this.#port.serviceName(service));
  }
}

export const createRosCalls = (settings: RosCallSettings): RosCalls => new RosCallsImpl(settings);
