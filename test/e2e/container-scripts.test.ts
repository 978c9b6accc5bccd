import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimService, type TestService } from '../support/test-service.js';
import { expectedUwsLine, systemGlibc } from '../support/uws-expectation.js';

/*
 * The image's scripts, run for real outside a container: the entrypoint (with stand-in ROS setup
 * files and a stand-in server that prints what it was given), the health probe (against the real
 * server) and the uWebSockets.js check (against the installed module and stand-ins).
 */

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const run = (argv: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<Run> =>
  new Promise((resolve, reject) => {
    const [command, ...args] = argv;
    const child = spawn(command!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

describe('docker/entrypoint.sh', () => {
  let scratch: string;
  let env: NodeJS.ProcessEnv;
  const entrypoint = new URL('../../docker/entrypoint.sh', import.meta.url).pathname;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-entrypoint-'));
    await writeFile(join(scratch, 'ros.bash'), 'export SOURCED="${SOURCED:-}ros;"\n');
    await writeFile(join(scratch, 'ws.bash'), 'export SOURCED="${SOURCED}workspace;"\n');
    await mkdir(join(scratch, 'app', 'dist', 'src'), { recursive: true });
    // The launcher the entrypoint runs the bridge through (its Node.js flags and environment).
    await mkdir(join(scratch, 'app', 'docker'));
    await copyFile(
      new URL('../../docker/node-runtime.sh', import.meta.url),
      join(scratch, 'app', 'docker', 'node-runtime.sh'),
    );
    // Stands in for the bridge: prints its arguments and what the setup scripts exported.
    await writeFile(
      join(scratch, 'app', 'dist', 'src', 'server.js'),
      'console.log(JSON.stringify({ argv: process.argv.slice(2), sourced: process.env.SOURCED }));\n',
    );
    env = {
      PATH: process.env['PATH'],
      TOUR_BRIDGE_ROS_SETUP: join(scratch, 'ros.bash'),
      TOUR_BRIDGE_WS_SETUP: join(scratch, 'ws.bash'),
      TOUR_BRIDGE_APP_DIR: join(scratch, 'app'),
    };
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  const bridgeRun = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const result = await run(['bash', entrypoint, ...args], { ...env, ...extra });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as { argv: string[]; sourced: string };
  };

  it('without arguments: sources ROS 2 then the workspace, runs the bridge with the spec defaults', async () => {
    assert.deepEqual(await bridgeRun([]), {
      argv: ['--host', '0.0.0.0', '--port', '7000', '--log_level', 'info'],
      sourced: 'ros;workspace;',
    });
  });

  it('with flags: passes them to the bridge after the defaults (later flags win), ROS arguments included', async () => {
    const { argv } = await bridgeRun([
      '--log_level',
      'debug',
      '--ros-args',
      '-r',
      '/play_audio:=/kiosk/play_audio',
    ]);
    assert.deepEqual(argv, [
      '--host',
      '0.0.0.0',
      '--port',
      '7000',
      '--log_level',
      'info',
      '--log_level',
      'debug',
      '--ros-args',
      '-r',
      '/play_audio:=/kiosk/play_audio',
    ]);
  });

  it('takes the defaults from TOUR_BRIDGE_HOST, TOUR_BRIDGE_PORT and TOUR_BRIDGE_LOG_LEVEL', async () => {
    const { argv } = await bridgeRun([], {
      TOUR_BRIDGE_PORT: '8000',
      TOUR_BRIDGE_LOG_LEVEL: 'warn',
      TOUR_BRIDGE_HOST: '127.0.0.1',
    });
    assert.deepEqual(argv, ['--host', '127.0.0.1', '--port', '8000', '--log_level', 'warn']);
  });

  it('runs any other command as given, in the sourced environment', async () => {
    const result = await run(
      ['bash', entrypoint, 'node', '-e', 'console.log(process.env.SOURCED, process.argv[1])', 'tour-store'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'ros;workspace; tour-store');
  });

  it('fails with one line when a setup file is missing', async () => {
    const result = await run(['bash', entrypoint], {
      ...env,
      TOUR_BRIDGE_WS_SETUP: join(scratch, 'missing.bash'),
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr.trim(),
      /^tour-bridge entrypoint: .*missing\.bash not found; the image is incomplete$/,
    );
  });
});

describe('docker/healthcheck.sh (the image HEALTHCHECK)', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService();
  });
  after(async () => {
    await running.stop();
  });

  const probe = (port: string) =>
    run(['bash', 'docker/healthcheck.sh'], { ...process.env, TOUR_BRIDGE_PORT: port });

  /** A stand-in on a loopback port that answers every connection with `answer` (or never, when undefined). */
  const standIn = async (answer: string | undefined): Promise<{ port: string; close(): Promise<void> }> => {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        if (answer !== undefined) socket.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return {
      port: String(typeof address === 'object' && address !== null ? address.port : 1),
      close: () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => {
            resolve();
          });
        }),
    };
  };

  it('exits 0 when /health answers 200', async () => {
    const result = await probe(new URL(running.baseUrl).port);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
  });

  it('exits 1 with one line when nothing listens, or the port is not a port', async () => {
    const gone = await standIn(undefined);
    await gone.close();
    const closed = await probe(gone.port);
    assert.equal(closed.code, 1);
    assert.equal(
      closed.stderr,
      `healthcheck: http://127.0.0.1:${gone.port}/health: nothing accepts connections there\n`,
    );
    for (const port of ['70000', '0', 'abc', '']) {
      const invalid = await probe(port);
      assert.equal(invalid.code, 1, port);
      assert.match(
        invalid.stderr,
        /^healthcheck: TOUR_BRIDGE_PORT must be a port from 1 to 65535, got '.*'\n$/,
      );
    }
  });

  it('exits 1 with one line when the answer is not 200, or does not come within 3 s', async () => {
    const unready = await standIn('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n');
    const silent = await standIn(undefined);
    try {
      const refused = await probe(unready.port);
      assert.equal(refused.code, 1);
      assert.equal(
        refused.stderr,
        `healthcheck: http://127.0.0.1:${unready.port}/health answered 'HTTP/1.1 503 Service Unavailable'\n`,
      );
      const started = Date.now();
      const waited = await probe(silent.port);
      assert.equal(waited.code, 1);
      assert.equal(
        waited.stderr,
        `healthcheck: http://127.0.0.1:${silent.port}/health: no answer within 3 s\n`,
      );
      assert.ok(Date.now() - started < 6_000, 'bounded by its own 3 s');
    } finally {
      await unready.close();
      await silent.close();
    }
  });
});

