import { createHash, timingSafeEqual } from 'node:crypto';
import { problemReply, type HttpReply } from './reply.js';

/**
 * Who may use the service. Off by default (the spec shows no authentication); one setting turns each part
 * on: a bearer token for HTTP and WebSockets, and an allow-list of browser origins for WebSockets and CORS.
 */
export interface AccessPolicy {
  /** Required token, or undefined when authentication is off. */
  readonly token: string | undefined;
  /** Browser origins allowed for WebSockets and CORS, or undefined when any origin may connect. */
  readonly allowedOrigins: ReadonlySet<string> | undefined;
}

export const OPEN_POLICY: AccessPolicy = { token: undefined, allowedOrigins: undefined };

/** The subprotocol a browser offers (with `bearer.<token>`) and the server selects. */
export const WS_SUBPROTOCOL = 'tour-bridge';
const WS_TOKEN_PREFIX = 'bearer.';

export const parseAllowedOrigins = (list: string): ReadonlySet<string> | undefined => {
  const origins = list
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
  return origins.length === 0 ? undefined : new Set(origins);
};

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Constant-time comparison: hashing first makes both sides the same length whatever was sent. */
export const tokenMatches = (expected: string, given: string): boolean =>
  timingSafeEqual(digest(expected), digest(given));

export const bearerToken = (authorization: string): string | undefined => {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
  return match?.[1];
};

/** Whether an HTTP request carries the token (always true when authentication is off). */
export const httpAuthorized = (policy: AccessPolicy, authorization: string): boolean => {
  if (policy.token === undefined) return true;
  const given = bearerToken(authorization);
  return given !== undefined && tokenMatches(policy.token, given);
};

export type OriginCheck = 'allowed' | 'forbidden' | 'not-cross-origin';

/** Requests without an Origin (curl, ROS tools, same-origin GETs) are not cross-origin requests. */
export const checkOrigin = (policy: AccessPolicy, origin: string): OriginCheck => {
  if (origin === '') return 'not-cross-origin';
  if (policy.allowedOrigins === undefined) return 'allowed';
  return policy.allowedOrigins.has(origin) ? 'allowed' : 'forbidden';
};

const IPV4_LITERAL = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const hostnameOf = (host: string): string => {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1); // [IPv6]:port
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
};

const allowedHostsCache = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();
/** The `host[:port]` of each allowed origin. */
const allowedHosts = (origins: ReadonlySet<string>): ReadonlySet<string> => {
  let hosts = allowedHostsCache.get(origins);
  if (hosts === undefined) {
    hosts = new Set(
      [...origins].flatMap((origin) => {
        try {
          return [new URL(origin).host];
        } catch {
          return [];
        }
      }),
    );
    allowedHostsCache.set(origins, hosts);
  }
  return hosts;
};

/**
 * Whether a Host header names this service in a way a foreign page cannot borrow: an IP literal,
 * `localhost`, or the host of an allowed origin. Any other name may be one an attacker's DNS points at
 * the robot (DNS rebinding): their page then sends `Host: evil.example` and `Origin: http://evil.example`,
 * which look same-origin.
 */
const hostCannotBeRebound = (policy: AccessPolicy, host: string): boolean => {
  const hostname = hostnameOf(host).toLowerCase();
  if (hostname === 'localhost' || IPV4_LITERAL.test(hostname) || hostname.startsWith('[')) return true;
  return policy.allowedOrigins !== undefined && allowedHosts(policy.allowedOrigins).has(host.toLowerCase());
};

/**
 * Whether a browser's Origin is the request's own (`http(s)://<Host>`) under a Host that cannot be
 * rebound: the service's own pages, reached by address, `localhost` or an allowed origin's name. Those are
 * not cross-origin requests; browsers send Origin on same-origin POST, PUT, DELETE and WebSocket upgrades
 * too. Under any other Host name only the allow-list admits the request.
 */
const isOwnPage = (policy: AccessPolicy, origin: string, host: string): boolean =>
  origin !== '' &&
  host !== '' &&
  (origin === `http://${host}` || origin === `https://${host}`) &&
  hostCannotBeRebound(policy, host);

