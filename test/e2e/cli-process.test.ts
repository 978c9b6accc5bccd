import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { request } from '../support/http.js';
import { startServerProcess } from '../support/server-process.js';
import { expectedUwsLine, otherNode, UWS_PACKAGES } from '../support/uws-expectation.js';

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real entry point as a process, bounded by a time-out. */
const runServer = (
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
  node = process.execPath,
): Promise<Exit> =>
  new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', 'tsx', 'src/server.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

describe('server process', () => {
  it('exits 2 with one line naming the flag and allowed values for a bad value', async () => {
    const result = await runServer(['--log_level', 'loud']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(
      result.stderr,
      /^tour-bridge: --log_level must be one of critical, error, info, warn, debug/,
    );
  });

  it('exits 2 with one line for a ROS calls cap out of range', async () => {
    const result = await runServer(['--ros_calls_in_flight', '0', '--backend', 'sim']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /^tour-bridge: --ros_calls_in_flight must be a whole number from 1 to 1000/);
  });

  it('exits 2 for an unknown flag', async () => {
    const result = await runServer(['--verbose']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown option --verbose/);
  });

  it('prints --help and exits 0', async () => {
    const result = await runServer(['--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /--backend <value> \(ros\|sim\)/);
    assert.match(result.stdout, /--auth_token <value> \(empty \(off\) or 16 to 1024 printable ASCII/);
    assert.doesNotMatch(result.stdout, /\[object /);
  });

  it('exits 1 with one clear line when --backend ros has no ROS 2, before listening and without a stack', async () => {
    // At the default log level, as an operator runs it.
    const result = await runServer(['--backend', 'ros', '--port', '0', '--host', '127.0.0.1'], {
      AMENT_PREFIX_PATH: '',
    });
    assert.equal(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /rclnodejs cannot load: AMENT_PREFIX_PATH is not set/);
    assert.match(lines[0] ?? '', /source ROS 2 first/);
    assert.match(lines[0] ?? '', /--backend sim/);
    assert.doesNotMatch(result.stdout, /listening on/);
    assert.doesNotMatch(result.stdout + result.stderr, /^\s+at /m);
  });

  it('names the uWebSockets.js build it chose, and why, in its start-up log, /ready and /metrics', async () => {
    const line = expectedUwsLine(process.versions.modules);
    assert.notEqual(line, 'none', `this test process itself runs on ${process.version}`);
    const server = await startServerProcess();
    try {
      const packageName = UWS_PACKAGES[line as 'official' | 'node20'];
      assert.match(
        server.startupLog,
        new RegExp(
          `"msg":"uWebSockets\\.js build: ${packageName.replace(/[.]/g, '\\.')}@[0-9][^ ]* \\(${line}\\): `,
        ),
      );
      const ready = (await request(server.baseUrl, 'GET', '/ready')).json as {
        uws: { build: string; line: string; reason: string };
      };
      assert.equal(ready.uws.line, line);
      assert.ok(ready.uws.build.startsWith(`${packageName}@`), ready.uws.build);
      // The reason names what decided: the official build loading, or why it did not (glibc here).
      assert.match(
        ready.uws.reason,
        line === 'official' ? /loads natively/ : /needs glibc 2\.38 or newer, this system has 2\.\d+/,
      );
      const metrics = await request(server.baseUrl, 'GET', '/metrics');
      const info = /^tour_bridge_uws_build_info\{uws="([^"]+)",line="([^"]+)",reason="([^"]+)"\} 1$/m.exec(
        metrics.text,
      );
      assert.deepEqual(info?.slice(1), [ready.uws.build, line, ready.uws.reason]);
    } finally {
      await server.stop();
    }
  });

  // CI gives a second Node.js: 24 on Debian 12 (no build loads there), 20 in its Debian 13 root.
  const other = otherNode();
  const requireOther = process.env['TOUR_BRIDGE_REQUIRE_OTHER_NODE'] === '1';
  it(
    'on another Node.js, serves the build that Node.js and this glibc call for, or refuses with one line',
    { skip: other === undefined && !requireOther ? 'TOUR_BRIDGE_OTHER_NODE is not set' : false },
    async () => {
      assert.ok(
        other !== undefined,
        'TOUR_BRIDGE_REQUIRE_OTHER_NODE=1 but TOUR_BRIDGE_OTHER_NODE is not set',
      );
      const line = expectedUwsLine(other.abi);
      if (line === 'none') {
        const result = await runServer(
          ['--backend', 'sim', '--port', '0', '--host', '127.0.0.1'],
          {},
          20_000,
          other.path,
        );
        assert.equal(result.code, 2);
        const lines = result.stderr.trim().split('\n');
        assert.equal(lines.length, 1, result.stderr);
        assert.match(
          lines[0] ?? '',
          new RegExp(
            `^tour-bridge: no uWebSockets\\.js build loads natively on Node\\.js ${other.version.replace(/\./g, '\\.')} \\(ABI ${other.abi}\\) here: `,
          ),
        );
        assert.match(
          lines[0] ?? '',
          /the official build [^ ]+ needs glibc 2\.38 or newer, this system has 2\.\d+/,
        );
        assert.match(
          lines[0] ?? '',
          /run Node\.js 22 or 24 on a system with glibc 2\.38 or newer \(Ubuntu 24\.04, Debian 13\), or Node\.js 20$/,
        );
        assert.doesNotMatch(result.stdout, /listening on/);
        return;
      }
      const server = await startServerProcess([], { node: other.path });
      try {
        const ready = (await request(server.baseUrl, 'GET', '/ready')).json as {
          uws: { build: string; line: string };
        };
        assert.equal(ready.uws.line, line);
        assert.ok(ready.uws.build.startsWith(`${UWS_PACKAGES[line]}@`), ready.uws.build);
      } finally {
        await server.stop();
      }
    },
  );
});
