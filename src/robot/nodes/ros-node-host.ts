import type { Context, Node } from 'rclnodejs';
import type { Logger } from 'pino';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import { initRclnodejs } from '../../ros/binding/ros-init.js';
import { spinAsleep, type AsleepSpin } from '../../ros/binding/spin-asleep.js';

export interface RosNodeHost {
  readonly rcl: Rclnodejs;
  readonly node: Node;
  /** Fully qualified, after remapping. */
  readonly nodeName: string;
  readonly rmw: string;
  /** Aborted by close(): answers that come later must not touch destroyed entities. */
  readonly closing: AbortSignal;
  /** Starts executing callbacks; call once every entity exists. */
  spin(): void;
  /** Destroys the node and shuts its context down. Idempotent. */
  close(): void;
}

export interface RosNodeHostOptions {
  readonly nodeName: string;
  readonly logger: Logger;
  readonly rosArgs: readonly string[];
  readonly signal: AbortSignal;
}

/**
 * A reference node's ROS side: rclnodejs loaded lazily, the Zenoh router awaited asynchronously, rcl
 * initialised with the command line's ROS arguments (remapping applies as for the bridge), one node.
 */
export const startRosNodeHost = async (options: RosNodeHostOptions): Promise<RosNodeHost> => {
  const { rcl, context, rmw } = await initRclnodejs({
    logger: options.logger,
    rosArgs: options.rosArgs,
    signal: options.signal,
  });
  return hostOver(rcl, context, options.nodeName, rmw, options.logger);
};

const hostOver = (
  rcl: Rclnodejs,
  context: Context,
  name: string,
  rmw: string,
  logger: Logger,
): RosNodeHost => {
  let node: Node;
  try {
    node = new rcl.Node(name, '', context);
  } catch (error) {
    context.shutdown();
    throw error;
  }
  const lifetime = new AbortController();
  let asleep: AsleepSpin | undefined;
  return {
    rcl,
    node,
    nodeName: node.getFullyQualifiedName(),
    rmw,
    closing: lifetime.signal,
    spin: () => {
      asleep = spinAsleep(node);
    },
    close: () => {
      if (lifetime.signal.aborted) return;
      lifetime.abort();
      try {
        asleep?.wakeToStop();
        context.shutdown();
      } catch (error) {
        logger.error({ err: error }, 'error while shutting the ROS node down');
      }
    },
  };
};
