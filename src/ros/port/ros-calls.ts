import type { SchedulerLike } from 'rxjs';
import { firstLine } from '../binding/error-text.js';
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

/*
 * The one wrapper for a ROS call (tours, /chat, /clear_history) and Converse goal. It owns what every call
 * needs, so the port only translates and sends: the time-out, the in-flight limit per service, the count
 * in flight, cancellation, the port closing under outstanding calls, and the call metrics.
 */

/** How a call ended, as the `ros_calls_total` metric counts it. */
export type RosCallOutcome = 'ok' | 'unavailable' | 'failed' | 'abandoned';

/** Told once per call as it ends; `seconds`: to the answer, or a goal's result whatever it says (`ok`). */
export interface RosCallObserver {
  settled(service: RosCallKey, outcome: RosCallOutcome, seconds: number): void;
}

/** Upper bounds of the answer-time buckets, in seconds (`tour_bridge_ros_call_seconds`). */
export const CALL_SECONDS_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** One service's calls: how many ended each way, and the times of the answered ones by bucket. */
export interface ServiceCallTally {
  readonly outcomes: Map<RosCallOutcome, number>;
  /** `counts[i]`: answers in bucket i of CALL_SECONDS_BUCKETS only (a slower one counts in none). */
  readonly answered: { readonly counts: number[]; sum: number; count: number };
}

/** The calls' metrics as plain numbers, by service in the order first called; rendered at scrape time. */
export class RosCallTally implements RosCallObserver {
  readonly byService = new Map<RosCallKey, ServiceCallTally>();

  settled(service: RosCallKey, outcome: RosCallOutcome, seconds: number): void {
    let tally = this.byService.get(service);
    if (tally === undefined) {
      tally = {
        outcomes: new Map(),
        answered: { counts: CALL_SECONDS_BUCKETS.map(() => 0), sum: 0, count: 0 },
      };
      this.byService.set(service, tally);
    }
    tally.outcomes.set(outcome, (tally.outcomes.get(outcome) ?? 0) + 1);
    if (outcome !== 'ok') return;
    const { answered } = tally;
    answered.sum += seconds;
    answered.count += 1;
    const bucket = CALL_SECONDS_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) answered.counts[bucket] = (answered.counts[bucket] ?? 0) + 1;
  }
}

export interface RosCallSettings {
  readonly port: Pick<RosPort, 'call' | 'serviceName'> &
    Partial<Pick<RosPort, 'converse' | 'serverAvailable'>>;
  /** Time a call may take before RosTimeoutError, per service; a Converse goal (a turn) has chat's. */
  readonly timeoutsMs: Readonly<Record<RosServiceKey, number>>;
  /** A TestScheduler in marble tests. Default: the process's clock. */
  readonly scheduler?: SchedulerLike;
  readonly observer?: RosCallObserver;
  /**
   * Calls of one service (and goals) outstanding at once (`--ros_calls_in_flight`: the RMW's keep-last
   * queues lose a burst silently). More wait in order, their time-outs running; one that would wait for a
   * service without a server fails at once. Absent: no bound (the simulation).
   */
  readonly callsInFlight?: number;
  /** Aborts when the port closes: every outstanding call fails at once and is cancelled at the port. */
  readonly closing?: AbortSignal;
}

export interface RosCalls {
  /** The handler hears the response, the port's error or RosTimeoutError; after `cancel()`, nothing. */
  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket;
  /** A Converse goal: its parts, then as `call`; a time-out or `cancel()` cancels it on the ROS side too. */
  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket;
  /** The service's (or action's) name on the graph (remapped), as the errors name it. */
  serviceName(service: RosCallKey): string;
  /** Calls made and not yet answered, failed, timed out or abandoned. */
  readonly inFlight: number;
}

type Port = RosCallSettings['port'];

/** The clock of the time-outs: the scheduler's in marble tests, else the process's. */
class Clock {
  constructor(private readonly scheduler: SchedulerLike | undefined) {}

