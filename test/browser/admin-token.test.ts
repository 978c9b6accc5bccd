import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * The operator page on a service with a token, in Chromium: it asks for the token in a field, keeps it in
 * the tab (never in the address it shows) and carries it into its Kiosk link.
 */

const TOKEN = 'admin-token-test-0123456789';

describe('operator page: the access token', () => {
  let service: KioskService;
  let browser: Browser;
  before(async () => {
    service = await startKioskService(0, { auth_token: TOKEN });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('without a token: says access is refused and points at the field; with it, the tours load', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/admin`);
    await page.locator('#token-status', { hasText: 'Access refused' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'token');
    // Asked for: the field shows, and nothing says a token is not needed.
    assert.equal(await page.locator('#token').isVisible(), true);
    assert.equal(await page.locator('#token-not-needed').isVisible(), false);
    const shown = await page.locator('main').innerText();
    assert.doesNotMatch(shown, /Authorization header/);
    await page.locator('#token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use' }).click();
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#token-status').textContent(), 'Token set for this tab');
    assert.doesNotMatch(page.url(), /token/);
    assert.equal(await page.locator('#kiosk-link').getAttribute('href'), `/?token=${TOKEN}`);
    // The same tab keeps it across a reload, and the field stays to change or clear it.
    await page.reload();
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#token').isVisible(), true);
    assert.equal(await page.locator('#token-not-needed').isVisible(), false);
    await page.close();
  });

  it('a wrong token: says the token was refused, not that none is set, and points at the field', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/admin`);
    await page.locator('#token-status', { hasText: 'Access refused' }).waitFor({ timeout: 10_000 });
    await page.locator('#token').fill('not-the-token-0123456789');
    await page.getByRole('button', { name: 'Use' }).click();
    await page.locator('#token-status', { hasText: 'Token refused' }).waitFor({ timeout: 10_000 });
    assert.equal(
      await page.locator('#token-status').textContent(),
      'Token refused: this robot does not accept it; enter the right one',
    );
    assert.match(
      (await page.locator('#list-status').textContent()) ?? '',
      /This robot refused the access token given/,
    );
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'token');
    await assertNoSeriousViolations(page, 'the operator page, a token refused');
    // The right one then works.
    await page.locator('#token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use' }).click();
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#token-status').textContent(), 'Token set for this tab');
    await page.close();
  });

  it('a ?token= in the address is taken into the tab and removed from the address bar', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/admin?token=${TOKEN}`);
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(new URL(page.url()).search, '');
    assert.equal(await page.locator('#kiosk-link').getAttribute('href'), `/?token=${TOKEN}`);
    await page.close();
  });
});
