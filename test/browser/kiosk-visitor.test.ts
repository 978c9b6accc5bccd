import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import { openKiosk, startKioskService, toneWav, waitForSnapshot } from './kiosk-harness.js';

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
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      if (!stopped) await service.stop();
    }
  });
});
