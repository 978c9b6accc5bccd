/**
 * `npm run test:ros`: the contract suites (tour API and /ws conversation, the same assertions as the
 * simulation's) and the checks only a real graph allows (test/ros/real-graph-suite.ts), against real
 * ROS 2 nodes through rclnodejs: the reference tour store and demo chat nodes, bridges with
 * `--backend ros`, each its own process, and the test's own rclnodejs node (test/ros/graph.ts).
 * Skips, saying why in one line, where ROS 2 is not sourced or rclnodejs cannot load. Discovery stays
 * on this host and the run gets a ROS domain of its own unless the caller set ROS_DOMAIN_ID,
 * ROS_AUTOMATIC_DISCOVERY_RANGE or CYCLONEDDS_URI (test/ros/ros-env.ts). In the container it is the
 * acceptance test: `docker compose run --rm bridge npm run test:ros`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRosEnvironment, rosRunEnvironment } from './ros-env.js';
import { ensureShippedBuild } from './shipped-bridge.js';
import { runOutcome } from './tap-summary.js';
import { prepareZenoh, type RunningRouter } from './zenoh-router.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

const LIMITS = {
  /** Importing rclnodejs; a first import on a machine may build or generate bindings. */
  loadRclnodejsMs: 120_000,
  /** Generating rclnodejs's message classes (every package on AMENT_PREFIX_PATH) on a first run. */
  generateMessagesMs: 600_000,
  /** Compiling the service into dist/ when it is older than src/. */
  compileMs: 180_000,
  /** The whole test run, graph start-up included. */
  suiteMs: 15 * 60_000,
  /** After SIGTERM to the test process group, before SIGKILL. */
  stopGraceMs: 10_000,
} as const;

/** Lines of each process's log printed when the run fails. */
const LOG_TAIL_LINES = 60;

function skip(reason: string): never {
  process.stdout.write(`rclnodejs contract suite SKIPPED: ${reason}\n`);
  process.exit(0);
}

const firstLine = (text: string | undefined): string =>
  (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '') ?? '';

/** Whether ROS 2 and rclnodejs can run here; the import runs in a child so a failure cannot hang us. */
const checkEnvironment = (): void => {
  const prefixes = process.env['AMENT_PREFIX_PATH'];
  if (prefixes === undefined || prefixes.trim() === '') {
    skip('ROS 2 is not sourced (AMENT_PREFIX_PATH is not set)');
  }
  const load = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "await import('rclnodejs'); process.exit(0)"],
    {
      cwd: REPO,
      encoding: 'utf8',
      timeout: LIMITS.loadRclnodejsMs,
    },
  );
  // ROS 2 is sourced, so a run was meant: rclnodejs failing to load is a broken setup (no native binding
  // for this ROS, rcl built for another RMW than RMW_IMPLEMENTATION), never a pass. Found on a core whose
  // rcl was linked to Cyclone DDS: `RMW_IMPLEMENTATION=rmw_zenoh_cpp npm run test:ros` said SKIPPED, exit 0.
  const loadFailure =
    load.error !== undefined
      ? load.error.message
      : load.status !== 0
        ? firstLine(load.stderr) || `exit status ${String(load.status)}`
        : undefined;
  if (loadFailure !== undefined) {
    process.stderr.write(
      `rclnodejs contract suite FAILED: ROS 2 is sourced but rclnodejs fails to load: ${loadFailure}; ` +
        'rebuild it against this ROS 2 (npm_config_yes=true npm rebuild rclnodejs --ignore-scripts=false) ' +
        'and check that RMW_IMPLEMENTATION names an RMW this ROS 2 was built with\n',
    );
    process.exit(1);
  }
  const interfaces = prefixes
    .split(delimiter)
    .some((prefix) => existsSync(join(prefix, 'share', 'tour_guide_interfaces', 'package.xml')));
  if (!interfaces) {
    process.stderr.write(
      'rclnodejs contract suite FAILED: tour_guide_interfaces is not on AMENT_PREFIX_PATH; build ' +
        'ros/tour_guide_interfaces with colcon and source its install/setup.bash\n',
    );
    process.exit(1);
  }
};

/**
 * Makes rclnodejs generate its message classes (node_modules/rclnodejs/generated) if they are absent,
 * before any part of the graph starts. Each process's rcl init generates them when the directory is
 * missing, and it checks only that the directory exists: started together, the tour store and the
 * bridge both generated, one saw the other's half-written directory and died (`The message required
 * does not exist: rcl_interfaces, msg, ParameterEvent`). One init here, alone, leaves nothing to race.
 */
const generateMessages = (env: NodeJS.ProcessEnv): void => {
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { default: rcl } = await import('rclnodejs'); await rcl.init(); rcl.shutdown(); process.exit(0)",
    ],
    { cwd: REPO, env, encoding: 'utf8', timeout: LIMITS.generateMessagesMs },
  );
  if (run.error !== undefined || run.status !== 0) {
    const why = run.error?.message ?? (firstLine(run.stderr) || `exit status ${String(run.status)}`);
    process.stderr.write(`rclnodejs contract suite FAILED: generating rclnodejs's messages: ${why}\n`);
    process.exit(1);
  }
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) {
    process.stdout.write(
      `rclnodejs contract suite: generated rclnodejs's messages in ${seconds.toFixed(0)} s\n`,
    );
  }
};

