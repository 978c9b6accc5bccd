import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOST_QUESTION, LOST_RECORDING, failureLine } from '../../web/src/failure-lines.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import { announcements, pageNow, watchAnnouncements } from './live-regions.js';
import { freeLoopbackPort } from '../support/free-port.js';
import { commandsSent, watchSentFrames, type SentFrame } from './socket-log.js';
import {
  holdTalkButton,
  type KioskService,
  openKiosk,
  pressTalkButton,
  restartKioskService,
  startKioskService,
  waitForSnapshot,
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
    // A port chosen up front, so the service can start again on it at once (kiosk-reconnect.test.ts).
    let first: KioskService | undefined = await startKioskService(
      await freeLoopbackPort(),
      {},
      {
        latencyMs: 5_000,
      },
    );
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

  it('the connection lost while the visitor holds the button: once back, the robot asks them to say it again', async () => {
    // A port chosen up front, so the service can start again on it at once (kiosk-reconnect.test.ts).
    let first: KioskService | undefined = await startKioskService(await freeLoopbackPort());
    let second: KioskService | undefined;
    let sent: SentFrame[] = [];
    try {
      const port = first.service.listeningPort;
      const { page } = await openKiosk(browser, first, {
        beforeLoad: (opened) => {
          sent = watchSentFrames(opened);
        },
      });
      await watchAnnouncements(page);
      await pressTalkButton(page);
      try {
        await page.locator('body[data-recording="true"]').waitFor();
        // Long enough for the streamed utterance to be open and its first parts sent.
        await page.waitForTimeout(800);
        assert.ok(commandsSent(sent).includes('utterance_start'), commandsSent(sent).join(' '));
        await first.stop();
        first = undefined;
        await page.locator('body[data-connection="offline"]').waitFor();
        assert.equal(await page.locator('body').getAttribute('data-recording'), 'false');
        // Offline is the one thing said meanwhile: the bubble says the robot cannot hear.
        assert.equal(
          await page.locator('#speech-idle').textContent(),
          'I am offline at the moment, so I cannot hear or answer you. Back soon!',
        );
        const backFrom = await pageNow(page);
        second = await restartKioskService(port);
        await page.locator('body[data-connection="online"]').waitFor({ timeout: 12_000 });
        await bubbleShows(page, LOST_RECORDING.text);
        assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'sad');
        // It stays (nothing wipes it), and a screen reader hears it.
        await page.waitForTimeout(1_500);
        assert.equal(await page.locator('#speech-text').textContent(), LOST_RECORDING.text);
        const said = (await announcements(page)).filter((entry) => entry.at >= backFrom);
        assert.ok(
          said.some((entry) => entry.region === 'speech-said' && entry.text === LOST_RECORDING.text),
          JSON.stringify(said),
        );
        await assertNoSeriousViolations(page, 'the kiosk back after losing what the visitor said');
      } finally {
        await page.mouse.up();
      }
      // The finger lifted on the new session sends nothing: that recording ended with the old one.
      await page.waitForTimeout(500);
      assert.equal(second.chats.length, 0);
      assert.equal(await page.locator('#speech-text').textContent(), LOST_RECORDING.text);
    } finally {
      await first?.stop();
      await second?.stop();
    }
  });
});
