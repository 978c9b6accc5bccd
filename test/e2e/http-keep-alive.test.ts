import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { request } from '../support/http.js';
import { openRawConnection, type RawConnection, type RawResponse } from '../support/raw-http.js';
import { startTestService, type TestService } from '../support/test-service.js';

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
const head = (path: string) => `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

const answer = async (connection: RawConnection, options?: { head?: boolean }): Promise<RawResponse> => {
  const result = await connection.next(options);
  assert.notEqual(result, 'closed', 'the server closed the connection instead of answering');
  return result as RawResponse;
};

describe('HEAD and 304 keep the connection usable', () => {
  let root: string;
  let running: TestService;
  const page = '<!doctype html><title>kiosk</title>';
  let port: number;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'tour-bridge-keep-alive-'));
    writeFileSync(join(root, 'index.html'), page);
    writeFileSync(join(root, 'admin.html'), '<!doctype html><title>admin</title>');
    running = await startTestService(createSimBackend(), { webRoot: root });
    port = running.service.listeningPort;
  });
  after(async () => {
    await running.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers HEAD then GET on one connection', async () => {
    const connection = await openRawConnection(port);
    try {
      connection.send(head('/'));
      const first = await answer(connection, { head: true });
      assert.equal(first.status, 200);
      assert.equal(first.headers['content-length'], String(Buffer.byteLength(page)));
      assert.equal(first.headers['connection'], undefined);
      connection.send(get('/health'));
      const second = await answer(connection);
      assert.equal(second.status, 200);
      assert.equal(second.body, '{"status":"ok"}');
    } finally {
      connection.destroy();
    }
  });

  it('answers GET after a 304 on one connection', async () => {
    const etag = (await request(running.baseUrl, 'GET', '/')).headers.get('etag') ?? '';
    assert.notEqual(etag, '');
    const connection = await openRawConnection(port);
    try {
      connection.send(get('/', `If-None-Match: ${etag}\r\n`));
      // A 304 has no body whatever its content-length says.
      const first = await answer(connection, { head: true });
      assert.equal(first.status, 304);
      assert.equal(first.headers['content-length'], String(Buffer.byteLength(page)));
      connection.send(get('/'));
      const second = await answer(connection);
      assert.equal(second.status, 200);
      assert.equal(second.body, page);
      // And once more, so the connection is not merely closed after its second answer.
      connection.send(head('/admin'));
      assert.equal((await answer(connection, { head: true })).status, 200);
    } finally {
      connection.destroy();
    }
  });

  it('answers HEAD wherever GET is served, with GET’s status and headers and no body', async () => {
    const connection = await openRawConnection(port);
    try {
      for (const path of ['/health', '/ready', '/tour', '/openapi.json']) {
        connection.send(get(path));
        const full = await answer(connection);
        connection.send(head(path));
        const headOnly = await answer(connection, { head: true });
        assert.equal(headOnly.status, full.status, path);
        assert.equal(headOnly.headers['content-type'], full.headers['content-type'], path);
        assert.equal(
          headOnly.headers['content-length'],
          String(Buffer.byteLength(full.body, 'latin1')),
          path,
        );
      }
      // Nothing followed the HEAD answers: the next answer parses as a fresh status line.
      connection.send(get('/health'));
      assert.equal((await answer(connection)).body, '{"status":"ok"}');
    } finally {
      connection.destroy();
    }
  });

  it('lists HEAD in Allow wherever GET is allowed', async () => {
    assert.equal(
      (await request(running.baseUrl, 'DELETE', '/health')).headers.get('allow'),
      'GET, HEAD, OPTIONS',
    );
    assert.equal(
      (await request(running.baseUrl, 'DELETE', '/tour')).headers.get('allow'),
      'GET, HEAD, POST, PUT, OPTIONS',
    );
    const head404 = await request(running.baseUrl, 'HEAD', '/tour/no-such-tour');
    assert.equal(head404.status, 404);
    assert.equal(head404.text, '');
  });
});
