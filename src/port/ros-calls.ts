import type { SchedulerLike } from 'rxjs';
import {
  Deadlines,
  PROCESS_CLOCK,
  schedulerClock,
  type DeadlineEntry,
  type DeadlineList,
} from './deadlines.js';
import { firstLine } from '../binding/error-text.js';
import { createInFlightLimit, type InFlightLimit } from './in-flight-limit.js';
import type { ConverseFeedbackMsg, ConverseGoalMsg, ConverseResultMsg } from './ros-messages.js';
import {
  RosCallFailedError,
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
 * built once over the port by the composition root. It owns what every call needs, so the port's
 * service and action clients only translate and send: the time-out, the in-flight limit per service,
 * the count of calls in flight, cancellation (the caller goes away: the port drops the late answer; for
 * the action, the goal is cancelled on the ROS side), the port closing under outstanding calls, and the
 * call metrics.
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
  readonly port: Pick<RosPort, 'call' | 'serviceName'> &
    Partial<Pick<RosPort, 'converse' | 'serverAvailable'>>;
  /**
   * Time a call of each service may take, from the moment it is made, before RosTimeoutError. A Converse
   * goal (a whole turn) has the time-out of `chat`.
   */
  readonly timeoutsMs: Readonly<Record<RosServiceKey, number>>;
  /** Deadlines run on it; a TestScheduler in marble tests. Default: the process's clock. */
  readonly scheduler?: SchedulerLike;
  readonly observer?: RosCallObserver;
  /**
   * Calls of one service (and Converse goals) outstanding at once (`--ros_calls_in_flight`); more wait
   * in arrival order, their time-outs running. A call that would wait for a service the port knows to be
   * without a server fails at once instead. Absent: no bound (the simulation, which answers at once).
   */
  readonly callsInFlight?: number;
  /**
   * Aborts when the port closes: every outstanding call fails at once (RosCallFailedError when it was
   * sent, RosServiceUnavailableError when it waited for a place) instead of waiting for an answer that
   * can no longer come, and its ticket is cancelled at the port (a Converse goal on the graph).
   */
  readonly closing?: AbortSignal;
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
  /** Gives back the place taken in the in-flight limit (or in its queue); absent without a limit. */
  leave: (() => void) | undefined = undefined;

  constructor(
    protected readonly calls: RosCallsImpl,
    readonly service: RosCallKey,
    private readonly onFailure: { failed(error: Error): void },
  ) {}

  /** Hands the call to the port: a service request, or a Converse goal. */
  abstract sendTo(port: RosCallSettings['port']): RosCallTicket;

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

  /** The port closed: no answer will come. */
  portClosed(): void {
    if (this.settled) return;
    const sent = this.portCall !== undefined;
    this.calls.end(this, sent ? 'failed' : 'unavailable');
    this.portCall?.cancel();
    this.onFailure.failed(this.calls.closedError(this.service, sent));
  }
}

/** One service call: the response ends it. */
class PendingCall<K extends RosServiceKey> extends Pending implements RosCallHandler<K> {
  constructor(
    calls: RosCallsImpl,
    override readonly service: K,
    private readonly request: RosRequest<K>,
    private readonly handler: RosCallHandler<K>,
  ) {
    super(calls, service, handler);
  }

  sendTo(port: RosCallSettings['port']): RosCallTicket {
    return port.call(this.service, this.request, this);
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
    private readonly goal: ConverseGoalMsg,
    private readonly handler: RosConverseHandler,
  ) {
    super(calls, 'converse', handler);
  }

