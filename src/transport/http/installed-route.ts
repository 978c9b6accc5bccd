import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import * as v from 'valibot';
import type { PlainCounter } from '../../metrics/plain-metrics.js';
import {
  headCheckedHere,
  headerLineBytes,
  MAX_REQUEST_HEAD_BYTES,
  requestLineBytes,
  requestQuery,
  type HeadProblem,
} from '../uws-build.js';
import { Exchange } from './exchange.js';
import { problemReply, refuseMisframed, type HttpReply } from './reply.js';
import {
  pathTemplate,
  patternParams,
  type AnyRoute,
  type HttpMethod,
  type PathParams,
  type RouteParams,
} from './route.js';
import type { ExchangeRoute, RouterState } from './router-state.js';

/**
 * What is read from a request's head before any body: its framing, its id, the path parameters and the
 * headers its route declared. Then the request lives as one Exchange (exchange.ts).
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
// Framing: the head's size, its Host and the body's length

/** The answer to a request head over the limit, on HTTP routes and on the /ws upgrade alike. */
const HEAD_TOO_LARGE = problemReply(
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
    counter.inc();
  }

  handle(res: HttpResponse, req: HttpRequest): void {
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
    const refused = this.router.settings.refusal();
    if (refused !== undefined) {
      exchange.answer(refused, true);
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
    if (this.route.body === undefined) {
      exchange.run({ requestId: exchange.requestId, params, headers, url, body: undefined });
      return;
    }
    exchange.readBody(headers, (body) => ({ requestId: exchange.requestId, params, headers, url, body }));
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
