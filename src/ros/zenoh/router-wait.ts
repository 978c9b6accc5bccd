import { connect } from 'node:net';
import type { Logger } from 'pino';
import {
  describeRouterCheckPolicy,
  probeTargetOf,
  routerCheckPolicy,
  zenohSessionPlan,
  type ProbeTarget,
} from './zenoh-config.js';

/*
 * Why the bridge looks for the Zenoh router itself.
 *
 * rmw_zenoh_cpp checks for its router inside rmw_init (rmw_context_impl_s.cpp, Data constructor):
 * it polls once a second on the calling thread, up to ZENOH_ROUTER_CHECK_ATTEMPTS times (0: forever).
 * rclnodejs runs rcl_init on the JavaScript thread (src/rcl_context_bindings.cpp, Init), so during that
 * poll nothing else in the process runs: no /health, no /ready, no signal handling. In client mode it
 * is worse: Zenoh cannot open a client session without its router (the default session config has
 * `connect.timeout_ms.client: 0` and `exit_on_failure.client: true`), so rcl_init fails at once.
 *
 * So before rcl_init the bridge waits for the router on its own, asynchronously, with the same
 * attempt semantics, by opening a TCP connection to the session's connect endpoint(s). ROS
 * initialisation starts once one answers; rmw_zenoh's own check then succeeds within about a second.
 * A TCP accept means "something listens there", which is the router in every deployment described in
 * docs/deployment.md; rmw_zenoh still makes the real Zenoh-level check afterwards.
 */

/** Between checks, as rmw_zenoh waits between its own. */
export const ROUTER_CHECK_INTERVAL_MS = 1_000;
/** One probe's bound: a router on a reachable host accepts well within it. */
export const ROUTER_PROBE_TIMEOUT_MS = 1_000;

export interface ProbeEndpoint {
  readonly locator: string;
  readonly target: ProbeTarget;
}

export interface RouterWaitDeps {
  /** Whether something accepts a connection at the target; never throws, bounded by its own time-out. */
  readonly probe: (target: ProbeTarget, signal: AbortSignal) => Promise<boolean>;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly now: () => number;
}

export type RouterWaitResult =
  | {
      readonly kind: 'answered';
      readonly locator: string;
      readonly checks: number;
      readonly waitedMs: number;
    }
  | {
      readonly kind: 'gave-up';
      readonly checks: number;
      /** The session's mode: a client cannot open its session without the router, a peer can. */
      readonly mode: string;
      /** The endpoints checked, for the operator's message. */
      readonly where: string;
    }
  | { readonly kind: 'skipped'; readonly reason: string };

export interface RouterWaitOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Aborting stops the wait at once (the promise rejects with the signal's reason). */
  readonly signal: AbortSignal;
  /** Told what is awaited, after each failed check: /ready shows it. */
  readonly onWaiting?: (detail: string) => void;
  readonly deps?: Partial<RouterWaitDeps>;
}

/** Opens a TCP (or Unix socket) connection and closes it at once. */
export const probeConnect = (target: ProbeTarget, signal: AbortSignal): Promise<boolean> =>
  new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const socket =
      target.kind === 'tcp'
        ? connect({ host: target.host, port: target.port })
        : connect({ path: target.path });
    const finish = (answered: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answered);
    };
    const onAbort = () => {
      finish(false);
    };
    const timer = setTimeout(() => {
      finish(false);
    }, ROUTER_PROBE_TIMEOUT_MS);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      finish(true);
    });
    socket.once('error', () => {
      finish(false);
    });
  });

const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

const DEFAULT_DEPS: RouterWaitDeps = { probe: probeConnect, sleep: abortableSleep, now: () => Date.now() };

