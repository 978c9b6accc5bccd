import type { Options } from '../cli/options.js';
import type { Logger } from '../log/logger.js';
import type { RosPort } from './ros-port.js';
import { createSimBackend, type SimControl } from './sim/sim-backend.js';

export interface LoadedBackend {
  readonly port: RosPort;
  readonly sim?: SimControl;
}

/**
 * Creates the chosen backend. rclnodejs is imported only here and only for `--backend ros`, so the
 * simulation runs on machines without ROS 2.
 */
export const loadBackend = async (
  options: Options,
  log: Logger,
  rosArgs: readonly string[] = [],
): Promise<LoadedBackend> => {
  if (options.backend === 'sim') {
    const sim = createSimBackend({ latencyMs: options.sim_latency_ms });
    log.warn(
      { backend: 'sim', simLatencyMs: options.sim_latency_ms },
      `${sim.description}: chosen with --backend sim; tours live in memory and are lost on exit`,
    );
    return { port: sim, sim: sim.sim };
  }
  const { createRclnodejsBackend } = await import('./rclnodejs/rclnodejs-backend.js');
  return { port: await createRclnodejsBackend({ logger: log, rosArgs }) };
};
