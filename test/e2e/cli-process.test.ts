import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

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
  });

  it('exits 1 with one clear line when --backend ros cannot load rclnodejs', async (context) => {
    if (process.env['AMENT_PREFIX_PATH'] !== undefined) {
      context.skip('ROS 2 is sourced here: rclnodejs may load');
      return;
    }
    const result = await runServer([
      '--backend',
      'ros',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--log_level',
      'critical',
    ]);
    assert.equal(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /rclnodejs/);
    assert.match(lines[0] ?? '', /--backend sim/);
  });
});
