import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOST_QUESTION, failureLine } from '../../web/src/failure-lines.js';
import { launchBrowser, type Browser } from './browser.js';
import {
  holdTalkButton,
  openKiosk,
  restartKioskService,
  startKioskService,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';

/**
 * A question that gets no answer, as a visitor meets it in Chromium: the apology takes the answer's place
 * in the speech bubble, with a face to match, instead of a small notice under the button.
 */

const bubbleShows = async (page: import('playwright-core').Page, text: string): Promise<void> => {
  await page.locator('#speech-text', { hasText: text }).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#speech-text').textContent(), text);
};

describe('kiosk: failures in the speech bubble', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
  });

  it('a chat time-out: an apology in the bubble with a sad face and the hint to ask again', async () => {
    const service = await startKioskService(0, { chat_timeout_ms: '300' }, { latencyMs: 3_000 });
    try {
      const { page, problems } = await openKiosk(browser, service);
      await holdTalkButton(page, 600);
      const line = failureLine('chat_timeout');
      assert.ok(line !== undefined);
      await bubbleShows(page, line.text);
      assert.match(line.text, /ask me again/);
      assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'sad');
      // The next answer replaces it.
      await service.playAudio({ emotion: 'happy', text: 'Here I am again.', audio: new Uint8Array(0) });
      await bubbleShows(page, 'Here I am again.');
      assert.deepEqual(problems, []);
    } finally {
      await service.stop();
    }
  });

  it('New conversation refused by the robot: a notice says so, not a generic error', async () => {
    const service = await startKioskService();
    try {
      const { page, problems } = await openKiosk(browser, service);
      service.sim.faults.setUnavailable('clear_history', true);
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page
        .locator('#notice', { hasText: 'The robot cannot start a new conversation right now.' })
        .waitFor({ timeout: 5_000 });
      service.sim.faults.setUnavailable('clear_history', false);
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page
        .locator('#notice', { hasText: 'New conversation: the robot has forgotten what was said.' })
        .waitFor({ timeout: 5_000 });
      assert.deepEqual(problems, []);
    } finally {
      await service.stop();
    }
  });

  it('a question lost to a restart: once back, the robot says it lost the question and asks again', async () => {
    let first: KioskService | undefined = await startKioskService(0, {}, { latencyMs: 5_000 });
    let second: KioskService | undefined;
    try {
      const port = first.service.listeningPort;
      const { page } = await openKiosk(browser, first);
      await holdTalkButton(page, 600);
      await waitForSnapshot(page, (s) => s.sent.length === 1, 'the question sent');
      await first.stop();
      first = undefined;
      await page.locator('body[data-connection="offline"]').waitFor();
      second = await restartKioskService(port);
      await page.locator('body[data-connection="online"]').waitFor({ timeout: 12_000 });
      await bubbleShows(page, LOST_QUESTION.text);
      assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'sad');
    } finally {
      await first?.stop();
      await second?.stop();
    }
  });
});
