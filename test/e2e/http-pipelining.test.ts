import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { openRawConnection } from '../support/raw-http.js';
import { startTestService, type TestService } from '../support/test-service.js';

/**
 * What one HTTP connection may hold: one answer owed at a time. A client that pipelines requests and
 * never reads gets its connection closed once an answer waits for it, instead of the bridge answering every
 * request into a buffer (10,000 pipelined GETs of the kiosk's script took 800 MiB); a client that takes
 * nothing of an answer for the send time-out is closed. Static routes are public, so a token changes
 * nothing. Real server, raw sockets, the service in this process (its RSS is what the bridge holds).
 */

const ASSET_BYTES = 80 * 1024;
const PIPELINED = 1_500;
const MiB = 1024 * 1024;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP pipelining: one answer owed per connection', () => {
  let root: string;
  const token = 'pipelining-test-token-0123456789';
  let open: TestService;
  let guarded: TestService;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'tour-bridge-pipelining-'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>kiosk</title>');
    writeFileSync(join(root, 'admin.html'), '<!doctype html><title>admin</title>');
    // Random bytes as hex: the size of the built kiosk script, and nothing compresses it on the way.
    writeFileSync(join(root, 'kiosk.js'), randomBytes(ASSET_BYTES / 2).toString('hex'));
    open = await startTestService(createSimBackend(), { webRoot: root });
    guarded = await startTestService(createSimBackend(), {
      webRoot: root,
      overrides: { auth_token: token },
    });
  });
  after(async () => {
    await open.stop();
    await guarded.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** One sample of the service's /metrics (NaN when absent), with the token where one is set. */
  const metric = async (running: TestService, name: string): Promise<number> => {
    const headers: Record<string, string> = running === guarded ? { authorization: `Bearer ${token}` } : {};
    const text = await (await fetch(`${running.baseUrl}/metrics`, { headers })).text();
    const line = text.split('\n').find((row) => row.startsWith(name));
    return Number(line?.split(' ').at(-1) ?? Number.NaN);
  };
  const ASSETS_ANSWERED = 'tour_bridge_http_requests_total{method="GET",route="/assets/*",status="200"}';
  const CLOSED = 'tour_bridge_http_answers_unsent_total{reason="connection_closed"}';
  const TIMED_OUT = 'tour_bridge_http_answers_unsent_total{reason="send_timeout"}';
  const WAITING = 'tour_bridge_http_answers_waiting';

  /** Polls `read` every 50 ms until `done` holds of its value or `timeoutMs` passed; the last value. */
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await sleep(50);
      value = await read();
    }
    return value;
  };

  for (const [label, running] of [
    ['without a token', () => open],
    ['with a token set', () => guarded],
  ] as const) {
    it(`closes a connection that pipelines past an answer its client has not taken (${label})`, async () => {
      const service = running();
      const closedBefore = (await metric(service, CLOSED)) || 0;
      const answeredBefore = (await metric(service, ASSETS_ANSWERED)) || 0;
      const rssBefore = process.memoryUsage().rss;
      const connection = await openRawConnection(service.service.listeningPort);
      try {
        connection.pause();
        // 1,500 × 80 KiB of answers (117 MiB) asked for in one write, none of it read.
        connection.send(get('/assets/kiosk.js').repeat(PIPELINED));
        const closed = await until(
          () => metric(service, CLOSED),
          (value) => value >= closedBefore + 1,
          20_000,
        );
        assert.equal(closed, closedBefore + 1, 'the connection was closed with an answer unsent');
        const rssGrowth = process.memoryUsage().rss - rssBefore;
        const answered = (await metric(service, ASSETS_ANSWERED)) - answeredBefore;
        // The kernel's buffers on both ends take a few MiB of answers; the rest were never answered.
        assert.ok(answered < PIPELINED / 3, `${answered} of ${PIPELINED} pipelined requests answered`);
        assert.ok(rssGrowth < 48 * MiB, `RSS grew by ${(rssGrowth / MiB).toFixed(0)} MiB`);
        assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
        connection.resume();
        assert.equal(await connection.closedWithin(10_000), 'closed');
      } finally {
        connection.destroy();
      }
    });
  }

  it('closes a connection whose client takes nothing of an answer for the send time-out', async () => {
    const timedOutBefore = (await metric(open, TIMED_OUT)) || 0;
    let answered = (await metric(open, ASSETS_ANSWERED)) || 0;
    const connection = await openRawConnection(open.service.listeningPort);
    try {
      connection.pause();
      // One request at a time, each answered before the next is sent, until an answer waits: no request
      // is ever pipelined behind it, so only the time-out can end it.
      let waiting = 0;
      for (let sent = 0; sent < 300 && waiting === 0; sent += 1) {
        connection.send(get('/assets/kiosk.js'));
        const target = answered + 1;
        answered = await until(
          () => metric(open, ASSETS_ANSWERED),
          (value) => value >= target,
          5_000,
        );
        assert.equal(answered, target, 'the request was answered');
        waiting = await metric(open, WAITING);
      }
      assert.equal(waiting, 1, 'an answer waits for the client');
      // The send time-out is 8 s; generous on a loaded machine.
      const timedOut = await until(
        () => metric(open, TIMED_OUT),
        (value) => value >= timedOutBefore + 1,
        30_000,
      );
      assert.equal(timedOut, timedOutBefore + 1, 'the answer ended with the send time-out');
      assert.equal(await metric(open, WAITING), 0);
      connection.resume();
      assert.equal(await connection.closedWithin(10_000), 'closed');
    } finally {
      connection.destroy();
    }
  });

  it('still answers requests pipelined by a client that reads', async () => {
    const connection = await openRawConnection(open.service.listeningPort);
    try {
      connection.send(get('/assets/kiosk.js').repeat(20));
      for (let index = 0; index < 20; index += 1) {
        const answer = await connection.next({ timeoutMs: 10_000 });
        assert.notEqual(answer, 'closed');
        assert.equal(answer === 'closed' ? 0 : answer.body.length, ASSET_BYTES);
      }
    } finally {
      connection.destroy();
    }
  });
});
