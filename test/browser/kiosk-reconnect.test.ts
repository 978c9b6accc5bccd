import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser } from './browser.js';
import {
  holdTalkButton,
  openKiosk,
  restartKioskService,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';
import { freeLoopbackPort } from '../support/free-port.js';

const statusBarColour = async (page: Page): Promise<string> =>
  // A string: this file is compiled without the DOM library.
  String(await page.evaluate(`getComputedStyle(document.querySelector('.status-bar')).backgroundColor`));

/**
 * Watches the offline text until its countdown goes down (say 3 s, then 2 s) before the next attempt;
 * the page must read "offline" the whole time, attempts included. Bounded.
 */
const countdownSeen = async (page: Page, timeoutMs = 20_000): Promise<[number, number]> => {
  const deadline = Date.now() + timeoutMs;
  let last: number | undefined;
  while (Date.now() < deadline) {
    const [connection, status, retry] = await Promise.all([
      page.locator('body').getAttribute('data-connection'),
      page.locator('#connection-status').textContent(),
      page.locator('#connection-retry').textContent(),
    ]);
    const text = `${status}${retry}`;
    assert.equal(
      connection,
      'offline',
      `the page showed "${connection}" while the service was away (${text})`,
    );
    const seconds = /^Offline — trying again in (\d+) s$/.exec(text)?.[1];
    if (seconds === undefined) {
      // An attempt is under way; a new countdown starts after it.
      assert.equal(text, 'Offline — trying again now…');
      last = undefined;
    } else {
      const value = Number(seconds);
      if (last !== undefined && value < last) return [last, value];
      // The same second, or a new countdown after an attempt that came and went between two looks.
      last = value;
    }
    await page.waitForTimeout(100);
  }
  throw new Error(`the countdown did not count down within ${timeoutMs} ms`);
};

describe('kiosk reconnecting', () => {
  it('shows offline when the service goes, reconnects when it is back on the same port, re-applies state', async () => {
    const browser = await launchBrowser();
    // The service stops under a connected kiosk and starts again on the same port, as on a robot (fixed
    // port 7000). The port is chosen up front rather than with port 0: Linux refuses to bind a port it
    // handed out as ephemeral while connections on it linger in TIME_WAIT (about 60 s).
    let first: KioskService | undefined = await startKioskService(await freeLoopbackPort());
    let second: KioskService | undefined;
    try {
      const port = first.service.listeningPort;
      const { page } = await openKiosk(browser, first);
      // Leave the page in a state the next service will not have: an answer, a notice, the microphone off.
      await first.playAudio({ emotion: 'sad', text: 'Before the restart', audio: toneWav(100) });
      await waitForSnapshot(page, (s) => s.played.length === 1, 'the message');
      await first.setMicrophone(false);
      await page.locator('body[data-microphone="disabled"]').waitFor();
      assert.equal(
        await page.locator('#talk-hint').textContent(),
        'The robot has switched the microphone off for now.',
      );
      assert.equal(await page.locator('#speech-text').textContent(), 'Before the restart');
      const onlineBar = await statusBarColour(page);

      await first.stop();
      first = undefined;
      await page.locator('body[data-connection="offline"]').waitFor();
      assert.equal(await page.locator('#connection-status').textContent(), 'Offline');
      // Unmistakable from a few metres: the bar, the face and the button all say so.
      assert.notEqual(await statusBarColour(page), onlineBar);
      assert.equal(await page.locator('.face-badge').isVisible(), true);
      assert.equal(await page.locator('.face-badge').textContent(), 'Offline');
      assert.equal(await page.locator('#talk').getAttribute('data-look'), 'offline');
      assert.equal(await page.locator('#talk-label').textContent(), 'Offline');
      assert.equal(
        await page.locator('#talk-hint').textContent(),
        'The robot is offline: it cannot hear or answer until it is back.',
      );
      // Nothing stale stays up: microphone state, answer, notice, mood.
      assert.equal(await page.locator('#mic-text').textContent(), 'Microphone off while offline');
      assert.equal(await page.locator('#speech-text').textContent(), '');
      assert.equal(
        await page.locator('#speech-idle').textContent(),
        'I am offline at the moment, so I cannot hear or answer you. Back soon!',
      );
      assert.equal(await page.locator('#notice').textContent(), '');
      assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
      await assertNoSeriousViolations(page, 'the kiosk, offline');

      await holdTalkButton(page, 300);
      assert.deepEqual((await snapshot(page)).refused.at(-1), 'The robot is offline.');

      // The retry countdown counts down, and the page stays "offline" between attempts.
      const counted = await countdownSeen(page);
      console.log(`# countdown seen: ${counted.join(' → ')} s`);

      const stoppedAt = Date.now();
      second = await restartKioskService(port);
      console.log(`# the port was free again after ${Date.now() - stoppedAt} ms`);
      // Within the backoff cap (10 s) of the service being back.
      await page.locator('body[data-connection="online"]').waitFor({ timeout: 12_000 });
      const state = await snapshot(page);
      assert.equal(state.connects, 2);
      assert.equal(state.statesApplied, 2);
      // The new session's initial state replaced what the page showed.
      await page.locator('body[data-microphone="enabled"]').waitFor();
      assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
      assert.equal(await page.locator('#speech-text').textContent(), '');
      assert.equal(await page.locator('#connection-status').textContent(), 'Connected');
      assert.equal(await page.locator('#talk').getAttribute('data-look'), 'ready');
      assert.equal(await page.locator('.face-badge').isVisible(), false);
      assert.equal(await statusBarColour(page), onlineBar);

      await holdTalkButton(page, 600);
      await waitForSnapshot(page, (s) => s.played.length === 2, 'an echo from the new service');
      assert.equal(second.chats.length, 1);
    } finally {
      await browser.close();
      await first?.stop();
      await second?.stop();
    }
  });
});
