import type { RosPort } from '../port/ros-port.js';
import { firstLine } from '../binding/error-text.js';
import { createRclnodejsPort } from './rclnodejs-port.js';
import { watchRouterLink } from '../zenoh/router-link.js';
import { loadMessageLostEvents } from './message-lost.js';
import { initRclnodejs, RclnodejsSetupError, type RosInitOptions } from '../binding/ros-init.js';

export { RclnodejsUnavailableError } from '../binding/rclnodejs-loader.js';
export { RclnodejsSetupError } from '../binding/ros-init.js';

export interface RclnodejsBackendOptions extends RosInitOptions {
  /** `--chat_interface`; see RclnodejsPortOptions. Default `service`. */
  readonly chatInterface?: 'service' | 'action';
}

const isMissingInterface = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'MESSAGE_NOT_FOUND';

const describeSetupFailure = (error: unknown): string =>
  isMissingInterface(error)
    ? `a ROS interface is missing (${firstLine(error)}); build ros/tour_guide_interfaces with colcon and source its install/setup.bash`
    : `creating the ROS node failed: ${firstLine(error)}`;

/**
 * The RosPort backed by a real ROS 2 graph through rclnodejs. Start-up (router wait, rcl_init) is in
 * src/ros/binding/ros-init.ts, shared with the reference nodes; the server runs this after it listens, on a deferred port (src/ros/port/deferred-port.ts).
 *
 * Throws RclnodejsUnavailableError when rclnodejs cannot be loaded here, RclnodejsSetupError when it
 * loads but the node cannot be brought up, and the signal's reason when aborted.
 */
export async function createRclnodejsBackend(options: RclnodejsBackendOptions): Promise<RosPort> {
  const logger = options.logger.child({ component: 'ros' });
  const { rcl, context, rmw } = await initRclnodejs({ ...options, logger });
  const attachMessageLost = await loadMessageLostEvents(logger);
  const routerLink =
    rmw === 'rmw_zenoh_cpp' ? watchRouterLink({ env: options.env ?? process.env, logger }) : undefined;
  try {
    return createRclnodejsPort({
      rcl,
      context,
      logger,
      rmw,
      ...(options.chatInterface === undefined ? {} : { chatInterface: options.chatInterface }),
      ...(routerLink === undefined ? {} : { routerLink }),
      ...(attachMessageLost === undefined ? {} : { attachMessageLost }),
    });
  } catch (error) {
    routerLink?.close();
    try {
      context.shutdown();
    } catch (shutdownError) {
      logger.warn({ err: shutdownError }, 'could not shut ROS down after a failed start');
    }
    throw new RclnodejsSetupError(describeSetupFailure(error), { cause: error });
  }
}
