import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
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

/**
 * The service is stopped under a connected kiosk and started again on the same port, as on a robot
 * (fixed port 7000). The port is chosen up front rather than with port 0: Linux refuses to bind a port
 * it handed out as ephemeral while connections on it linger in TIME_WAIT (about 60 s), which a fixed
 * port does not suffer from.
 */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });

describe('kiosk reconnecting', () => {
  it('shows offline when the service goes, reconnects when it is back on the same port, re-applies state', async () => {
    const browser = await launchBrowser();
    let first: KioskService | undefined = await startKioskService(await freePort());
    let second: KioskService | undefined;
    try {
      const port = first.service.listeningPort;
      const { page } = await openKiosk(browser, first);
      // Leave the page in a state the next service will not have.
      await first.setMicrophone(false);
      await first.playAudio({ emotion: 'sad', text: 'Before the restart', audio: toneWav(100) });
      await waitForSnapshot(page, (s) => s.played.length === 1, 'the message');
      await page.locator('body[data-microphone="disabled"]').waitFor();

      await first.stop();
      first = undefined;
      await page.locator('body[data-connection="offline"]').waitFor();
      assert.match((await page.locator('#connection-status').textContent()) ?? '', /^Offline/);
      await holdTalkButton(page, 300);
      assert.deepEqual((await snapshot(page)).refused.at(-1), 'Not connected to the robot yet.');

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
