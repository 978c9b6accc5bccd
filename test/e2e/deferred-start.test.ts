import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDeferredPort } from '../../src/ros/port/deferred-port.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { assertProblem } from '../contract/tour-api-contract.js';
import { request } from '../support/http.js';
import { startTestService } from '../support/test-service.js';
import { KioskClient, pairAt } from '../support/ws-client.js';

describe('the server on a deferred ROS port (in process)', () => {
  it('answers /health 200 and /ready 503 while the backend is pending, tours 503; then serves once attached', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting the ROS 2 backend' });
    port.setPending('waiting for the Zenoh router at tcp/zenoh-router:7447');
    const running = await startTestService(port);
    try {
      assert.equal((await request(running.baseUrl, 'GET', '/health')).status, 200);
      const ready = assertProblem(await request(running.baseUrl, 'GET', '/ready'), 503, 'not-ready');
      assert.equal(ready['backend'], 'ros');
      assert.equal(ready['ready'], false);
      assert.equal(ready['detail'], 'waiting for the Zenoh router at tcp/zenoh-router:7447');
      const tours = await request(running.baseUrl, 'GET', '/tour');
      assertProblem(tours, 503, 'ros-unavailable');
      assert.equal(tours.headers.get('retry-after'), '1');

      // A kiosk that connects while ROS starts keeps its session across the attach.
      const kiosk = await KioskClient.connect(running.wsUrl);
      await kiosk.frameCount(1);

      const sim = createSimBackend();
      port.attach(sim);
      const readyNow = await request(running.baseUrl, 'GET', '/ready');
      assert.equal(readyNow.status, 200, readyNow.text);
      assert.deepEqual((await request(running.baseUrl, 'GET', '/tour')).json, ['welcome']);

      sim.sim.publishPlayAudio({ emotion: 'calm', text: 'after attach', audio: new Uint8Array([7, 8]) });
      await kiosk.frameCount(3);
      assert.equal(pairAt(kiosk.frames, 1).meta['text'], 'after attach');
      kiosk.socket.send(Buffer.from([1, 2, 3]));
      await kiosk.frameCount(5);
      assert.deepEqual([...pairAt(kiosk.frames, 3).audio], [1, 2, 3]);
      kiosk.close();
    } finally {
      await running.stop();
    }
  });
});

const closedLoopbackPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
};

describe('the server process with --backend ros while the Zenoh router is away', () => {
  it('listens at once, answers /health and /ready (naming the router), logs one line, stops on SIGTERM', async () => {
    const routerPort = await closedLoopbackPort();
    const endpoint = `tcp/127.0.0.1:${routerPort}`;
    // A stand-in ROS prefix: the environment check passes, and nothing reaches rclnodejs while the
    // router is away (it is imported only after the wait).
    const fakeRos = await mkdtemp(join(tmpdir(), 'tour-bridge-fake-ros-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/server.ts', '--backend', 'ros', '--host', '127.0.0.1', '--port', '0'],
      {
        env: {
          ...process.env,
          AMENT_PREFIX_PATH: fakeRos,
          RMW_IMPLEMENTATION: 'rmw_zenoh_cpp',
          ZENOH_ROUTER_CHECK_ATTEMPTS: '0',
          ZENOH_CONFIG_OVERRIDE: `mode="client";connect/endpoints=["${endpoint}"]`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const port = await new Promise<number>((resolve, reject) => {
        const check = () => {
          const match = /"port":(\d+)/.exec(output);
          if (match) resolve(Number(match[1]));
        };
        child.stdout.on('data', check);
        child.once('exit', () => {
          reject(new Error(`server exited early: ${output}`));
        });
      });
      const baseUrl = `http://127.0.0.1:${port}`;
      // Past a few checks: the event loop stays free and the log does not repeat itself.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.equal((await request(baseUrl, 'GET', '/health')).status, 200);
      const ready = assertProblem(await request(baseUrl, 'GET', '/ready'), 503, 'not-ready');
      assert.match(
        String(ready['detail']),
        new RegExp(`waiting for the Zenoh router at ${endpoint} \\(client mode\\)`),
      );
      assert.match(String(ready['detail']), /ZENOH_ROUTER_CHECK_ATTEMPTS=0: checking every second/);
      assertProblem(await request(baseUrl, 'GET', '/tour'), 503, 'ros-unavailable');
      const waitingLines = output.split('\n').filter((line) => line.includes('waiting for the Zenoh router'));
      assert.equal(waitingLines.length, 1, output);
      assert.match(waitingLines[0] ?? '', /"level":"warn"/);

      const started = Date.now();
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, output);
      assert.ok(Date.now() - started < 5_000);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
      await rm(fakeRos, { recursive: true, force: true });
    }
  });
});