/**
 * The measurements the suite reports as diagnostics (`# latency GET /tour/{name} …`, `# memory: …`,
 * `# footprint: …`).
 */
const tapMeasurements = (tap: string): string[] =>
  [...tap.matchAll(/^\s*# ((?:latency|memory|loss|footprint)[: ].*)$/gm)].map((match) => match[1] ?? '');

const tail = (text: string, lines: number): string => text.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * Runs the test file in a process group of its own, so that a time-out or an interrupt stops it
 * together with every ROS node and bridge it started. Resolves with its exit code.
 */
const runTests = (
  env: NodeJS.ProcessEnv,
  logDir: string,
  tapFile: string,
): Promise<{ code: number; interrupted: NodeJS.Signals | undefined }> =>
  new Promise((resolve) => {
    const suite = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-concurrency=1',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tapFile}`,
        // e.g. `npm run test:ros -- --test-name-pattern="router faults"`
        ...process.argv.slice(2),
        'test/ros/ros-contract.test.ts',
      ],
      {
        cwd: REPO,
        env: { ...env, TOUR_BRIDGE_ROS_CONTRACT: '1', TOUR_BRIDGE_ROS_LOG_DIR: logDir },
        stdio: 'inherit',
        detached: true,
      },
    );
    const pid = suite.pid;
    let killTimer: NodeJS.Timeout | undefined;
    const stopGroup = (why: string) => {
      if (pid === undefined || suite.exitCode !== null || suite.signalCode !== null) return;
      process.stderr.write(`rclnodejs contract suite: stopping the test run (${why})\n`);
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
      killTimer ??= setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, LIMITS.stopGraceMs);
    };
    const deadline = setTimeout(() => {
      stopGroup(`over ${LIMITS.suiteMs / 60_000} min`);
    }, LIMITS.suiteMs);
    let interrupted: NodeJS.Signals | undefined;
    const interrupt = (signal: NodeJS.Signals) => {
      interrupted = signal;
      stopGroup(signal);
    };
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', interrupt);
    suite.once('exit', (code, signal) => {
      clearTimeout(deadline);
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
      // Whatever the test process left behind in its group goes too.
      if (pid !== undefined) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // nothing left
        }
      }
      if (killTimer !== undefined) clearTimeout(killTimer);
      resolve({ code: code ?? (signal === null ? 1 : 128), interrupted });
    });
  });

const main = async (): Promise<void> => {
  checkEnvironment();
  // The memory check measures the service as the image runs it, compiled (test/ros/shipped-bridge.ts).
  const unbuilt = ensureShippedBuild(REPO, LIMITS.compileMs);
  if (unbuilt !== undefined) {
    process.stderr.write(`rclnodejs contract suite FAILED: ${unbuilt}\n`);
    process.exit(1);
  }
  const logDir = await mkdtemp(join(tmpdir(), 'tour-bridge-test-ros-logs-'));
  const tapFile = join(logDir, 'results.tap');
  let code = 1;
  let router: RunningRouter | undefined;
  try {
    const zenoh = await prepareZenoh(
      rosRunEnvironment(process.env),
      process.env,
      join(logDir, 'zenoh-router.log'),
    );
    router = zenoh.router;
    const env = zenoh.env;
    process.stdout.write(`rclnodejs contract suite: ${describeRosEnvironment(env)}\n`);
    if (zenoh.description !== '') {
      process.stdout.write(`rclnodejs contract suite: Zenoh router: ${zenoh.description}\n`);
    }
    generateMessages(env);
    const run = await runTests(env, logDir, tapFile);
    if (run.interrupted !== undefined) {
      process.stderr.write(`rclnodejs contract suite INTERRUPTED by ${run.interrupted}\n`);
      code = 130;
    } else {
      code = await report(run.code, env, logDir, tapFile);
    }
  } catch (error) {
    process.stderr.write(
      `rclnodejs contract suite FAILED: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  } finally {
    await router?.stop();
    await rm(logDir, { recursive: true, force: true });
  }
  process.exit(code);
};

/** Prints the outcome: PASSED with the latencies, or the processes' logs and FAILED. The exit code. */
const report = async (
  exitCode: number,
  env: NodeJS.ProcessEnv,
  logDir: string,
  tapFile: string,
): Promise<number> => {
  const tap = await readFile(tapFile, 'utf8').catch(() => '');
  const { passed, summary } = runOutcome(exitCode, tap);
  if (passed) {
    for (const line of tapMeasurements(tap)) process.stdout.write(`${line.replace(/^(\w+):? /, '$1: ')}\n`);
    process.stdout.write(`rclnodejs contract suite PASSED: ${summary} (${describeRosEnvironment(env)})\n`);
    return 0;
  }
  const code = exitCode === 0 ? 1 : exitCode;
  for (const file of (await readdir(logDir)).filter((name) => name.endsWith('.log')).sort()) {
    const text = await readFile(join(logDir, file), 'utf8');
    process.stderr.write(`--- last lines of ${file}\n${tail(text, LOG_TAIL_LINES)}\n`);
  }
  process.stderr.write(`rclnodejs contract suite FAILED (exit ${code}): ${summary}\n`);
  return code;
};

void main();
