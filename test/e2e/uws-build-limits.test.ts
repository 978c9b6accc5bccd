import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openRawConnection } from '../support/raw-http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { clientFrame, WireWsClient } from '../support/wire-ws-client.js';
import { KioskClient } from '../support/ws-client.js';
import { expectedUwsLine } from '../support/uws-expectation.js';

/**
 * What each uWebSockets.js build does with input it handles before any handler of ours runs
 * (docs/operations.md, "Limits of the uWebSockets.js builds"; docs/protocol.md). The build serving is
 * the one this Node.js and this glibc call for (test/support/uws-expectation.ts): the official line on
 * glibc 2.38 or newer, the Node.js 20 build below. These pin today's behaviour of each: a build that
 * changes makes them fail, and then the docs and these tests are to be updated.
 */

const line = expectedUwsLine(process.versions.modules);
/** The Node.js 20 build's idle time-out closes a connection that sent an unanswered request after ~10–12 s. */
const SILENT_CLOSE_WITHIN_MS = 20_000;
/** The official build closes a stalled body ~10 s after its last byte: 20 bytes a second apart, then ~10 s. */
const TRICKLE_CLOSE_WITHIN_MS = 45_000;
const headerLines = (count: number) =>
  Array.from({ length: count }, (_, index) => `X-Header-${index}: v\r\n`).join('');

interface Outcome {
  readonly closed: 'closed' | 'open';
  readonly answer: number | 'none';
  readonly ms: number;
}

/** Sends one raw request; the status of its answer, if any, and whether and when the connection closed. */
const exchange = async (port: number, request: string, withinMs: number): Promise<Outcome> => {
  const connection = await openRawConnection(port);
  try {
    const started = performance.now();
    connection.send(request);
    const closed = await connection.closedWithin(withinMs);
    const first = /^HTTP\/1\.1 (\d{3})/.exec(connection.text())?.[1];
    return {
      closed,
      answer: first === undefined ? 'none' : Number(first),
      ms: Math.round(performance.now() - started),
    };
  } finally {
    connection.destroy();
  }
};

/** A POST declaring 1,000 bytes whose body comes one byte a second, 20 bytes at most, then stops. */
const trickledBody = async (port: number, withinMs: number) => {
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
    const closed = await connection.closedWithin(withinMs);
    return { closed, received: connection.received(), ms: Math.round(performance.now() - started) };
  } finally {
    clearInterval(trickle);
    connection.destroy();
  }
};

