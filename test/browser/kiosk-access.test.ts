import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * A kiosk whose token the service refuses, in Chromium: it says so, instead of looking like a dead robot,
 * and stops its quick retries; with the right token the same page connects.
 */

const TOKEN = 'kiosk-access-test-token-0123';

describe('kiosk: access refused is its own state', () => {
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

  for (const [label, query] of [
    ['no token', ''],
    ['a wrong token', '?token=not-the-right-token-at-all'],
  ] as const) {
    it(`with ${label}: says access refused, not offline, and does not retry quickly`, async () => {
      const page = await browser.newPage();
      let attempts = 0;
      page.on('websocket', () => {
        attempts += 1;
      });
      await page.goto(`${service.baseUrl}/${query}`);
      await page.locator('body[data-connection="refused"]').waitFor({ timeout: 10_000 });
      assert.equal(
        await page.locator('#connection-status').textContent(),
        'Access refused: check this kiosk’s token',
      );
      assert.equal(await page.locator('#talk-label').textContent(), 'Access refused');
      assert.match((await page.locator('#talk-hint').textContent()) ?? '', /token/);
      assert.equal(await page.locator('.face-badge').isVisible(), true);
      assert.equal(await page.locator('.face-badge').textContent(), 'No access');
      // Offline would retry within 1–2 s; refused waits a minute.
      const seen = attempts;
      await page.waitForTimeout(3_000);
      assert.equal(attempts, seen, 'no new connection attempt within 3 s');
      await page.close();
    });
  }

  it('with the right token: online', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/?token=${TOKEN}`);
    await page.locator('body[data-connection="online"]').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#connection-status').textContent(), 'Connected');
    await page.close();
  });
});
