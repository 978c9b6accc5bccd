import type * as v from 'valibot';
import type { JsonShape } from '../../protocol/json-shape.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../ros/port/ros-port.js';
import type { HttpReply, ProblemType } from './reply.js';

/**
 * The route table: every HTTP route states its method, pattern, access, body schema, the request parts it
 * reads and its documentation. The router (./router.ts) installs it on uWebSockets.js, deriving the access
 * guard, the CORS preflights, the 405 answers and the metrics label; ./openapi.ts derives the OpenAPI
 * document from the same table. Nothing about a route is said anywhere else.
 */

/** The body shape of a route that states none: one object of scalar fields. */
export const FLAT_BODY_SHAPE: JsonShape = { maxDepth: 1, maxMembers: 16 };

/** OPTIONS routes are the router's own CORS preflights. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

/**
 * `private` (the default): behind the bearer token when the service runs with one. `public`: open to
 * anyone (probes, the API description, the kiosk pages, which hold no data). `websocket`: checked as the
 * `/ws` upgrade is (checkWebSocketAccess: the token in the Authorization header, a `bearer.<token>`
 * subprotocol or the `token` query parameter), for the plain GET that asks whether the upgrade would pass.
 */
export type RouteAccess = 'public' | 'private' | 'websocket';

/** Path parameters as the router reads them: by the names the pattern gives them (`:tour_name`). */
export type PathParams = Readonly<Record<string, string>>;

/**
 * A route's path parameters: the router percent-decodes each one and validates them with `schema` before
 * the body is read; a parameter that is not valid percent-encoding, or fails the schema, is answered 400
 * with `problem` and the schema's message.
 */
export interface RouteParams<Params> {
  readonly schema: v.GenericSchema<PathParams, Params>;
  readonly problem: ProblemType;
}

/** What a handler gets of its request: copied out of uWebSockets.js, only the parts the route declared. */
export interface RouteRequest<Body = unknown, Params = PathParams> {
  readonly requestId: string;
  /** Path parameters, decoded and validated by the route's `params` schema. */
  readonly params: Params;
  /** The declared headers (`reads.headers`), lower-case names; '' when absent. */
  readonly headers: Readonly<Record<string, string>>;
  /** The path, when the route declared `reads.url`; '' otherwise. */
  readonly url: string;
  /** The JSON body, validated by the route's `body` schema; undefined for routes without one. */
  readonly body: Body;
}

/**
 * A handler's answer that is a ROS service call: the router makes it and turns its response into the
 * reply, or into a next call (a conditional change: read the tour, then write it), made the same way.
 */
export interface RosCallResult<K extends RosServiceKey = RosServiceKey> {
  readonly kind: 'ros-call';
  readonly service: K;
  readonly request: RosRequest<K>;
  readonly reply: (response: RosResponse<K>) => HttpReply | AnyRosCallResult;
  /**
   * Requests whose first call names the same key run their calls one request at a time, in arrival
   * order (./serial-by-key.ts): nothing with that key runs between this call and the ones it leads to.
   */
  readonly serialKey?: string;
}

export const rosCall = <K extends RosServiceKey>(
  service: K,
  request: RosRequest<K>,
  reply: (response: RosResponse<K>) => HttpReply | AnyRosCallResult,
  options: { readonly serialKey?: string } = {},
): RosCallResult<K> =>
  options.serialKey === undefined
    ? { kind: 'ros-call', service, request, reply }
    : { kind: 'ros-call', service, request, reply, serialKey: options.serialKey };

/**
 * A reply now, a ROS call (the tour routes: the router applies the call's time-out, cancels it when the
 * client goes and maps ROS failures to 502/503/504), or a promise for the few routes that await something
 * else (the metrics scrape, the simulation's microphone).
 */
export type RouteResult = HttpReply | AnyRosCallResult | Promise<HttpReply>;

/** A ROS call result of any service (a union, so each keeps its own response type). */
export type AnyRosCallResult = { readonly [K in RosServiceKey]: RosCallResult<K> }[RosServiceKey];

/** One documented answer: a description and, for JSON bodies, a schema (a component name or a JSON Schema). */
export interface ResponseDoc {
  readonly description: string;
  readonly schema?: string | object;
  /** Content type of the body; `application/json` when a schema is given. */
  readonly contentType?: string;
  /** Response headers worth naming, each with its description. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteDocs {
  readonly summary: string;
  readonly description?: string;
  /** The statuses the route itself answers; the router's own (body checks, access, 500, 503) are added. */
  readonly responses: Readonly<Record<number, string | ResponseDoc>>;
  /** Documentation of each path parameter, by name. */
  readonly params?: Readonly<Record<string, string>>;
  /** Documentation of each request header the route reads (`reads.headers`), by lower-case name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The request body's schema name in the document's components (routes with a `body`). */
  readonly bodyName?: string;
}

export interface Route<Body = unknown, Params = PathParams> {
  readonly method: HttpMethod;
  /** uWebSockets.js pattern, e.g. `/tour/:tour_name`. */
  readonly pattern: string;
  /** Required when the pattern has parameters: how they are validated. */
  readonly params?: RouteParams<Params>;
  readonly access?: RouteAccess;
  /** A JSON body the router reads (content type, size and syntax checked) and validates with this schema. */
  readonly body?: v.GenericSchema<unknown, Body>;
  /** The largest body this route reads (413 beyond); `--max_body_bytes` when absent. */
  readonly maxBodyBytes?: number;
  /**
   * How deep the body may nest and how many object members it may hold, checked on its bytes before it is
   * parsed (422 beyond); FLAT_BODY_SHAPE when absent.
   */
  readonly bodyShape?: JsonShape;
  /** Request parts the handler reads; nothing else is copied out of uWebSockets.js. */
  readonly reads?: { readonly headers?: readonly string[]; readonly url?: boolean };
  /** Left out of the OpenAPI document when absent (the kiosk pages). */
  readonly docs?: RouteDocs;
  handle(request: RouteRequest<Body, Params>): RouteResult;
}

/** A route of any body type, as tables hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table is heterogeneous in Body
export type AnyRoute = Route<any, any>;

/** `/tour/:tour_name` as the OpenAPI document and the metrics write it: `/tour/{tour_name}`. */
export const pathTemplate = (pattern: string): string => pattern.replace(/:([A-Za-z_]\w*)/g, '{$1}');

export const patternParams = (pattern: string): string[] =>
  [...pattern.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1] ?? '');
