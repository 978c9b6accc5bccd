import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openRawConnection, type RawResponse } from '../support/raw-http.js';
import { startSimService, type TestService } from '../support/test-service.js';

/**
 * A request that reaches the /ws upgrade is a WebSocket handshake as RFC 6455 defines it, or it is
 * refused; the same on both uWebSockets.js builds (docs/protocol.md, "Handshake").
 */

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

const handshake = (headers: Record<string, string>): string =>
  `GET /ws HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

const VALID = {
  Host: '127.0.0.1',
  Upgrade: 'websocket',
  Connection: 'Upgrade',
  'Sec-WebSocket-Key': KEY,
  'Sec-WebSocket-Version': '13',
};

describe('the /ws handshake', () => {
  let running: TestService;
  let port: number;
  before(async () => {
    running = await startSimService();
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
  });

  const answerTo = async (request: string): Promise<RawResponse & { closed: boolean }> => {
    const connection = await openRawConnection(port);
    try {
      connection.send(request);
      const answer = await connection.next({ timeoutMs: 2_000 });
      assert.ok(answer !== 'closed', 'an answer before the connection closed');
      return { ...answer, closed: (await connection.closedWithin(500)) === 'closed' };
    } finally {
      connection.destroy();
    }
  };

  it('a valid handshake is upgraded (101)', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send(handshake(VALID));
      await connection.closedWithin(300);
      assert.match(connection.text(), /^HTTP\/1\.1 101 /);
    } finally {
      connection.destroy();
    }
  });

  it('refuses a WebSocket version other than 13 with 426 and Sec-WebSocket-Version: 13', async () => {
    for (const version of ['8', '0', '']) {
      const answer = await answerTo(handshake({ ...VALID, 'Sec-WebSocket-Version': version }));
      assert.equal(answer.status, 426, `version ${JSON.stringify(version)}`);
      assert.equal(answer.headers['sec-websocket-version'], '13');
      assert.match(answer.body, /use version 13/);
      assert.ok(answer.closed, 'the connection is closed after the refusal');
    }
  });

  it('refuses a request without Upgrade: websocket and Connection: Upgrade with 426', async () => {
    const { Upgrade: _upgrade, ...withoutUpgrade } = VALID;
    const { Connection: _connection, ...withoutConnection } = VALID;
    for (const [what, headers] of Object.entries({
      'no Upgrade': withoutUpgrade,
      'Upgrade: h2c': { ...VALID, Upgrade: 'h2c' },
      'no Connection': withoutConnection,
    })) {
      const answer = await answerTo(handshake(headers));
      assert.equal(answer.status, 426, what);
      assert.equal(answer.headers['upgrade'], 'websocket', what);
    }
  });

  it('refuses two Host headers with 400, on the upgrade and on HTTP routes', async () => {
    const upgrade = await answerTo(
      handshake({ ...VALID, Host: '127.0.0.1' }).replace('\r\n\r\n', '\r\nHost: evil.example\r\n\r\n'),
    );
    assert.equal(upgrade.status, 400);
    const route = await answerTo('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n');
    assert.equal(route.status, 400);
  });
});
