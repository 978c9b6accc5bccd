import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { statusLine, type HttpReply } from './reply.js';
import { requestIdOf } from './request-id.js';

/** Writing a reply on a uWebSockets.js response: the router's one way out, with this build's quirks. */

const byteLength = (body: string | Uint8Array | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;

/** Writes a reply. Corked: it may run long after the handler returned. */
export const writeReply = (
  res: HttpResponse,
  requestId: string,
  reply: HttpReply,
  withoutBody: boolean,
  closeConnection: boolean,
): void => {
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
    } else {
      res.end(reply.body ?? '', closeConnection);
    }
  });
};

/**
 * Refuses a request whose length is ambiguous (request-framing.ts) so that nothing behind it on the
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
): void => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  setImmediate(() => {
    if (!aborted) writeReply(res, requestId, reply, withoutBody, true);
  });
};

/**
 * Answers inside the handler, for the router's own replies (405, 404). This uWebSockets.js build does not
 * count endWithoutBody(length, close) (HEAD while stopping) as a response and aborts the process when a
 * handler returns without one or an abort handler, hence the handler attached first.
 */
export const answerAtOnce = (
  res: HttpResponse,
  req: HttpRequest,
  method: string,
  reply: HttpReply,
  closeConnection: boolean,
): void => {
  res.onAborted(() => undefined);
  writeReply(res, requestIdOf(req), reply, method === 'HEAD', closeConnection);
};
