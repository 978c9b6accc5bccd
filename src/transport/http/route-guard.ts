import {
  checkOrigin,
  corsHeaders,
  httpAuthorized,
  isSameOrigin,
  preflightHeaders,
  type AccessPolicy,
} from './access-policy.js';
import { problemReply, type HttpReply } from './reply.js';
import type { RequestHead } from './request-head.js';
import type { HttpMethod, Route } from './route.js';

/**
 * Applies the access policy to routes, so routes themselves stay free of it: a bearer token on every
 * route not marked public, CORS headers for allowed browser origins, and an OPTIONS preflight per path.
 */

/** A browser sends Origin on same-origin requests too (POST, PUT, DELETE): those are not cross-origin. */
const originForbidden = (policy: AccessPolicy, head: RequestHead): boolean =>
  !isSameOrigin(head.origin, head.host) && checkOrigin(policy, head.origin) === 'forbidden';

const withHeaders = (reply: HttpReply, headers: Record<string, string>): HttpReply =>
  Object.keys(headers).length === 0 ? reply : { ...reply, headers: { ...reply.headers, ...headers } };

const guard = (policy: AccessPolicy, route: Route, isPublic: boolean): Route => ({
  ...route,
  handle: async (context) => {
    const { head } = context;
    const cors = corsHeaders(policy, head.origin);
    if (originForbidden(policy, head)) {
      return problemReply('forbidden-origin', `origin ${head.origin} is not allowed`);
    }
    if (!isPublic && !httpAuthorized(policy, head.authorization)) {
      return withHeaders(
        problemReply('unauthorized', 'send the bearer token in an Authorization header: "Bearer <token>"', {
          headers: { 'www-authenticate': 'Bearer realm="tour-bridge"' },
        }),
        cors,
      );
    }
    return withHeaders(await route.handle(context), cors);
  },
});

const preflight = (policy: AccessPolicy, pattern: string, methods: readonly HttpMethod[]): Route => {
  const allow = [...methods, 'OPTIONS'].join(', ');
  return {
    method: 'OPTIONS',
    pattern,
    handle: ({ head }) => {
      if (originForbidden(policy, head)) {
        return problemReply('forbidden-origin', `origin ${head.origin} is not allowed`);
      }
      const cors = corsHeaders(policy, head.origin);
      return {
        status: 204,
        headers: { allow, ...cors, ...(Object.keys(cors).length > 0 ? preflightHeaders(allow) : {}) },
      };
    },
  };
};

export const guardRoutes = (
  routes: readonly Route[],
  policy: AccessPolicy,
  isPublic: (route: Route) => boolean,
): Route[] => {
  const methodsByPattern = new Map<string, HttpMethod[]>();
  for (const route of routes) {
    methodsByPattern.set(route.pattern, [...(methodsByPattern.get(route.pattern) ?? []), route.method]);
  }
  const preflights = [...methodsByPattern].map(([pattern, methods]) => preflight(policy, pattern, methods));
  // With access control off (the default) nothing is checked: the routes stay as they are, off the hot path.
  if (policy.token === undefined && policy.allowedOrigins === undefined) return [...routes, ...preflights];
  return [...routes.map((route) => guard(policy, route, isPublic(route))), ...preflights];
};
