import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import {
  kioskServiceAndBrowser,
  openKiosk,
  parseWav,
  pressTalkButton,
  snapshot,
  waitForSnapshot,
} from './kiosk-harness.js';
import { announcements, watchAnnouncements } from './live-regions.js';

/**
 * A visitor who holds the button past the length limit sees the time left before it, and then that what
 * they said was sent, while the finger is still down and after the answer starts. The hold is real: 15 s
 * of Chromium's fake microphone, as a visitor would give it (the service's limit here, which its `state`
 * tells the page; a minute by default).
 */

/** 15 s of 16 kHz 16-bit audio in a WAV frame: the service's --max_audio_frame_bytes here. */
const FRAME_BYTES = 44 + 15 * 32_000;
const LIMIT_NOTICE = '15 seconds is the longest a message can be, so what you said was sent.';

const talkLabel = async (page: Page): Promise<string> =>
  (await page.locator('#talk-label').textContent()) ?? '';

/** Polls the talk button's label until it shows the time left, then a lower one; bounded. */
const countdownSeen = async (page: Page, timeoutMs: number): Promise<[number, number]> => {
  const deadline = Date.now() + timeoutMs;
  let first: number | undefined;
  while (Date.now() < deadline) {
    const left = /^Listening…\n(\d+) s left$/.exec(await talkLabel(page))?.[1];
    if (left !== undefined) {
      if (first === undefined) first = Number(left);
      else if (Number(left) < first) return [first, Number(left)];
    }
    await page.waitForTimeout(first === undefined ? 500 : 100);
  }
  throw new Error(
    `no countdown within ${timeoutMs} ms; the label reads ${JSON.stringify(await talkLabel(page))}`,
  );
};

describe('kiosk: the recording limit', () => {
  const shared = kioskServiceAndBrowser({ max_audio_frame_bytes: String(FRAME_BYTES) });

  it('counts down the last seconds, then says it sent the message while the button is still held', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await watchAnnouncements(page);
    await pressTalkButton(page);
    try {
      // The label says "let go to send" for 5 s; then it counts down.
      assert.equal(await talkLabel(page), 'Listening…\nlet go to send');
      const [first, later] = await countdownSeen(page, 13_000);
      assert.ok(first <= 10, `the countdown started at ${first} s`);
      console.log(`# countdown seen: ${first} → ${later} s`);
      // A screen reader hears the countdown start once, politely, not every second.
      const countdown = (await announcements(page)).filter((entry) => /seconds? left/.test(entry.text));
      assert.equal(countdown.length, 1, JSON.stringify(countdown));
      assert.equal(countdown[0]!.region, 'announcer');
      const announced = Number(/^(\d+) seconds left\.$/.exec(countdown[0]!.text)?.[1]);
      assert.ok(announced >= first && announced <= 10, countdown[0]!.text);
      await assertNoSeriousViolations(page, 'the kiosk counting down to the recording limit');

      const sent = await waitForSnapshot(
        page,
        (s) => s.sent.length === 1,
        'the recording to be sent',
        12_000,
      );
      assert.equal(sent.sent[0]!.ms, 15_000);
      // The finger is still down: the button and the notice say what happened.
      assert.equal(await talkLabel(page), 'Sent —\nlet go');
      assert.equal(await page.locator('#talk').getAttribute('data-look'), 'sent');
      assert.equal(await page.locator('#notice').textContent(), LIMIT_NOTICE);
      await assertNoSeriousViolations(page, 'the kiosk after the recording limit, still held');

      // The answer starts; the notice stays, so the visitor still knows why it was cut.
      await waitForSnapshot(page, (s) => s.played.length === 1, 'the answer to start');
      assert.equal(await page.locator('#notice').textContent(), LIMIT_NOTICE);
      assert.equal(await talkLabel(page), 'Sent —\nlet go');
    } finally {
      await page.mouse.up();
    }
    // Letting go sends nothing more; the button is the robot's again.
    await page.locator('#talk[data-look="speaking"]').waitFor();
    assert.equal((await snapshot(page)).sent.length, 1);
    assert.equal(shared.service.chats.length, 1);
    assert.equal(parseWav(shared.service.chats[0]!).samples.length, 15 * 16_000);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
