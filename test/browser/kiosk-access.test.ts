import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import { holdTalkButton, startKioskService, type KioskService } from './kiosk-harness.js';

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

  for (const [label, query, shown] of [
    [
      'no token',
      '',
      {
        status: 'Not set up: this display has no access token',
        talk: 'Not set up',
        badge: 'Not set up',
        hint: /^This display is not set up yet\. Please ask a member of staff\. Staff: .*\?token=/,
      },
    ],
    [
      'a wrong token',
      '?token=not-the-right-token-at-all',
      {
        status: 'Access refused: check this kiosk’s token',
        talk: 'Access refused',
        badge: 'No access',
        hint: /refused this kiosk’s access token/,
      },
    ],
  ] as const) {
    it(`with ${label}: says "${shown.talk}", not offline, and does not retry quickly`, async () => {
      const page = await browser.newPage();
      let attempts = 0;
      page.on('websocket', () => {
        attempts += 1;
      });
      await page.goto(`${service.baseUrl}/${query}`);
      await page.locator('body[data-connection="refused"]').waitFor({ timeout: 10_000 });
      assert.equal(await page.locator('#connection-status').textContent(), shown.status);
      assert.equal(await page.locator('#talk-label').textContent(), shown.talk);
      assert.match((await page.locator('#talk-hint').textContent()) ?? '', shown.hint);
      assert.equal(await page.locator('.face-badge').isVisible(), true);
      assert.equal(await page.locator('.face-badge').textContent(), shown.badge);
      assert.equal(
        await page.locator('#speech-idle').textContent(),
        'I cannot talk on this screen right now. Please ask a member of staff.',
      );
      if (query === '') {
        // A display nobody gave a token is not told it was refused: nothing it shows says so.
        const text = await page.evaluate<string>('document.body.innerText');
        assert.doesNotMatch(text, /refused/i, text);
      }
      // A press says the same, to a screen reader.
      await holdTalkButton(page, 200);
      assert.equal(
        await page.locator('#talk-status').textContent(),
        query === ''
          ? 'This display is not set up yet. Please ask a member of staff.'
          : 'The robot refused this kiosk’s access.',
      );
      await assertNoSeriousViolations(page, `the kiosk with ${label}`);
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
