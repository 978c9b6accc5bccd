import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { createFailureLog, type FailureLog } from '../../log/failure-log.js';
import type { Logger } from '../../log/logger.js';
import type { CounterFamily, PlainCounter } from '../../metrics/plain-metrics.js';
import type { RosCalls } from '../../ros/ros-calls.js';
import {
  RosServiceUnavailableError,
  type RosCallHandler,
  type RosCallTicket,
  type RosResponse,
  type RosServiceKey,
} from '../../ros/ros-port.js';
import * as v from 'valibot';
import { issuePath } from '../../protocol/tour-schema.js';
import {
  checkOrigin,
  corsHeaders,
  httpAuthorized,
  isOwnPage,
  preflightHeaders,
  type AccessPolicy,
} from './access-policy.js';
import { checkJsonRequestHead, parseJsonBody, tooLarge } from './json-body.js';
import { MAX_LISTED_ERRORS, problemReply, withHeaders, type HttpReply } from './reply.js';
import { answerAtOnce, refuseMisframed, writeReply } from './reply-writer.js';
import { DISCARD_LIMIT_BYTES, readRequestBody } from './request-body.js';
import { framingRefusal } from './request-framing.js';
import { requestIdOf } from './request-id.js';
import { rosErrorReply } from './ros-error-reply.js';
import {
  pathTemplate,
  patternParams,
  type AnyRosCallResult,
  type AnyRoute,
  type HttpMethod,
  type RosCallResult,
  type RouteRequest,
} from './route.js';
import { SERIAL_WAITING_MAX, SerialByKey, type Turn } from './serial-by-key.js';

/**
 * Installs the route table on a uWebSockets.js app. Each route gets its own handler for its method, so
 * uWebSockets.js dispatches; per pattern, every other method answers 405 with `Allow`, OPTIONS answers a
 * CORS preflight, and everything else is 404. A request's whole life is one `Exchange`: the request parts
 * the route declared, the access guard, the body, the handler's result (a reply, a ROS call through the
 * one call wrapper, or a promise), then exactly one answer — or the client leaving, which cancels the call.
 */

export interface RouterSettings {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  readonly policy: AccessPolicy;
  /** Runs the routes' ROS calls (time-out, in-flight count, cancellation, metrics). */
  readonly calls: Pick<RosCalls, 'call'>;
  /** Counts answers by method, path template and status (`tour_bridge_http_requests_total`). */
  readonly requests: CounterFamily;
  /**
   * Asked before a route runs: a reply here is written at once and the connection closed, and the route
   * never runs (used while the service stops, so keep-alive connections start no new work).
   */
  readonly refusal: () => HttpReply | undefined;
}

export interface InstalledRoutes {
  /** Requests started and not yet answered or abandoned by their client (the graceful stop waits for them). */
  readonly inFlight: number;
  /**
   * Answers every request still in flight with `reply` and closes its connection, abandoning its ROS call
   * (the graceful stop's end: a client learns its request was cut rather than getting an empty reply).
   */
  cutInFlight(reply: HttpReply): void;
}

const NO_PARAMS: readonly string[] = [];
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const INTERNAL_ERROR = problemReply(
  'internal-error',
  'an unexpected error occurred; see the log for the request id',
);

/** Most characters of a request path a 404 repeats: a 100 KB path gets no 100 KB body. */
export const ECHO_MAX_CHARS = 200;
const echoed = (text: string): string =>
  text.length <= ECHO_MAX_CHARS ? text : `${text.slice(0, ECHO_MAX_CHARS)}…`;

const validationFailed = (issues: readonly v.BaseIssue<unknown>[]): HttpReply => {
  const errors = issues
    .slice(0, MAX_LISTED_ERRORS)
    .map((issue) => ({ field: issuePath(issue) || '(body)', message: issue.message }));
  const first = errors[0];
  const detail = first === undefined ? 'the body is not valid' : `${first.field}: ${first.message}`;
  const omitted = issues.length - errors.length;
  return problemReply('validation-failed', detail, {
    extensions: omitted > 0 ? { errors, errors_omitted: omitted } : { errors },
  });
};

/** A route as installed: what its handler reads and checks, computed once. */
class InstalledRoute {
  readonly template: string;
  readonly paramCount: number;
  readonly headerNames: readonly string[];
  readonly guarded: boolean;
  readonly needsToken: boolean;
  readonly #counters = new Map<number, PlainCounter>();

  readonly method: HttpMethod;