describe(`limits of the uWebSockets.js build serving here (${line})`, () => {
  let running: TestService;
  let port: number;
  before(async () => {
    running = await startSimService();
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
  });

  it('answers 48 header lines; what it does with more, with HTTP/1.0 and with a trickled body', async () => {
    const answered = await exchange(
      port,
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(47)}\r\n`,
      1_000,
    );
    assert.equal(answered.answer, 200);
    if (line === 'node20') {
      // All at once: each waits for the build's idle time-out, without a byte of answer. The trickled
      // body is cut too: the build's time-out is not reset by its bytes.
      const [http10, lines49, trickled] = await Promise.all([
        exchange(port, 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n', SILENT_CLOSE_WITHIN_MS),
        exchange(
          port,
          `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(48)}\r\n`,
          SILENT_CLOSE_WITHIN_MS,
        ),
        trickledBody(port, SILENT_CLOSE_WITHIN_MS),
      ]);
      for (const [what, outcome] of Object.entries({ 'HTTP/1.0': http10, '49 header lines': lines49 })) {
        assert.deepEqual([outcome.closed, outcome.answer], ['closed', 'none'], what);
        assert.ok(outcome.ms > 5_000, `${what} closed after ${outcome.ms} ms`);
      }
      assert.deepEqual(
        [trickled.closed, trickled.received],
        ['closed', 0],
        'a body trickled in one byte a second',
      );
      assert.ok(
        trickled.ms > 5_000 && trickled.ms < 19_000,
        `closed after ${trickled.ms} ms, before the trickle ended`,
      );
    } else {
      // The official line answers each at once, or serves it.
      const [http10, lines49, lines200, trickled] = await Promise.all([
        exchange(port, 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n', 5_000),
        exchange(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(48)}\r\n`, 1_000),
        exchange(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(199)}\r\n`, 5_000),
        trickledBody(port, TRICKLE_CLOSE_WITHIN_MS),
      ]);
      assert.deepEqual([http10.answer, http10.closed], [505, 'closed'], 'HTTP/1.0');
      assert.ok(http10.ms < 2_000, `HTTP/1.0 answered after ${http10.ms} ms`);
      assert.equal(lines49.answer, 200, '49 header lines');
      assert.deepEqual([lines200.answer, lines200.closed], [431, 'closed'], '200 header lines');
      // Closed about 10 s after its last byte (the 20th, 20 s in), not while bytes still come.
      assert.deepEqual(
        [trickled.closed, trickled.received],
        ['closed', 0],
        'a body trickled in one byte a second',
      );
      assert.ok(trickled.ms > 25_000, `closed after ${trickled.ms} ms`);
    }
    // The server is unharmed.
    assert.equal((await exchange(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 500)).answer, 200);
  });

  it('a method it does not know: the Node.js 20 build closes at once without an answer; the official line lets the service answer 405', async () => {
    const outcome = await exchange(port, 'PROPFIND /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 2_000);
    if (line === 'node20') {
      assert.deepEqual([outcome.closed, outcome.answer], ['closed', 'none']);
    } else {
      assert.equal(outcome.answer, 405);
    }
  });

  it('a request without Host, or with an absolute-form target: the Node.js 20 build never answers and closes at its idle time-out; the official line answers 400 and 505', async () => {
    const withinMs = line === 'node20' ? SILENT_CLOSE_WITHIN_MS : 2_000;
    const [noHost, absoluteForm] = await Promise.all([
      exchange(port, 'GET /health HTTP/1.1\r\n\r\n', withinMs),
      exchange(port, `GET http://127.0.0.1:${port}/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, withinMs),
    ]);
    if (line === 'node20') {
      for (const [what, outcome] of Object.entries({ 'no Host': noHost, 'absolute form': absoluteForm })) {
        assert.deepEqual([outcome.closed, outcome.answer], ['closed', 'none'], what);
        assert.ok(outcome.ms > 5_000, `${what} closed after ${outcome.ms} ms`);
      }
    } else {
      assert.equal(noHost.answer, 400, 'no Host');
      assert.equal(absoluteForm.answer, 505, 'absolute form');
    }
  });

  it('a target of `*` or without a leading slash, or a header line without a colon: the Node.js 20 build never answers and closes at its idle time-out; the official line answers 505, 505 and 400 and closes at once', async () => {
    const withinMs = line === 'node20' ? SILENT_CLOSE_WITHIN_MS : 2_000;
    const requests = {
      'target *': 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      'target tour': 'GET tour HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      'header .;': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n.;\r\n\r\n',
    };
    const outcomes = await Promise.all(
      Object.values(requests).map((request) => exchange(port, request, withinMs)),
    );
    const expected = line === 'node20' ? ['none', 'none', 'none'] : [505, 505, 400];
    for (const [index, what] of Object.keys(requests).entries()) {
      const outcome = outcomes[index];
      assert.deepEqual([outcome?.closed, outcome?.answer], ['closed', expected[index]], what);
      if (line === 'node20') assert.ok((outcome?.ms ?? 0) > 5_000, `${what} closed after ${outcome?.ms} ms`);
    }
  });

  it('reads a client frame without the mask bit as a masked one, and never hands it to the service', async () => {
    const client = await WireWsClient.connect(running.wsUrl);
    try {
      await client.until((frames) => frames.length >= 1, 'the welcome');
      // {"service":"clear_history"} unmasked: the build takes its first 4 bytes for a mask and waits for
      // the rest of a frame that never comes; no ack, no error, no close.
      const command = Buffer.from('{"service":"clear_history"}');
      client.write(Buffer.concat([Buffer.from([0x81, command.byteLength]), command]));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(client.frames.length, 1, 'nothing answers the unmasked frame');
    } finally {
      client.close();
    }
  });

  it('answers a close frame with an invalid code (or any code but 1000) with an empty close frame', async () => {
    for (const code of [999, 1005, 1006, 3000, 5000]) {
      const client = await WireWsClient.connect(running.wsUrl);
      try {
        await client.until((frames) => frames.length >= 1, 'the welcome');
        client.write(clientFrame(0x8, Buffer.from([code >> 8, code & 0xff])));
        await client.until((frames) => frames.some((frame) => frame.opcode === 8), `the close for ${code}`);
        const close = client.frames.find((frame) => frame.opcode === 8);
        assert.equal(close?.payload.byteLength, 0, `close ${code}: an empty close frame, not 1002`);
      } finally {
        client.close();
      }
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

describe('limits of both uWebSockets.js builds: pipelining and Expect', () => {
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
