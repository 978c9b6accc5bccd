import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import {
  kioskServiceAndBrowser,
  openKiosk,
  openSettings,
  snapshot,
  waitForSnapshot,
} from './kiosk-harness.js';
import { commandsSent, watchSentFrames, type SentFrame } from './socket-log.js';

/**
 * Hands-free past the length limit (docs/kiosk.md): what was said is sent, and the visitor's own voice
 * going on does not cancel the answer nor open a new recording until they pause. The visitor is
 * Chromium's fake microphone, which beeps twice a second without end: 15 s of it, in real time (the
 * service's limit here, which its `state` tells the page; a minute by default), then the answer.
 */

/** 15 s of 16 kHz 16-bit audio in a WAV frame: the service's --max_audio_frame_bytes here. */
const FRAME_BYTES = 44 + 15 * 32_000;
const LIMIT_NOTICE = '15 seconds is the longest a message can be, so what you said was sent.';

/** Sets the hands-free threshold in the settings dialog (open) to `db`, by its keys. */
const setThreshold = async (page: Page, db: number): Promise<void> => {
  await page.locator('#threshold').fill(String(db));
  assert.equal(await page.locator('#threshold-value').textContent(), `${db} dB`);
};

describe('kiosk: hands-free at the length limit', () => {
  const shared = kioskServiceAndBrowser({ max_audio_frame_bytes: String(FRAME_BYTES) });

  it('sends what was said, then plays the answer over the visitor still speaking until they pause', async () => {
    let sent: SentFrame[] = [];
    const { page, problems } = await openKiosk(shared.browser, shared.service, {
      beforeLoad: (opened) => {
        sent = watchSentFrames(opened);
      },
    });
    // Chromium cancels echo on its fake microphone: voice over the robot's counts (the case where the
    // visitor's own voice would interrupt the answer). The beeps peak near -6 dB: at -60 dB they count
    // over the robot's voice too (6 dB more), and the gaps between them are far under the 900 ms pause.
    await openSettings(page);
    assert.equal(await page.locator('#echo-status').textContent(), 'Echo cancellation: on in this browser.');
    await setThreshold(page, -60);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Hands-free').check();
    await page.locator('body[data-recording="true"]').waitFor({ timeout: 5_000 });

    const limited = await waitForSnapshot(page, (s) => s.sent.length === 1, 'the limit to send', 30_000);
    assert.equal(limited.sent[0]!.ms, 15_000);
    assert.equal(await page.locator('#notice').textContent(), LIMIT_NOTICE);

    // The answer comes and plays while the visitor's voice goes on: 6 s of watching, every 100 ms.
    const started = await waitForSnapshot(page, (s) => s.played.length === 1, 'the answer to start', 10_000);
    // The notice says why the message was cut while the answer starts (it goes after 6 s, as notices do).
    assert.equal(await page.locator('#notice').textContent(), LIMIT_NOTICE);
    const deadline = Date.now() + 6_000;
    while (Date.now() < deadline) {
      const now = await snapshot(page);
      assert.equal(now.page['recording'], 'false', 'a new recording opened on the visitor’s own voice');
      assert.equal(
        now.voiceInterrupts,
        started.voiceInterrupts,
        'the visitor’s voice interrupted the answer',
      );
      assert.equal(now.played[0]!.endedAt, undefined, `the answer ended: ${now.played[0]!.outcome}`);
      await page.waitForTimeout(100);
    }
    const commands = commandsSent(sent);
    assert.deepEqual(
      commands.filter((command) => command === 'utterance_start' || command === 'cancel'),
      ['utterance_start'],
      commands.join(' '),
    );
    assert.equal(shared.service.chats.length, 1);
    assert.equal(await page.locator('#talk').getAttribute('data-look'), 'hands-free-speaking');
    // What the page says is what it does: the voice interrupts only after a pause.
    assert.equal(
      await page.locator('#mic-text').textContent(),
      'Robot speaking — pause, then talk to interrupt',
    );
    await assertNoSeriousViolations(page, 'the kiosk answering after the hands-free limit');

    // The visitor pauses (nothing counts as voice at 0 dB) for longer than 900 ms; then their voice is a
    // new question again, and interrupts the answer.
    await openSettings(page);
    await setThreshold(page, 0);
    await page.waitForTimeout(1_500);
    await setThreshold(page, -60);
    const interrupted = await waitForSnapshot(
      page,
      (s) => s.voiceInterrupts === started.voiceInterrupts + 1 && s.played[0]!.outcome === 'stopped',
      'the visitor’s voice after the pause to interrupt the answer',
      5_000,
    );
    assert.equal(interrupted.page['recording'], 'true');
    assert.notEqual(
      await page.locator('#mic-text').textContent(),
      'Robot speaking — pause, then talk to interrupt',
    );
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Hands-free').uncheck();
    assert.deepEqual(problems, []);
    await page.close();
  });
});
