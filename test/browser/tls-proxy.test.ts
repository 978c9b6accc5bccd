import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { OPTION_SPECS } from '../../src/cli/options.js';
import { tearDownAll } from '../support/tear-down.js';
import { CHROMIUM_FLAGS, launchBrowser, watchPage, type Browser } from './browser.js';
import { holdTalkButton, startKioskService, waitForSnapshot, type KioskService } from './kiosk-harness.js';
import {
  homeTrusting,
  httpsRequest,
  makeCertificates,
  startProxy,
  type Certificates,
  type RunningProxy,
} from './tls-proxy.js';
import { echoChat } from '../../src/robot/echo-chat.js';
import { WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';

/*
 * The kiosk on another device, as deployed: Debian's nginx with the shipped configuration
 * (deploy/nginx/tour-bridge.conf.template, filled in) terminates TLS in front of the real service on
 * the simulation. Chromium trusts the test's CA the way a kiosk would (the CA in its NSS database),
 * opens https://127.0.0.1:<nginx port>/ with the fake microphone and no insecure-origin flag, and
 * talks to the robot; the tour API is called through the same proxy. All on 127.0.0.1.
 *
 * The service runs with an origin allow-list that does not list the proxy's origin: the kiosk's
 * WebSocket and the page's POST get through only because nginx passes the browser's Host (with its
 * port) and the service therefore sees them as same-origin.
 */

const MAX_BODY_BYTES = Number(OPTION_SPECS.max_body_bytes.defaultValue);

describe('kiosk over https through the shipped nginx configuration', () => {
  let scratch = '';
  let certificates: Certificates;
  let service: KioskService | undefined;
  let proxy: RunningProxy | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];
  const sockets: string[] = [];
  let ca: string;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-tls-'));
    // nginx started as root runs its workers as `nobody`; they must pass through here to their
    // temporary files (a large request body is buffered to one). The keys stay in a 0700 directory.
    await chmod(scratch, 0o711);
    certificates = await makeCertificates(join(scratch, 'pki'));
    ca = await readFile(certificates.caCert, 'utf8');
    service = await startKioskService(0, { allowed_origins: 'https://kiosk.invalid' });
    proxy = await startProxy(join(scratch, 'nginx'), certificates, service.service.listeningPort);
    const home = await homeTrusting(join(scratch, 'home'), certificates.caCert);
    browser = await launchBrowser({ env: { ...(process.env as Record<string, string>), HOME: home } });
    page = await browser.newPage();
    problems = watchPage(page);
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.goto(`${proxy.origin}/`);
    await page.locator('body[data-connection="online"][data-microphone="enabled"]').waitFor();
  });
  after(() =>
    tearDownAll([
      () => browser?.close(),
      () => proxy?.stop(),
      () => service?.stop(),
      () => (scratch === '' ? undefined : rm(scratch, { recursive: true, force: true })),
    ]),
  );

  it('is a secure context on https, with the certificate verified and no insecure-origin flag', async () => {
    assert.ok(
      CHROMIUM_FLAGS.every((flag) => !flag.includes('unsafely-treat-insecure-origin-as-secure')),
      CHROMIUM_FLAGS.join(' '),
    );
    assert.ok(CHROMIUM_FLAGS.every((flag) => !flag.startsWith('--ignore-certificate-errors')));
    assert.equal(new URL(page.url()).origin, proxy!.origin);
    assert.deepEqual(
      await page.evaluate(() => [
        (globalThis as unknown as { isSecureContext: boolean }).isSecureContext,
        (globalThis as unknown as { location: { protocol: string } }).location.protocol,
      ]),
      [true, 'https:'],
    );
    // The kiosk's WebSocket is wss, to the proxy (the last test sees nginx's log line for it).
    assert.deepEqual(sockets, [`wss://127.0.0.1:${proxy!.port}/ws`]);
  });

  it('a browser without the CA refuses the certificate: the trust above came from the NSS database', async () => {
    const emptyHome = join(scratch, 'home-without-ca');
    await mkdir(emptyHome);
    const untrusting = await launchBrowser({
      env: { ...(process.env as Record<string, string>), HOME: emptyHome },
    });
    try {
      const other = await untrusting.newPage();
      await assert.rejects(other.goto(`${proxy!.origin}/`), /ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await untrusting.close();
    }
  });

  it('completes a talk → answer round trip through the proxy', async () => {
    await holdTalkButton(page, 1_200);
    const state = await waitForSnapshot(
      page,
      (s) => s.played.length === 1 && s.played[0]?.outcome === 'played',
      'the echo to have played',
    );
    assert.equal(service!.chats.length, 1);
    const sent = service!.chats[0]!;
    // The fake microphone's beep, recorded for about the 1.2 s the button was held (16 kHz, 16-bit).
    assert.ok(sent.byteLength > 0.9 * 32_000, `${sent.byteLength} bytes`);
    // Streamed through nginx in parts, whose PCM the bridge gave /chat as one WAV recording.
    assert.deepEqual(
      state.sent.map((s) => [s.upload, WAV_HEADER_BYTES + s.bytes]),
      [['streamed', sent.byteLength]],
    );
    assert.equal(state.played[0]!.text, echoChat({ audio: sent }).text);
    assert.equal(await page.locator('#speech-text').textContent(), state.played[0]!.text);
  });

  it('answers /tour calls from the page through the proxy, with nginx request ids in both logs', async () => {
    const results = await page.evaluate(async () => {
      const created = await fetch('/tour', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tour_name: 'over-tls',
          map_name: 'lobby',
          steps: [{ description: 'Front desk', destination: 'desk' }],
        }),
      });
      const listed = await fetch('/tour');
      return {
        created: [created.status, await created.text()],
        listed: [listed.status, await listed.json()],
        requestId: listed.headers.get('x-request-id'),
      };
    });
    assert.deepEqual(results.created, [201, '{"success":true}']);
    assert.deepEqual(results.listed, [200, ['welcome', 'over-tls']]);
    // No id from the browser: nginx made one ($request_id, 32 hex digits), the bridge echoed it, and
    // nginx's access log has it on the line of that request from 127.0.0.1.
    assert.match(results.requestId ?? '', /^[0-9a-f]{32}$/);
    const line = new RegExp(
      `^127\\.0\\.0\\.1 \\S+ "GET /tour HTTP/1\\.1" 200 .* request_id=${results.requestId} `,
      'm',
    );
    assert.match(await proxy!.accessLogWith(line), line);
  });

  it('passes a caller’s own request id, and bodies up to the bridge’s limit', async () => {
    const tour = (size: number) => {
      const json = JSON.stringify({ tour_name: `big-${size}`, map_name: 'm', steps: [{ description: 'd' }] });
      return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
    };
    const post = (body: string, requestId: string) =>
      httpsRequest(`${proxy!.origin}/tour`, ca, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body,
      });
    const atLimit = await post(tour(MAX_BODY_BYTES), 'tls-test.at-limit');
    assert.equal(atLimit.status, 201, atLimit.body);
    assert.equal(atLimit.headers['x-request-id'], 'tls-test.at-limit');
    const line = / 201 .* request_id=tls-test\.at-limit /;
    assert.match(await proxy!.accessLogWith(line), line);
    const over = await post(tour(MAX_BODY_BYTES + 1), 'tls-test.over');
    assert.equal(over.status, 413);
    const listed = await httpsRequest(`${proxy!.origin}/tour`, ca);
    assert.deepEqual(JSON.parse(listed.body), ['welcome', 'over-tls', `big-${MAX_BODY_BYTES}`]);
  });

  it('loaded nothing from outside the proxy, logged no errors, and tunnelled the WebSocket', async () => {
    assert.deepEqual(problems, []);
    // nginx logs a WebSocket when its tunnel closes: close the kiosk and wait (bounded) for the line
    // of its upgrade, 101 over HTTP/1.1, that carried every answer above.
    await page.close();
    const log = await proxy!.accessLogWith(/"GET \/ws HTTP\/1\.1" 101 /);
    assert.equal(log.match(/"GET \/ws HTTP\/1\.1" 101 /g)?.length, 1, log);
    // The one error nginx logs is the over-limit body refused above.
    const errors = (await proxy!.errorLog())
      .split('\n')
      .filter((line) => /\[(error|crit|alert|emerg)\]/.test(line));
    assert.deepEqual(
      errors.map((line) => /client intended to send too large body: (\d+) bytes/.exec(line)?.[1] ?? line),
      [String(MAX_BODY_BYTES + 1)],
    );
  });
});