/** The endpoints the bridge will probe, or why it does not check at all. */
export const routerProbePlan = (
  env: NodeJS.ProcessEnv,
):
  | { kind: 'probe'; endpoints: ProbeEndpoint[]; mode: string; unsupported: string[] }
  | { kind: 'skip'; reason: string } => {
  const raw = env['ZENOH_ROUTER_CHECK_ATTEMPTS'];
  const policy = routerCheckPolicy(raw);
  if (policy.kind === 'skip') return { kind: 'skip', reason: describeRouterCheckPolicy(raw, policy) };
  const plan = zenohSessionPlan(env);
  if (plan.kind === 'unknown') return { kind: 'skip', reason: plan.reason };
  const endpoints: ProbeEndpoint[] = [];
  const unsupported: string[] = [];
  for (const locator of plan.endpoints) {
    const target = probeTargetOf(locator);
    if ('unsupported' in target) unsupported.push(target.unsupported);
    else endpoints.push({ locator, target });
  }
  if (endpoints.length === 0) {
    return {
      kind: 'skip',
      reason:
        plan.endpoints.length === 0
          ? `no connect endpoint in ${plan.source}`
          : `no endpoint tour-bridge can probe (${unsupported.join('; ')})`,
    };
  }
  return { kind: 'probe', endpoints, mode: plan.mode, unsupported };
};

/**
 * Waits until a connect endpoint of the Zenoh session answers, checking once a second, as often as
 * ZENOH_ROUTER_CHECK_ATTEMPTS says (0: until it answers; negative: not at all; unset: once). Logs one
 * line when it starts waiting, and one when the router answered or the checks ran out.
 */
export const waitForZenohRouter = async (options: RouterWaitOptions): Promise<RouterWaitResult> => {
  const deps: RouterWaitDeps = { ...DEFAULT_DEPS, ...options.deps };
  const { logger, signal } = options;
  const raw = options.env['ZENOH_ROUTER_CHECK_ATTEMPTS'];
  const policy = routerCheckPolicy(raw);
  const plan = routerProbePlan(options.env);
  if (plan.kind === 'skip' || policy.kind === 'skip') {
    const reason = plan.kind === 'skip' ? plan.reason : describeRouterCheckPolicy(raw, policy);
    logger.info({ reason }, `not checking for the Zenoh router before ROS initialisation: ${reason}`);
    return { kind: 'skipped', reason };
  }
  const locators = plan.endpoints.map((endpoint) => endpoint.locator);
  const where = locators.join(' or ');
  const how = describeRouterCheckPolicy(raw, policy);
  if (plan.unsupported.length > 0) {
    logger.warn(
      { unsupported: plan.unsupported },
      'some Zenoh connect endpoints cannot be probed; ignoring them',
    );
  }

  options.onWaiting?.(
    `looking for the Zenoh router at ${where} (${plan.mode} mode) before initialising ROS 2; ${how}`,
  );
  const started = deps.now();
  let checks = 0;
  for (;;) {
    signal.throwIfAborted();
    const answers = await Promise.all(plan.endpoints.map((endpoint) => deps.probe(endpoint.target, signal)));
    signal.throwIfAborted();
    checks += 1;
    const answered = plan.endpoints.find((_, index) => answers[index] === true);
    if (answered !== undefined) {
      const waitedMs = deps.now() - started;
      if (checks > 1) {
        logger.info(
          { endpoint: answered.locator, checks, waitedMs },
          `the Zenoh router answered at ${answered.locator} after ${checks} checks; initialising ROS 2`,
        );
      }
      return { kind: 'answered', locator: answered.locator, checks, waitedMs };
    }
    const detail = `waiting for the Zenoh router at ${where} (${plan.mode} mode) before initialising ROS 2; ${how}; ${checks} check(s) so far`;
    options.onWaiting?.(detail);
    if (checks === 1) {
      // The one line an operator needs: what is awaited, where, and for how long.
      logger.warn(
        { endpoints: locators, mode: plan.mode, policy: how },
        `waiting for the Zenoh router at ${where} before initialising ROS 2 (${how})`,
      );
    } else {
      logger.debug({ checks }, 'no Zenoh router yet');
    }
    if (checks >= policy.maxAttempts) {
      if (plan.mode !== 'client') {
        logger.warn(
          { endpoints: locators, checks },
          `no Zenoh router at ${where} after ${checks} check(s); initialising ROS 2 anyway (${plan.mode} mode), as rmw_zenoh does`,
        );
      }
      return { kind: 'gave-up', checks, mode: plan.mode, where };
    }
    await deps.sleep(ROUTER_CHECK_INTERVAL_MS, signal);
  }
};