  constructor(
    readonly route: AnyRoute,
    readonly router: Router,
  ) {
    this.method = route.method;
    this.template = pathTemplate(route.pattern);
    this.paramCount = patternParams(route.pattern).length;
    const { policy } = router.settings;
    // With access control off (the default) nothing is read or checked for it.
    this.guarded = policy.token !== undefined || policy.allowedOrigins !== undefined;
    this.needsToken = policy.token !== undefined && route.access !== 'public';
    const names = new Set(route.reads?.headers ?? []);
    if (route.body !== undefined) {
      for (const name of ['content-type', 'content-length']) names.add(name);
    }
    if (this.guarded) {
      for (const name of ['origin', 'host']) names.add(name);
      if (this.needsToken) names.add('authorization');
    }
    this.headerNames = [...names];
  }

  count(status: number): void {
    let counter = this.#counters.get(status);
    if (counter === undefined) {
      counter = this.router.settings.requests.child(this.method, this.template, String(status));
      this.#counters.set(status, counter);
    }
    counter.inc();
  }

  handle(res: HttpResponse, req: HttpRequest): void {
    const misframed = framingRefusal(req);
    if (misframed !== undefined) {
      refuseMisframed(res, requestIdOf(req), misframed, this.method === 'HEAD');
      this.count(misframed.status);
      return;
    }
    const exchange = new Exchange(this, res, requestIdOf(req));
    const refused = this.router.settings.refusal();
    if (refused !== undefined) {
      exchange.answer(refused, true);
      return;
    }

    let params = NO_PARAMS;
    if (this.paramCount > 0) {
      const values: string[] = [];
      for (let index = 0; index < this.paramCount; index += 1) values.push(req.getParameter(index));
      params = values;
    }
    let headers = NO_HEADERS;
    if (this.headerNames.length > 0) {
      const values: Record<string, string> = {};
      for (const name of this.headerNames) values[name] = req.getHeader(name);
      headers = values;
    }
    const url = this.route.reads?.url === true ? req.getUrl() : '';
    if (this.guarded && !exchange.guard(headers)) return;
    if (this.route.body === undefined) {
      exchange.run({ requestId: exchange.requestId, params, headers, url, body: undefined });
      return;
    }
    exchange.readBody(headers, (body) => ({ requestId: exchange.requestId, params, headers, url, body }));
  }
}

/**
 * One request, from its handler to its one answer. It is also the handler of the request's ROS call, so a
 * tour request allocates this, its RouteRequest and the call wrapper's own record, nothing more.
 */
class Exchange implements RosCallHandler<RosServiceKey> {
  #done = false;
  #abortWatched = false;
  #cors: Readonly<Record<string, string>> | undefined = undefined;
  #call: RosCallTicket | undefined = undefined;
  #toReply: ((response: RosResponse<RosServiceKey>) => HttpReply | AnyRosCallResult) | undefined = undefined;
  /** The request's turn among those with its serial key, held until its answer. */
  #turn: Turn | undefined = undefined;
  #service: RosServiceKey | undefined = undefined;
  /** The answer is a ROS failure, logged by the router's failure log rather than as a line of its own. */
  #rosFailure = false;
  #body: { abort(): void } | undefined = undefined;
  readonly #started = performance.now();

