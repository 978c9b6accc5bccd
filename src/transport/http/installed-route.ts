import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import * as v from 'valibot';
import type { PlainCounter } from '../../metrics/plain-metrics.js';
import { issuePath } from '../../protocol/json-issues.js';
import { jsonShapeProblem } from '../../protocol/json-shape.js';
import { framingRefusal, requestQuery } from '../uws-build.js';
import { Exchange, refuseMisframed } from './exchange.js';
import { MAX_LISTED_ERRORS, problemReply, type HttpReply } from './reply.js';
import {
  FLAT_BODY_SHAPE,
  pathTemplate,
  patternParams,
  type AnyRoute,
  type HttpMethod,
  type PathParams,
  type RouteParams,
  type RouteRequest,
} from './route.js';
import type { ExchangeRoute, RouterState } from './router-state.js';

export { HEAD_REFUSALS } from '../uws-build.js';

/**
 * What is read of a request before its handler runs: its framing (checked by ../uws-build.ts), its id,
 * the path parameters, the headers its route declared and its JSON body. Then the request lives as one
 * Exchange (exchange.ts), which runs the handler and writes the one answer.
 */

// ---------------------------------------------------------------------------------------------------------
// The request id

// A caller-supplied id is echoed only when it cannot corrupt a log line or a header.
const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/;

// Our own ids: UUID-shaped, a random part drawn once per process and a counter, so they are unique across
// restarts and cost no random bytes per request (a randomUUID each would be a visible share of a GET's CPU).
const ID_PREFIX = randomUUID().slice(0, 24);
let idCounter = 0;

/** The request's id: the caller's `x-request-id` when it is safe to echo, else one of ours. */
export const requestIdOf = (req: Pick<HttpRequest, 'getHeader'>): string => {
  const given = req.getHeader('x-request-id');
  if (given !== '' && SAFE_REQUEST_ID.test(given)) return given;
  idCounter = (idCounter + 1) % 0x1000000000000;
  return ID_PREFIX + idCounter.toString(16).padStart(12, '0');
};

// ---------------------------------------------------------------------------------------------------------
// Path parameters

/**
 * A route's path parameters as its handler gets them: each percent-decoded, then all validated by the
 * route's schema. A parameter that cannot be decoded, or fails the schema, is the route's problem (400).
 */
export const decodeParams = <Params>(
  declared: RouteParams<Params>,
  raw: PathParams,
): { readonly params: Params } | { readonly refusal: HttpReply } => {
  const decoded: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name] ?? '';
    try {
      decoded[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      return {
        refusal: problemReply(declared.problem, `the ${name} in the path is not valid percent-encoding`),
      };
    }
  }
  const checked = v.safeParse(declared.schema, decoded);
  if (!checked.success) return { refusal: problemReply(declared.problem, checked.issues[0].message) };
  return { params: checked.output };
};

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
// The installed route

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A route as installed: what its handler reads and checks, computed once. */
export class InstalledRoute implements ExchangeRoute {
  readonly template: string;
  readonly paramNames: readonly string[];
  readonly headerNames: readonly string[];
  readonly guarded: boolean;
  readonly needsToken: boolean;
  readonly asWebSocket: boolean;
  readonly #counters = new Map<number, PlainCounter>();

  readonly method: HttpMethod;

  constructor(
    readonly route: AnyRoute,
    readonly router: RouterState,
  ) {
    this.method = route.method;
    this.template = pathTemplate(route.pattern);
    this.paramNames = patternParams(route.pattern);
    const { policy } = router.settings;
    // With access control off (the default) nothing is read or checked for it.
    this.guarded = policy.token !== undefined || policy.allowedOrigins !== undefined;
    this.needsToken = policy.token !== undefined && route.access !== 'public';
    this.asWebSocket = route.access === 'websocket';
    const names = new Set(route.reads?.headers ?? []);
    if (route.body !== undefined) {
      for (const name of ['content-type', 'content-length']) names.add(name);
    }
    if (this.guarded) {
      for (const name of ['origin', 'host']) names.add(name);
      if (this.needsToken) names.add('authorization');
      if (this.asWebSocket) names.add('sec-websocket-protocol');
    }
    this.headerNames = [...names];
  }

  count(status: number): void {
    let counter = this.#counters.get(status);
    if (counter === undefined) {
      counter = this.router.settings.requests.child(this.method, this.template, String(status));
      this.#counters.set(status, counter);
    }
    counter.value += 1;
  }

