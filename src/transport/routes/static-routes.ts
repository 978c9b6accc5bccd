import { problemReply, type HttpReply } from '../http/reply.js';
import type { AnyRoute } from '../http/route.js';
import type { StaticFile, StaticSite } from '../http/static-site.js';

/** Pages by path; everything else the site holds is under ASSET_PREFIX. */
export const PAGES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/admin': 'admin.html',
};
export const ASSET_PREFIX = '/assets/';

/**
 * Nothing from anywhere but this service: scripts, styles, the audio worklet and the WebSocket
 * (`'self'` covers ws:// to the same host in CSP Level 3) are all same-origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every file is revalidated on each use (`no-cache` + a strong ETag; an unchanged file costs a 304 with no
 * body). Long-lived caching would need content-hashed names, and the browser modules import each other by
 * plain relative names (no bundler rewrites them); worse, a kiosk running cached script against an upgraded
 * service could speak a stale protocol. On the robot's LAN a revalidation is a millisecond round trip.
 */
const CACHE_CONTROL = 'no-cache';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` is ignored, `*` matches anything. */
export const matchesIfNoneMatch = (header: string, etag: string): boolean => {
  if (header === '') return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
};

const fileReply = (file: StaticFile, ifNoneMatch: string): HttpReply => {
  const headers = {
    'cache-control': CACHE_CONTROL,
    etag: file.etag,
    'content-type': file.contentType,
    'x-content-type-options': 'nosniff',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'referrer-policy': 'no-referrer',
  };
  // The router sends no body with a 304, only the length the 200 would have had.
  if (matchesIfNoneMatch(ifNoneMatch, file.etag)) return { status: 304, headers, body: file.body };
  return { status: 200, headers, body: file.body };
};

const notBuilt = (): HttpReply =>
  problemReply(
    'not-found',
    'the kiosk pages are not built into this service (no web root); run `npm run build` and restart',
  );

/**
 * The kiosk (`/`), the operator page (`/admin`) and their assets, GET only (the router adds HEAD). `site` undefined means
 * the web root was missing at start: the API still works and `/` says why there is no page.
 */
export const staticRoutes = (site: StaticSite | undefined): AnyRoute[] => {
  const serve = (key: string, ifNoneMatch: string): HttpReply => {
    if (site === undefined) return notBuilt();
    // An exact key lookup: `..`, percent-encoding or a leading `/` can never name anything outside the map.
    const file = site.get(key);
    return file === undefined ? problemReply('not-found', 'no such file') : fileReply(file, ifNoneMatch);
  };
  // Public: the pages hold no data (the kiosk passes its token on to /ws and /tour). Not in the OpenAPI
  // document, which describes the API.
  const reads = { headers: ['if-none-match'] };
  const pageRoutes = Object.entries(PAGES).map(
    ([pattern, key]): AnyRoute => ({
      method: 'GET',
      pattern,
      access: 'public',
      reads,
      handle: ({ headers }) => serve(key, headers['if-none-match'] ?? ''),
    }),
  );
  const assetRoute: AnyRoute = {
    method: 'GET',
    pattern: `${ASSET_PREFIX}*`,
    access: 'public',
    reads: { ...reads, url: true },
    handle: ({ headers, url }) => serve(url.slice(ASSET_PREFIX.length), headers['if-none-match'] ?? ''),
  };
  return [...pageRoutes, assetRoute];
};
