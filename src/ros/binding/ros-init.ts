import type { Context } from 'rclnodejs';
import type { Logger } from 'pino';
import { waitForZenohRouter, type RouterWaitDeps } from '../zenoh/router-wait.js';
import { firstLine } from './error-text.js';
import {
  loadRclnodejs,
  RclnodejsUnavailableError,
  rosEnvironmentProblem,
  type Rclnodejs,
} from './rclnodejs-loader.js';
import { rmwLabel } from './rmw-label.js';
import { rclInitArgv } from './ros-args.js';

/** rclnodejs loaded, but the ROS side could not be set up (rcl_init failed, an interface is missing). */
export class RclnodejsSetupError extends Error {
  override readonly name = 'RclnodejsSetupError';
}

/** rmw_zenoh in client mode and no router after the checks ZENOH_ROUTER_CHECK_ATTEMPTS allows. */
export class ZenohRouterUnreachableError extends Error {
  override readonly name = 'ZenohRouterUnreachableError';
}

export interface RosInitOptions {
  readonly logger: Logger;
  /** ROS arguments from the command line, with or without their leading `--ros-args`. */
  readonly rosArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Aborting stops the router wait; an init that already ran is shut down again. */
  readonly signal?: AbortSignal;
  /** Told what start-up waits for now (for /ready). */
  readonly onProgress?: (detail: string) => void;
  /** Replaces the router probe and sleep, for tests. */
  readonly routerWaitDeps?: Partial<RouterWaitDeps>;
}

export interface RosInitialised {
  readonly rcl: Rclnodejs;
  /** Initialised and owned by the caller, who shuts it down. */
  readonly context: Context;
  readonly rmw: string;
}

const ZENOH_RMW = 'rmw_zenoh_cpp';

/**
 * Waits for the Zenoh router when rmw_zenoh is the RMW (asynchronously, see
 * src/ros/zenoh/router-wait.ts), loads rclnodejs, then runs rcl_init in a fresh context with the
 * given ROS arguments. Shared by the bridge and the reference nodes.
 *
 * Throws RclnodejsUnavailableError when rclnodejs cannot be loaded, RclnodejsSetupError when rcl_init
 * fails, and the signal's reason when aborted.
 */
export const initRclnodejs = async (options: RosInitOptions): Promise<RosInitialised> => {
  const env = options.env ?? process.env;
  const signal = options.signal ?? new AbortController().signal;
  const logger = options.logger;
  // Without a sourced ROS 2 there is nothing to wait for: say so at once.
  const problem = rosEnvironmentProblem(env);
  if (problem !== undefined) throw new RclnodejsUnavailableError(problem);

  const rmw = rmwLabel(env);
  if (env['RMW_IMPLEMENTATION']?.trim() === ZENOH_RMW) {
    const waited = await waitForZenohRouter({
      env,
      logger,
      signal,
      ...(options.onProgress === undefined ? {} : { onWaiting: options.onProgress }),
      ...(options.routerWaitDeps === undefined ? {} : { deps: options.routerWaitDeps }),
    });
    if (waited.kind === 'gave-up' && waited.mode === 'client') {
      // A client session cannot open without its router: rcl_init would only fail with Zenoh's words.
      throw new ZenohRouterUnreachableError(
        `no Zenoh router at ${waited.where} after ${waited.checks} check(s) one second apart ` +
          `(ZENOH_ROUTER_CHECK_ATTEMPTS=${env['ZENOH_ROUTER_CHECK_ATTEMPTS'] ?? ''}), and rmw_zenoh in client mode ` +
          'cannot start without one: start the router (ros2 run rmw_zenoh_cpp rmw_zenohd), or set ' +
          'ZENOH_ROUTER_CHECK_ATTEMPTS=0 to wait for it',
      );
    }
    if (waited.kind === 'gave-up' && env === process.env) {
      // rmw_zenoh would now run its own N checks, blocking the event loop for N-1 seconds; one is enough
      // for its warning. rcutils reads the variable with getenv, which sees process.env assignments.
      process.env['ZENOH_ROUTER_CHECK_ATTEMPTS'] = '1';
      logger.info('ZENOH_ROUTER_CHECK_ATTEMPTS set to 1 for rmw_zenoh: tour-bridge already made the checks');
    }
  }

  // After the wait: importing rclnodejs loads its native binding (and, when none matches, rclnodejs
  // compiles one synchronously), which is pointless before the middleware can come up.
  options.onProgress?.('loading rclnodejs');
  const rcl = await loadRclnodejs(env);
  // rclnodejs installs a SIGINT handler at import that shuts every context down behind our back (and,
  // being a listener, stops Node from exiting on Ctrl+C). Our own signal handlers call close().
  rcl.removeSignalHandlers();
  signal.throwIfAborted();

  const argv = rclInitArgv(options.rosArgs ?? []);
  options.onProgress?.(
    `initialising ROS 2 on ${rmw} (rcl_init; on a first start rclnodejs also generates its message bindings)`,
  );
  logger.info({ rmw, rosArgs: argv.slice(1) }, 'initialising ROS 2');
  // A context of our own, so closing shuts down exactly what this process created.
  const context = new rcl.Context();
  try {
    /*
     * This blocks the event loop while rmw_init runs: rclnodejs's init() (dist/index.js, rcl.init)
     * calls its native `init` (src/rcl_context_bindings.cpp, Init) synchronously. With rmw_zenoh and
     * the router reachable this takes about a second (rmw_zenoh's own check; see router-wait.ts).
     * Afterwards init() goes asynchronous: on its first run it generates JavaScript classes for every
     * interface on AMENT_PREFIX_PATH into node_modules/rclnodejs/generated (the image does this at
     * build time, so the directory may stay read-only at run time).
     */
    await rcl.init(context, argv);
  } catch (error) {
    throw new RclnodejsSetupError(`ROS 2 initialisation failed: ${firstLine(error)}`, { cause: error });
  }
  if (signal.aborted) {
    try {
      context.shutdown();
    } catch (error) {
      logger.warn({ err: error }, 'could not shut ROS down after an aborted start');
    }
    signal.throwIfAborted();
  }
  return { rcl, context, rmw };
};
