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
  /** The ROS side, for this request: its calls are cancelled when the client leaves. */
  readonly ros: RouteRos;
}

/**
 * What a handler may ask of the ROS side. Each call goes through the one call wrapper
 * (src/ros/port/ros-calls.ts: time-out, in-flight bound, cancellation, metrics).
 */
export interface RouteRos {
  /**
   * Calls a ROS service and resolves to its response. A ROS failure rejects, and the router answers it
   * 502, 503 or 504 (a handler need not catch it); when the client leaves first the call is cancelled and
   * the promise never settles, so nothing after it runs.
   */
  call<K extends RosServiceKey>(service: K, request: RosRequest<K>): Promise<RosResponse<K>>;
  /**
   * Waits for this request's turn among those that took one with the same key, in arrival order, and
   * holds it until the request is answered: nothing else with that key runs meanwhile (./exchange.ts).
   * Resolves undefined once the turn is this request's, or to the 503 `tour-busy` to answer when too many
   * requests already wait for it.
   */
  takeTurn(key: string): Promise<HttpReply | undefined>;
}

/** A reply now, or a promise of one (a handler that calls ROS, or awaits something else). */
export type RouteResult = HttpReply | Promise<HttpReply>;

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
