import type { HttpResponse } from 'uWebSockets.js';
import {
  RosServiceUnavailableError,
  type RosCallHandler,
  type RosCallTicket,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../ros/port/ros-port.js';
import { corsHeaders, routeAccessRefusal } from './access-policy.js';
import { finishWhenDrained, type AnswerDeliveries } from './answer-delivery.js';
import { problemReply, statusLine, withHeaders, type HttpReply } from './reply.js';
import { rosErrorReply } from './ros-error-reply.js';
import type { RouteRequest, RouteRos } from './route.js';
import type { ExchangeRoute } from './router-state.js';

const INTERNAL_ERROR = problemReply(
  'internal-error',
  'an unexpected error occurred; see the log for the request id',
);

/** The answer to a request whose key already has `waiting` requests waiting for its turn. */
const busy = (waiting: number): HttpReply =>
  problemReply('tour-busy', `${waiting} other changes to this tour are waiting; try again`, {
    headers: { 'retry-after': '1' },
  });

/** What a call that is never to be made (its request already answered) resolves to: nothing, ever. */
const NEVER = new Promise<never>(() => undefined);

/**
 * One request, from its handler to its one answer. It is the handler's RouteRos too: a ROS call is a
 * promise the exchange settles from the call wrapper's answer, and a client that leaves cancels it.
 */
export class Exchange implements RouteRos, RosCallHandler<RosServiceKey> {
  #done = false;
  #abortWatched = false;
  #cors: Readonly<Record<string, string>> | undefined = undefined;
  #call: RosCallTicket | undefined = undefined;
  /** The service of the call in flight, and how its promise is settled. */
  #service: RosServiceKey | undefined = undefined;
  #resolve: ((response: RosResponse<RosServiceKey>) => void) | undefined = undefined;
  #reject: ((error: Error) => void) | undefined = undefined;
  /** The request's place among those with its key (takeTurn), held until its answer. */
  #place: QueuePlace | undefined = undefined;
  /** The answer is a ROS failure, logged by the router's failure log rather than as a line of its own. */
  #rosFailure = false;
  #body: { abort(): void } | undefined = undefined;
  readonly #started = performance.now();

  constructor(
    private readonly installed: ExchangeRoute,
    private readonly res: HttpResponse,
    readonly requestId: string,
  ) {
    installed.router.inFlight += 1;
    installed.router.live.add(this);
  }

  /** Cut by the graceful stop: the ROS call is abandoned and `reply` sent, the connection closed. */
  cut(reply: HttpReply): void {
    if (this.#done) return;
    this.#call?.cancel();
    this.#body?.abort();
    this.answer(reply, true);
  }

  /** Access control: answers 401/403 and returns false when the request may not go on. */
  guard(headers: Readonly<Record<string, string>>, query: string): boolean {
    const { policy } = this.installed.router.settings;
    // Empty for an origin not allowed: only an allowed one reads the answer, a refusal included.
    this.#cors = corsHeaders(policy, headers['origin'] ?? '');
    const refusal = routeAccessRefusal(policy, this.installed, headers, query);
    if (refusal !== undefined) this.answer(refusal);
    return refusal === undefined;
  }

  /** The request body being read (installed-route.ts), abandoned if the client leaves or the stop cuts. */
  reading(body: { abort(): void }): void {
    this.#body = body;
    this.watchAbort();
  }

  /** Runs the route's handler and answers what it returns, or 500 if it throws. */
  run(request: RouteRequest): void {
    let result;
    try {
      result = this.installed.route.handle(request);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (!(result instanceof Promise)) {
      this.answer(result);
      return;
    }
    this.watchAbort();
    result.then(
      (reply) => {
        this.answer(reply);
      },
      (error: unknown) => {
        this.#failed(error);
      },
    );
  }

  call<K extends RosServiceKey>(service: K, request: RosRequest<K>): Promise<RosResponse<K>> {
    if (this.#done) return NEVER;
    return new Promise<RosResponse<K>>((resolve, reject) => {
      this.#service = service;
      this.#resolve = resolve;
      this.#reject = reject;
      this.#call = this.installed.router.settings.calls.call(service, request, this);
    });
  }

  takeTurn(key: string): Promise<HttpReply | undefined> {
    if (this.#done) return NEVER;
    const { serial } = this.installed.router;
    return new Promise((resolve) => {
      const place = serial.enter(key, () => {
        resolve(undefined);
      });
      if (place !== undefined) this.#place = place;
      else resolve(busy(serial.maxWaiting));
    });
  }

  /** The call wrapper's answer to the call in flight. */
  answered(response: RosResponse<RosServiceKey>): void {
    const { router } = this.installed;
    if (this.#service !== undefined && router.failingServices.delete(this.#service)) {
      router.rosFailures.succeeded(this.#service);
    }
    const resolve = this.#resolve;
    this.#resolve = this.#reject = undefined;
    resolve?.(response);
  }

  /** The call wrapper's failure of the call in flight: the handler's await rejects. */
  failed(error: Error): void {
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    reject?.(error);
  }

  /** A handler's promise rejected: a ROS failure is answered as documented, anything else is a bug. */
  #failed(error: unknown): void {
    const reply = rosErrorReply(error);
    if (reply === undefined) {
      this.#fail(error);
      return;
    }
    // Only "unavailable" is summarised: it fails at once, so a retrying client makes one per round trip
    // (a thousand lines a second); a time-out or a failed call costs its client the wait or the call.
    if (!this.#done && this.#service !== undefined && error instanceof RosServiceUnavailableError) {
      this.#rosFailure = true;
      this.installed.router.failingServices.add(this.#service);
      this.installed.router.rosFailures.failed(this.#service, error, this.#line(reply.status));
    }
    this.answer(reply);
  }

  /** Writes the one answer unless the client left first. */
  answer(reply: HttpReply, closeConnection = false): void {
    if (this.#done) return;
    this.#settle();
    const { router } = this.installed;
    const answered = this.#cors === undefined ? reply : withHeaders(reply, this.#cors);
    const withoutBody = this.installed.method === 'HEAD';
    // endWithoutBody(length, close) does not count as a response in this uWebSockets.js build (see answerAtOnce).
    if ((withoutBody || reply.status === 304) && closeConnection) this.watchAbort();
    writeReply(this.res, this.requestId, answered, withoutBody, closeConnection, router.settings.deliveries);
    this.installed.count(reply.status);
    if (reply.status >= 500 && !this.#rosFailure) {
      router.settings.log.warn(this.#line(reply.status), 'request failed');
    } else if (router.debug) router.settings.log.debug(this.#line(reply.status), 'request');
  }

  /** The request leaves the router's books: answered, or its client gone. */
  #settle(): void {
    this.#done = true;
    this.#place?.release();
    this.installed.router.inFlight -= 1;
    this.installed.router.live.delete(this);
  }

  #line(status: number) {
    return {
      reqId: this.requestId,
      method: this.installed.method,
      route: this.installed.template,
      status,
      ms: Math.round((performance.now() - this.#started) * 10) / 10,
    };
  }

  #fail(error: unknown): void {
    this.installed.router.settings.log.error(
      { err: error, reqId: this.requestId, method: this.installed.method, route: this.installed.template },
      'route handler threw',
    );
    this.answer(INTERNAL_ERROR);
  }

  /**
   * uWebSockets.js reports a client gone before the answer; the request's ROS call is abandoned at once.
   * Watched once the answer may come after the handler returns (a body to read, a promise).
   */
  watchAbort(): void {
    if (this.#abortWatched) return;
    this.#abortWatched = true;
    this.res.onAborted(() => {
      if (this.#done) return;
      this.#settle();
      this.#call?.cancel();
      this.#body?.abort();
      this.installed.count(499);
      if (this.installed.router.debug) {
        this.installed.router.settings.log.debug(this.#line(499), 'client went away before the answer');
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Turns per key (RouteRos.takeTurn)

/**
 * Turns taken one at a time per key, in arrival order: the router runs the ROS calls of requests that
 * share a key (a conditional change to one tour: read, compare, write) one request after the other, so
 * no other such request slips in between one's check and its write.
 */

/** Requests that may wait behind one holding a key's turn in the router; 503 `tour-busy` beyond. */
export const SERIAL_WAITING_MAX = 32;

/** A request's place in its key's queue: first in line holds the turn. */
export interface QueuePlace {
  /** Ends the turn (or leaves the queue before it came); the next request of the key starts. Idempotent. */
  release(): void;
}

interface Waiter {
  readonly start: (place: QueuePlace) => void;
  readonly place: QueuePlace;
  released: boolean;
}

export class SerialByKey {
  /** Per key: the request holding the turn first, then those waiting. A key with nobody is removed. */
  readonly #queues = new Map<string, Waiter[]>();

  /** `maxWaiting`: requests that may wait behind the one holding a key's turn; more are refused. */
  constructor(readonly maxWaiting: number) {}

  /**
   * Takes a turn for `key`: `start` gets it now when nobody holds it, or when the requests ahead released
   * theirs; it may release the turn at once. The place is returned too, to leave the queue while waiting.
   * Undefined (and `start` never runs) when `maxWaiting` requests already wait.
   */
  enter(key: string, start: (place: QueuePlace) => void): QueuePlace | undefined {
    const queue = this.#queues.get(key);
    if (queue !== undefined && queue.length > this.maxWaiting) return undefined;
    const waiter: Waiter = {
      start,
      place: {
        release: () => {
          this.#release(key, waiter);
        },
      },
      released: false,
    };
    if (queue === undefined) {
      this.#queues.set(key, [waiter]);
      start(waiter.place);
    } else {
      queue.push(waiter);
    }
    return waiter.place;
  }

  #release(key: string, waiter: Waiter): void {
    if (waiter.released) return;
    waiter.released = true;
    const queue = this.#queues.get(key);
    if (queue === undefined) return;
    const holder = queue[0] === waiter;
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length === 0) {
      this.#queues.delete(key);
      return;
    }
    // Only the holder's release passes the turn on; one leaving the queue changes nothing else.
    const next = queue[0];
    if (holder && next !== undefined) next.start(next.place);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Writing a reply on a uWebSockets.js response: the router's one way out, with this build's quirks.

const byteLength = (body: string | Uint8Array | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;

/**
 * Writes a reply. Corked: it may run long after the handler returned. A body the connection does not take
 * at once is written on as the client reads (answer-delivery.ts): one answer owed per connection.
 */
export const writeReply = (
  res: HttpResponse,
  requestId: string,
  reply: HttpReply,
  withoutBody: boolean,
  closeConnection: boolean,
  deliveries: AnswerDeliveries,
): void => {
  let rest: Uint8Array | undefined;
  let totalSize = 0;
  res.cork(() => {
    // uWebSockets.js writes `200 OK` itself when no status is written.
    if (reply.status !== 200) res.writeStatus(statusLine(reply.status));
    res.writeHeader('x-request-id', requestId);
    const headers = reply.headers;
    if (headers !== undefined) {
      for (const name in headers) res.writeHeader(name, headers[name] ?? '');
    }
    if (withoutBody || reply.status === 304) {
      // No body, but the length a full GET answer would have (RFC 9110 §8.6): the reply carries that body.
      const length = byteLength(reply.body);
      if (closeConnection) {
        res.endWithoutBody(length, true);
      } else {
        // This build's endWithoutBody(length) leaves the response pending (it waits for `length` body
        // bytes that never come), so the next request on the connection closes it: HEAD or a 304, then
        // GET on the same socket got nothing. The length written as a header and endWithoutBody() with no
        // argument (explicit undefined reads as a length of 2^63) complete the response and keep the
        // connection (test/e2e/http-keep-alive.test.ts).
        res.writeHeader('content-length', String(length));
        res.endWithoutBody();
      }
    } else if (closeConnection) {
      res.end(reply.body ?? '', true);
    } else {
      const body = reply.body ?? '';
      totalSize = byteLength(body);
      const [, done] = res.tryEnd(body, totalSize);
      // Not all taken: the client is not reading. The bytes are kept (a string's made once, here).
      if (!done) rest = typeof body === 'string' ? Buffer.from(body) : body;
    }
  });
  if (rest !== undefined) finishWhenDrained(res, rest, totalSize, deliveries);
};

/**
 * Refuses a request whose length is ambiguous (installed-route.ts) so that nothing behind it on the
 * connection runs. uWebSockets.js goes on parsing what it has already read from a connection after a
 * handler returns, even one that answered with "close": the bytes hidden in the body would run as the
 * next request. So the answer waits for the next turn of the event loop: a request parsed behind it
 * meanwhile finds this one pending, and uWebSockets.js then closes the connection without running it
 * (its rule for requests pipelined behind an unanswered one); otherwise the refusal is sent and the
 * connection closed.
 */
export const refuseMisframed = (
  res: HttpResponse,
  requestId: string,
  reply: HttpReply,
  withoutBody: boolean,
  deliveries: AnswerDeliveries,
): void => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  setImmediate(() => {
    if (!aborted) writeReply(res, requestId, reply, withoutBody, true, deliveries);
  });
};

/**
 * Answers inside the handler, for the router's own replies (405, 404). This uWebSockets.js build does not
 * count endWithoutBody(length, close) (HEAD while stopping) as a response and aborts the process when a
 * handler returns without one or an abort handler, hence the handler attached first.
 */
export const answerAtOnce = (
  res: HttpResponse,
  requestId: string,
  method: string,
  reply: HttpReply,
  closeConnection: boolean,
  deliveries: AnswerDeliveries,
): void => {
  res.onAborted(() => undefined);
  writeReply(res, requestId, reply, method === 'HEAD', closeConnection, deliveries);
};