describe('docker/check-uws-native.mjs (the image build fails unless the official uWebSockets.js is native)', () => {
  const script = new URL('../../docker/check-uws-native.mjs', import.meta.url).pathname;
  const runtime = `Node.js ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules}, glibc ${systemGlibc() ?? 'none'})`;
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-uws-check-'));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /**
   * The script beside a stand-in `uWebSockets.js` package (none when `module` is undefined). Like the
   * official package, the stand-in's exports map hides its package.json from require().
   */
  const checkAgainst = async (name: string, module?: { version: string; source: string }) => {
    const app = join(scratch, name);
    await mkdir(join(app, 'docker'), { recursive: true });
    await writeFile(join(app, 'docker', 'check-uws-native.mjs'), await readFile(script));
    if (module !== undefined) {
      const dir = join(app, 'node_modules', 'uWebSockets.js');
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, 'package.json'),
        JSON.stringify({
          name: '@stand-in/uwebsockets.js',
          version: module.version,
          main: 'uws.js',
          exports: { require: './uws.js' },
        }),
      );
      await writeFile(join(dir, 'uws.js'), module.source);
    }
    return run([process.execPath, join(app, 'docker', 'check-uws-native.mjs')], {
      PATH: process.env['PATH'],
    });
  };

  it('on the installed official build: passes where glibc is 2.38 or newer, fails naming glibc where older', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const build = pkg.dependencies['uWebSockets.js']!.replace(/^npm:/, '');
    const glibc = systemGlibc();
    // Worked out from this system's glibc and this Node.js's ABI alone, not by loading the module.
    const loads = expectedUwsLine(process.versions.modules, glibc) === 'official';
    const result = await run([process.execPath, script], { PATH: process.env['PATH'] });
    if (loads) {
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), `check-uws-native: ${build} is native on ${runtime}`);
    } else {
      assert.equal(result.code, 1, result.stdout);
      const [first] = result.stderr.split('\n');
      assert.equal(
        first,
        `check-uws-native: ${build} does not load natively on ${runtime}: needs glibc 2.38 or newer, this system has ${glibc}`,
      );
      assert.match(result.stderr, /GLIBC_2\.38' not found/, 'the loader error follows');
    }
  });

  it('passes on a native-looking module exposing App and SSLApp, naming it from the package.json the exports map hides', async () => {
    const result = await checkAgainst('native', {
      version: '20.99.0',
      source: 'module.exports = { App() {}, SSLApp() {} };\n',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout.trim(),
      `check-uws-native: @stand-in/uwebsockets.js@20.99.0 is native on ${runtime}`,
    );
  });

  it('fails when the binary needs a newer glibc (the official uws.js throws), saying which and what this system has', async () => {
    const result = await checkAgainst('old-glibc', {
      version: '20.99.0',
      source:
        "throw new Error('This version of uWS.js (v20.99.0) supports only Node.js versions 20, 22, 24 and 25.\\n\\n" +
        "Error: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.41\\' not found');\n",
    });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.split('\n')[0],
      `check-uws-native: @stand-in/uwebsockets.js@20.99.0 does not load natively on ${runtime}: needs glibc 2.41 or newer, this system has ${systemGlibc() ?? 'none'}`,
    );
    assert.match(result.stderr, /supports only Node\.js versions 20, 22, 24 and 25/);
  });

  it('fails when the release has no binary for this Node.js (it throws), with the error', async () => {
    const result = await checkAgainst('no-binary', {
      version: '20.99.0',
      source: 'throw new Error("Cannot find module \'./uws_linux_x64_999.node\'");\n',
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^check-uws-native: @stand-in\/uwebsockets\.js@20\.99\.0 does not load natively on Node\.js v.*\)\nCannot find module '\.\/uws_linux_x64_999\.node'\n$/,
    );
  });

  it("fails on a module without App and SSLApp: the Node.js 20 package's JavaScript shim, or nothing", async () => {
    for (const [name, source] of [
      ['shim', 'module.exports = { App() {} };\n'],
      ['empty', 'module.exports = {};\n'],
    ] as const) {
      const result = await checkAgainst(name, { version: '20.30.0', source });
      assert.equal(result.code, 1, name);
      assert.match(
        result.stderr,
        /@stand-in\/uwebsockets\.js@20\.30\.0 does not load natively on .*\nit loaded without App and SSLApp/,
      );
    }
  });

  it('fails when uWebSockets.js is not installed at all', async () => {
    const result = await checkAgainst('missing');
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^check-uws-native: uWebSockets\.js does not load natively on Node\.js v.*\nCannot find module 'uWebSockets\.js'/,
    );
  });
});
