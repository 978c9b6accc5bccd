import type { Logger } from 'pino';
import type { RosPort } from '../ros-port.js';
import { firstLine } from './error-text.js';
import { loadRclnodejs } from './rclnodejs-loader.js';
import { createRclnodejsPort } from './rclnodejs-port.js';
import { rmwLabel } from './readiness.js';
import { rclInitArgv } from './ros-args.js';

export { RclnodejsUnavailableError } from './rclnodejs-loader.js';

/** rclnodejs loaded, but the ROS side could not be set up (rcl_init failed, an interface is missing). */
export class RclnodejsSetupError extends Error {
  override readonly name = 'RclnodejsSetupError';
}

export interface RclnodejsBackendOptions {
  readonly logger: Logger;
  /** ROS arguments from the command line, with or without their leading `--ros-args`. */
  readonly rosArgs?: readonly string[];
}

const isMissingInterface = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'MESSAGE_NOT_FOUND';

const describeSetupFailure = (error: unknown): string =>
  isMissingInterface(error)
    ? `a ROS interface is missing (${firstLine(error)}); build ros/tour_guide_interfaces with colcon and source its install/setup.bash`
    : `creating the ROS node failed: ${firstLine(error)}`;

/**
 * The RosPort backed by a real ROS 2 graph through rclnodejs.
 *
 * Throws RclnodejsUnavailableError when rclnodejs cannot be loaded here, RclnodejsSetupError when
 * it loads but the node cannot be brought up.
 */
export async function createRclnodejsBackend(options: RclnodejsBackendOptions): Promise<RosPort> {
  const logger = options.logger.child({ component: 'ros' });
  const rcl = await loadRclnodejs();
  // rclnodejs installs a SIGINT handler at import that shuts every context down behind our back (and,
  // being a listener, stops Node from exiting on Ctrl+C). The server's signal handler calls close().
  rcl.removeSignalHandlers();

  // A context of our own, so close() shuts down exactly what this port created.
  const context = new rcl.Context();
  const argv = rclInitArgv(options.rosArgs ?? []);
  const rmw = rmwLabel(process.env);
  logger.info(
    { rmw, rosArgs: argv.slice(1) },
    'initialising ROS 2; the event loop waits until the middleware is up',
  );
  try {
    /*
     * This blocks the event loop. rclnodejs's init() (dist/index.js, rcl.init) calls its native
     * `init` (src/rcl_context_bindings.cpp, Init) synchronously on the main thread; that runs rcl_init,
     * which runs rmw_init. With rmw_zenoh_cpp, rmw_init opens the Zenoh session and, unless
     * ZENOH_ROUTER_CHECK_ATTEMPTS is negative, polls for a router once a second
     * (rmw_context_impl_s.cpp, Data constructor; zenoh_config.cpp, zenoh_router_check_attempts):
     * with 0 or unset it polls until a router answers, so nothing else in this process runs until
     * then. Only afterwards does init() go asynchronous: on its first run it generates JavaScript
     * classes for every interface on AMENT_PREFIX_PATH into node_modules/rclnodejs/generated (python
     * per package, without blocking, but it can take minutes and needs that directory writable).
     */
    await rcl.init(context, argv);
  } catch (error) {
    throw new RclnodejsSetupError(`ROS 2 initialisation failed: ${firstLine(error)}`, { cause: error });
  }

  try {
    return createRclnodejsPort({ rcl, context, logger, rmw });
  } catch (error) {
    try {
      context.shutdown();
    } catch (shutdownError) {
      logger.warn({ err: shutdownError }, 'could not shut ROS down after a failed start');
    }
    throw new RclnodejsSetupError(describeSetupFailure(error), { cause: error });
  }
}
