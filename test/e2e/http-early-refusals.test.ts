import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metric } from '../support/metric.js';
import { openRawConnection } from '../support/raw-http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { expectedUwsLine } from '../support/uws-expectation.js';

/**
 * Requests refused from their head: a declared body over the limit gets its 413 before a byte of it is
 * sent; a method the service does not have is answered naming the method as sent, and counted without
 * letting each made-up name add a series to /metrics. Real server, raw sockets.
 */

const line = expectedUwsLine(process.versions.modules);
const MiB = 1024 * 1024;

describe('HTTP requests refused from their head', () => {
  let running: TestService;
  let port: number;
  before(async () => {
    running = await startSimService();
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
  });

  it('answers 413 to a declared oversize body before the body is sent, and keeps the connection', async () => {
    const connection = await openRawConnection(port);
    try {
      const declared = 2 * MiB; // the default limit is 1 MiB
      connection.send(
        'POST /tour HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${declared}\r\n\r\n`,
      );
      // Nothing of the body has been sent: the answer comes from the head alone.
      const early = await connection.next({ timeoutMs: 5_000 });
      assert.notEqual(early, 'closed');
      assert.equal(early === 'closed' ? 0 : early.status, 413);
      assert.match(early === 'closed' ? '' : early.body, /exceeds the limit of 1048576 bytes/);
      // The body still sent is read and thrown away; the connection then serves the next request.
      connection.send(' '.repeat(declared));
      connection.send('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const next = await connection.next({ timeoutMs: 10_000 });
      assert.equal(next === 'closed' ? 'closed' : next.status, 200);
    } finally {
      connection.destroy();
    }
  });

  it('names the method as sent in a 405 and counts made-up methods as one', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send('get /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const answer = await connection.next({ timeoutMs: 5_000 });
      if (line === 'node20') {
        // This build's parser closes a request with a lower-case method before the service sees it.
        assert.equal(answer, 'closed');
        return;
      }
      assert.notEqual(answer, 'closed');
      assert.equal(answer === 'closed' ? 0 : answer.status, 405);
      assert.match(answer === 'closed' ? '' : answer.body, /"detail":"get is not allowed on \/health/);
    } finally {
      connection.destroy();
    }
    for (const method of ['FOO1', 'FOO2', 'FOO3']) {
      const each = await openRawConnection(port);
      try {
        each.send(`${method} /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        const answer = await each.next({ timeoutMs: 5_000 });
        assert.equal(answer === 'closed' ? 'closed' : answer.status, 405, method);
      } finally {
        each.destroy();
      }
    }
    assert.ok(
      (await metric(
        running.baseUrl,
        'tour_bridge_http_requests_total{method="other",route="/health",status="405"}',
      )) >= 3,
    );
    const text = await (await fetch(`${running.baseUrl}/metrics`)).text();
    assert.doesNotMatch(text, /method="FOO/);
  });
});
