import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { startKioskService, type KioskService } from './kiosk-harness.js';
import { makeCertificates, startProxy, type RunningProxy } from './tls-proxy.js';

/**
 * Pipelined requests behind a ROS call, through the shipped nginx front end. The pinned uWebSockets.js
 * build closes a connection when a request arrives behind one that waits on ROS, answering neither
 * (test/e2e/uws-build-limits.test.ts pins that); nginx reads a client's pipelined requests one at a time
 * and forwards each on its own upstream request, so behind it they are answered, in order.
 */

const SIM_LATENCY_MS = 20;

/** Writes `requests` in one write on one TLS connection; resolves with everything read until it closes. */
const pipelined = (port: number, ca: string, requests: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      socket.write(requests);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy(new Error('no end within 10 s'));
    });
  });

describe('pipelined requests through the nginx front end', () => {
  let scratch = '';
  let service: KioskService | undefined;
  let proxy: RunningProxy | undefined;
  let ca = '';

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-pipelining-'));
    await chmod(scratch, 0o711);
    const certificates = await makeCertificates(join(scratch, 'pki'));
    ca = await readFile(certificates.caCert, 'utf8');
    service = await startKioskService(0, {}, { latencyMs: SIM_LATENCY_MS });
    proxy = await startProxy(join(scratch, 'nginx'), certificates, service.service.listeningPort);
  });
  after(async () => {
    await proxy?.stop();
    await service?.stop();
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('answers GET /tour (a ROS call) and GET /health pipelined on one connection, in order', async () => {
    assert.ok(proxy !== undefined);
    const answer = await pipelined(
      proxy.port,
      ca,
      'GET /tour HTTP/1.1\r\nHost: localhost\r\n\r\n' +
        'GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
    assert.deepEqual(statuses, ['200', '200'], answer.slice(0, 500));
    const tourAt = answer.indexOf('["welcome"]');
    const healthAt = answer.indexOf('{"status":"ok"}');
    assert.ok(tourAt > 0 && healthAt > tourAt, 'the tour list first, then /health');
  });
});
