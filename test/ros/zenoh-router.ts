import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, openSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { freeLoopbackPort } from '../support/free-port.js';

/**
 * The Zenoh router of a contract run on rmw_zenoh_cpp, and the environment that makes every process of
 * the graph connect to it the way the container does (`compose.yaml`, the Dockerfile's ENV): client mode
 * through ZENOH_CONFIG_OVERRIDE, ROS_AUTOMATIC_DISCOVERY_RANGE=OFF and ZENOH_ROUTER_CHECK_ATTEMPTS=0.
 * When no router answers on 127.0.0.1:7447 and the caller gave no override of their own, the run starts
 * `rmw_zenohd` itself, on IPv4 loopback, on a port of its own (its default `tcp/[::]:7447` fails on
 * IPv4-only hosts, and 7447 may be another graph's).
 */

export const ZENOH_RMW = 'rmw_zenoh_cpp';
/** The test process reads the router's port here to stop and restart it (router-fault tests). */
export const ROUTER_PORT_VARIABLE = 'TOUR_BRIDGE_TEST_ZENOH_ROUTER_PORT';
const DEFAULT_ROUTER_PORT = 7447;
const ROUTER_START_MS = 20_000;
const PROBE_MS = 1_000;

export const clientOverride = (port: number): string =>
  `mode="client";connect/endpoints=["tcp/127.0.0.1:${port}"]`;

/** The router's own configuration: listen on IPv4 loopback only, no multicast scouting. */
export const routerOverride = (port: number): string =>
  `listen/endpoints=["tcp/127.0.0.1:${port}"];scouting/multicast/enabled=false`;

/** Whether something accepts a TCP connection on 127.0.0.1:`port` within a second. */
export const answers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_MS, () => {
      done(false);
    });
    socket.once('connect', () => {
      done(true);
    });
    socket.once('error', () => {
      done(false);
    });
  });

/** `<prefix>/lib/rmw_zenoh_cpp/rmw_zenohd` of the first ament prefix that has it. */
export const findRouterExecutable = (env: NodeJS.ProcessEnv): string | undefined =>
  (env['AMENT_PREFIX_PATH'] ?? '')
    .split(delimiter)
    .map((prefix) => join(prefix, 'lib', 'rmw_zenoh_cpp', 'rmw_zenohd'))
    .find((candidate) => existsSync(candidate));

export interface RunningRouter {
  readonly port: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crashed router; resolves once it is gone. */
  crash(): Promise<void>;
}

/** Starts `rmw_zenohd` on 127.0.0.1:`port`, logging to `logFile`; resolves once it accepts connections. */
export const startRouter = async (
  env: NodeJS.ProcessEnv,
  port: number,
  logFile: string,
): Promise<RunningRouter> => {
  const executable = findRouterExecutable(env);
  if (executable === undefined) throw new Error('rmw_zenohd not found under AMENT_PREFIX_PATH');
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(executable, [], {
    env: { ...env, RMW_IMPLEMENTATION: ZENOH_RMW, ZENOH_CONFIG_OVERRIDE: routerOverride(port) },
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + ROUTER_START_MS;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`rmw_zenohd did not listen on 127.0.0.1:${port} within ${ROUTER_START_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const gone = once(child, 'exit');
  return {
    port,
    crash: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await gone;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
};

/**
 * The environment of a run on rmw_zenoh, and the router it started (if any). Other RMWs: unchanged.
 * A caller's own ZENOH_CONFIG_OVERRIDE (their router, their mode) is kept as it is.
 */
export const prepareZenoh = async (
  base: NodeJS.ProcessEnv,
  caller: NodeJS.ProcessEnv,
  logFile: string,
): Promise<{ env: NodeJS.ProcessEnv; router: RunningRouter | undefined; description: string }> => {
  if (base['RMW_IMPLEMENTATION'] !== ZENOH_RMW) return { env: base, router: undefined, description: '' };
  const range = caller['ROS_AUTOMATIC_DISCOVERY_RANGE'];
  const env: NodeJS.ProcessEnv = {
    ...base,
    // The container's settings (compose.yaml), unless the caller chose: no multicast discovery (SUBNET
    // comes from a sourced setup.bash, not from a choice), and wait for the router however long it takes.
    ROS_AUTOMATIC_DISCOVERY_RANGE: range === undefined || range === '' || range === 'SUBNET' ? 'OFF' : range,
    ZENOH_ROUTER_CHECK_ATTEMPTS: base['ZENOH_ROUTER_CHECK_ATTEMPTS'] ?? '0',
  };
  if (base['ZENOH_CONFIG_OVERRIDE'] !== undefined) {
    return { env, router: undefined, description: 'the caller’s ZENOH_CONFIG_OVERRIDE' };
  }
  if (await answers(DEFAULT_ROUTER_PORT)) {
    env['ZENOH_CONFIG_OVERRIDE'] = clientOverride(DEFAULT_ROUTER_PORT);
    return { env, router: undefined, description: `the router already on 127.0.0.1:${DEFAULT_ROUTER_PORT}` };
  }
  const router = await startRouter(base, await freeLoopbackPort(), logFile);
  env['ZENOH_CONFIG_OVERRIDE'] = clientOverride(router.port);
  env[ROUTER_PORT_VARIABLE] = String(router.port);
  return { env, router, description: `rmw_zenohd started on 127.0.0.1:${router.port}` };
};
