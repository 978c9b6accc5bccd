import type { HttpRequest } from 'uWebSockets.js';
import { headProblem, MAX_REQUEST_HEAD_BYTES, type HeadProblem } from '../uws-build.js';
import { problemReply, type HttpReply } from './reply.js';

/** The answer to a request head over the limit, on HTTP routes and on the /ws upgrade alike. */
export const HEAD_TOO_LARGE = problemReply(
  'request-header-fields-too-large',
  `the request line and headers take more than ${MAX_REQUEST_HEAD_BYTES} bytes`,
);

/**
 * The answer to a head that is over the limit or has more than one Host (RFC 9112 3.2), the same on both
 * builds and on HTTP routes and the /ws upgrade alike; the official build gives it before any handler runs.
 */
export const HEAD_REFUSALS: Readonly<Record<HeadProblem, HttpReply>> = {
  'too-large': HEAD_TOO_LARGE,
  'several-hosts': problemReply('bad-request', 'the request has more than one Host header'),
};

/**
 * Requests whose length is ambiguous are refused, and their connection closed, before any route runs.
 *
 * The pinned uWebSockets.js build takes the first of several Content-Length headers and treats any
 * Transfer-Encoding as chunked; a front end that reads the other length would then see the rest of the
 * body as the next request on the connection (request smuggling: a `GET /metrics` hidden in a body was
 * answered). So a request with two different Content-Length values, a Transfer-Encoding other than
 * `chunked`, or both framings at once gets 400 (501 for an unknown coding) and its connection is closed:
 * nothing after it on that connection is read as a request.
 *
 * The common request carries neither header, and costs two header look-ups.
 */
export const framingRefusal = (req: HttpRequest): HttpReply | undefined => {
  // The same 431 and 400 on both builds: the official one answers them before any handler runs.
  const head = headProblem(req);
  if (head !== undefined) return HEAD_REFUSALS[head];
  const contentLength = req.getHeader('content-length');
  const transferEncoding = req.getHeader('transfer-encoding');
  if (contentLength === '' && transferEncoding === '') return undefined;
  const lengths = new Set<string>();
  let codings = 0;
  req.forEach((name, value) => {
    if (name === 'content-length') lengths.add(value.trim());
    else if (name === 'transfer-encoding') codings += 1;
  });
  if (lengths.size > 1) {
    return problemReply('bad-request', 'the request has Content-Length headers with different values');
  }
  if (transferEncoding === '') return undefined;
  if (contentLength !== '') {
    return problemReply('bad-request', 'the request has both Content-Length and Transfer-Encoding');
  }
  if (codings > 1 || transferEncoding.trim().toLowerCase() !== 'chunked') {
    return problemReply(
      'not-implemented',
      `transfer coding ${JSON.stringify(transferEncoding.slice(0, 64))} is not supported; send chunked or a Content-Length`,
    );
  }
  return undefined;
};
