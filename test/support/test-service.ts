import { parseCommandLine, type Options } from '../../src/cli/options.js';
import { createLogger } from '../../src/log/logger.js';
import type { RosPort } from '../../src/ros/port/ros-port.js';
import {
  createSimBackend,
  type SimBackend,
  type SimBackendOptions,
} from '../../src/robot/sim/sim-backend.js';
import { startBridge, type RunningBridge } from '../../src/app/compose.js';
import { uwsChoice } from '../../src/transport/uws-build.js';
import { logCapture } from './log-capture.js';

/** The build this process chose; a test process that has none fails as the service would refuse. */
const uwsBuild = () => {
  if (!uwsChoice.ok) throw new Error(uwsChoice.refusal);
  return uwsChoice.build;
};

/** Options as the CLI would produce them, on loopback and an ephemeral port unless overridden. */
export const testOptions = (overrides: Record<string, string> = {}): Options => {
  const argv = Object.entries({ host: '127.0.0.1', port: '0', log_level: 'critical', ...overrides }).flatMap(
    ([flag, value]) => [`--${flag}`, value],
  );
  const parsed = parseCommandLine(argv, {});
  if (parsed.kind !== 'run') throw new Error(`bad test options: ${JSON.stringify(parsed)}`);
  return parsed.options;
};

export interface TestService {
  readonly baseUrl: string;
  readonly wsUrl: string;
  readonly service: RunningBridge;
  /** The service's log lines, parsed; filled only with the `captureLogs` option. */
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** The real server on an ephemeral loopback port over the given port (default: a fresh simulation). */
export const startTestService = async (
  port: RosPort,
  options: {
    overrides?: Record<string, string>;
    sim?: SimBackend['sim'];
    webRoot?: string;
    captureLogs?: boolean;
  } = {},
): Promise<TestService> => {
  const resolved = testOptions(options.overrides);
  const logs: Record<string, unknown>[] = [];
  const log =
    options.captureLogs === true
      ? createLogger(resolved.log_level, logCapture(logs))
      : createLogger(resolved.log_level);
  const service = await startBridge({
    options: resolved,
    log,
    uws: uwsBuild(),
    port,
    ...(options.sim === undefined ? {} : { sim: options.sim }),
    ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
  });
  return {
    baseUrl: `http://127.0.0.1:${service.listeningPort}`,
    wsUrl: `ws://127.0.0.1:${service.listeningPort}/ws`,
    service,
    logs,
    stop: async () => {
      await service.stop();
      await port.close();
    },
  };
};

export const startSimService = async (
  simOptions: SimBackendOptions = {},
  overrides: Record<string, string> = {},
  captureLogs = false,
): Promise<TestService & { sim: SimBackend }> => {
  const sim = createSimBackend(simOptions);
  const running = await startTestService(sim, { overrides, sim: sim.sim, captureLogs });
  return { ...running, sim };
};
