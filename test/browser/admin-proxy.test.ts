import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { tearDownAll } from '../support/tear-down.js';
import { launchBrowser, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';
import { homeTrusting, makeCertificates, startProxy, type RunningProxy } from './tls-proxy.js';

/*
 * The operator page behind the shipped nginx configuration (as test/browser/tls-proxy.test.ts sets it
 * up), when the service behind the proxy goes away: nginx answers its own 502 page, in HTML. The page
 * must say what that means in a sentence, not show the HTML.
 */

const SENTENCE =
  'A proxy between this page and the service answered HTTP 502 Bad Gateway: the service is not reachable right now (stopped, restarting or too slow). Try again in a moment.';

describe('operator page through nginx when the service is down', () => {
  let scratch = '';
  let service: KioskService | undefined;
  let proxy: RunningProxy | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-admin-proxy-'));
    // nginx's workers (`nobody` when run as root) must pass through here to their temporary files.
    await chmod(scratch, 0o711);
    const certificates = await makeCertificates(join(scratch, 'pki'));
    service = await startKioskService();
    proxy = await startProxy(join(scratch, 'nginx'), certificates, service.service.listeningPort);
    const home = await homeTrusting(join(scratch, 'home'), certificates.caCert);
    browser = await launchBrowser({ env: { ...(process.env as Record<string, string>), HOME: home } });
    page = await browser.newPage();
    // The 502s below are the point.
    problems = watchPage(page, [502]);
    await page.goto(`${proxy.origin}/admin`);
    await page.getByRole('button', { name: 'welcome', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “welcome”' }).waitFor();
  });
  after(() =>
    tearDownAll([
      () => browser?.close(),
      () => proxy?.stop(),
      () => service?.stop(),
      () => (scratch === '' ? undefined : rm(scratch, { recursive: true, force: true })),
    ]),
  );

  it('says in a sentence that the service is not reachable, for a save and for the list', async () => {
    await service?.stop();
    service = undefined;
    await page.getByLabel('Map name').fill('lobby_west');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: '(502)' }).waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'Saving failed: Bad Gateway (502)');
    assert.equal(await problem.locator('.problem__detail').textContent(), SENTENCE);
    assert.doesNotMatch((await problem.textContent()) ?? '', /<|nginx|html/i);

    await page.getByRole('button', { name: 'Reload', exact: true }).click();
    await page.locator('#list-status', { hasText: 'Could not load' }).waitFor();
    assert.equal(
      await page.locator('#list-status').textContent(),
      `Could not load the tours: Bad Gateway. ${SENTENCE}`,
    );
  });

  it('logged no errors beyond the 502s', () => {
    assert.deepEqual(problems, []);
  });
});
