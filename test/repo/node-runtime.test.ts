import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DockerfileParser } from 'dockerfile-ast';
import { parse as parseYaml } from 'yaml';
import {
  describeNodeRuntime,
  nodeRuntimeOf,
  parseNodeRuntime,
  RUNTIME_VARIABLE,
  SHIPPED_SERVER,
  shippedBridgeLaunch,
} from '../ros/shipped-bridge.js';
import { NODE_RUNTIME_SCRIPT } from '../support/image-launch.js';

/*
 * The image's Node.js flags and environment are named once, in docker/node-runtime.sh. The three ways the
 * bridge starts (the image's entrypoint, `npm start`, the footprint and memory checks of `npm run test:ros`)
 * are run here for real on a stand-in server that prints what Node.js gave it: each must get exactly what
 * the launcher gives, and nothing else in the image may set one of those variables.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

interface Seen {
  readonly execArgv: string[];
  readonly env: Record<string, string>;
  readonly argv: string[];
}

/** Stands in for dist/src/server.js: prints its Node.js flags, runtime variables and arguments. */
const STAND_IN = `const pattern = ${String(RUNTIME_VARIABLE)};
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => pattern.test(name)).sort());
console.log(JSON.stringify({ execArgv: process.execArgv, env, argv: process.argv.slice(2) }));
if (process.argv.includes('--hold')) setTimeout(() => undefined, 20_000);
`;

