import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { of, throwError, timer, map } from 'rxjs';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { RosCallFailedError, RosServiceUnavailableError } from '../../src/ros/port/ros-port.js';
import { assertProblem } from '../contract/tour-api-contract.js';
import {
  SIM_AUDIO_MAX_BYTES,
  SIM_PLAY_AUDIO_MAX_BODY_BYTES,
} from '../../src/transport/routes/sim-schemas.js';
import { ECHO_MAX_CHARS } from '../../src/transport/http/router.js';
import { request } from '../support/http.js';
import { expectedUwsLine, UWS_PACKAGES } from '../support/uws-expectation.js';
import { openRawConnection } from '../support/raw-http.js';
import { MAX_REQUEST_HEAD_BYTES } from '../../src/transport/uws-build.js';
import { ScriptedPort } from '../support/scripted-port.js';
import { startServerProcess } from '../support/server-process.js';
import { startSimService, startTestService, type TestService } from '../support/test-service.js';

describe('HTTP transport on the simulation', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService();
  });
  after(async () => {
    await running.stop();
  });

  it('answers /health and /ready, naming the simulation', async () => {
    const health = await request(running.baseUrl, 'GET', '/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: 'ok' });
    const ready = await request(running.baseUrl, 'GET', '/ready');
    assert.equal(ready.status, 200);
    const body = ready.json as {
      ready: boolean;
      backend: string;
      detail: string;
      uws: { build: string; line: string; reason: string };
    };
    assert.equal(body.ready, true);
    assert.equal(body.backend, 'sim');
    assert.match(body.detail, /SIMULATION/);
    // The build serving: the one this Node.js and this glibc call for (none would have refused to start).
    const line = expectedUwsLine(process.versions.modules);
    assert.equal(body.uws.line, line);
    assert.ok(body.uws.build.startsWith(`${UWS_PACKAGES[line as 'official' | 'node20']}@`), body.uws.build);
    const metrics = await request(running.baseUrl, 'GET', '/metrics');
    assert.match(
      metrics.text,
      new RegExp(`^tour_bridge_uws_build_info\\{uws="[^"]+",line="${line}",reason="[^"]+"\\} 1$`, 'm'),
    );
  });

  it('serves an OpenAPI 3.1 document covering every route, sim routes included', async () => {
    const result = await request(running.baseUrl, 'GET', '/openapi.json');
    assert.equal(result.status, 200);
    const document = result.json as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, { maxLength?: number }> }> };
    };
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(Object.keys(document.paths['/tour'] ?? {}).sort(), ['get', 'post', 'put']);
    assert.deepEqual(Object.keys(document.paths['/tour/{tour_name}'] ?? {}).sort(), [
      'delete',
      'get',
      'parameters',
      'put',
    ]);
    assert.ok(document.paths['/sim/play_audio']);
    assert.ok(document.paths['/sim/microphone']);
    assert.equal(document.components.schemas['Tour']?.properties?.['tour_name']?.maxLength, 128);
  });

  it('echoes a safe x-request-id and replaces an unsafe one', async () => {
    const echoed = await request(running.baseUrl, 'GET', '/health', {
      headers: { 'x-request-id': 'kiosk-7.42' },
    });
    assert.equal(echoed.headers.get('x-request-id'), 'kiosk-7.42');
    const replaced = await request(running.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'a b' } });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('answers 413 for a chunked body over the limit without content-length', async () => {
    const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(256 * 1024)}`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 8 × 256 KiB = 2 MiB, over the 1 MiB default; bounded so the stream always ends.
        if (sent >= 8) controller.close();
        else {
          sent += 1;
          controller.enqueue(chunk);
        }
      },
    });
    const response = await fetch(`${running.baseUrl}/tour`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(response.status, 413);
    assert.match(response.headers.get('content-type') ?? '', /problem\+json/);
  });

  it('honours --max_body_bytes', async () => {
    const small = await startSimService({}, { max_body_bytes: '64' });
    try {
      const body = JSON.stringify({
        tour_name: 'x',
        map_name: 'm',
        steps: [{ description: 'a'.repeat(80) }],
      });
      assertProblem(await request(small.baseUrl, 'POST', '/tour', { body }), 413);
    } finally {
      await small.stop();
    }
  });

  it('takes /sim/play_audio audio up to the documented 8 MiB, past the 1 MiB default body limit', async () => {
    const playAudio = (audioBytes: number) =>
      JSON.stringify({
        emotion: 'happy',
        text: 'hello',
        audio: Buffer.alloc(audioBytes, 7).toString('base64'),
      });
    const largest = await request(running.baseUrl, 'POST', '/sim/play_audio', {
      body: playAudio(SIM_AUDIO_MAX_BYTES),
    });
    assert.equal(largest.status, 200, largest.text);
    // One byte more is refused by the schema's audio limit, which names it, not by the body limit.
    const over = assertProblem(
      await request(running.baseUrl, 'POST', '/sim/play_audio', { body: playAudio(SIM_AUDIO_MAX_BYTES + 1) }),
      422,
    );
    assert.match(String(over['detail']), new RegExp(`at most ${SIM_AUDIO_MAX_BYTES} bytes`));
    // The route's own body limit still bounds what is read.
    const huge = `{"emotion":"","text":"","audio":"${'A'.repeat(SIM_PLAY_AUDIO_MAX_BODY_BYTES)}"}`;
    const refused = assertProblem(
      await request(running.baseUrl, 'POST', '/sim/play_audio', { body: huge }),
      413,
    );
    assert.match(String(refused['detail']), new RegExp(`limit of ${SIM_PLAY_AUDIO_MAX_BODY_BYTES} bytes`));
    // Other routes keep --max_body_bytes.
    const tour = JSON.stringify({
      tour_name: 'big',
      map_name: 'm',
      steps: [{ description: 'x'.repeat(1_100_000) }],
    });
    assertProblem(await request(running.baseUrl, 'POST', '/tour', { body: tour }), 413);
  });

  it('echoes at most the first 200 characters of an unknown path', async () => {
    const path = `/${'p'.repeat(MAX_REQUEST_HEAD_BYTES - 1_000)}`;
    const missing = await request(running.baseUrl, 'GET', path);
    const problem = assertProblem(missing, 404, 'not-found');
    assert.equal(problem['detail'], `nothing at ${path.slice(0, ECHO_MAX_CHARS)}…`);
    assert.ok(missing.text.length < 1_000, `a ${missing.text.length}-character body`);
    const short = assertProblem(await request(running.baseUrl, 'GET', '/no/such/path'), 404);
    assert.equal(short['detail'], 'nothing at /no/such/path');
  });

  it('answers 431 and closes the connection for a request head over its limit, on either build', async () => {
    // The official build answers before any handler runs; on the Node.js 20 build the service measures.
    const over = MAX_REQUEST_HEAD_BYTES + 100;
    const heads = {
      'a long path': `GET /${'p'.repeat(over)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'a long header': `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'v'.repeat(over)}\r\n\r\n`,
      'a known route': `GET /tour/${'t'.repeat(over)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'headers that add up': `GET /tour HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 20 }, (_, index) => `X-${index}: ${'v'.repeat(over / 20)}\r\n`).join('')}\r\n`,
    };
    for (const [what, head] of Object.entries(heads)) {
      const connection = await openRawConnection(running.service.listeningPort);
      try {
        connection.send(head);
        const answer = await connection.next();
        assert.equal(answer === 'closed' ? 'closed' : answer.status, 431, what);
        assert.equal(await connection.closedWithin(5_000), 'closed', `${what}: the connection is closed`);
      } finally {
        connection.destroy();
      }
    }
    // Just under the limit is served.
    const under = `/health?${'q'.repeat(MAX_REQUEST_HEAD_BYTES - 200)}`;
    assert.equal((await request(running.baseUrl, 'GET', under)).status, 200);
  });
});

describe('oversized bodies', () => {
  it('every client reads its 413, none sees its upload cut off (EPIPE)', async () => {
    const server = await startServerProcess();
    try {
      const huge = JSON.stringify({
        tour_name: 'x',
        map_name: 'm',
        steps: [{ description: 'x'.repeat(2 * 1024 * 1024) }],
      });
      const outcomes: string[] = [];
      for (let attempt = 0; attempt < 20; attempt += 1) {
        try {
          outcomes.push(String((await request(server.baseUrl, 'POST', '/tour', { body: huge })).status));
        } catch (error) {
          outcomes.push(error instanceof Error ? `${error.message}: ${String(error.cause)}` : String(error));
        }
      }
      assert.deepEqual(
        outcomes,
        Array.from({ length: 20 }, () => '413'),
      );
    } finally {
      await server.stop();
    }
  });
});

describe('HTTP answers to ROS-side failures (test double at the port)', () => {
  const outcome = (code: number, message = 'm') => ({
    success: code === TourOutcome.OK,
    outcome: code,
    message,
  });
  // /tour_get is remapped (`--ros-args -r /tour_get:=/robot1/tour_get`): errors name it so.
  const port = new ScriptedPort(
    {
      tour_list: () => throwError(() => new RosServiceUnavailableError('tour_list')),
      tour_get: () =>
        timer(60_000).pipe(
          map(() => ({ ...outcome(TourOutcome.OK), tour: { tour_name: '', map_name: '', steps: [] } })),
        ),
      tour_delete: () => throwError(() => new RosCallFailedError('tour_delete', 'node crashed')),
      tour_create: (request) =>
        of(
          request.tour.tour_name === 'odd' ? outcome(99, 'strange') : outcome(TourOutcome.ERROR, 'disk full'),
        ),
      tour_update: () => of({ success: false, outcome: TourOutcome.OK, message: 'contradiction' }),
    },
    { tour_get: '/robot1/tour_get' },
  );
  let running: TestService;
  before(async () => {
    running = await startTestService(port, { overrides: { ros_timeout_ms: '150' } });
  });
  after(async () => {
    await running.stop();
  });

  it('503 with Retry-After when the service has no server', async () => {
    const result = await request(running.baseUrl, 'GET', '/tour');
    assertProblem(result, 503, 'ros-unavailable');
    assert.equal(result.headers.get('retry-after'), '1');
  });

  it('504 after the configured time-out, naming the service as remapped; the abandoned call is released', async () => {
    const before = port.activeCalls;
    const result = await request(running.baseUrl, 'GET', '/tour/slow');
    const body = assertProblem(result, 504, 'ros-timeout');
    assert.equal(body['detail'], 'ROS service /robot1/tour_get did not answer within 150 ms');
    assert.equal(port.activeCalls, before);
  });

  it('502 for a failed call, an error outcome, an unknown outcome and a self-contradicting answer', async () => {
    assertProblem(await request(running.baseUrl, 'DELETE', '/tour/x'), 502, 'ros-call-failed');
    const tour = { map_name: 'm', steps: [] };
    const errorOutcome = assertProblem(
      await request(running.baseUrl, 'POST', '/tour', { body: JSON.stringify({ ...tour, tour_name: 'x' }) }),
      502,
    );
    assert.match(String(errorOutcome['detail']), /disk full/);
    const unknown = assertProblem(
      await request(running.baseUrl, 'POST', '/tour', {
        body: JSON.stringify({ ...tour, tour_name: 'odd' }),
      }),
      502,
    );
    assert.match(String(unknown['detail']), /unknown outcome 99/);
    assertProblem(
      await request(running.baseUrl, 'PUT', '/tour', { body: JSON.stringify({ ...tour, tour_name: 'x' }) }),
      502,
    );
  });

  it('reports not ready with 503 when the backend is not connected', async () => {
    port.ready = { ready: false, detail: 'waiting for the Zenoh router' };
    try {
      const body = assertProblem(await request(running.baseUrl, 'GET', '/ready'), 503, 'not-ready');
      assert.equal(body['detail'], 'waiting for the Zenoh router');
      assert.equal(body['backend'], 'ros');
    } finally {
      port.ready = { ready: true, detail: 'scripted' };
    }
  });

  it('has no /sim routes outside the simulation', async () => {
    assertProblem(
      await request(running.baseUrl, 'POST', '/sim/microphone', { body: '{"enabled":false}' }),
      404,
    );
    const document = (await request(running.baseUrl, 'GET', '/openapi.json')).json as {
      paths: Record<string, unknown>;
    };
    assert.equal(document.paths['/sim/play_audio'], undefined);
  });
});

describe('logging a ROS service that keeps failing', () => {
  it('writes a bounded number of lines for many 503s, then one when the service answers again', async () => {
    let down = true;
    const port = new ScriptedPort({
      tour_list: () =>
        down
          ? throwError(() => new RosServiceUnavailableError('tour_list'))
          : of({ success: true, outcome: TourOutcome.OK, message: '', tour_names: ['a'] }),
    });
    const running = await startTestService(port, { overrides: { log_level: 'info' }, captureLogs: true });
    try {
      const before = running.logs.length;
      for (let index = 0; index < 300; index += 1) {
        assertProblem(await request(running.baseUrl, 'GET', '/tour'), 503, 'ros-unavailable');
      }
      const during = running.logs.slice(before);
      // The first failure, and a summary only if the loop outlasted the 10 s interval.
      assert.ok(during.length >= 1 && during.length <= 2, `${during.length} lines`);
      const [first] = during;
      assert.ok(first !== undefined);
      assert.equal(first['service'], 'tour_list');
      assert.equal(first['level'], 'warn');
      // The line every failed request used to write, so what operators (and test:ros) look for stays.
      assert.equal(first['msg'], 'request failed');
      assert.equal(first['status'], 503);
      assert.match(String(first['reqId']), /^[0-9a-f-]{36}$/);
      down = false;
      assert.equal((await request(running.baseUrl, 'GET', '/tour')).status, 200);
      const recovered = running.logs.at(-1);
      assert.ok(recovered !== undefined);
      assert.equal(recovered['level'], 'info');
      assert.equal(recovered['totalFailures'], 300);
      assert.match(String(recovered['msg']), /^tour_list answers again after 300 failures/);
    } finally {
      await running.stop();
    }
  });
});
