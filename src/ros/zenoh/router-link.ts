import type { Logger } from 'pino';
import {
  probeConnect,
  ROUTER_CHECK_INTERVAL_MS,
  routerProbePlan,
  type RouterWaitDeps,
} from './router-wait.js';

/*
 * Why the bridge keeps watching its Zenoh router after start-up.
 *
 * When the router of a client session goes away, rmw_zenoh's graph does not notice: the servers it
 * saw stay "available" (measured on rmw_zenoh_cpp 0.2.10 with zenoh-c 1.8.0), so every call is sent
 * into a session with no route and waits for its whole time-out (5 s for a tour, 60 s for a turn).
 * A client reaches nothing but through its router, so while no router answers the bridge answers
 * calls itself, at once: 503 with the reason, and /ready says it. Zenoh reconnects the session by
 * itself once the router is back; the watch then lets calls through again.
 *
 * The check is the start-up wait's: a TCP connection to the session's connect endpoint(s), once a
 * second, closed at once. Only in client mode: a peer still reaches other peers without a router.
 */

export interface RouterLink {
  /** Why calls cannot reach the graph now (the router does not answer), or undefined. */
  down(): string | undefined;
  close(): void;
}

/** A link that is never down: other RMWs, peer mode, endpoints the bridge cannot probe. */
export const ALWAYS_UP: RouterLink = { down: () => undefined, close: () => undefined };

export interface RouterLinkOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly intervalMs?: number;
  readonly deps?: Partial<Pick<RouterWaitDeps, 'probe' | 'now'>>;
}

export const watchRouterLink = ({
  env,
  logger,
  intervalMs = ROUTER_CHECK_INTERVAL_MS,
  deps = {},
}: RouterLinkOptions): RouterLink => {
  const plan = routerProbePlan(env);
  if (plan.kind === 'skip' || plan.mode !== 'client') return ALWAYS_UP;
  const probe = deps.probe ?? probeConnect;
  const now = deps.now ?? (() => Date.now());
  const where = plan.endpoints.map((endpoint) => endpoint.locator).join(' or ');
  const stop = new AbortController();
  let lostSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;

  const check = async (): Promise<void> => {
    const answers = await Promise.all(plan.endpoints.map((endpoint) => probe(endpoint.target, stop.signal)));
    if (stop.signal.aborted) return;
    const up = answers.includes(true);
    if (!up && lostSince === undefined) {
      lostSince = now();
      logger.warn(
        { endpoints: where },
        `the Zenoh router at ${where} does not answer: ROS calls get 503 until it does`,
      );
    } else if (up && lostSince !== undefined) {
      logger.info(
        { endpoints: where, downMs: now() - lostSince },
        `the Zenoh router at ${where} answers again after ${now() - lostSince} ms`,
      );
      lostSince = undefined;
    }
    timer = setTimeout(() => void check(), intervalMs);
    // The watch never keeps the process alive on its own.
    timer.unref();
  };
  void check();

  return {
    down: () =>
      lostSince === undefined
        ? undefined
        : `the Zenoh router at ${where} does not answer (for ${Math.round((now() - lostSince) / 1000)} s)`,
    close: () => {
      stop.abort();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
};
