import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../../log/logger.js';
import { ClientPresence } from './client-presence.js';
import { problemReply, statusLine, type HttpReply } from './reply.js';
import { checkJsonRequestHead, parseJsonBody, tooLarge } from './json-body.js';
import { captureRequestHead, type RequestHead } from './request-head.js';
import { DISCARD_LIMIT_BYTES, readRequestBody } from './request-body.js';
import type { Route } from './route.js';

export interface RouterOptions {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  /** Called when a routed request starts, and once when it ends (answered or abandoned by the client). */
  readonly onStarted?: (head: RequestHead) => void;
  readonly onAnswered?: (head: RequestHead, status: number, elapsedMs: number) => void;
  /**
   * Asked before a routed request runs: a reply here is written at once and the connection closed, and
   * the route never runs (used while the service stops, so keep-alive connections start no new work).
   */
  readonly refuse?: () => HttpReply | undefined;
}

const countParams = (pattern: string): number =>
  pattern.split('/').filter((part) => part.startsWith(':')).length;

const byteLength = (body: string | Uint8Array | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;

/** Writes a reply unless the client is gone. Always corked: it may run long after the handler returned. */
const writeReply = (
  res: HttpResponse,
  head: RequestHead,
  reply: HttpReply,
  closeConnection: boolean,
): void => {
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    res.writeHeader('x-request-id', head.requestId);
    if (reply.headers !== undefined) {
      for (const name in reply.headers) res.writeHeader(name, reply.headers[name] ?? '');
    }
    if (head.method === 'HEAD' || reply.status === 304) {
      // No body, but the length a full GET answer would have (RFC 9110 §8.6): the reply carries that body.
      res.endWithoutBody(byteLength(reply.body), closeConnection);
    } else {
      res.end(reply.body ?? '', closeConnection);
    }
  });
};

/**
 * Installs routes on a uWebSockets.js app. Routes of one pattern share one handler that dispatches on
 * the method, so every path answers 405 with `Allow` for a method it lacks, and everything else 404.
 */
export const installRoutes = (app: TemplatedApp, routes: readonly Route[], options: RouterOptions): void => {
  const byPattern = new Map<string, Map<string, Route>>();
  for (const route of routes) {
    const methods = byPattern.get(route.pattern) ?? new Map<string, Route>();
    if (methods.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.pattern}`);
    methods.set(route.method, route);
    byPattern.set(route.pattern, methods);
  }

  for (const [pattern, methods] of byPattern) {
    const paramCount = countParams(pattern);
    const allow = [...methods.keys()].join(', ');
    app.any(pattern, (res, req) => {
      const head = captureRequestHead(req, paramCount);
      const started = performance.now();
      options.onStarted?.(head);
      // `done`: answered or abandoned; after it, `res` must not be touched.
      let done = false;
      const client = new ClientPresence();
      const log = options.log.child({ reqId: head.requestId });
      res.onAborted(() => {
        if (done) return;
        done = true;
        client.leave();
        options.onAnswered?.(head, 499, performance.now() - started);
        log.debug({ method: head.method, url: head.url }, 'client went away before the answer');
      });
      const answer = (reply: HttpReply, closeConnection = false) => {
        if (done) return;
        done = true;
        writeReply(res, head, reply, closeConnection);
        const elapsedMs = performance.now() - started;
        options.onAnswered?.(head, reply.status, elapsedMs);
        const line = {
          method: head.method,
          url: head.url,
          status: reply.status,
          ms: Math.round(elapsedMs * 10) / 10,
        };
        if (reply.status >= 500) log.warn(line, 'request failed');
        else log.debug(line, 'request');
      };

      const refused = options.refuse?.();
      if (refused !== undefined) {
        answer(refused, true);
        return;
      }

      const route = methods.get(head.method);
      if (route === undefined) {
        answer(
          problemReply(
            'method-not-allowed',
            `${head.method} is not allowed on ${pattern}; allowed: ${allow}`,
            {
              headers: { allow },
            },
          ),
        );
        return;
      }

      const run = (body: unknown) => {
        Promise.resolve()
          .then(() => route.handle({ head, body, log, client }))
          .then(
            (reply) => {
              answer(reply);
            },
            (error: unknown) => {
              log.error({ err: error, method: head.method, url: head.url }, 'route handler threw');
              answer(
                problemReply(
                  'internal-error',
                  'an unexpected error occurred; see the log for the request id',
                ),
              );
            },
          );
      };

      if (route.jsonBody !== true) {
        run(undefined);
        return;
      }
      const early = checkJsonRequestHead(head, options.maxBodyBytes);
      if (early !== undefined) {
        if (early.status === 413 && Number(head.contentLength) <= DISCARD_LIMIT_BYTES) {
          // Read the declared body to its end (discarding it) before the 413, so the client gets the answer.
          void readRequestBody(res, 0, (listener) => client.onGone(listener)).then((result) => {
            if (result.kind === 'too-large') answer(early, !result.drained);
            else if (result.kind === 'complete') answer(early);
          });
          return;
        }
        // The body was not read: close the connection so its bytes are not taken for the next request.
        answer(early, true);
        return;
      }
      void readRequestBody(res, options.maxBodyBytes, (listener) => client.onGone(listener)).then(
        (result) => {
          if (result.kind === 'aborted') return;
          if (result.kind === 'too-large') {
            answer(tooLarge(options.maxBodyBytes), !result.drained);
            return;
          }
          const parsed = parseJsonBody(result.bytes);
          if (!parsed.ok) answer(parsed.reply);
          else run(parsed.value);
        },
      );
    });
  }

  app.any('/*', (res, req) => {
    const head = captureRequestHead(req, 0);
    options.onStarted?.(head);
    // This uWebSockets.js build does not count endWithoutBody (HEAD) as a response and aborts the process
    // when a handler returns without one or an abort handler; the reply is written before returning anyway.
    res.onAborted(() => undefined);
    writeReply(res, head, problemReply('not-found', `nothing at ${head.url}`), false);
    options.onAnswered?.(head, 404, 0);
  });
};
