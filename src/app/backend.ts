import type { Options } from '../cli/options.js';
import type { Logger } from '../log/logger.js';
import { createDeferredPort, type DeferredRosPort } from '../ros/port/deferred-port.js';
import { createSimBackend } from '../robot/sim/sim-backend.js';
import type { SimControl } from '../ros/port/sim-control.js';

export interface LoadedBackend {
  /** The port the server starts on; the simulation is attached at once, ROS by connectRosBackend. */
  readonly port: DeferredRosPort;
  readonly sim?: SimControl;
}

/**
 * The port the server listens on. With `--backend sim` the simulation is attached before this
 * returns (it needs no waiting); with `--backend ros` nothing is attached yet: the server starts first,
 * then connectRosBackend brings ROS up behind the port.
 */
export const loadBackend = (options: Options, log: Logger): LoadedBackend => {
  if (options.backend === 'sim') {
    const port = createDeferredPort({ backend: 'sim', pendingDetail: 'starting the simulation' });
    const sim = createSimBackend({
      latencyMs: options.sim_latency_ms,
      chatParts: options.sim_chat_parts,
      partMs: options.sim_part_ms,
      recognitionRt: options.sim_recognition_rt,
    });
    log.warn(
      {
        backend: 'sim',
        simLatencyMs: options.sim_latency_ms,
        simChatParts: options.sim_chat_parts,
        simPartMs: options.sim_part_ms,
        simRecognitionRt: options.sim_recognition_rt,
      },
      `${sim.description}: chosen with --backend sim; tours live in memory and are lost on exit`,
    );
    port.attach(sim);
    return { port, sim: sim.sim };
  }
  return { port: createDeferredPort({ backend: 'ros', pendingDetail: 'starting the ROS 2 backend' }) };
};

export interface RosBackendSettings {
  /** The command line's ROS arguments (after `--ros-args`). */
  readonly rosArgs?: readonly string[];
  /** `--chat_interface`: with `action` the Converse action client is required and /ready names its server. */
  readonly chatInterface?: 'service' | 'action';
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Creates the rclnodejs backend and attaches it to `port`. rclnodejs is imported only here and only
 * for `--backend ros`, so the simulation runs on machines without ROS 2. Progress (the router wait,
 * rcl_init) shows in /ready; closing the port aborts the start. Rejects when the backend cannot start.
 */
export const connectRosBackend = async (
  port: DeferredRosPort,
  log: Logger,
  { rosArgs = [], chatInterface = 'service', env = process.env }: RosBackendSettings,
): Promise<void> => {
  const { createRclnodejsBackend } = await import('../ros/rclnodejs/rclnodejs-backend.js');
  const backend = await createRclnodejsBackend({
    logger: log,
    rosArgs,
    env,
    chatInterface,
    signal: port.closing,
    onProgress: (detail) => {
      port.setPending(detail);
    },
  });
  port.attach(backend);
};
