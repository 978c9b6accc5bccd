import type { TemplatedApp } from 'uWebSockets.js';
import type { RosServiceKey } from '../../ros/port/ros-port.js';
import { createFailureLog, type FailureLog } from '../../log/failure-log.js';
import { corsHeaders, preflightHeaders, type AccessPolicy } from './access-policy.js';
import type { Exchange } from './exchange.js';
import { answerAtOnce, refuseMisframed } from './exchange.js';
import { InstalledRoute, requestIdOf } from './installed-route.js';
import { problemReply, type HttpReply } from './reply.js';
import { pathTemplate, patternParams, type AnyRoute, type HttpMethod } from './route.js';
import { framingRefusal, methodAsSent } from '../uws-build.js';
import type { RouterSettings, RouterState } from './router-state.js';
import { SERIAL_WAITING_MAX, SerialByKey } from './exchange.js';

/**
 * Installs the route table on a uWebSockets.js app. Each route gets its own handler for its method, so
 * uWebSockets.js dispatches; per pattern, every other method answers 405 with `Allow`, OPTIONS answers a
 * CORS preflight, and everything else is 404. A request is read by its InstalledRoute (installed-route.ts:
 * framing, the parts the route declared) and lives as one Exchange (exchange.ts: the access guard, the
 * handler — it reads its request, awaits its ROS calls through the exchange (the one call wrapper) and
 * returns its reply — then exactly one answer, or the client leaving, which cancels the call).
 */

export type { RouterSettings } from './router-state.js';

export interface InstalledRoutes {
  /** Requests started and not yet answered or abandoned by their client (the graceful stop waits for them). */
  readonly inFlight: number;
  /**
   * Answers every request still in flight with `reply` and closes its connection, abandoning its ROS call
   * (the graceful stop's end: a client learns its request was cut rather than getting an empty reply).
   */
  cutInFlight(reply: HttpReply): void;
  /** From now on every request is answered `reply` at once and its connection closed; no route runs. */
  refuseFromNow(reply: HttpReply): void;
}

/** Most characters of a request path a 404 repeats: a 100 KB path gets no 100 KB body. */
export const ECHO_MAX_CHARS = 200;
const echoed = (text: string): string =>
  text.length <= ECHO_MAX_CHARS ? text : `${text.slice(0, ECHO_MAX_CHARS)}…`;

/**
 * The methods counted under their own name; any other a client sends is counted as `other`, so made-up
 * method names cannot each add a series to /metrics (the official line lets any token through).
 */
const COUNTED_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'CONNECT',
  'TRACE',
]);
const methodLabel = (method: string): string => (COUNTED_METHODS.has(method) ? method : 'other');

class Router implements InstalledRoutes, RouterState {
  inFlight = 0;
  refusal: HttpReply | undefined = undefined;
  /** The exchanges in flight, for the graceful stop to cut. */
  readonly live = new Set<Exchange>();
  readonly debug: boolean;
  /** Unavailable ROS services behind HTTP answers (503), logged per service as runs, not one line each. */
  readonly rosFailures: FailureLog;
  /** The services with a run of failures open in `rosFailures`: only their next answer ends one. */
  readonly failingServices = new Set<RosServiceKey>();
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

  refuseFromNow(reply: HttpReply): void {
    this.refusal = reply;
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
  for (const route of routes) {
    // A handler reads its parameters only as its schema made them.
    if (patternParams(route.pattern).length > 0 && route.params === undefined) {
      throw new Error(`${route.method} ${route.pattern}: path parameters need a params schema`);
    }
  }
  const router = new Router(settings);
  const table = withHeadRoutes(routes);
  const methodsByPattern = new Map<string, HttpMethod[]>();
  for (const route of table) {
    const methods = methodsByPattern.get(route.pattern) ?? [];
    if (methods.includes(route.method)) throw new Error(`duplicate route ${route.method} ${route.pattern}`);
    methodsByPattern.set(route.pattern, [...methods, route.method]);
  }

  const install = (route: AnyRoute) => {
    const handler = new InstalledRoute(route, router).handle;
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
      const method = methodAsSent(req);
      const reply =
        router.refusal ??
        problemReply(
          'method-not-allowed',
          `${echoed(method)} is not allowed on ${pattern}; allowed: ${allow} (method names are case-sensitive)`,
          { headers: { allow } },
        );
      const misframed = reply.status === 405 ? framingRefusal(req) : undefined;
      if (misframed === undefined) {
        answerAtOnce(res, requestIdOf(req), method, reply, reply.status !== 405, settings.deliveries);
      } else refuseMisframed(res, requestIdOf(req), misframed, method === 'HEAD', settings.deliveries);
      settings.requests.child(methodLabel(method), template, String((misframed ?? reply).status)).value += 1;
    });
  }

  app.any('/*', (res, req) => {
    const method = methodAsSent(req);
    const misframed = framingRefusal(req);
    if (misframed === undefined) {
      answerAtOnce(
        res,
        requestIdOf(req),
        method,
        problemReply('not-found', `nothing at ${echoed(req.getUrl())}`),
        false,
        settings.deliveries,
      );
    } else refuseMisframed(res, requestIdOf(req), misframed, method === 'HEAD', settings.deliveries);
    settings.requests.child(
      methodLabel(method),
      'unmatched',
      String((misframed ?? { status: 404 }).status),
    ).value += 1;
  });
  return router;
};
