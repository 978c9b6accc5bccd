import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import {
  probeConnect,
  routerProbePlan,
  waitForZenohRouter,
  type RouterWaitDeps,
} from '../../src/ros/zenoh/router-wait.js';
import type { ProbeTarget } from '../../src/ros/zenoh/zenoh-config.js';
import { capturingLogger } from '../support/log-capture.js';

const WARN = 40;

/** A router that answers from the `answerAt`-th check on (never when undefined); sleeps take no time. */
const scriptedRouter = (answerAt: number | undefined) => {
  const probed: string[] = [];
  const sleeps: number[] = [];
  let checks = 0;
  let clock = 0;
  const deps: RouterWaitDeps = {
    probe: (target: ProbeTarget) => {
      probed.push(target.kind === 'tcp' ? `${target.host}:${target.port}` : target.path);
      return Promise.resolve(answerAt !== undefined && checks + 1 >= answerAt);
    },
    sleep: (ms: number) => {
      checks += 1;
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    now: () => clock,
  };
  return { deps, probed, sleeps };
};

const zenohEnv = (attempts: string | undefined, endpoint = 'tcp/zenoh-router:7447'): NodeJS.ProcessEnv => ({
  ...(attempts === undefined ? {} : { ZENOH_ROUTER_CHECK_ATTEMPTS: attempts }),
  ZENOH_CONFIG_OVERRIDE: `mode="client";connect/endpoints=["${endpoint}"]`,
});

const never = new AbortController().signal;

describe('waiting for the Zenoh router', () => {
  it('returns at once, logging nothing at warn, when the router answers the first check', async () => {
    const router = scriptedRouter(1);
    const log = capturingLogger();
    const result = await waitForZenohRouter({
      env: zenohEnv('0'),
      logger: log.logger,
      signal: never,
      deps: router.deps,
    });
    assert.deepEqual(result, { kind: 'answered', locator: 'tcp/zenoh-router:7447', checks: 1, waitedMs: 0 });
    assert.deepEqual(router.probed, ['zenoh-router:7447']);
    assert.deepEqual(router.sleeps, []);
    assert.equal(log.lines.filter((line) => line.level >= WARN).length, 0);
  });

  it('with 0 checks every second until the router answers, logging one warn line about what it waits for', async () => {
    const router = scriptedRouter(6);
    const log = capturingLogger();
    const details: string[] = [];
    const result = await waitForZenohRouter({
      env: zenohEnv('0'),
      logger: log.logger,
      signal: never,
      deps: router.deps,
      onWaiting: (detail) => details.push(detail),
    });
    assert.deepEqual(result, {
      kind: 'answered',
      locator: 'tcp/zenoh-router:7447',
      checks: 6,
      waitedMs: 5_000,
    });
    assert.deepEqual(router.sleeps, [1_000, 1_000, 1_000, 1_000, 1_000]);
    const warnings = log.lines.filter((line) => line.level >= WARN);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]?.msg ?? '',
      /^waiting for the Zenoh router at tcp\/zenoh-router:7447 before initialising ROS 2/,
    );
    assert.match(
      warnings[0]?.msg ?? '',
      /ZENOH_ROUTER_CHECK_ATTEMPTS=0: checking every second until the router answers/,
    );
    assert.equal(details.length, 6);
    assert.match(details[0] ?? '', /^looking for the Zenoh router at tcp\/zenoh-router:7447 \(client mode\)/);
    assert.match(details[5] ?? '', /tcp\/zenoh-router:7447 \(client mode\).*5 check\(s\) so far/);
    assert.ok(log.lines.some((line) => /answered at tcp\/zenoh-router:7447 after 6 checks/.test(line.msg)));
  });

  it('with a positive count makes that many checks one second apart, then gives up saying so', async () => {
    const router = scriptedRouter(undefined);
    const log = capturingLogger();
    const result = await waitForZenohRouter({
      env: zenohEnv('3'),
      logger: log.logger,
      signal: never,
      deps: router.deps,
    });
    assert.deepEqual(result, { kind: 'gave-up', checks: 3, mode: 'client', where: 'tcp/zenoh-router:7447' });
    assert.equal(router.probed.length, 3);
    assert.deepEqual(router.sleeps, [1_000, 1_000]);
    // A client goes no further (its caller says why, once); a peer goes ahead, as rmw_zenoh does.
    assert.ok(!log.lines.some((line) => /initialising ROS 2 anyway/.test(line.msg)));
    const peerLog = capturingLogger();
    const peer = await waitForZenohRouter({
      env: {
        ...zenohEnv('1'),
        ZENOH_CONFIG_OVERRIDE: 'mode="peer";connect/endpoints=["tcp/zenoh-router:7447"]',
      },
      logger: peerLog.logger,
      signal: never,
      deps: scriptedRouter(undefined).deps,
    });
    assert.deepEqual(peer, { kind: 'gave-up', checks: 1, mode: 'peer', where: 'tcp/zenoh-router:7447' });
    assert.ok(
      peerLog.lines.some((line) =>
        /after 1 check\(s\); initialising ROS 2 anyway \(peer mode\)/.test(line.msg),
      ),
    );
  });

  it('unset makes one check, as current rmw_zenoh does', async () => {
    const router = scriptedRouter(undefined);
    const result = await waitForZenohRouter({
      env: zenohEnv(undefined),
      logger: capturingLogger().logger,
      signal: never,
      deps: router.deps,
    });
    assert.deepEqual(result, { kind: 'gave-up', checks: 1, mode: 'client', where: 'tcp/zenoh-router:7447' });
  });

  it('with a negative value, or endpoints it cannot know, does not check at all', async () => {
    const router = scriptedRouter(undefined);
    const skipped = await waitForZenohRouter({
      env: zenohEnv('-1'),
      logger: capturingLogger().logger,
      signal: never,
      deps: router.deps,
    });
    assert.equal(skipped.kind, 'skipped');
    const fromFile = await waitForZenohRouter({
      env: { ZENOH_ROUTER_CHECK_ATTEMPTS: '0', ZENOH_SESSION_CONFIG_URI: '/etc/session.json5' },
      logger: capturingLogger().logger,
      signal: never,
      deps: router.deps,
    });
    assert.equal(fromFile.kind, 'skipped');
    const udpOnly = await waitForZenohRouter({
      env: zenohEnv('0', 'udp/r:7447'),
      logger: capturingLogger().logger,
      signal: never,
      deps: router.deps,
    });
    assert.equal(udpOnly.kind === 'skipped' && /can probe/.test(udpOnly.reason), true);
    assert.deepEqual(router.probed, []);
  });

  it('probes every endpoint and takes the first that answers', async () => {
    const answered = new Set(['b:2']);
    const result = await waitForZenohRouter({
      env: {
        ZENOH_ROUTER_CHECK_ATTEMPTS: '0',
        ZENOH_CONFIG_OVERRIDE: 'connect/endpoints=["tcp/a:1","tcp/b:2","udp/c:3"]',
      },
      logger: capturingLogger().logger,
      signal: never,
      deps: {
        probe: (target) =>
          Promise.resolve(target.kind === 'tcp' && answered.has(`${target.host}:${target.port}`)),
      },
    });
    assert.equal(result.kind === 'answered' && result.locator, 'tcp/b:2');
  });

  it('stops waiting when aborted', async () => {
    const controller = new AbortController();
    const waiting = waitForZenohRouter({
      env: zenohEnv('0', 'tcp/127.0.0.1:9'),
      logger: capturingLogger().logger,
      signal: controller.signal,
      deps: { probe: () => Promise.resolve(false) },
    });
    setTimeout(() => {
      controller.abort(new Error('shutting down'));
    }, 50);
    await assert.rejects(waiting, /shutting down/);
  });
});

