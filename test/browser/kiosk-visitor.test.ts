import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import type { Page } from 'playwright-core';
import {
  holdTalkButton,
  openKiosk,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
} from './kiosk-harness.js';

/** What the visitor reads: the hint, the notice under the button, and the bubble (its idle text or answer). */
const shownTexts = async (page: Page) => ({
  hint: await page.locator('#talk-hint').textContent(),
  notice: await page.locator('#notice').textContent(),
  bubble:
    (await page.locator('#speech-text').textContent()) || (await page.locator('#speech-idle').textContent()),
});

/**
 * What a visitor sees and hears when things go off the happy path: every message on screen agrees with
 * what the robot does and with the others, in a real Chromium against the real service (simulated robot).
 */

describe('kiosk: nothing on screen contradicts the robot', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
  });

  it('stops the robot’s voice when the connection drops, so "offline" is not said over it', async () => {
    const service = await startKioskService();
    let stopped = false;
    try {
      const { page, problems } = await openKiosk(browser, service);
      await service.playAudio({
        emotion: 'happy',
        text: 'Let me tell you the whole story of the rose garden, from the very beginning.',
        audio: toneWav(20_000, 220),
      });
      await waitForSnapshot(page, (s) => s.audio.liveSources > 0, 'the long answer to start');

      const problemsWhileOnline = [...problems];
      await service.stop();
      stopped = true;
      await page.locator('body[data-connection="offline"]').waitFor();
      // Stopped at once, not 20 s later when the answer would have ended.
      const state = await waitForSnapshot(page, (s) => s.audio.liveSources === 0, 'the voice to stop', 2_000);
      assert.equal(state.audio.busy, false);
      assert.equal(state.played.at(-1)?.outcome, 'stopped');
      assert.equal(await page.locator('#face.face--speaking').count(), 0, 'the mouth still moves');
      assert.equal(
        await page.locator('#speech-idle').textContent(),
        'I am offline at the moment, so I cannot hear or answer you. Back soon!',
      );
      await assertNoSeriousViolations(page, 'the kiosk, offline after an answer was cut');
      // Up to the stop: the reconnect attempts after it fail by design.
      assert.deepEqual(problemsWhileOnline, []);
      await page.close();
    } finally {
      if (!stopped) await service.stop();
    }
  });

  it('points at the hint instead of repeating it when a press cannot talk while offline', async () => {
    const service = await startKioskService();
    const { page } = await openKiosk(browser, service);
    await service.stop();
    await page.locator('body[data-connection="offline"]').waitFor();
    await holdTalkButton(page, 300);
    assert.equal((await snapshot(page)).refused.at(-1), 'The robot is offline.');
    const shown = await shownTexts(page);
    assert.equal(shown.hint, 'The robot is offline: it cannot hear or answer until it is back.');
    // Said once, beside the button; no "Not connected … yet" to linger next to "Connected" later.
    assert.equal(shown.notice, '');
    assert.equal(await page.locator('#talk-hint').getAttribute('data-attention'), 'true');
    // A screen reader hears why.
    assert.equal(await page.locator('#talk-status').textContent(), 'The robot is offline.');
    await assertNoSeriousViolations(page, 'the kiosk, offline, after a refused press');
    await page.close();
  });

  it('says once that the robot switched the microphone off, and does not invite the visitor to talk', async () => {
    const service = await startKioskService();
    try {
      const { page, problems } = await openKiosk(browser, service);
      await service.setMicrophone(false);
      await page.locator('body[data-microphone="disabled"]').waitFor();
      await holdTalkButton(page, 300);
      const off = await shownTexts(page);
      assert.equal(off.hint, 'The robot has switched the microphone off for now.');
      assert.equal(off.notice, '');
      assert.equal(off.bubble, 'Hello! My microphone is off for now, so I cannot hear you.');
      assert.equal(
        await page.locator('#talk-status').textContent(),
        'The robot has switched the microphone off.',
      );
      await assertNoSeriousViolations(page, 'the kiosk with its microphone switched off');

      await service.setMicrophone(true);
      await page.locator('body[data-microphone="enabled"]').waitFor();
      const on = await shownTexts(page);
      assert.equal(on.notice, 'The microphone is on again.');
      assert.equal(on.bubble, 'Hello! Hold the big button and ask me something.');
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await service.stop();
    }
  });

  it('with no microphone (a page that is not a secure context), says so once and does not invite the visitor to talk', async () => {
    const service = await startKioskService();
    // The kiosk at a name other than localhost over plain http, as a tablet on the network without TLS: the
    // browser gives such a page no microphone. The name resolves to loopback.
    const insecure = await launchBrowser({ args: ['--host-resolver-rules=MAP kiosk.test 127.0.0.1'] });
    try {
      const page = await insecure.newPage();
      await page.goto(`http://kiosk.test:${service.service.listeningPort}/`);
      await page.locator('body[data-connection="online"][data-microphone="unavailable"]').waitFor();
      await holdTalkButton(page, 300);
      const shown = await shownTexts(page);
      assert.match(shown.hint ?? '', /^No microphone: the page is not a secure context/);
      assert.equal(shown.notice, '');
      assert.equal(
        shown.bubble,
        'Hello! I cannot hear you on this screen: it has no working microphone. Please ask a member of staff.',
      );
      assert.equal(await page.locator('#talk-label').textContent(), 'No microphone');
      await assertNoSeriousViolations(page, 'the kiosk without a microphone');
    } finally {
      await insecure.close();
      await service.stop();
    }
  });
});
