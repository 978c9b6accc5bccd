import type { HttpResponse } from 'uWebSockets.js';
import * as v from 'valibot';
import { issuePath } from '../../protocol/json-issues.js';
import { jsonShapeProblem } from '../../protocol/json-shape.js';
import {
  RosServiceUnavailableError,
  type RosCallHandler,
  type RosCallTicket,
  type RosResponse,
  type RosServiceKey,
} from '../../ros/port/ros-port.js';
import { corsHeaders, routeAccessRefusal } from './access-policy.js';
import { MAX_LISTED_ERRORS, problemReply, withHeaders, writeReply, type HttpReply } from './reply.js';
import { rosErrorReply } from './ros-error-reply.js';
import { FLAT_BODY_SHAPE, type AnyRosCallResult, type RosCallResult, type RouteRequest } from './route.js';
import type { ExchangeRoute } from './router-state.js';
import type { Turn } from './serial-by-key.js';

const INTERNAL_ERROR = problemReply(
  'internal-error',
  'an unexpected error occurred; see the log for the request id',
);

// ---------------------------------------------------------------------------------------------------------
// The JSON body: its head checked before a byte is read, then the body read within the limit, its shape
// checked, parsed and validated

/**
 * Most bytes of an oversized body read and thrown away before the 413: a client still sending when the
 * connection closes often fails with EPIPE instead of reading it. Past this the connection is closed.
 */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

const tooLarge = (limit: number): HttpReply =>
  problemReply('payload-too-large', `the request body exceeds the limit of ${limit} bytes`);

/**
 * The refusal a JSON body's head earns, before a byte of the body is read. Only UTF-8 JSON is accepted
 * (RFC 8259): a declared other charset is a client bug worth a clear 415, not a garbled tour name.
 */
const jsonHeadRefusal = (
  contentType: string,
  contentLength: string,
  limit: number,
): HttpReply | undefined => {
  // The type nearly every client sends, with no parameters, needs no parsing.
  if (contentType !== 'application/json') {
    const refused = mediaTypeProblem(contentType);
    if (refused !== undefined) return refused;
  }
  if (contentLength !== '') {
    const declared = /^\d{1,15}$/.test(contentLength) ? Number(contentLength) : Number.NaN;
    if (Number.isNaN(declared)) return problemReply('bad-request', 'content-length is not a number');
    if (declared > limit) return tooLarge(limit);
  }
  return undefined;
};

const mediaTypeProblem = (contentType: string): HttpReply | undefined => {
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType === '') {
    return problemReply(
      'unsupported-media-type',
      'a request body must be sent with content type application/json',
    );
  }
  if (mediaType !== 'application/json') {
    return problemReply(
      'unsupported-media-type',
      `content type ${mediaType} is not supported; send application/json`,
    );
  }
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  if (charset !== undefined && !['charset=utf-8', 'charset="utf-8"'].includes(charset)) {
    return problemReply('unsupported-media-type', `only UTF-8 JSON is accepted, not ${charset}`);
  }
  return undefined;
};

type BodyResult =
  | { readonly kind: 'complete'; readonly bytes: Buffer }
  /** `drained`: the rest of the body was read and thrown away, so the connection can stay open. */
  | { readonly kind: 'too-large'; readonly drained: boolean }
  | { readonly kind: 'aborted' };

/**
 * Collects a body of at most `limit` bytes and hands it to `done` once. uWebSockets.js reuses a chunk's
 * memory after the callback returns, so chunks are copied. Past the limit nothing more is kept and the
 * rest is discarded (up to DISCARD_LIMIT_BYTES). `abort()` reports the client gone: `done` hears `aborted`.
 */
const readRequestBody = (
  res: HttpResponse,
  limit: number,
  done: (result: BodyResult) => void,
): { abort(): void } => {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    done(result);
  };
  res.onData((chunk, isLast) => {
    if (settled) return;
    received += chunk.byteLength;
    if (received > limit) {
      chunks.length = 0;
      if (isLast) settle({ kind: 'too-large', drained: true });
      else if (received > DISCARD_LIMIT_BYTES) settle({ kind: 'too-large', drained: false });
      return;
    }
    chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
    if (isLast) settle({ kind: 'complete', bytes: Buffer.concat(chunks, received) });
  });
  return {
    abort: () => {
      settle({ kind: 'aborted' });
    },
  };
};

/** A body whose shape is over the route's, refused before it is parsed (its cost would follow its shape). */
const bodyShapeRefused = (problem: string): HttpReply => {
  const message = `the body is refused before parsing: ${problem}`;
  return problemReply('validation-failed', message, {
    extensions: { errors: [{ field: '(body)', message }] },
  });
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

const parseJsonBody = (
  bytes: Uint8Array,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reply: HttpReply } => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reply: problemReply('malformed-json', 'the body is not valid UTF-8') };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'unparseable';
    return { ok: false, reply: problemReply('malformed-json', `the body is not valid JSON: ${reason}`) };
  }
};