  constructor(
    private readonly installed: InstalledRoute,
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

  /** Access control; answers 401/403 and returns false when the request may not go on. */
  guard(headers: Readonly<Record<string, string>>): boolean {
    const { policy } = this.installed.router.settings;
    const origin = headers['origin'] ?? '';
    // A browser sends Origin on same-origin requests too (POST, PUT, DELETE): those are not cross-origin.
    if (!isOwnPage(policy, origin, headers['host'] ?? '') && checkOrigin(policy, origin) === 'forbidden') {
      this.answer(problemReply('forbidden-origin', `origin ${origin} is not allowed`));
      return false;
    }
    this.#cors = corsHeaders(policy, origin);
    if (this.installed.needsToken && !httpAuthorized(policy, headers['authorization'] ?? '')) {
      this.answer(
        problemReply('unauthorized', 'send the bearer token in an Authorization header: "Bearer <token>"', {
          headers: { 'www-authenticate': 'Bearer realm="tour-bridge"' },
        }),
      );
      return false;
    }
    return true;
  }

  /** Checks the body's head, reads it within the limit, parses and validates it, then runs the route. */
  readBody(headers: Readonly<Record<string, string>>, request: (body: unknown) => RouteRequest): void {
    const maxBodyBytes = this.installed.route.maxBodyBytes ?? this.installed.router.settings.maxBodyBytes;
    const contentLength = headers['content-length'] ?? '';
    const early = checkJsonRequestHead(
      { contentType: headers['content-type'] ?? '', contentLength },
      maxBodyBytes,
    );
    this.#watchAbort();
    if (early !== undefined) {
      if (early.status === 413 && Number(contentLength) <= DISCARD_LIMIT_BYTES) {
        // Read the declared body to its end (discarding it) before the 413, so the client gets the answer.
        this.#body = readRequestBody(this.res, 0, (result) => {
          if (result.kind === 'too-large') this.answer(early, !result.drained);
          else if (result.kind === 'complete') this.answer(early);
        });
        return;
      }
      // The body was not read: close the connection so its bytes are not taken for the next request.
      this.answer(early, true);
      return;
    }
    this.#body = readRequestBody(this.res, maxBodyBytes, (result) => {
      if (result.kind === 'aborted') return;
      if (result.kind === 'too-large') {
        this.answer(tooLarge(maxBodyBytes), !result.drained);
        return;
      }
      const parsed = parseJsonBody(result.bytes);
      if (!parsed.ok) {
        this.answer(parsed.reply);
        return;
      }
      const schema = this.installed.route.body;
      const validated =
        schema === undefined ? undefined : v.safeParse(schema, parsed.value, { abortPipeEarly: true });
      if (validated !== undefined && !validated.success) {
        this.answer(validationFailed(validated.issues));
        return;
      }
      this.run(request(validated?.output));
    });
  }

  run(request: RouteRequest): void {
    let result;
    try {
      result = this.installed.route.handle(request);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (result instanceof Promise) {
      this.#watchAbort();
      result.then(
        (reply) => {
          this.answer(reply);
        },
        (error: unknown) => {
          this.#fail(error);
        },
      );
      return;
    }
    if ('kind' in result) {
      const call = result as RosCallResult;
      if (call.serialKey === undefined) {
        this.#send(call);
        return;
      }
      this.#watchAbort();
      const turn = this.installed.router.serial.enter(call.serialKey, (granted) => {
        this.#turn = granted;
        this.#send(call);
      });
      if (turn === undefined) {
        this.answer(
          problemReply(
            'tour-busy',
            `${this.installed.router.serial.maxWaiting} other changes to this tour are waiting; try again`,
            { headers: { 'retry-after': '1' } },
          ),
        );
      } else this.#turn ??= turn;
      return;
    }
    this.answer(result);
  }

  #send(call: RosCallResult): void {
    this.#toReply = call.reply;
    this.#service = call.service;
    this.#call = this.installed.router.settings.calls.call(call.service, call.request, this);
    // Answered already (a service known to be missing): uWebSockets.js needs nothing more.
    if (!this.#done) this.#watchAbort();
  }

  answered(response: RosResponse<RosServiceKey>): void {
    if (this.#service !== undefined) this.installed.router.rosFailures.succeeded(this.#service);
    let reply: HttpReply | AnyRosCallResult;
    try {
      reply = (this.#toReply ?? (() => INTERNAL_ERROR))(response);
    } catch (error) {
      this.#fail(error);
      return;
    }
    // A next call (the write after a conditional change's read), still within the request's turn.
    if ('kind' in reply) this.#send(reply as RosCallResult);
    else this.answer(reply);
  }

  failed(error: Error): void {
    const reply = rosErrorReply(error);
    if (reply === undefined) {
      this.#fail(error);
      return;
    }
    // Only "unavailable" is summarised: it fails at once, so a retrying client makes one per round trip
    // (~4,500 lines in 4 s were seen); a time-out or a failed call costs its client the wait or the call.
    if (!this.#done && this.#service !== undefined && error instanceof RosServiceUnavailableError) {
      this.#rosFailure = true;
      this.installed.router.rosFailures.failed(this.#service, error, this.#line(reply.status));
    }
    this.answer(reply);
  }

  /** Writes the one answer unless the client left first. */
  answer(reply: HttpReply, closeConnection = false): void {
    if (this.#done) return;
    this.#done = true;
    this.#turn?.release();
    const { router } = this.installed;
    router.inFlight -= 1;
    router.live.delete(this);
    const answered = this.#cors === undefined ? reply : withHeaders(reply, this.#cors);
    const withoutBody = this.installed.method === 'HEAD';
    // endWithoutBody(length, close) does not count as a response in this uWebSockets.js build (see answerAtOnce).
    if ((withoutBody || reply.status === 304) && closeConnection) this.#watchAbort();
    writeReply(this.res, this.requestId, answered, withoutBody, closeConnection);
    this.installed.count(reply.status);
    if (reply.status >= 500 && !this.#rosFailure) {
      router.settings.log.warn(this.#line(reply.status), 'request failed');
    } else if (router.debug) router.settings.log.debug(this.#line(reply.status), 'request');
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

  /** uWebSockets.js reports a client gone before the answer; the request's ROS call is abandoned at once. */
  #watchAbort(): void {
    if (this.#abortWatched) return;
    this.#abortWatched = true;
    this.res.onAborted(() => {
      if (this.#done) return;
      this.#done = true;
      this.#turn?.release();
      this.installed.router.inFlight -= 1;
      this.installed.router.live.delete(this);
      this.#call?.cancel();
      this.#body?.abort();
      this.installed.count(499);
      if (this.installed.router.debug) {
        this.installed.router.settings.log.debug(this.#line(499), 'client went away before the answer');
      }
    });
  }
}

class Router implements InstalledRoutes {
  inFlight = 0;
  /** The exchanges in flight, for the graceful stop to cut. */
  readonly live = new Set<Exchange>();
  readonly debug: boolean;
  /** Unavailable ROS services behind HTTP answers (503), logged per service as runs, not one line each. */
  readonly rosFailures: FailureLog;
  /** Turns of the requests whose calls run one at a time per key (conditional changes to one tour). */
  readonly serial: SerialByKey;
  constructor(readonly settings: RouterSettings) {
    this.debug = settings.log.isLevelEnabled('debug');
    this.serial = new SerialByKey(SERIAL_WAITING_MAX);
    this.rosFailures = createFailureLog(settings.log, {
      keyField: 'service',
      firstMessage: 'request failed',
    });
  }

  cutInFlight(reply: HttpReply): void {
    for (const exchange of [...this.live]) exchange.cut(reply);
  }
}

/** The CORS preflight of a pattern (OPTIONS); forbidden origins were refused by the guard. */
const preflightRoute = (pattern: string, allow: string, policy: AccessPolicy): AnyRoute => ({
  method: 'OPTIONS',
  pattern,
  access: 'public',
  reads: { headers: ['origin'] },
  handle: ({ headers }) => {
    const cors = corsHeaders(policy, headers['origin'] ?? '');
    return {
      status: 204,
      headers: { allow, ...(Object.keys(cors).length > 0 ? preflightHeaders(allow) : {}) },
    };
  },
});

/**
 * Wherever GET is served, HEAD is (RFC 9110 §9.3.2): each GET route also answers HEAD, with GET's status
 * and headers and no body (`Exchange.answer`), unless the table has a HEAD route of its own there.
 */
export const withHeadRoutes = (routes: readonly AnyRoute[]): AnyRoute[] => {
  const ownHead = new Set(routes.filter((route) => route.method === 'HEAD').map((route) => route.pattern));
  return routes.flatMap((route): AnyRoute[] =>
    route.method !== 'GET' || ownHead.has(route.pattern)
      ? [route]
      : [route, { ...route, method: 'HEAD', handle: (request) => route.handle(request) }],
  );
};

export const installRoutes = (
  app: TemplatedApp,
  routes: readonly AnyRoute[],
  settings: RouterSettings,
): InstalledRoutes => {
  const router = new Router(settings);
  const table = withHeadRoutes(routes);
  const methodsByPattern = new Map<string, HttpMethod[]>();
  for (const route of table) {
    const methods = methodsByPattern.get(route.pattern) ?? [];
    if (methods.includes(route.method)) throw new Error(`duplicate route ${route.method} ${route.pattern}`);
    methodsByPattern.set(route.pattern, [...methods, route.method]);
  }

  const install = (route: AnyRoute) => {
    const installed = new InstalledRoute(route, router);
    const handler = (res: HttpResponse, req: HttpRequest) => {
      installed.handle(res, req);
    };
    switch (route.method) {
      case 'GET':
        app.get(route.pattern, handler);
        return;
      case 'HEAD':
        app.head(route.pattern, handler);
        return;
      case 'POST':
        app.post(route.pattern, handler);
        return;
      case 'PUT':
        app.put(route.pattern, handler);
        return;
      case 'DELETE':
        app.del(route.pattern, handler);
        return;
      case 'OPTIONS':
        app.options(route.pattern, handler);
        return;
    }
  };

  for (const route of table) install(route);
  for (const [pattern, methods] of methodsByPattern) {
    const allow = [...methods, 'OPTIONS'].join(', ');
    install(preflightRoute(pattern, allow, settings.policy));
    // Every method the pattern lacks (uWebSockets.js prefers a method's own handler): 405 with Allow.
    const template = pathTemplate(pattern);
    app.any(pattern, (res, req) => {
      const method = req.getMethod().toUpperCase();
      const reply =
        settings.refusal() ??
        problemReply('method-not-allowed', `${method} is not allowed on ${pattern}; allowed: ${allow}`, {
          headers: { allow },
        });
      const misframed = reply.status === 405 ? framingRefusal(req) : undefined;
      if (misframed === undefined) answerAtOnce(res, req, method, reply, reply.status !== 405);
      else refuseMisframed(res, requestIdOf(req), misframed, method === 'HEAD');
      settings.requests.child(method, template, String((misframed ?? reply).status)).inc();
    });
  }

  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const misframed = framingRefusal(req);
    if (misframed === undefined) {
      answerAtOnce(res, req, method, problemReply('not-found', `nothing at ${echoed(req.getUrl())}`), false);
    } else refuseMisframed(res, requestIdOf(req), misframed, method === 'HEAD');
    settings.requests.child(method, 'unmatched', String((misframed ?? { status: 404 }).status)).inc();
  });
  return router;
};
