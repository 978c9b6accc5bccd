import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { KioskClient } from '../support/ws-client.js';

describe('graceful shutdown', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`on ${signal}: sessions get 1001, the process exits 0 within the bound`, async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/server.ts',
          '--backend',
          'sim',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--sim_latency_ms',
          '5000',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const killer = setTimeout(() => {
        child.kill('SIGKILL');
      }, 20_000);
      try {
        let output = '';
        const port = await new Promise<number>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            const match = /"port":(\d+)/.exec(output);
            if (match) resolve(Number(match[1]));
          });
          child.once('exit', () => {
            reject(new Error(`server exited early: ${output}`));
          });
        });
        const kiosk = await KioskClient.connect(`ws://127.0.0.1:${port}/ws`);
        await kiosk.frameCount(1);
        kiosk.socket.send(Buffer.alloc(8)); // a /chat call in flight (5 s simulated latency) when the signal comes
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = Date.now();
        child.kill(signal);
        const close = await kiosk.closed();
        assert.equal(close.code, 1001);
        assert.equal(close.reason, 'server shutting down');
        const [code] = (await once(child, 'exit')) as [number | null];
        assert.equal(code, 0);
        assert.ok(Date.now() - started < 5_000, 'exits well before the in-flight call would have answered');
        assert.match(output, /"msg":"stopped"/);
      } finally {
        clearTimeout(killer);
        child.kill('SIGKILL');
      }
    });
  }
});

/** The service with a slow simulated robot as its own process; its port once it listens. */
const startSlowService = async (shutdownTimeoutMs: number) => {
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'src/server.ts', '--backend', 'sim', '--host', '127.0.0.1', '--port', '0'],
      ...['--sim_latency_ms', '3500', '--shutdown_timeout_ms', String(shutdownTimeoutMs)],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => {
      reject(new Error(`server exited early: ${output}`));
    });
  });
  return { child, port, output: () => output };
};

describe('graceful shutdown: --shutdown_timeout_ms governs the drain', () => {
  it('lets a request in flight finish when the bound allows it, and exits 0', async () => {
    const { child, port } = await startSlowService(30_000);
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    try {
      const started = Date.now();
      const answer = fetch(`http://127.0.0.1:${port}/tour`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const response = await answer;
      // Before: cut at 2 s with an empty reply, whatever the option said.
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), ['welcome']);
      assert.ok(Date.now() - started >= 3_400, 'answered when the simulated call answered');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  });

  it('answers what it cuts with 503 and exits 1 when the bound is shorter', async () => {
    const { child, port, output } = await startSlowService(1_000);
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    try {
      const answer = fetch(`http://127.0.0.1:${port}/tour`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tour_name: 'cut', map_name: 'm', steps: [] }),
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const exited = once(child, 'exit');
      const signalled = Date.now();
      child.kill('SIGTERM');
      const response = await answer;
      assert.equal(response.status, 503);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['type'], 'urn:tour-bridge:problem:shutting-down');
      assert.match(String(body['detail']), /outcome is unknown/);
      assert.ok(Date.now() - signalled < 1_500, 'cut within the bound');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 1);
      assert.match(output(), /in-flight work was cut/);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  });
});

describe('graceful shutdown: with the log reader gone', () => {
  // A log collector that dies (a closed stdout pipe) must not keep the process from stopping: with
  // sonic-boom 4.2.1, pino's flush at exit retried a broken pipe for ever, and a second signal could not
  // even run.
  it('stops on SIGTERM within the bound when writing its log fails with EPIPE', async () => {
    const { child } = await startSlowService(2_000);
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      child.stdout.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = once(child, 'exit');
      const signalled = Date.now();
      child.kill('SIGTERM');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      assert.equal(signal, null, 'it exited by itself, not by the SIGKILL of the test');
      assert.notEqual(code, null);
      assert.ok(Date.now() - signalled < 3_000, `exited ${Date.now() - signalled} ms after SIGTERM`);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  });
});