  now(): number {
    return this.scheduler === undefined ? performance.now() : this.scheduler.now();
  }

  /** Runs `work` after `delayMs`; the returned function cancels it. */
  later(delayMs: number, work: () => void): () => void {
    if (this.scheduler !== undefined) {
      const subscription = this.scheduler.schedule(work, delayMs);
      return () => {
        subscription.unsubscribe();
      };
    }
    // Unref'd: whoever waits for a call keeps the process alive, not its time-out.
    const timer = setTimeout(work, delayMs);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  }
}

/** The places of one service (or of Converse goals) under `callsInFlight`: running, and waiting in order. */
interface Limit {
  readonly bound: number;
  running: number;
  readonly waiting: Set<Pending>;
}

/** One call or goal: the port's handler, its deadline and limit entry, and the caller's ticket in one. */
abstract class Pending implements RosCallTicket {
  startedAt = 0;
  deadline = 0;
  cancelTimeout: (() => void) | undefined = undefined;
  /** Its service's limit (running or waiting in it), until it ends. */
  limit: Limit | undefined = undefined;
  portCall: RosCallTicket | undefined = undefined;
  settled = false;

  constructor(
    protected readonly calls: RosCallsImpl,
    readonly service: RosCallKey,
    private readonly onFailure: { failed(error: Error): void },
  ) {}

  /** Hands the call to the port: a service request, or a Converse goal. */
  abstract sendTo(port: Port): RosCallTicket;

  failed(error: Error): void {
    this.stop(error instanceof RosServiceUnavailableError ? 'unavailable' : 'failed', error);
  }

  expire(): void {
    this.stop('abandoned', this.calls.timeoutError(this.service), true);
  }

  cancel(): void {
    this.stop('abandoned', undefined, true);
  }

  /** The port closed (called while it runs): no answer will come. */
  portClosed(): void {
    const sent = this.portCall !== undefined;
    this.stop(sent ? 'failed' : 'unavailable', this.calls.closedError(this.service, sent), true);
  }

