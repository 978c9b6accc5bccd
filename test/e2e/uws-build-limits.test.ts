import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openRawConnection } from '../support/raw-http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * What the pinned uWebSockets.js build (@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0) does with
 * input it refuses before any handler of ours runs, so the service cannot answer it (docs/operations.md,
 * "Limits of the uWebSockets.js build"; docs/protocol.md). These pin today's behaviour: a build that
 * answers instead makes them fail, and then the docs and these tests are to be updated.
 */

/** The build's idle time-out closes a connection that sent an unanswered request after ~10–12 s. */
const SILENT_CLOSE_WITHIN_MS = 20_000;
const headerLines = (count: number) =>
  Array.from({ length: count }, (_, index) => `X-Header-${index}: v\r\n`).join('');

describe('limits of the pinned uWebSockets.js build', () => {
  let running: TestService;
  let port: number;
  before(async () => {
    running = await startSimService();
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
  });

  it('answers 48 header lines; closes on HTTP/1.0, 49 header lines or a trickled body without a byte of answer', async () => {
    const answered = await openRawConnection(port);
    try {
      answered.send(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(47)}\r\n`);
      const result = await answered.next();
      assert.notEqual(result, 'closed');
      assert.equal(result !== 'closed' && result.status, 200);
    } finally {
      answered.destroy();
    }
    // All at once: each waits for the build's idle time-out. A body that arrives one byte a second (a
    // declared 1,000 bytes, at most 20 sent) is cut too: the build's time-out is not reset by its bytes.
    const slowBody = (async () => {
      const connection = await openRawConnection(port);
      let bytes = 0;
      const trickle = setInterval(() => {
        if (bytes < 20) connection.send(' ');
        bytes += 1;
      }, 1_000);
      try {
        const started = performance.now();
        connection.send(
          'POST /tour HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
        );
        const closed = await connection.closedWithin(SILENT_CLOSE_WITHIN_MS);
        return {
          closed,
          received: connection.received(),
          ms: Math.round(performance.now() - started),
          bytes,
        };
      } finally {
        clearInterval(trickle);
        connection.destroy();
      }
    })();
    const silent = {
      'HTTP/1.0': 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n',
      '49 header lines': `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(48)}\r\n`,
    };
    const outcomes = await Promise.all(
      Object.entries(silent).map(async ([what, request]) => {
        const connection = await openRawConnection(port);
        try {
          const started = performance.now();
          connection.send(request);
          const closed = await connection.closedWithin(SILENT_CLOSE_WITHIN_MS);
          return { what, closed, received: connection.received(), ms: performance.now() - started };
        } finally {
          connection.destroy();
        }
      }),
    );
    const trickled = await slowBody;
    assert.equal(trickled.closed, 'closed', 'a body trickled in one byte a second');
    assert.equal(trickled.received, 0, 'the build answered a trickled body; update the docs and this test');
    // Closed on the build's time-out, not at once and not once the trickle stops (after 20 bytes).
    assert.ok(
      trickled.ms > 5_000 && trickled.bytes < 20,
      `closed after ${trickled.ms} ms, ${trickled.bytes} bytes`,
    );
    for (const outcome of outcomes) {
      assert.equal(outcome.closed, 'closed', outcome.what);
      assert.equal(outcome.received, 0, `${outcome.what}: the build answered; update the docs and this test`);
      // Not at once: the build waits for more of a request it cannot parse.
      assert.ok(outcome.ms > 5_000, `${outcome.what} closed after ${Math.round(outcome.ms)} ms`);
    }
    // The server is unharmed.
    const after = await openRawConnection(port);
    try {
      after.send('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const result = await after.next();
      assert.equal(result !== 'closed' && result.status, 200);
    } finally {
      after.destroy();
    }
  });

  it('closes the connection on a method it does not know, at once and without an answer', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send('PROPFIND /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      assert.equal(await connection.closedWithin(5_000), 'closed');
      assert.equal(connection.received(), 0, 'the build answered; update the docs and this test');
    } finally {
      connection.destroy();
    }
  });

  it('drops a /ws connection on an invalid UTF-8 text frame without a close frame (1006)', async () => {
    const kiosk = await KioskClient.connect(running.wsUrl);
    await kiosk.frameCount(1);
    const before = kiosk.frames.length;
    // `ws` sends the bytes as they are; the build checks UTF-8 before our message handler sees them.
    kiosk.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    const closed = await kiosk.closed();
    assert.equal(closed.code, 1006, 'the build now sends a close frame; update docs/protocol.md');
    assert.equal(kiosk.frames.length, before, 'no invalid_json error frame reaches the kiosk');
  });

  it('still answers a valid UTF-8 text frame that is not JSON with invalid_json', async () => {
    const kiosk = await KioskClient.connect(running.wsUrl);
    try {
      await kiosk.frameCount(1);
      kiosk.socket.send('{not json', { binary: false });
      await kiosk.until(
        (frames) => frames.some((frame) => frame.kind === 'text' && frame.json['code'] === 'invalid_json'),
        'the invalid_json error frame',
      );
      assert.equal(kiosk.closeEvent, undefined);
    } finally {
      kiosk.socket.close();
    }
  });
});

describe('limits of the pinned uWebSockets.js build: pipelining and Expect', () => {
  let running: TestService;
  let port: number;
  before(async () => {
    // A latency makes GET /tour wait on the (simulated) ROS call, as it does on a robot.
    running = await startSimService({ latencyMs: 20 }, { auth_token: 'kiosk-token-0123456789' });
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
  });
  const bearer = 'Authorization: Bearer kiosk-token-0123456789\r\n';

  it('closes a connection that pipelines a request behind one waiting on ROS, without an answer', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send(
        `GET /tour HTTP/1.1\r\nHost: x\r\n${bearer}\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      assert.equal(await connection.closedWithin(5_000), 'closed');
      assert.equal(connection.received(), 0, 'the build answered a pipelined request; update the docs');
    } finally {
      connection.destroy();
    }
    // One request at a time on one connection (what browsers, curl and nginx do) is answered in order.
    const sequential = await openRawConnection(port);
    try {
      for (const path of ['/tour', '/health', '/tour']) {
        sequential.send(`GET ${path} HTTP/1.1\r\nHost: x\r\n${bearer}\r\n`);
        const answer = await sequential.next();
        assert.equal(answer === 'closed' ? 0 : answer.status, 200, path);
      }
    } finally {
      sequential.destroy();
    }
  });

  it('sends 100 Continue itself, before the service checks the token or the size', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send(
        'POST /tour HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 50000000\r\nExpect: 100-continue\r\n\r\n',
      );
      const first = await connection.next({ head: true });
      assert.equal(first === 'closed' ? 0 : first.status, 100, 'the build no longer sends 100 by itself');
      // Then the service's own answer: the token is checked first.
      const answer = await connection.next();
      assert.equal(answer === 'closed' ? 0 : answer.status, 401);
    } finally {
      connection.destroy();
    }
  });
});
