#!/usr/bin/env node
import { parseCommandLine, type Options } from './cli/options.js';
import { uwsChoice } from './transport/uws-build.js';
import { RclnodejsUnavailableError, rosEnvironmentProblem } from './ros/binding/rclnodejs-loader.js';
import { createLogger, type Logger } from './log/logger.js';
import type { DeferredRosPort } from './ros/port/deferred-port.js';
import { connectRosBackend, loadBackend } from './app/backend.js';
import { startBridge, type RunningBridge } from './app/compose.js';
import { SERVICE_VERSION } from './version.js';

/** Everything after `--ros-args` belongs to ROS (remapping, parameters), as in every ROS 2 executable. */
const splitRosArgs = (argv: readonly string[]): { own: string[]; ros: string[] } => {
  const index = argv.indexOf('--ros-args');
  return index === -1 ? { own: [...argv], ros: [] } : { own: argv.slice(0, index), ros: argv.slice(index) };
};

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);

const fail = (message: string, code: number): never => {
  process.stderr.write(`tour-bridge: ${message}\n`);
  process.exit(code);
};

const SIM_HINT = 'run the simulation instead with --backend sim (or npm run demo)';

const describeBackendFailure = (error: unknown): string => {
  if (error instanceof Error && error.name === 'RclnodejsUnavailableError') {
    return `${error.message}; source ROS 2 first (e.g. source /opt/ros/jazzy/setup.bash) or ${SIM_HINT}`;
  }
  if (error instanceof Error && error.name === 'ZenohRouterUnreachableError') {
    return `the ROS backend failed to start: ${error.message}`;
  }
  return `the ROS backend failed to start: ${error instanceof Error ? error.message : String(error)}; ${SIM_HINT}`;
};

/** Stops on the first SIGINT/SIGTERM: no new connections, sessions closed, then the ROS side. */
const handleShutdown = (
  log: Logger,
  options: Options,
  service: RunningBridge,
  port: DeferredRosPort,
): void => {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, timeoutMs: options.shutdown_timeout_ms }, 'shutting down');
    const deadline = setTimeout(() => {
      log.error({ timeoutMs: options.shutdown_timeout_ms }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, options.shutdown_timeout_ms);
    deadline.unref();
    void service
      .stop()
      .then(async (drained) => {
        await port.close();
        return drained;
      })
      .then(
        (drained) => {
          // The exit code says whether the drain finished: 1 when requests had to be cut.
          if (drained) log.info('stopped');
          else log.warn({ timeoutMs: options.shutdown_timeout_ms }, 'stopped; in-flight work was cut');
          process.exit(drained ? 0 : 1);
        },
        (error: unknown) => {
          log.error({ err: error }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
};

const main = async (): Promise<void> => {
  const { own, ros } = splitRosArgs(process.argv.slice(2));
  const parsed = parseCommandLine(own, process.env);
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  if (parsed.kind === 'error') return fail(parsed.message, 2);
  const { options } = parsed;
  const log = createLogger(options.log_level);

  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection (a bug; the service keeps running)');
  });
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });

  if (!uwsChoice.ok) return fail(uwsChoice.refusal, 2);
  const uws = uwsChoice.build;
  log.info(
    { uws, version: SERVICE_VERSION, node: process.version },
    `uWebSockets.js build: ${uws.name} (${uws.line}): ${uws.reason}`,
  );
  // Known before anything listens: no ROS 2 environment, so the ros backend cannot start at all.
  if (options.backend === 'ros') {
    const problem = rosEnvironmentProblem(process.env);
    if (problem !== undefined) {
      return fail(describeBackendFailure(new RclnodejsUnavailableError(problem)), 1);
    }
  }

  // The server listens first, on a port whose backend may come later: while ROS starts (waiting for
  // the Zenoh router, rcl_init), /health answers and /ready says what is awaited.
  const backend = loadBackend(options, log);
  let service: RunningBridge;
  try {
    service = await startBridge({
      options,
      log,
      uws,
      port: backend.port,
      ...(backend.sim ? { sim: backend.sim } : {}),
    });
  } catch (error) {
    await backend.port.close();
    return fail(error instanceof Error ? error.message : String(error), 1);
  }
  log.info(
    {
      host: options.host,
      port: service.listeningPort,
      backend: backend.port.backend,
      detail: backend.port.description,
    },
    `listening on http://${options.host}:${service.listeningPort} (${backend.port.description})`,
  );
  if (!isLoopback(options.host) && options.auth_token === '') {
    log.warn(
      { host: options.host },
      'listening beyond loopback without a token: anyone who reaches this port can use /ws, /tour and /metrics; set TOUR_BRIDGE_AUTH_TOKEN (and TOUR_BRIDGE_ALLOWED_ORIGINS)',
    );
  }
  handleShutdown(log, options, service, backend.port);
  if (options.backend !== 'ros') {
    service.startedUp();
    return;
  }

  try {
    await connectRosBackend(backend.port, log, {
      rosArgs: ros,
      chatInterface: options.chat_interface,
    });
  } catch (error) {
    // Closed by a signal while starting: the shutdown handler exits.
    if (backend.port.closing.aborted) return;
    backend.port.fail(error instanceof Error ? error.message : String(error));
    // One line, no stack: the reason is the operator's to act on (the stderr line below says how).
    log.fatal({ reason: error instanceof Error ? error.message : String(error) }, 'backend failed to start');
    await service.stop(0);
    return fail(describeBackendFailure(error), 1);
  }
  // Not attached means a signal closed the port while ROS started; the shutdown handler exits.
  if (backend.port.attached === undefined) return;
  log.info({ detail: backend.port.description }, `ROS backend ready: ${backend.port.description}`);
  service.startedUp();
};

void main();
