import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { PlainCounter } from '../../metrics/plain-metrics.js';
import { requestQuery } from '../uws-build.js';
import { Exchange } from './exchange.js';
import { decodeParams } from './path-params.js';
import { refuseMisframed } from './reply-writer.js';
import { framingRefusal } from './request-framing.js';
import { requestIdOf } from './request-id.js';
import {
  pathTemplate,
  patternParams,
  type AnyRoute,
  type HttpMethod,
  type PathParams,
  type RouteParams,
} from './route.js';
import type { ExchangeRoute, RouterState } from './router-state.js';

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
      refuseMisframed(res, requestIdOf(req), misframed, this.method === 'HEAD');
      this.count(misframed.status);
      return;
    }
    const exchange = new Exchange(this, res, requestIdOf(req));
    const refused = this.router.settings.refusal();
    if (refused !== undefined) {
      exchange.answer(refused, true);
      return;
    }

    let rawParams = NO_PARAMS;
    if (this.paramNames.length > 0) {
      const values: Record<string, string> = {};
      // uWebSockets.js gives them by position; the route reads them by name.
      const names = this.paramNames;
      for (let index = 0; index < names.length; index += 1) {
        values[names[index] ?? ''] = req.getParameter(index) ?? '';
      }
      rawParams = values;
    }
    let headers = NO_HEADERS;
    if (this.headerNames.length > 0) {
      const values: Record<string, string> = {};
      for (const name of this.headerNames) values[name] = req.getHeader(name);
      headers = values;
    }
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
}