  sendTo(port: RosCallSettings['port']): RosCallTicket {
    if (port.converse === undefined) throw new Error('this ROS port does not offer the Converse action');
    return port.converse(this.goal, this);
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

class RosCallsImpl implements RosCalls {
  inFlight = 0;
  readonly #port: RosCallSettings['port'];
  readonly #timeoutsMs: RosCallSettings['timeoutsMs'];
  readonly #deadlines: Deadlines;
  readonly #observer: RosCallObserver;
  /** One limit per service and one for Converse goals; undefined without `callsInFlight`. */
  readonly #limits: Readonly<Record<RosCallKey, InFlightLimit>> | undefined;
  #closed = false;

  constructor(settings: RosCallSettings) {
    this.#port = settings.port;
    this.#timeoutsMs = settings.timeoutsMs;
    this.#deadlines = new Deadlines(
      settings.scheduler === undefined ? PROCESS_CLOCK : schedulerClock(settings.scheduler),
    );
    this.#observer = settings.observer ?? NO_OBSERVER;
    const bound = settings.callsInFlight;
    this.#limits =
      bound === undefined
        ? undefined
        : {
            chat: createInFlightLimit(bound),
            clear_history: createInFlightLimit(bound),
            tour_list: createInFlightLimit(bound),
            tour_get: createInFlightLimit(bound),
            tour_create: createInFlightLimit(bound),
            tour_update: createInFlightLimit(bound),
            tour_delete: createInFlightLimit(bound),
            converse: createInFlightLimit(bound),
          };
    // One listener for every call: a listener per call passed Node's limit of 10 under load.
    settings.closing?.addEventListener(
      'abort',
      () => {
        this.#close();
      },
      { once: true },
    );
  }

  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket {
    return this.#start(new PendingCall(this, service, request, handler));
  }

  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket {
    return this.#start(new PendingTurn(this, goal, handler));
  }

  /** Every call and goal starts here: counted, its deadline set, sent now or queued behind the limit. */
  #start(pending: Pending): RosCallTicket {
    this.inFlight += 1;
    this.#deadlines.add(pending, this.timeoutMs(pending.service));
    const limit = this.#limits?.[pending.service];
    if (limit === undefined) this.#send(pending);
    else this.#enter(pending, limit);
    return pending;
  }

  #send(pending: Pending): void {
    if (this.#closed) {
      pending.portClosed();
      return;
    }
    try {
      pending.portCall = pending.sendTo(this.#port);
    } catch (error) {
      // A port that throws fails this call only.
      pending.failed(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Sends now if the service has a place, else queues the call, unless the port knows the service has no
   * server: then it fails at once (the port checks again when it sends, after a wait too).
   */
  #enter(pending: Pending, limit: InFlightLimit): void {
    if (limit.full && !this.#serverAvailable(pending)) return;
    const leave = limit.enter(() => {
      // Its time ran out while it waited (a place freed by an earlier call's time-out): never sent.
      if (this.#deadlines.clock.now() >= pending.deadline) pending.expire();
      else this.#send(pending);
    });
    // Settled while entering (the port failed it at once): the place goes back now.
    if (pending.settled) leave();
    else pending.leave = leave;
  }

  /** False (and the call failed) when the port says no server is there, or cannot tell. */
  #serverAvailable(pending: Pending): boolean {
    const ask = this.#port.serverAvailable;
    if (ask === undefined) return true;
    let available: boolean;
    try {
      available = ask.call(this.#port, pending.service);
    } catch (error) {
      pending.failed(
        new RosCallFailedError(pending.service, firstLine(error), {
          cause: error,
          serviceName: this.serviceName(pending.service),
        }),
      );
      return false;
    }
    if (!available) {
      pending.failed(new RosServiceUnavailableError(pending.service, this.serviceName(pending.service)));
    }
    return available;
  }

  #close(): void {
    this.#closed = true;
    // Every entry of this wrapper's deadline lists is one of its calls.
    this.#deadlines.drain((entry) => {
      (entry as DeadlineEntry & Pick<Pending, 'portClosed'>).portClosed();
    });
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
    // The place goes to the next waiting call before this one's caller hears its outcome.
    pending.leave?.();
    // The deadline is the start plus the time-out, on the same clock: no second reading at the start.
    const { clock } = this.#deadlines;
    const seconds =
      outcome === 'ok' ? (clock.now() - (pending.deadline - this.timeoutMs(pending.service))) / 1000 : 0;
    this.#observer.settled(pending.service, outcome, seconds);
  }

  closedError(service: RosCallKey, sent: boolean): Error {
    const serviceName = this.#port.serviceName(service);
    return sent
      ? new RosCallFailedError(
          service,
          `the ROS backend closed before the ${service === 'converse' ? 'result' : 'answer'} arrived`,
          { serviceName },
        )
      : new RosServiceUnavailableError(service, serviceName);
  }

  timeoutError(service: RosCallKey): RosTimeoutError {
    return new RosTimeoutError(service, this.timeoutMs(service), this.#port.serviceName(service));
  }
}

export const createRosCalls = (settings: RosCallSettings): RosCalls => new RosCallsImpl(settings);
