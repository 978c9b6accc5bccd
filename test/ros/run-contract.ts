/**
 * `npm run test:ros`: the contract suites (tour API and /ws conversation, the same assertions as the
 * simulation's) against real ROS 2 nodes through rclnodejs: the reference tour store and demo chat
 * nodes and the bridge with `--backend ros`, each its own process. Skips, saying why in one line, where
 * ROS 2 is not sourced or rclnodejs cannot load. In the container it is the acceptance test:
 * `docker compose run --rm bridge npm run test:ros`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from './processes.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSX = [process.execPath, '--import', 'tsx'];

/** Bounds of every wait. The first start on a machine may generate rclnodejs's message bindings. */
const LIMITS = {
  loadRclnodejsMs: 120_000,
  listeningMs: 180_000,
  graphReadyMs: 60_000,
  suiteMs: 10 * 60_000,
  restartMs: 60_000,
} as const;

/**
 * CycloneDDS on the loopback interface only, without multicast, with 127.0.0.1 as its only peer:
 * unicast discovery between the processes of this run and nothing else on the network.
 */
const CYCLONEDDS_LOOPBACK =
  '<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface name="lo"/></Interfaces>' +
  '<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>' +
  '<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers>' +
  '</Discovery></Domain></CycloneDDS>';

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
  if (load.error !== undefined) skip(`rclnodejs failed to load: ${load.error.message}`);
  if (load.status !== 0) {
    skip(`rclnodejs fails to load: ${firstLine(load.stderr) || `exit status ${String(load.status)}`}`);
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

/** DDS on loopback and a domain of our own, unless the caller chose otherwise. */
const runEnvironment = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  env['ROS_AUTOMATIC_DISCOVERY_RANGE'] ??= 'LOCALHOST';
  // 0–101: the domain IDs safe on every platform (ROS 2 "The ROS_DOMAIN_ID").
  env['ROS_DOMAIN_ID'] ??= String(randomInt(0, 102));
  env['CYCLONEDDS_URI'] ??= CYCLONEDDS_LOOPBACK;
  return env;
};

const fetchJson = async (url: string): Promise<{ status: number; json: unknown }> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) };
  } catch {
    return { status: response.status, json: text };
  }
};

/** Polls until `check` holds, every 500 ms, for at most `timeoutMs`. */
const pollUntil = async (what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `${what} did not happen within ${timeoutMs} ms${lastError === '' ? '' : ` (${lastError})`}`,
  );
};

const runSuite = (baseUrl: string, env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve) => {
    const suite = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=1', 'test/ros/ros-contract.test.ts'],
      { cwd: REPO, env: { ...env, TOUR_BRIDGE_CONTRACT_URL: baseUrl }, stdio: 'inherit' },
    );
    const timer = setTimeout(() => suite.kill('SIGKILL'), LIMITS.suiteMs);
    suite.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });

/** A change acknowledged by the tour store survives its SIGKILL and restart, through ROS end to end. */
const checkDurability = async (
  baseUrl: string,
  restartStore: () => Child,
  storeChild: Child,
): Promise<void> => {
  const name = `durable-${randomInt(1_000_000)}`;
  const created = await fetch(`${baseUrl}/tour`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tour_name: name, map_name: 'after-crash', steps: [{ description: 'kept' }] }),
    signal: AbortSignal.timeout(10_000),
  });
  if (created.status !== 201) throw new Error(`creating ${name} answered ${created.status}`);
  storeChild.process.kill('SIGKILL');
  await storeChild.stop(1_000);
  restartStore();
  await pollUntil(`GET /tour/${name} after the tour store restarted`, LIMITS.restartMs, async () => {
    const got = await fetchJson(`${baseUrl}/tour/${encodeURIComponent(name)}`);
    return got.status === 200 && (got.json as { map_name?: string }).map_name === 'after-crash';
  });
};

const main = async (): Promise<void> => {
  checkEnvironment();
  const env = runEnvironment();
  process.stdout.write(
    `rclnodejs contract suite: ROS_DISTRO=${env['ROS_DISTRO'] ?? '?'}, ` +
      `RMW_IMPLEMENTATION=${env['RMW_IMPLEMENTATION'] ?? '(default)'}, ROS_DOMAIN_ID=${env['ROS_DOMAIN_ID'] ?? ''}, ` +
      `ROS_AUTOMATIC_DISCOVERY_RANGE=${env['ROS_AUTOMATIC_DISCOVERY_RANGE'] ?? ''}\n`,
  );
  const scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-test-ros-'));
  const storeFile = join(scratch, 'tours.json');
  const children: Child[] = [];
  const start = (name: string, argv: readonly string[]): Child => {
    const child = startChild(name, argv, { cwd: REPO, env });
    children.push(child);
    return child;
  };
  const startStore = () =>
    start('tour-store', [
      ...TSX,
      'src/nodes/main.ts',
      'tour-store',
      '--file',
      storeFile,
      '--log_level',
      'warn',
    ]);

  let failed = false;
  const interrupt = () => {
    failed = true;
    void Promise.all(children.map((child) => child.stop())).then(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    let store = startStore();
    start('demo-chat', [...TSX, 'src/nodes/main.ts', 'demo-chat', '--log_level', 'warn']);
    const bridge = start('bridge', [
      ...TSX,
      'src/server.ts',
      '--backend',
      'ros',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log_level',
      'info',
    ]);
    const listening = await bridge.waitFor(/"port":(\d+)/, 'listening line', LIMITS.listeningMs);
    const baseUrl = `http://127.0.0.1:${listening[1] ?? ''}`;
    await pollUntil(
      'the bridge seeing a server for every service it calls',
      LIMITS.graphReadyMs,
      async () => {
        const ready = await fetchJson(`${baseUrl}/ready`);
        return ready.status === 200 && /every called service has a server/.test(JSON.stringify(ready.json));
      },
    );

    const code = await runSuite(baseUrl, env);
    if (code !== 0) throw new Error(`the contract suites failed (exit ${code})`);
    await checkDurability(baseUrl, () => (store = startStore()), store);
    process.stdout.write(
      'rclnodejs contract suite PASSED (tour API, /ws conversation, tour store durability)\n',
    );
  } catch (error) {
    failed = true;
    process.stderr.write(
      `rclnodejs contract suite FAILED: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    for (const child of children) process.stderr.write(`${child.recentOutput()}\n`);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await rm(scratch, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
};

void main();
