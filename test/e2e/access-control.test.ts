import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../contract/tour-api-contract.js';
import { request } from '../support/http.js';
import { openRawConnection } from '../support/raw-http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { KioskClient } from '../support/ws-client.js';

const TOKEN = 'kiosk-token-0123456789';
const ORIGIN = 'https://kiosk.museum.example';

describe('access control (token and origin allow-list on)', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService(
      {},
      { auth_token: TOKEN, allowed_origins: `${ORIGIN}, http://localhost:7000` },
    );
  });
  after(async () => {
    await running.stop();
  });
  const bearer = { authorization: `Bearer ${TOKEN}` };

  it('refuses API calls without the right token with 401 and WWW-Authenticate', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-000000000' },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const result = await request(running.baseUrl, 'GET', '/tour', { headers });
      assertProblem(result, 401, 'unauthorized');
      assert.match(result.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    assertProblem(
      await request(running.baseUrl, 'POST', '/sim/microphone', { body: '{"enabled":true}' }),
      401,
    );
    assertProblem(await request(running.baseUrl, 'GET', '/metrics'), 401);
    assert.equal((await request(running.baseUrl, 'GET', '/tour', { headers: bearer })).status, 200);
    assert.equal((await request(running.baseUrl, 'GET', '/metrics', { headers: bearer })).status, 200);
  });

  it("answers a plain GET of /ws with the upgrade's access verdict: 401 or 403, else 426", async () => {
    assertProblem(await request(running.baseUrl, 'GET', '/ws'), 401, 'unauthorized');
    assertProblem(
      await request(running.baseUrl, 'GET', '/ws', {
        headers: { authorization: 'Bearer wrong-token-000000000' },
      }),
      401,
      'unauthorized',
    );
    assertProblem(
      await request(running.baseUrl, 'GET', '/ws', {
        headers: { ...bearer, origin: 'https://evil.example' },
      }),
      403,
      'forbidden-origin',
    );
    const granted = await request(running.baseUrl, 'GET', '/ws', { headers: bearer });
    assertProblem(granted, 426, 'upgrade-required');
    assert.equal(granted.headers.get('upgrade'), 'websocket');
    // The endpoint itself still takes WebSocket upgrades.
    const kiosk = await KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`);
    await kiosk.frameCount(1, 5_000);
    kiosk.close();
  });

  it('reads the token on /ws alike wherever it comes (header, subprotocol, query), for the upgrade and the plain GET', async () => {
    const places = (token: string) => ({
      header: { path: '/ws', headers: { authorization: `Bearer ${token}` } },
      subprotocol: { path: '/ws', headers: { 'sec-websocket-protocol': `tour-bridge, bearer.${token}` } },
      query: { path: `/ws?token=${token}`, headers: {} },
    });
    for (const [place, { path, headers }] of Object.entries(places(TOKEN))) {
      const granted = await request(running.baseUrl, 'GET', path, { headers });
      assertProblem(granted, 426, 'upgrade-required');
      assert.equal(granted.status, 426, `a plain GET with the token in the ${place}`);
    }
    for (const [place, { path, headers }] of Object.entries(places('wrong-token-000000000'))) {
      const refused = await request(running.baseUrl, 'GET', path, { headers });
      assertProblem(refused, 401, 'unauthorized');
      assert.equal(
        (refused.json as { detail?: string }).detail,
        'the token is not valid',
        `a wrong token in the ${place}`,
      );
    }
    // The upgrade takes the header too (a client that is no browser can set it).
    const kiosk = await KioskClient.connect(running.wsUrl, { headers: bearer });
    await kiosk.frameCount(1, 5_000);
    kiosk.close();
  });

  it('keeps /health, /ready and /openapi.json open', async () => {
    for (const path of ['/health', '/ready', '/openapi.json']) {
      assert.equal((await request(running.baseUrl, 'GET', path)).status, 200, path);
    }
  });

  it('answers CORS for allowed origins only, preflight included', async () => {
    const allowed = await request(running.baseUrl, 'GET', '/tour', {
      headers: { ...bearer, origin: ORIGIN },
    });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(allowed.headers.get('vary'), 'origin');
    const preflight = await request(running.baseUrl, 'OPTIONS', '/tour', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, PUT, OPTIONS');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
    const foreign = 'https://evil.example';
    assertProblem(
      await request(running.baseUrl, 'OPTIONS', '/tour', { headers: { origin: foreign } }),
      403,
      'forbidden-origin',
    );
    assertProblem(
      await request(running.baseUrl, 'GET', '/tour', { headers: { ...bearer, origin: foreign } }),
      403,
      'forbidden-origin',
    );
  });

  it('treats a same-origin browser request as such, whatever the allow-list', async () => {
    const host = new URL(running.baseUrl).host;
    const result = await request(running.baseUrl, 'GET', '/tour', {
      headers: { ...bearer, origin: `http://${host}` },
    });
    assert.equal(result.status, 200);
  });

  it('admits a WebSocket with the token as subprotocol or query parameter, from an allowed origin', async () => {
    const byProtocol = await KioskClient.connect(running.wsUrl, { headers: { origin: ORIGIN } }, [
      'tour-bridge',
      `bearer.${TOKEN}`,
    ]);
    await byProtocol.frameCount(1);
    assert.equal(byProtocol.socket.protocol, 'tour-bridge');
    byProtocol.close();
    const byQuery = await KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`, {
      headers: { origin: ORIGIN },
    });
    await byQuery.frameCount(1);
    byQuery.close();
  });

  it('admits a WebSocket from its own page (same origin) whatever the allow-list; another origin gets 403', async () => {
    const host = new URL(running.baseUrl).host;
    for (const origin of [`http://${host}`, `https://${host}`]) {
      const own = await KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`, { headers: { origin } });
      await own.frameCount(1);
      own.close();
    }
    await assert.rejects(
      KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`, { headers: { origin: `http://evil.${host}` } }),
      /403/,
    );
    // The same host on another port is another origin.
    await assert.rejects(
      KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`, { headers: { origin: 'http://127.0.0.1:1' } }),
      /403/,
    );
  });

  it('refuses a WebSocket without the token (401) or from another origin (403)', async () => {
    await assert.rejects(KioskClient.connect(running.wsUrl, { headers: { origin: ORIGIN } }), /401/);
    await assert.rejects(
      KioskClient.connect(`${running.wsUrl}?token=nope`, { headers: { origin: ORIGIN } }),
      /401/,
    );
    await assert.rejects(
      KioskClient.connect(`${running.wsUrl}?token=${TOKEN}`, { headers: { origin: 'https://evil.example' } }),
      /403/,
    );
  });
});

describe('metrics', () => {
  it('counts sessions, frames, refused frames and ROS calls in Prometheus text', async () => {
    const running = await startSimService();
    try {
      const kiosk = await KioskClient.connect(running.wsUrl);
      await kiosk.frameCount(1);
      kiosk.socket.send(Buffer.alloc(100));
      kiosk.socket.send('{oops');
      await kiosk.frameCount(4);
      await request(running.baseUrl, 'GET', '/tour/welcome');
      const metrics = await request(running.baseUrl, 'GET', '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
      const text = metrics.text;
      assert.match(text, /^tour_bridge_ws_sessions 1$/m);
      assert.match(text, /^tour_bridge_ws_frames_total\{direction="in",kind="binary"\} 1$/m);
      assert.match(text, /^tour_bridge_ws_bytes_total\{direction="in",kind="binary"\} 100$/m);
      assert.match(text, /^tour_bridge_ws_frames_total\{direction="out",kind="binary"\} 1$/m);
      assert.match(text, /^tour_bridge_ws_refused_frames_total\{reason="invalid_json"\} 1$/m);
      assert.match(text, /^tour_bridge_ros_calls_total\{service="chat",outcome="ok"\} 1$/m);
      assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_get",outcome="ok"\} 1$/m);
      assert.match(text, /^tour_bridge_ros_call_seconds_count\{service="chat"\} 1$/m);
      // The route label is the route table's path template.
      assert.match(
        text,
        /^tour_bridge_http_requests_total\{method="GET",route="\/tour\/\{tour_name\}",status="200"\} 1$/m,
      );
      kiosk.close();
      await kiosk.closed();
    } finally {
      await running.stop();
    }
  });
});

describe('origin allow-list without a token: a DNS-rebinding page (Origin = http://<Host> under a foreign name)', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService({}, { allowed_origins: 'https://kiosk.local:8443' });
  });
  after(async () => {
    await running.stop();
  });
  const port = () => Number(new URL(running.baseUrl).port);
  const createWithHost = async (host: string, name: string) => {
    const connection = await openRawConnection(port());
    try {
      const body = JSON.stringify({ tour_name: name, map_name: 'm', steps: [] });
      connection.send(
        `POST /tour HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return await connection.next({ timeoutMs: 5_000 });
    } finally {
      connection.destroy();
    }
  };

  it('refuses HTTP and /ws under a Host name that is neither an allowed origin nor an address', async () => {
    const created = await createWithHost(`evil.example:${port()}`, 'rebound');
    assert.notEqual(created, 'closed');
    assert.equal(created === 'closed' ? 0 : created.status, 403);
    assert.equal((await request(running.baseUrl, 'GET', '/tour/rebound')).status, 404);
    await assert.rejects(
      KioskClient.connect(running.wsUrl, {
        headers: { host: `evil.example:${port()}`, origin: `http://evil.example:${port()}` },
      }),
      /403/,
    );
  });

  it('still admits its own pages reached by address, and the allowed origin', async () => {
    const own = await createWithHost(`127.0.0.1:${port()}`, 'by-address');
    assert.equal(own === 'closed' ? 0 : own.status, 201);
    const kiosk = await KioskClient.connect(running.wsUrl, {
      headers: { origin: 'https://kiosk.local:8443' },
    });
    await kiosk.frameCount(1);
    kiosk.close();
  });
});

describe('refused WebSocket upgrades in the log', () => {
  it('logs the first refusal at once, then counts, however many a client makes', async () => {
    const running = await startSimService({}, { auth_token: TOKEN, log_level: 'info' }, true);
    try {
      const attempts = 200;
      for (let index = 0; index < attempts; index += 1) {
        await assert.rejects(KioskClient.connect(`${running.wsUrl}?token=wrong-token-${index}`), /401/);
      }
      const lines = running.logs.filter((line) => line['msg'] === 'WebSocket upgrades refused');
      // The first at once; the next after the 10 s interval, which this loop does not reach.
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const [first] = lines;
      assert.ok(first);
      assert.equal(first['refused'], 1);
      assert.equal(first['status'], 401);
      assert.equal(first['reason'], 'the token is not valid');
    } finally {
      await running.stop();
    }
  });
});