  /** uWebSockets.js's handler of this route: reads the request, then runs it as one Exchange. */
  readonly handle = (res: HttpResponse, req: HttpRequest): void => {
    const misframed = framingRefusal(req);
    if (misframed !== undefined) {
      refuseMisframed(
        res,
        requestIdOf(req),
        misframed,
        this.method === 'HEAD',
        this.router.settings.deliveries,
      );
      this.count(misframed.status);
      return;
    }
    const exchange = new Exchange(this, res, requestIdOf(req));
    if (this.router.refusal !== undefined) {
      exchange.answer(this.router.refusal, true);
      return;
    }
    const rawParams = this.paramNames.length > 0 ? this.#rawParams(req) : NO_PARAMS;
    const headers = this.headerNames.length > 0 ? this.#headers(req) : NO_HEADERS;
    const url = this.route.reads?.url === true ? req.getUrl() : '';
    if (this.guarded && !exchange.guard(headers, this.asWebSocket ? requestQuery(req) : '')) return;
    let params = NO_PARAMS;
    // The table holds routes of every parameter type; a handler gets what its own schema made.
    const declared = this.route.params as RouteParams<PathParams> | undefined;
    if (declared !== undefined) {
      const decoded = decodeParams(declared, rawParams);
      if ('refusal' in decoded) {
        exchange.answer(decoded.refusal);
        return;
      }
      params = decoded.params;
    }
    const request = { requestId: exchange.requestId, params, headers, url, body: undefined, ros: exchange };
    const schema = this.route.body;
    if (schema === undefined) exchange.run(request);
    else this.#readBody(res, schema, exchange, request);
  };

  /** Checks the body's head, reads it within the limit, parses and validates it, then runs the route. */
  #readBody(res: HttpResponse, schema: v.GenericSchema, exchange: Exchange, request: RouteRequest): void {
    const maxBodyBytes = this.route.maxBodyBytes ?? this.router.settings.maxBodyBytes;
    const contentLength = request.headers['content-length'] ?? '';
    const early = jsonHeadRefusal(request.headers['content-type'] ?? '', contentLength, maxBodyBytes);
    exchange.watchAbort();
    if (early !== undefined) {
      if (early.status === 413 && Number(contentLength) <= DISCARD_LIMIT_BYTES) {
        // Answered at once, before the body: uWebSockets.js reads the declared body to its end and throws
        // it away, so a client still sending reads the answer, and the connection stays usable.
        exchange.answer(early);
        return;
      }
      // The body was not read: close the connection so its bytes are not taken for the next request.
      exchange.answer(early, true);
      return;
    }
    exchange.reading(
      readRequestBody(res, maxBodyBytes, (result) => {
        if (result.kind === 'complete') this.#bodyRead(result.bytes, schema, exchange, request);
        else if (result.kind === 'too-large') exchange.answer(tooLarge(maxBodyBytes), !result.drained);
      }),
    );
  }

  /** The body read whole: its shape checked before it is parsed, then validated, then the route run. */
  #bodyRead(bytes: Buffer, schema: v.GenericSchema, exchange: Exchange, request: RouteRequest): void {
    const shapeProblem = jsonShapeProblem(bytes, this.route.bodyShape ?? FLAT_BODY_SHAPE);
    if (shapeProblem !== undefined) {
      exchange.answer(bodyShapeRefused(shapeProblem));
      return;
    }
    const parsed = parseJsonBody(bytes);
    if (!parsed.ok) {
      exchange.answer(parsed.reply);
      return;
    }
    const validated = v.safeParse(schema, parsed.value, { abortPipeEarly: true });
    if (!validated.success) {
      exchange.answer(validationFailed(validated.issues));
      return;
    }
    const { requestId, params, headers, url, ros } = request;
    exchange.run({ requestId, params, headers, url, body: validated.output, ros });
  }

  /** uWebSockets.js gives the path parameters by position; the route reads them by name. */
  #rawParams(req: HttpRequest): Record<string, string> {
    const values: Record<string, string> = {};
    const names = this.paramNames;
    for (let index = 0; index < names.length; index += 1) {
      values[names[index] ?? ''] = req.getParameter(index) ?? '';
    }
    return values;
  }

  #headers(req: HttpRequest): Record<string, string> {
    const values: Record<string, string> = {};
    for (const name of this.headerNames) values[name] = req.getHeader(name);
    return values;
  }
}