/** Response headers that let an allowed browser origin read the answer. */
export const corsHeaders = (policy: AccessPolicy, origin: string): Record<string, string> =>
  policy.allowedOrigins !== undefined && origin !== '' && policy.allowedOrigins.has(origin)
    ? {
        'access-control-allow-origin': origin,
        vary: 'origin',
        // ETag: a cross-origin editor reads a tour's version to send it back in If-Match.
        'access-control-expose-headers': 'x-request-id, etag',
      }
    : {};

export const preflightHeaders = (allow: string): Record<string, string> => ({
  'access-control-allow-methods': allow,
  'access-control-allow-headers': 'authorization, content-type, if-match, x-request-id',
  'access-control-max-age': '600',
});

export type WsAccess =
  | { readonly ok: true; readonly protocol: string | undefined }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/**
 * `/ws`, as an upgrade or as a plain GET asking whether the upgrade would be let in: both are answered by
 * this one check. Browsers cannot set an Authorization header on a WebSocket, so the token may also come
 * as a subprotocol `bearer.<token>` (offered with `tour-bridge`, which the server selects) or a `token`
 * query parameter; the first of header, subprotocol and query that is present is the one checked.
 */
export const checkWebSocketAccess = (
  policy: AccessPolicy,
  request: {
    readonly origin: string;
    readonly protocols: string;
    readonly query: string;
    /** The Authorization header ('' or absent when none was sent). */
    readonly authorization?: string;
    /** The Host header: an Origin equal to `http(s)://<host>` is the service's own page. */
    readonly host?: string;
  },
): WsAccess => {
  if (
    !isOwnPage(policy, request.origin, request.host ?? '') &&
    checkOrigin(policy, request.origin) === 'forbidden'
  ) {
    return { ok: false, status: 403, reason: `origin ${request.origin} is not allowed` };
  }
  const offered = request.protocols
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol.length > 0);
  const protocol = offered.includes(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : undefined;
  if (policy.token === undefined) return { ok: true, protocol };
  const fromProtocol = offered
    .find((item) => item.startsWith(WS_TOKEN_PREFIX))
    ?.slice(WS_TOKEN_PREFIX.length);
  const fromQuery = new URLSearchParams(request.query).get('token') ?? undefined;
  const given =
    (request.authorization === undefined || request.authorization === ''
      ? undefined
      : (bearerToken(request.authorization) ?? '')) ??
    fromProtocol ??
    fromQuery;
  if (given === undefined) return { ok: false, status: 401, reason: 'a token is required' };
  if (!tokenMatches(policy.token, given)) return { ok: false, status: 401, reason: 'the token is not valid' };
  return { ok: true, protocol };
};

/** The answer to a refused `/ws` access, the same for the upgrade and the plain GET. */
export const webSocketRefusal = (access: Extract<WsAccess, { ok: false }>): HttpReply =>
  access.status === 401
    ? problemReply('unauthorized', access.reason, {
        headers: { 'www-authenticate': 'Bearer realm="tour-bridge"' },
      })
    : problemReply('forbidden-origin', access.reason);

/**
 * The 401 or 403 that refuses a request to a route, or undefined when it may go on. `query` is read only
 * for a route checked as the `/ws` upgrade.
 */
export const routeAccessRefusal = (
  policy: AccessPolicy,
  route: { readonly needsToken: boolean; readonly asWebSocket: boolean },
  headers: Readonly<Record<string, string>>,
  query: string,
): HttpReply | undefined => {
  const origin = headers['origin'] ?? '';
  if (route.asWebSocket) {
    const access = checkWebSocketAccess(policy, {
      origin,
      protocols: headers['sec-websocket-protocol'] ?? '',
      query,
      authorization: headers['authorization'] ?? '',
      host: headers['host'] ?? '',
    });
    return access.ok ? undefined : webSocketRefusal(access);
  }
  // A browser sends Origin on same-origin requests too (POST, PUT, DELETE): those are not cross-origin.
  if (!isOwnPage(policy, origin, headers['host'] ?? '') && checkOrigin(policy, origin) === 'forbidden') {
    return problemReply('forbidden-origin', `origin ${origin} is not allowed`);
  }
  if (route.needsToken && !httpAuthorized(policy, headers['authorization'] ?? '')) {
    return problemReply(
      'unauthorized',
      'send the bearer token in an Authorization header: "Bearer <token>"',
      {
        headers: { 'www-authenticate': 'Bearer realm="tour-bridge"' },
      },
    );
  }
  return undefined;
};
