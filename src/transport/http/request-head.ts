import { randomUUID } from 'node:crypto';
import type { HttpRequest } from 'uWebSockets.js';

/**
 * The parts of a request a route may use, copied out of uWebSockets.js's stack-allocated request
 * object (it is invalid once the handler returns, so anything read later must be captured here).
 */
export interface RequestHead {
  readonly requestId: string;
  /** Upper-case, as in the Allow header. */
  readonly method: string;
  readonly url: string;
  readonly query: string;
  /** Path parameters, still percent-encoded. */
  readonly params: readonly string[];
  readonly contentType: string;
  readonly contentLength: string;
  readonly transferEncoding: string;
  readonly origin: string;
  /** The Host header, to tell a same-origin browser request from a cross-origin one. */
  readonly host: string;
  readonly authorization: string;
  /** For conditional GETs of static files (304). */
  readonly ifNoneMatch: string;
}

// A caller-supplied id is echoed only when it cannot corrupt a log line or a header.
const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/;

export const captureRequestHead = (req: HttpRequest, paramCount: number): RequestHead => {
  const params: string[] = [];
  for (let index = 0; index < paramCount; index += 1) params.push(req.getParameter(index));
  const givenId = req.getHeader('x-request-id');
  return {
    requestId: SAFE_REQUEST_ID.test(givenId) ? givenId : randomUUID(),
    method: req.getMethod().toUpperCase(),
    url: req.getUrl(),
    query: req.getQuery(),
    params,
    contentType: req.getHeader('content-type'),
    contentLength: req.getHeader('content-length'),
    transferEncoding: req.getHeader('transfer-encoding'),
    origin: req.getHeader('origin'),
    host: req.getHeader('host'),
    authorization: req.getHeader('authorization'),
    ifNoneMatch: req.getHeader('if-none-match'),
  };
};