const listen = (server: Server, port = 0): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });

const closedPort = async (): Promise<number> => {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
};

describe('the TCP probe (real sockets on loopback)', () => {
  it('answers true for a listening port and false for a closed one', async () => {
    const server = createServer((socket) => socket.destroy());
    const port = await listen(server);
    try {
      assert.equal(await probeConnect({ kind: 'tcp', host: '127.0.0.1', port }, never), true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(
      await probeConnect({ kind: 'tcp', host: '127.0.0.1', port: await closedPort() }, never),
      false,
    );
  });

  it('waits with the real probe until a listener appears on the endpoint', async () => {
    const port = await closedPort();
    const server = createServer((socket) => socket.destroy());
    const log = capturingLogger();
    const started = Date.now();
    setTimeout(() => void listen(server, port), 1_500);
    try {
      const result = await waitForZenohRouter({
        env: zenohEnv('0', `tcp/127.0.0.1:${port}`),
        logger: log.logger,
        signal: AbortSignal.timeout(10_000),
      });
      if (result.kind !== 'answered') assert.fail(JSON.stringify(result));
      assert.ok(result.checks >= 2, JSON.stringify(result));
      assert.ok(Date.now() - started >= 1_500);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('plans the spec defaults as one endpoint to probe', () => {
    const plan = routerProbePlan(zenohEnv('0', 'tcp/host.docker.internal:7447'));
    assert.deepEqual(plan, {
      kind: 'probe',
      endpoints: [
        {
          locator: 'tcp/host.docker.internal:7447',
          target: { kind: 'tcp', host: 'host.docker.internal', port: 7447 },
        },
      ],
      mode: 'client',
      unsupported: [],
    });
  });
});
