import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { request } from '../support/http.js';
import { startTestService, type TestService } from '../support/test-service.js';

/** Sends one request with the path exactly as given (fetch would normalise `..` away) and returns the status. */
const rawStatus = (port: number, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no answer for ${path}`));
    });
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (match !== null) {
        socket.destroy();
        resolve(Number(match[1]));
      }
    });
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });

describe('static kiosk files', () => {
  let root: string;
  let running: TestService;
  const page = '<!doctype html><title>kiosk</title>';

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'tour-bridge-web-'));
    writeFileSync(join(root, 'index.html'), page);
    writeFileSync(join(root, 'admin.html'), '<!doctype html><title>admin</title>');
    writeFileSync(join(root, 'kiosk.js'), 'export const x = 1;\n');
    writeFileSync(join(root, 'kiosk.css'), 'body{}\n');
    mkdirSync(join(root, 'img'));
    writeFileSync(join(root, 'img', 'face.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    running = await startTestService(createSimBackend(), { webRoot: root });
  });
  after(async () => {
    await running.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the kiosk at / and the operator page at /admin as HTML', async () => {
    const kiosk = await request(running.baseUrl, 'GET', '/');
    assert.equal(kiosk.status, 200);
    assert.equal(kiosk.text, page);
    assert.equal(kiosk.headers.get('content-type'), 'text/html; charset=utf-8');
    const admin = await request(running.baseUrl, 'GET', '/admin');
    assert.equal(admin.status, 200);
    assert.match(admin.text, /<title>admin<\/title>/);
  });

  it('gives each asset its content type, no-cache with an ETag, nosniff and a same-origin CSP', async () => {
    const expected: Record<string, string> = {
      '/assets/kiosk.js': 'text/javascript; charset=utf-8',
      '/assets/kiosk.css': 'text/css; charset=utf-8',
      '/assets/img/face.svg': 'image/svg+xml',
    };
    for (const [path, contentType] of Object.entries(expected)) {
      const result = await request(running.baseUrl, 'GET', path);
      assert.equal(result.status, 200, path);
      assert.equal(result.headers.get('content-type'), contentType, path);
      assert.equal(result.headers.get('cache-control'), 'no-cache', path);
      assert.match(result.headers.get('etag') ?? '', /^"[\w-]{27}"$/, path);
      assert.equal(result.headers.get('x-content-type-options'), 'nosniff', path);
      assert.match(result.headers.get('content-security-policy') ?? '', /default-src 'self'/, path);
    }
  });

  it('answers a matching If-None-Match with 304 and no body, a stale one with the file', async () => {
    const first = await request(running.baseUrl, 'GET', '/assets/kiosk.js');
    const etag = first.headers.get('etag') ?? '';
    const cached = await request(running.baseUrl, 'GET', '/assets/kiosk.js', {
      headers: { 'if-none-match': `"stale", W/${etag}` },
    });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    // RFC 9110 §8.6: a 304 may only state the length the 200 would have had.
    assert.equal(cached.headers.get('content-length'), '20');
    assert.equal(cached.headers.get('etag'), etag);
    const stale = await request(running.baseUrl, 'GET', '/assets/kiosk.js', {
      headers: { 'if-none-match': '"stale"' },
    });
    assert.equal(stale.status, 200);
    assert.equal(stale.text, 'export const x = 1;\n');
  });

  it('answers HEAD with the headers and length of GET but no body', async () => {
    const head = await request(running.baseUrl, 'HEAD', '/');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(page)));
    assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
    // Through the catch-all too (once a HEAD there aborted the process), and the server still answers.
    const unknown = await request(running.baseUrl, 'HEAD', '/no/such/path');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.text, '');
    assert.equal((await request(running.baseUrl, 'GET', '/health')).status, 200);
  });

  it('allows only GET and HEAD', async () => {
    for (const path of ['/', '/admin', '/assets/kiosk.js']) {
      const result = await request(running.baseUrl, 'POST', path, { body: '{}' });
      assert.equal(result.status, 405, path);
      assert.equal(result.headers.get('allow'), 'GET, HEAD, OPTIONS', path);
    }
  });

  it('cannot be led outside the web root', async () => {
    const port = running.service.listeningPort;
    for (const path of [
      '/assets/../package.json',
      '/assets/..%2Fpackage.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets//etc/passwd',
      '/assets/img/../kiosk.js',
      '/assets/img%2Fface.svg',
      '/assets/',
      '/assets/img',
      '/index.html',
      '/admin/',
    ]) {
      assert.equal(await rawStatus(port, path), 404, path);
    }
    const missing = await request(running.baseUrl, 'GET', '/assets/nothing.js');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  });
});

describe('static kiosk files, web root missing', () => {
  it('keeps the API and says at / that the pages are not built', async () => {
    const running = await startTestService(createSimBackend(), {
      webRoot: join(tmpdir(), 'tour-bridge-no-such-web-root'),
    });
    try {
      const kiosk = await request(running.baseUrl, 'GET', '/');
      assert.equal(kiosk.status, 404);
      assert.match((kiosk.json as { detail: string }).detail, /npm run build/);
      assert.equal((await request(running.baseUrl, 'GET', '/tour')).status, 200);
    } finally {
      await running.stop();
    }
  });
});