  /** Ends the call once (false if it had ended), cancels it at the port if asked, tells of an error. */
  protected stop(outcome: RosCallOutcome, error?: Error, cancelAtPort = false): boolean {
    if (this.settled) return false;
    this.calls.end(this, outcome);
    if (cancelAtPort) this.portCall?.cancel();
    if (error !== undefined) this.onFailure.failed(error);
    return true;
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

  sendTo(port: Port): RosCallTicket {
    return port.call(this.service, this.request, this);
  }

  answered(response: RosResponse<K>): void {
    if (this.stop('ok')) this.handler.answered(response);
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

  sendTo(port: Port): RosCallTicket {
    if (port.converse === undefined) throw new Error('this ROS port does not offer the Converse action');
    return port.converse(this.goal, this);
  }

  part(feedback: ConverseFeedbackMsg): void {
    if (!this.settled) this.handler.part(feedback);
  }

  finished(result: ConverseResultMsg): void {
    if (this.stop('ok')) this.handler.finished(result);
  }
}

class RosCallsImpl implements RosCalls {
  inFlight = 0;
  readonly #port: Port;
  readonly #timeoutsMs: RosCallSettings['timeoutsMs'];
  readonly #clock: Clock;
  /** Every call and goal outstanding, in start order: the port closing fails them all. */
  readonly #outstanding = new Set<Pending>();
  readonly #observer: RosCallObserver;
  readonly #bound: number | undefined;
  readonly #limits: Partial<Record<RosCallKey, Limit>> = {};
  #closed = false;

  constructor(settings: RosCallSettings) {
    this.#port = settings.port;
    this.#timeoutsMs = settings.timeoutsMs;
    this.#clock = new Clock(settings.scheduler);
    this.#observer = settings.observer ?? { settled: () => undefined };
    this.#bound = settings.callsInFlight;
    if (this.#bound !== undefined && !(Number.isInteger(this.#bound) && this.#bound >= 1)) {
      throw new RangeError(`limit must be a positive integer: ${this.#bound}`);
    }
    // One listener for every call: a listener per call passed Node's limit of 10 under load.
    settings.closing?.addEventListener('abort', this.#close, { once: true });
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
    this.#outstanding.add(pending);
    const timeoutMs = this.timeoutMs(pending.service);
    pending.startedAt = this.#clock.now();
    pending.deadline = pending.startedAt + timeoutMs;
    pending.cancelTimeout = this.#clock.later(timeoutMs, () => {
      pending.expire();
    });
    const bound = this.#bound;
    if (bound === undefined) this.#send(pending);
    else this.#enter(pending, (this.#limits[pending.service] ??= { bound, running: 0, waiting: new Set() }));
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

  /** Sends now if the service has a place, else queues the call, unless the port knows no server is there. */
  #enter(pending: Pending, limit: Limit): void {
    const full = limit.running >= limit.bound || limit.waiting.size > 0;
    if (full && !this.#serverAvailable(pending)) return;
    if (full) {
      pending.limit = limit;
      limit.waiting.add(pending);
      return;
    }
    limit.running += 1;
    this.#send(pending);
    // Settled while sent (the port failed it at once): the place goes back after its caller heard.
    if (pending.settled) this.#free(limit);
    else pending.limit = limit;
  }

  /** A running call left: the next waiting ones go, in order. */
  #free(limit: Limit): void {
    limit.running -= 1;
    while (limit.running < limit.bound) {
      const next = limit.waiting.values().next();
      if (next.done === true) return;
      limit.waiting.delete(next.value);
      limit.running += 1;
      // Its time ran out while it waited (a place freed by an earlier call's time-out): never sent.
      if (this.#clock.now() >= next.value.deadline) next.value.expire();
      else this.#send(next.value);
    }
  }

  /** False (and the call failed) when the port says no server is there, or cannot tell. */
  #serverAvailable(pending: Pending): boolean {
    const { service } = pending;
    const serviceName = this.serviceName(service);
    let available: boolean;
    try {
      available = this.#port.serverAvailable?.(service) ?? true;
    } catch (error) {
      pending.failed(new RosCallFailedError(service, firstLine(error), { cause: error, serviceName }));
      return false;
    }
    if (!available) pending.failed(new RosServiceUnavailableError(service, serviceName));
    return available;
  }

  /** The port closed: sent calls fail (the answer cannot come), waiting ones are unavailable. */
  readonly #close = (): void => {
    this.#closed = true;
    // Bounded: each call leaves the set as it ends; one started meanwhile fails at once.
    for (const pending of this.#outstanding) pending.portClosed();
  };

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
    this.#outstanding.delete(pending);
    pending.cancelTimeout?.();
    pending.cancelTimeout = undefined;
    // Its place (or place in the queue) goes to the next waiting call before its caller hears the outcome.
    const { limit } = pending;
    pending.limit = undefined;
    if (limit !== undefined && !limit.waiting.delete(pending)) this.#free(limit);
    const seconds = outcome === 'ok' ? (this.#clock.now() - pending.startedAt) / 1000 : 0;
    this.#observer.settled(pending.service, outcome, seconds);
  }

  closedError(service: RosCallKey, sent: boolean): Error {
    const serviceName = this.#port.serviceName(service);
    const detail = `the ROS backend closed before the ${service === 'converse' ? 'result' : 'answer'} arrived`;
    return sent
      ? new RosCallFailedError(service, detail, { serviceName })
      : new RosServiceUnavailableError(service, serviceName);
  }

  timeoutError(service: RosCallKey): RosTimeoutError {
    return new RosTimeoutError(service, this.timeoutMs(service), this.#port.serviceName(service));
  }
}

export const createRosCalls = (settings: RosCallSettings): RosCalls => new RosCallsImpl(settings);
