import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { request } from '../support/http.js';
import { startServerProcess } from '../support/server-process.js';

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real entry point as a process, bounded by a time-out. */
const runServer = (args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<Exit> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts', ...args], {
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

  // The pinned build runs its JavaScript fallback when told to (UWS_USE_FALLBACK), as it does on a Node.js
  // it has no binary for: the same code path the refusal guards.
  it('refuses to start on the uWebSockets.js JavaScript fallback: exit 2, one line naming Node.js, the build and the fix', async () => {
    const result = await runServer(['--backend', 'sim', '--port', '0', '--host', '127.0.0.1'], {
      UWS_USE_FALLBACK: '1',
    });
    assert.equal(result.code, 2);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0] ?? '',
      new RegExp(
        `^tour-bridge: uWebSockets\\.js @trufflesuite/uws-js-unofficial@[^ ]+ has no native binary for Node\\.js ${process.version.replace(/\./g, '\\.')} \\(ABI ${process.versions.modules}\\)`,
      ),
    );
    assert.match(lines[0] ?? '', /--uws_fallback accept$/);
    assert.doesNotMatch(result.stdout, /listening on/);
  });

  it('starts on the fallback with --uws_fallback accept, and /ready and /metrics name the build', async () => {
    const server = await startServerProcess([], {
      env: { UWS_USE_FALLBACK: '1', TOUR_BRIDGE_UWS_FALLBACK: 'accept' },
    });
    try {
      assert.match(
        server.startupLog,
        /"level":"warn"[^\n]*JavaScript fallback \(accepted with --uws_fallback accept\)/,
      );
      const ready = (await request(server.baseUrl, 'GET', '/ready')).json as {
        uws: { build: string; native: boolean };
      };
      assert.deepEqual(ready.uws, {
        build: '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0',
        native: false,
      });
      const metrics = await request(server.baseUrl, 'GET', '/metrics');
      assert.match(
        metrics.text,
        /^tour_bridge_uws_build_info\{uws="@trufflesuite\/uws-js-unofficial@20\.30\.0-unofficial\.0",native="false"\} 1$/m,
      );
    } finally {
      await server.stop();
    }
  });
});
