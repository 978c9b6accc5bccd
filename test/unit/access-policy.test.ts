import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bearerToken,
  checkOrigin,
  checkWebSocketAccess,
  corsHeaders,
  httpAuthorized,
  OPEN_POLICY,
  parseAllowedOrigins,
  tokenMatches,
  type AccessPolicy,
} from '../../src/transport/http/access-policy.js';
import { fuzzRuns } from '../support/fuzz-runs.js';

const locked: AccessPolicy = { token: 's3cret-token', allowedOrigins: new Set(['https://kiosk.local']) };

describe('access policy', () => {
  it('lets everything through when off', () => {
    assert.equal(httpAuthorized(OPEN_POLICY, ''), true);
    assert.equal(checkOrigin(OPEN_POLICY, 'https://anywhere.example'), 'allowed');
    assert.deepEqual(checkWebSocketAccess(OPEN_POLICY, { origin: 'x', protocols: '', query: '' }), {
      ok: true,
      protocol: undefined,
    });
    assert.deepEqual(corsHeaders(OPEN_POLICY, 'https://kiosk.local'), {});
  });

  it('checks the bearer token of HTTP requests', () => {
    assert.equal(httpAuthorized(locked, 'Bearer s3cret-token'), true);
    assert.equal(httpAuthorized(locked, 'bearer s3cret-token'), true);
    assert.equal(httpAuthorized(locked, 'Bearer s3cret-tokem'), false);
    assert.equal(httpAuthorized(locked, 'Basic czNjcmV0'), false);
    assert.equal(httpAuthorized(locked, ''), false);
    assert.equal(bearerToken('Bearer a b'), undefined);
  });

  it('compares tokens of any length without throwing', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        assert.equal(tokenMatches(a, b), a === b);
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('takes the WebSocket token from the subprotocol or the query, and checks the origin first', () => {
    const origin = 'https://kiosk.local';
    assert.deepEqual(
      checkWebSocketAccess(locked, { origin, protocols: 'tour-bridge, bearer.s3cret-token', query: '' }),
      {
        ok: true,
        protocol: 'tour-bridge',
      },
    );
    assert.deepEqual(checkWebSocketAccess(locked, { origin, protocols: '', query: 'token=s3cret-token' }), {
      ok: true,
      protocol: undefined,
    });
    assert.equal(checkWebSocketAccess(locked, { origin, protocols: 'bearer.nope', query: '' }).ok, false);
    const missing = checkWebSocketAccess(locked, { origin, protocols: '', query: '' });
    assert.deepEqual(missing, { ok: false, status: 401, reason: 'a token is required' });
    const foreign = checkWebSocketAccess(locked, {
      origin: 'https://evil.example',
      protocols: 'bearer.s3cret-token',
      query: '',
    });
    assert.deepEqual(foreign, {
      ok: false,
      status: 403,
      reason: 'origin https://evil.example is not allowed',
    });
  });

  it('admits a same-origin WebSocket upgrade (Origin = http(s)://Host) under an address, localhost or an allowed host', () => {
    for (const host of ['192.168.1.5:7000', 'localhost:7000', '[::1]:7000', 'kiosk.local']) {
      const own = { protocols: 'bearer.s3cret-token', query: '', host };
      for (const origin of [`http://${host}`, `https://${host}`]) {
        assert.deepEqual(checkWebSocketAccess(locked, { ...own, origin }), { ok: true, protocol: undefined });
      }
      for (const origin of [`http://${host}1`, 'http://evil.example', `ws://${host}`]) {
        assert.equal(checkWebSocketAccess(locked, { ...own, origin }).ok, false, origin);
      }
    }
    const own = { protocols: 'bearer.s3cret-token', query: '' };
    assert.equal(checkWebSocketAccess(locked, { ...own, origin: 'http://', host: '' }).ok, false);
  });

  it('refuses a same-origin request under any other Host name: a DNS-rebinding page sends exactly that', () => {
    const rebound = { protocols: 'bearer.s3cret-token', query: '', host: 'evil.example:7000' };
    assert.deepEqual(checkWebSocketAccess(locked, { ...rebound, origin: 'http://evil.example:7000' }), {
      ok: false,
      status: 403,
      reason: 'origin http://evil.example:7000 is not allowed',
    });
    const robotByName = { ...rebound, host: 'robot.local:7000' };
    assert.equal(
      checkWebSocketAccess(locked, { ...robotByName, origin: 'http://robot.local:7000' }).ok,
      false,
    );
    // Without an allow-list every origin is admitted, as the specification has it.
    assert.equal(
      checkWebSocketAccess(OPEN_POLICY, { ...rebound, origin: 'http://evil.example:7000' }).ok,
      true,
    );
  });

  it('answers CORS only for allowed origins', () => {
    assert.deepEqual(
      corsHeaders(locked, 'https://kiosk.local')['access-control-allow-origin'],
      'https://kiosk.local',
    );
    assert.deepEqual(corsHeaders(locked, 'https://evil.example'), {});
    assert.equal(checkOrigin(locked, ''), 'not-cross-origin');
    assert.equal(checkOrigin(locked, 'https://evil.example'), 'forbidden');
  });

  it('parses the allow-list setting', () => {
    assert.equal(parseAllowedOrigins(''), undefined);
    assert.deepEqual([...(parseAllowedOrigins(' https://a , https://b,') ?? [])], ['https://a', 'https://b']);
  });
});