const validationFailed = (issues: readonly v.BaseIssue<unknown>[]): HttpReply => {
  const errors = issues
    .slice(0, MAX_LISTED_ERRORS)
    .map((issue) => ({ field: issuePath(issue) || '(body)', message: issue.message }));
  const first = errors[0];
  const detail = first === undefined ? 'the body is not valid' : `${first.field}: ${first.message}`;
  const omitted = issues.length - errors.length;
  return problemReply('validation-failed', detail, {
    extensions: omitted > 0 ? { errors, errors_omitted: omitted } : { errors },
  });
};

// ---------------------------------------------------------------------------------------------------------

/**
 * One request, from its handler to its one answer. It is also the handler of the request's ROS call, so a
 * tour request allocates this, its RouteRequest and the call wrapper's own record, nothing more.
 */
export class Exchange implements RosCallHandler<RosServiceKey> {
  #done = false;
  #abortWatched = false;
  #cors: Readonly<Record<string, string>> | undefined = undefined;
  #call: RosCallTicket | undefined = undefined;
  #toReply: ((response: RosResponse<RosServiceKey>) => HttpReply | AnyRosCallResult) | undefined = undefined;
  /** The request's turn among those with its serial key, held until its answer. */
  #turn: Turn | undefined = undefined;
  #service: RosServiceKey | undefined = undefined;
  /** The answer is a ROS failure, logged by the router's failure log rather than as a line of its own. */
  #rosFailure = false;
  #body: { abort(): void } | undefined = undefined;
  readonly #started = performance.now();

  constructor(
    private readonly installed: ExchangeRoute,
    private readonly res: HttpResponse,
    readonly requestId: string,
  ) {
    installed.router.inFlight += 1;
    installed.router.live.add(this);
  }

