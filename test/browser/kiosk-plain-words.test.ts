import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, watchPage, type Browser, type BrowserMicrophone } from './browser.js';
import {
  holdTalkButton,
  openKiosk,
  openSettings,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';

/**
 * What a visitor reads when something is wrong is in their words, with what to do: no browser error, no
 * value from the robot they cannot make sense of. The detail is for staff, in the kiosk settings
 * and the probe. In
 * Chromium against the real service on the simulation.
 */

const NO_MICROPHONE = 'The microphone is not available. Please ask a member of staff.';

/** Everything the page shows or gives a screen reader as text, the face's name included. */
const allText = (page: Page): Promise<string> =>
  page.evaluate<string>(
    `document.body.innerText + ' ' + [...document.querySelectorAll('[aria-live], [role], title')].map((e) => e.textContent).join(' ')`,
  );

describe('kiosk: a microphone that cannot be had is said in plain words', () => {
  let service: KioskService;
  before(async () => {
    service = await startKioskService();
  });
  after(async () => {
    await service.stop();
  });

  for (const [microphone, label, raw] of [
    ['denied', 'permission to use the microphone refused', /Permission denied|NotAllowed/],
    ['none', 'no microphone device', /Requested device not found|NotFound|device/i],
  ] as const satisfies readonly (readonly [BrowserMicrophone, string, RegExp])[]) {
    it(`${label}: asks the visitor to fetch staff, and gives the browser's reason to staff`, async () => {
      const browser = await launchBrowser({ microphone });
      try {
        const page = await browser.newPage();
        const problems = watchPage(page);
        await page.goto(`${service.baseUrl}/`);
        await page.locator('body[data-connection="online"][data-microphone="unavailable"]').waitFor();
        assert.equal(await page.locator('#talk-hint').textContent(), NO_MICROPHONE);
        assert.equal(await page.locator('#talk-label').textContent(), 'No microphone');
        assert.equal(
          await page.locator('#speech-idle').textContent(),
          'Hello! I cannot hear you on this screen: it has no working microphone. Please ask a member of staff.',
        );
        // A press is refused, and a screen reader hears why, in the same words.
        await holdTalkButton(page, 300);
        assert.equal(await page.locator('#talk-status').textContent(), NO_MICROPHONE);
        const shown = await allText(page);
        assert.doesNotMatch(shown, raw, shown);
        assert.doesNotMatch(shown, /Error|denied|not found/i, shown);
        await assertNoSeriousViolations(page, `the kiosk with ${label}`);
        // Staff find the browser's reason in the kiosk settings, and in the probe.
        const reason = (await snapshot(page)).microphoneProblem;
        assert.match(reason ?? '', raw);
        await openSettings(page);
        const note = await page.locator('#echo-status').textContent();
        assert.equal(note, `Microphone not available in this browser: ${reason}.`);
        console.log(`# kiosk settings: ${note}`);
        await page.keyboard.press('Escape');
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    });
  }
});

describe('kiosk: a mood the display has no face for', () => {
  let service: KioskService;
  let browser: Browser;
  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('shows the neutral face under a neutral name; the value is only in the probe, for staff', async () => {
    const { page, problems } = await openKiosk(browser, service);
    await service.playAudio({ emotion: 'bored', text: 'Here is the next room.', audio: toneWav(600) });
    const played = await waitForSnapshot(page, (s) => s.played.length === 1, 'the message to play');
    assert.equal(played.played[0]!.emotion, 'bored');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
    assert.equal(await page.locator('#face').getAttribute('data-emotion-known'), 'false');
    assert.equal(await page.locator('#face-label').textContent(), 'The robot looks neutral');
    const shown = await allText(page);
    assert.doesNotMatch(shown, /bored|mood/i, shown);
    await assertNoSeriousViolations(page, 'the kiosk showing a mood it has no face for');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