const run = (
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const [command, ...args] = argv;
    const child = spawn(command!, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} did not finish within 30 s`));
    }, 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

const seenBy = async (argv: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) => {
  const result = await run(argv, options);
  assert.equal(result.code, 0, `${argv.join(' ')}: ${result.stderr}`);
  const line = result.stdout.split('\n').find((text) => text.startsWith('{"execArgv"'));
  assert.ok(line, `${argv.join(' ')} printed ${result.stdout}`);
  return JSON.parse(line) as Seen;
};

describe('the Node.js flags and environment of the image, named once (docker/node-runtime.sh)', () => {
  let scratch: string;
  let app: string;
  /** This machine's PATH with this Node.js first, and none of the runtime variables. */
  let cleanEnv: NodeJS.ProcessEnv;
  let launcher: Seen;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tour-bridge-node-runtime-'));
    app = join(scratch, 'app');
    mkdirSync(join(app, 'dist', 'src'), { recursive: true });
    mkdirSync(join(app, 'docker'));
    writeFileSync(join(app, SHIPPED_SERVER), STAND_IN);
    copyFileSync(join(REPO, NODE_RUNTIME_SCRIPT), join(app, NODE_RUNTIME_SCRIPT));
    copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
    writeFileSync(join(scratch, 'setup.bash'), '');
    cleanEnv = {
      PATH: [dirname(process.execPath), process.env['PATH']].filter(Boolean).join(delimiter),
      HOME: scratch,
      npm_config_update_notifier: 'false',
    };
    launcher = await seenBy(['sh', join(app, NODE_RUNTIME_SCRIPT), SHIPPED_SERVER], {
      cwd: app,
      env: cleanEnv,
    });
  });
  after(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('gives Node.js --expose-gc (the collection after a burst), --no-node-snapshot and --no-maglev, and glibc a fixed mmap threshold', () => {
    // src/app/quiet-gc.ts collects only when Node.js exposes gc(); without the flag it silently does nothing.
    assert.ok(launcher.execArgv.includes('--expose-gc'), launcher.execArgv.join(' '));
    // docs/performance.md, "Memory on a real graph": the start-up snapshot's pages, 3.5 MiB of idle RSS.
    assert.ok(launcher.execArgv.includes('--no-node-snapshot'), launcher.execArgv.join(' '));
    // docs/performance.md, "Memory on a real graph": Node.js 20's compiler tiers on 24, 1.4-1.9 MiB of idle RSS.
    assert.ok(launcher.execArgv.includes('--no-maglev'), launcher.execArgv.join(' '));
    // docs/performance.md, "Memory on a real graph": a fixed mmap threshold, peak RSS 103 → 91 MiB.
    assert.equal(launcher.env['MALLOC_MMAP_THRESHOLD_'], '131072');
    // A value the operator sets wins.
    return seenBy(['sh', join(app, NODE_RUNTIME_SCRIPT), SHIPPED_SERVER], {
      cwd: app,
      env: { ...cleanEnv, MALLOC_MMAP_THRESHOLD_: '262144' },
    }).then((seen) => {
      assert.equal(seen.env['MALLOC_MMAP_THRESHOLD_'], '262144');
    });
  });

  it("the image's entrypoint runs the bridge with exactly the launcher's flags and environment", async () => {
    const seen = await seenBy(['bash', join(REPO, 'docker', 'entrypoint.sh'), '--log_level', 'debug'], {
      cwd: scratch,
      env: {
        ...cleanEnv,
        TOUR_BRIDGE_ROS_SETUP: join(scratch, 'setup.bash'),
        TOUR_BRIDGE_WS_SETUP: join(scratch, 'setup.bash'),
        TOUR_BRIDGE_APP_DIR: app,
      },
    });
    assert.deepEqual([seen.execArgv, seen.env], [launcher.execArgv, launcher.env]);
    assert.deepEqual(seen.argv.slice(-2), ['--log_level', 'debug']);
  });

  it("npm start runs it with exactly the launcher's flags and environment", async () => {
    const seen = await seenBy(['npm', 'start', '--silent'], { cwd: app, env: cleanEnv });
    assert.deepEqual([seen.execArgv, seen.env], [launcher.execArgv, launcher.env]);
  });

  it('the footprint and memory checks of npm run test:ros start it with exactly those, on the Node.js given', async () => {
    const launch = shippedBridgeLaunch(app, process.execPath, [], cleanEnv);
    const seen = await seenBy(launch.argv, { cwd: app, env: launch.env });
    assert.deepEqual([seen.execArgv, seen.env], [launcher.execArgv, launcher.env]);
    // Flags of a check's own (the memory check's inspector) come after the launcher's.
    const inspected = shippedBridgeLaunch(app, process.execPath, ['--stack-size=2000'], cleanEnv);
    const seenInspected = await seenBy(inspected.argv, { cwd: app, env: inspected.env });
    assert.deepEqual(seenInspected.execArgv, [...launcher.execArgv, '--stack-size=2000']);
  });

  it('reads what a running bridge was started with from its /proc, as the footprint line reports it', async () => {
    const launch = shippedBridgeLaunch(app, process.execPath, [], cleanEnv);
    const child = spawn(launch.argv[0]!, [...launch.argv.slice(1), '--hold'], {
      cwd: app,
      env: launch.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => {
          resolve(chunk.toString());
        });
        child.once('exit', () => {
          reject(new Error('the stand-in exited'));
        });
      });
      const seen = JSON.parse(line) as Seen;
      const runtime = nodeRuntimeOf(child.pid!, SHIPPED_SERVER);
      assert.deepEqual([runtime.nodeFlags, runtime.env], [seen.execArgv, seen.env]);
      assert.equal(
        describeNodeRuntime(runtime),
        `node_flags=${seen.execArgv.join(',')} env=${Object.entries(seen.env)
          .map(([name, value]) => `${name}=${value}`)
          .join(',')}`,
      );
    } finally {
      child.kill('SIGKILL');
    }
    assert.deepEqual(
      parseNodeRuntime(
        ['/usr/bin/node', '--import', 'tsx', 'src/server.ts', '--port', '0', ''].join('\0'),
        ['PATH=/bin', 'UV_THREADPOOL_SIZE=2', 'NODE_OPTIONS=--max-semi-space-size=2', ''].join('\0'),
        'src/server.ts',
      ),
      {
        nodeFlags: ['--import', 'tsx'],
        env: { NODE_OPTIONS: '--max-semi-space-size=2', UV_THREADPOOL_SIZE: '2' },
      },
    );
    assert.equal(describeNodeRuntime({ nodeFlags: [], env: {} }), 'node_flags=none env=none');
  });

  it('nothing else in the image or compose.yaml sets a runtime variable; the image carries the launcher to /app', () => {
    const dockerfile = DockerfileParser.parse(read('Dockerfile'));
    const set = dockerfile
      .getENVs()
      .flatMap((env) => env.getProperties().map((property) => property.getName()))
      .filter((name) => RUNTIME_VARIABLE.test(name));
    assert.deepEqual(set, [], 'set in docker/node-runtime.sh instead');
    assert.doesNotMatch(read('Dockerfile'), /NODE_OPTIONS|--expose-gc/);
    assert.ok(
      dockerfile
        .getCOPYs()
        .some((copy) => copy.getArgumentsContent() === `${NODE_RUNTIME_SCRIPT} /app/${NODE_RUNTIME_SCRIPT}`),
      `the image has ${NODE_RUNTIME_SCRIPT} where the entrypoint and npm start look for it`,
    );
    const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    for (const [name, service] of Object.entries(compose.services)) {
      const names = Object.keys(service.environment ?? {}).filter((key) => RUNTIME_VARIABLE.test(key));
      assert.deepEqual(names, [], `compose.yaml's ${name}`);
    }
  });
});