  /** Cut by the graceful stop: the ROS call is abandoned and `reply` sent, the connection closed. */
  cut(reply: HttpReply): void {
    if (this.#done) return;
    this.#call?.cancel();
    this.#body?.abort();
    this.answer(reply, true);
  }

  /** Access control: answers 401/403 and returns false when the request may not go on. */
  guard(headers: Readonly<Record<string, string>>, query: string): boolean {
    const { policy } = this.installed.router.settings;
    // Empty for an origin not allowed: only an allowed one reads the answer, a refusal included.
    this.#cors = corsHeaders(policy, headers['origin'] ?? '');
    const refusal = routeAccessRefusal(policy, this.installed, headers, query);
    if (refusal !== undefined) this.answer(refusal);
    return refusal === undefined;
  }

  /** Checks the body's head, reads it within the limit, parses and validates it, then runs the route. */
  readBody(headers: Readonly<Record<string, string>>, request: (body: unknown) => RouteRequest): void {
    const maxBodyBytes = this.installed.route.maxBodyBytes ?? this.installed.router.settings.maxBodyBytes;
    const contentLength = headers['content-length'] ?? '';
    const early = jsonHeadRefusal(headers['content-type'] ?? '', contentLength, maxBodyBytes);
    this.#watchAbort();
    if (early !== undefined) {
      if (early.status === 413 && Number(contentLength) <= DISCARD_LIMIT_BYTES) {
        // Answered at once, before the body: uWebSockets.js reads the declared body to its end and throws
        // it away, so a client still sending reads the answer, and the connection stays usable.
        this.answer(early);
        return;
      }
      // The body was not read: close the connection so its bytes are not taken for the next request.
      this.answer(early, true);
      return;
    }
    this.#body = readRequestBody(this.res, maxBodyBytes, (result) => {
      if (result.kind === 'complete') this.#bodyRead(result.bytes, request);
      else if (result.kind === 'too-large') this.answer(tooLarge(maxBodyBytes), !result.drained);
    });
  }

  /** The body read whole: its shape checked before it is parsed, then validated, then the route run. */
  #bodyRead(bytes: Buffer, request: (body: unknown) => RouteRequest): void {
    const shapeProblem = jsonShapeProblem(bytes, this.installed.route.bodyShape ?? FLAT_BODY_SHAPE);
    if (shapeProblem !== undefined) {
      this.answer(bodyShapeRefused(shapeProblem));
      return;
    }
    const parsed = parseJsonBody(bytes);
    if (!parsed.ok) {
      this.answer(parsed.reply);
      return;
    }
    const schema = this.installed.route.body;
    const validated =
      schema === undefined ? undefined : v.safeParse(schema, parsed.value, { abortPipeEarly: true });
    if (validated !== undefined && !validated.success) {
      this.answer(validationFailed(validated.issues));
      return;
    }
    this.run(request(validated?.output));
  }

  run(request: RouteRequest): void {
    let result;
    try {
      result = this.installed.route.handle(request);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (result instanceof Promise) {
      this.#watchAbort();
      result.then(
        (reply) => {
          this.answer(reply);
        },
        (error: unknown) => {
          this.#fail(error);
        },
      );
      return;
    }
    if ('kind' in result) {
      const call = result as RosCallResult;
      if (call.serialKey === undefined) {
        this.#send(call);
        return;
      }
      this.#watchAbort();
      const turn = this.installed.router.serial.enter(call.serialKey, (granted) => {
        this.#turn = granted;
        this.#send(call);
      });
      if (turn === undefined) {
        this.answer(
          problemReply(
            'tour-busy',
            `${this.installed.router.serial.maxWaiting} other changes to this tour are waiting; try again`,
            { headers: { 'retry-after': '1' } },
          ),
        );
      } else this.#turn ??= turn;
      return;
    }
    this.answer(result);
  }

  #send(call: RosCallResult): void {
    this.#toReply = call.reply;
    this.#service = call.service;
    this.#call = this.installed.router.settings.calls.call(call.service, call.request, this);
    // Answered already (a service known to be missing): uWebSockets.js needs nothing more.
    if (!this.#done) this.#watchAbort();
  }

  answered(response: RosResponse<RosServiceKey>): void {
    if (this.#service !== undefined) this.installed.router.rosFailures.succeeded(this.#service);
    let reply: HttpReply | AnyRosCallResult;
    try {
      reply = (this.#toReply ?? (() => INTERNAL_ERROR))(response);
    } catch (error) {
      this.#fail(error);
      return;
    }
    // A next call (the write after a conditional change's read), still within the request's turn.
    if ('kind' in reply) this.#send(reply as RosCallResult);
    else this.answer(reply);
  }

  failed(error: Error): void {
    const reply = rosErrorReply(error);
    if (reply === undefined) {
      this.#fail(error);
      return;
    }
    // Only "unavailable" is summarised: it fails at once, so a retrying client makes one per round trip
    // (a thousand lines a second); a time-out or a failed call costs its client the wait or the call.
    if (!this.#done && this.#service !== undefined && error instanceof RosServiceUnavailableError) {
      this.#rosFailure = true;
      this.installed.router.rosFailures.failed(this.#service, error, this.#line(reply.status));
    }
    this.answer(reply);
  }

  /** Writes the one answer unless the client left first. */
  answer(reply: HttpReply, closeConnection = false): void {
    if (this.#done) return;
    this.#done = true;
    this.#turn?.release();
    const { router } = this.installed;
    router.inFlight -= 1;
    router.live.delete(this);
    const answered = this.#cors === undefined ? reply : withHeaders(reply, this.#cors);
    const withoutBody = this.installed.method === 'HEAD';
    // endWithoutBody(length, close) does not count as a response in this uWebSockets.js build (see answerAtOnce).
    if ((withoutBody || reply.status === 304) && closeConnection) this.#watchAbort();
    writeReply(this.res, this.requestId, answered, withoutBody, closeConnection, router.settings.deliveries);
    this.installed.count(reply.status);
    if (reply.status >= 500 && !this.#rosFailure) {
      router.settings.log.warn(this.#line(reply.status), 'request failed');
    } else if (router.debug) router.settings.log.debug(this.#line(reply.status), 'request');
  }

  #line(status: number) {
    return {
      reqId: this.requestId,
      method: this.installed.method,
      route: this.installed.template,
      status,
      ms: Math.round((performance.now() - this.#started) * 10) / 10,
    };
  }

  #fail(error: unknown): void {
    this.installed.router.settings.log.error(
      { err: error, reqId: this.requestId, method: this.installed.method, route: this.installed.template },
      'route handler threw',
    );
    this.answer(INTERNAL_ERROR);
  }

  /** uWebSockets.js reports a client gone before the answer; the request's ROS call is abandoned at once. */
  #watchAbort(): void {
    if (this.#abortWatched) return;
    this.#abortWatched = true;
    this.res.onAborted(() => {
      if (this.#done) return;
      this.#done = true;
      this.#turn?.release();
      this.installed.router.inFlight -= 1;
      this.installed.router.live.delete(this);
      this.#call?.cancel();
      this.#body?.abort();
      this.installed.count(499);
      if (this.installed.router.debug) {
        this.installed.router.settings.log.debug(this.#line(499), 'client went away before the answer');
      }
    });
  }
}
