import type { HttpResponse } from 'uWebSockets.js';
import { finishWhenDrained, type AnswerDeliveries } from './answer-delivery.js';

/** What a route answers; the transport writes it. */
export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export const JSON_CONTENT_TYPE = 'application/json';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_CONTENT_TYPE });

export const jsonReply = (status: number, value: unknown, headers?: Record<string, string>): HttpReply => ({
  status,
  headers: headers === undefined ? JSON_HEADERS : { 'content-type': JSON_CONTENT_TYPE, ...headers },
  body: JSON.stringify(value),
});

/** A JSON answer whose body is already serialised. */
export const jsonTextReply = (status: number, json: string): HttpReply => ({
  status,
  headers: JSON_HEADERS,
  body: json,
});

/** Problem types, each documented in the OpenAPI document. */
export const PROBLEM_TYPES = {
  'bad-request': { status: 400, title: 'Bad request' },
  'malformed-json': { status: 400, title: 'Malformed JSON body' },
  'invalid-tour-name': { status: 400, title: 'Invalid tour name' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'forbidden-origin': { status: 403, title: 'Origin not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  'tour-not-found': { status: 404, title: 'Tour not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'tour-exists': { status: 409, title: 'Tour already exists' },
  'tour-changed': { status: 412, title: 'Tour changed since it was read' },
  'upgrade-required': { status: 426, title: 'Upgrade required' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'validation-failed': { status: 422, title: 'Validation failed' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'request-header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'not-implemented': { status: 501, title: 'Not implemented' },
  'ros-call-failed': { status: 502, title: 'ROS service failed' },
  'tour-store-full': { status: 507, title: 'Tour store full' },
  'ros-unavailable': { status: 503, title: 'ROS service unavailable' },
  'not-ready': { status: 503, title: 'Not ready' },
  'shutting-down': { status: 503, title: 'Shutting down' },
  'tour-busy': { status: 503, title: 'Tour busy' },
  'ros-timeout': { status: 504, title: 'ROS service timed out' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemType = keyof typeof PROBLEM_TYPES;

export const problemTypeUri = (type: ProblemType): string => `urn:tour-bridge:problem:${type}`;

/** RFC 9457 problem details, with `success: false` so clients of the spec's success boolean keep working. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly success: false;
  readonly [extension: string]: unknown;
}

/** Most schema issues a 422 lists: a body of many bad elements gets a bounded answer, the rest counted. */
export const MAX_LISTED_ERRORS = 20;

export const problemReply = (
  type: ProblemType,
  detail: string,
  options: { headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
): HttpReply => {
  const { status, title } = PROBLEM_TYPES[type];
  const body: ProblemBody = {
    ...options.extensions,
    type: problemTypeUri(type),
    title,
    status,
    detail,
    success: false,
  };
  return {
    status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...options.headers },
    body: JSON.stringify(body),
  };
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

const STATUS_LINES = new Map(
  Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), `${code} ${text}`]),
);

export const statusLine = (status: number): string => STATUS_LINES.get(status) ?? `${status} Unknown`;

/** Adds headers to a reply (CORS); the reply itself is shared and never changed. */
export const withHeaders = (reply: HttpReply, headers: Readonly<Record<string, string>>): HttpReply =>
  Object.keys(headers).length === 0 ? reply : { ...reply, headers: { ...reply.headers, ...headers } };

// ---------------------------------------------------------------------------------------------------------
// Writing a reply on a uWebSockets.js response: the router's one way out, with this build's quirks.

const byteLength = (body: string | Uint8Array | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;

/**
 * Writes a reply. Corked: it may run long after the handler returned. A body the connection does not take
 * at once is written on as the client reads (answer-delivery.ts): one answer owed per connection.
 */
export const writeReply = (
  res: HttpResponse,
  requestId: string,
  reply: HttpReply,
  withoutBody: boolean,
  closeConnection: boolean,
  deliveries: AnswerDeliveries,
): void => {
  let rest: Uint8Array | undefined;
  let totalSize = 0;
  res.cork(() => {
    // uWebSockets.js writes `200 OK` itself when no status is written.
    if (reply.status !== 200) res.writeStatus(statusLine(reply.status));
    res.writeHeader('x-request-id', requestId);
    const headers = reply.headers;
    if (headers !== undefined) {
      for (const name in headers) res.writeHeader(name, headers[name] ?? '');
    }
    if (withoutBody || reply.status === 304) {
      // No body, but the length a full GET answer would have (RFC 9110 §8.6): the reply carries that body.
      const length = byteLength(reply.body);
      if (closeConnection) {
        res.endWithoutBody(length, true);
      } else {
        // This build's endWithoutBody(length) leaves the response pending (it waits for `length` body
        // bytes that never come), so the next request on the connection closes it: HEAD or a 304, then
        // GET on the same socket got nothing. The length written as a header and endWithoutBody() with no
        // argument (explicit undefined reads as a length of 2^63) complete the response and keep the
        // connection (test/e2e/http-keep-alive.test.ts).
        res.writeHeader('content-length', String(length));
        res.endWithoutBody();
      }
    } else if (closeConnection) {
      res.end(reply.body ?? '', true);
    } else {
      const body = reply.body ?? '';
      totalSize = byteLength(body);
      const [, done] = res.tryEnd(body, totalSize);
      // Not all taken: the client is not reading. The bytes are kept (a string's made once, here).
      if (!done) rest = typeof body === 'string' ? Buffer.from(body) : body;
    }
  });
  if (rest !== undefined) finishWhenDrained(res, rest, totalSize, deliveries);
};

/**
 * Refuses a request whose length is ambiguous (installed-route.ts) so that nothing behind it on the
 * connection runs. uWebSockets.js goes on parsing what it has already read from a connection after a
 * handler returns, even one that answered with "close": the bytes hidden in the body would run as the
 * next request. So the answer waits for the next turn of the event loop: a request parsed behind it
 * meanwhile finds this one pending, and uWebSockets.js then closes the connection without running it
 * (its rule for requests pipelined behind an unanswered one); otherwise the refusal is sent and the
 * connection closed.
 */
export const refuseMisframed = (
  res: HttpResponse,
  requestId: string,
  reply: HttpReply,
  withoutBody: boolean,
  deliveries: AnswerDeliveries,
): void => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  setImmediate(() => {
    if (!aborted) writeReply(res, requestId, reply, withoutBody, true, deliveries);
  });
};

/**
 * Answers inside the handler, for the router's own replies (405, 404). This uWebSockets.js build does not
 * count endWithoutBody(length, close) (HEAD while stopping) as a response and aborts the process when a
 * handler returns without one or an abort handler, hence the handler attached first.
 */
export const answerAtOnce = (
  res: HttpResponse,
  requestId: string,
  method: string,
  reply: HttpReply,
  closeConnection: boolean,
  deliveries: AnswerDeliveries,
): void => {
  res.onAborted(() => undefined);
  writeReply(res, requestId, reply, method === 'HEAD', closeConnection, deliveries);
};
