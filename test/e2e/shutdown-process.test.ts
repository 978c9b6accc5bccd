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
