import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { watchRouterLink } from '../../src/ros/zenoh/router-link.js';
import { capturingLogger } from '../support/log-capture.js';

const listen = async (port = 0): Promise<Server> => {
  const server = createServer((socket) => socket.destroy());
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
};
const portOf = (server: Server): number => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};
const clientEnv = (port: number): NodeJS.ProcessEnv => ({
  ZENOH_CONFIG_OVERRIDE: `mode="client";connect/endpoints=["tcp/127.0.0.1:${port}"]`,
});

/** Polls `check` every 10 ms for at most 3 s. */
const eventually = async (what: string, check: () => boolean): Promise<void> => {
  for (let tries = 0; tries < 300; tries += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what} did not happen within 3 s`);
};

describe('watching the Zenoh router after start-up', () => {
  it('says the router is down once it stops answering, and up again once it answers, logging each change once', async () => {
    let router = await listen();
    const port = portOf(router);
    const { logger, lines } = capturingLogger();
    const link = watchRouterLink({ env: clientEnv(port), logger, intervalMs: 20 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(link.down(), undefined);
      router.close();
      await eventually('the link down', () => link.down() !== undefined);
      assert.match(
        link.down() ?? '',
        new RegExp(`Zenoh router at tcp/127\\.0\\.0\\.1:${port} does not answer`),
      );
      router = await listen(port);
      await eventually('the link up', () => link.down() === undefined);
      assert.deepEqual(
        lines
          .filter((line) => line.level >= 30)
          .map((line) => [line.level, line.msg.replace(/\d+ ms$/, 'N ms')]),
        [
          [40, `the Zenoh router at tcp/127.0.0.1:${port} does not answer: ROS calls get 503 until it does`],
          [30, `the Zenoh router at tcp/127.0.0.1:${port} answers again after N ms`],
        ],
      );
    } finally {
      link.close();
      router.close();
    }
  });

  it('never reports down in peer mode or without an endpoint it can probe', async () => {
    const logger = pino({ level: 'silent' });
    const peer = watchRouterLink({
      env: { ZENOH_CONFIG_OVERRIDE: 'mode="peer";connect/endpoints=["tcp/127.0.0.1:1"]' },
      logger,
      intervalMs: 10,
    });
    const unknown = watchRouterLink({
      env: { ZENOH_SESSION_CONFIG_URI: '/etc/zenoh.json5' },
      logger,
      intervalMs: 10,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(peer.down(), undefined);
    assert.equal(unknown.down(), undefined);
    peer.close();
    unknown.close();
  });
});
