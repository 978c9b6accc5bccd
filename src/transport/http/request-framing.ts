import type { HttpRequest } from 'uWebSockets.js';
import {
  headCheckedHere,
  headerLineBytes,
  MAX_REQUEST_HEAD_BYTES,
  requestLineBytes,
  type HeadProblem,
} from '../uws-build.js';
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
 * Where the head is checked here too (the Node.js 20 build), one pass over the headers serves both checks;
 * elsewhere the common request carries neither header, and costs two header look-ups.
 */
export const framingRefusal = (req: HttpRequest): HttpReply | undefined => {
  if (headCheckedHere) {
    scanHead(req, requestLineBytes(req));
    // The same 431 and 400 on both builds: the official one answers them before any handler runs.
    if (scan.bytes > MAX_REQUEST_HEAD_BYTES) return HEAD_REFUSALS['too-large'];
    if (scan.hosts > 1) return HEAD_REFUSALS['several-hosts'];
    if (scan.contentLength === '' && scan.transferEncoding === '') return undefined;
  } else {
    // As the scan below reads them: the first of each, '' when absent.
    const contentLength = req.getHeader('content-length');
    const transferEncoding = req.getHeader('transfer-encoding');
    if (contentLength === '' && transferEncoding === '') return undefined;
    scanHead(req, 0);
  }
  return framingProblem(scan);
};

/** What one pass over a request's headers found; reset by each pass (one request at a time). */
const scan = {
  bytes: 0,
  hosts: 0,
  /** The first Content-Length value, '' when there is none (as `getHeader` gives it). */
  contentLength: '',
  contentLengths: 0,
  /** The first Content-Length value trimmed, which every other must equal. */
  firstLengthTrimmed: '',
  lengthsDiffer: false,
  /** The first Transfer-Encoding value, '' when there is none. */
  transferEncoding: '',
  codings: 0,
};
// One function for every request: forEach gets no closure made per request.
const visitHeader = (name: string, value: string): void => {
  scan.bytes += headerLineBytes(name, value);
  if (name === 'host') {
    scan.hosts += 1;
  } else if (name === 'content-length') {
    const trimmed = value.trim();
    if (scan.contentLengths === 0) {
      scan.contentLength = value;
      scan.firstLengthTrimmed = trimmed;
    } else if (trimmed !== scan.firstLengthTrimmed) {
      scan.lengthsDiffer = true;
    }
    scan.contentLengths += 1;
  } else if (name === 'transfer-encoding') {
    if (scan.codings === 0) scan.transferEncoding = value;
    scan.codings += 1;
  }
};

const scanHead = (req: HttpRequest, requestLine: number): void => {
  scan.bytes = requestLine;
  scan.hosts = 0;
  scan.contentLength = '';
  scan.contentLengths = 0;
  scan.firstLengthTrimmed = '';
  scan.lengthsDiffer = false;
  scan.transferEncoding = '';
  scan.codings = 0;
  req.forEach(visitHeader);
};

const framingProblem = ({
  contentLength,
  lengthsDiffer,
  transferEncoding,
  codings,
}: typeof scan): HttpReply | undefined => {
  if (lengthsDiffer) {
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
