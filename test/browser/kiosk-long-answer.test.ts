import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import {
  type KioskService,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  toneWav,
  waitForSnapshot,
} from './kiosk-harness.js';

/**
 * A long answer (3,079 characters, as a language model gives when asked about the whole garden) is read
 * while it is spoken: the text stays large enough to read at arm's length, the bubble scrolls along with
 * the robot's voice, and a visitor can scroll back to reread without the bubble snatching it away.
 */

const PARAGRAPH =
  'The rose garden was planted in 1898 by the first director of the museum, who brought the oldest ' +
  'bushes from his family estate in the south. Today it holds more than three hundred varieties, some ' +
  'found nowhere else in the country. The best time to visit is early June, when most are in flower, ' +
  'but even in autumn the hips and late blooms make it worth the walk. Ask me about any rose you see, ' +
  'or about the pond and the old gate!';
const LONG_ANSWER = Array.from({ length: 8 }, () => PARAGRAPH)
  .join(' ')
  .slice(0, 3_079);
/** Long enough to look at the bubble a third and two thirds of the way through, and to scroll back after. */
const SPEECH_MS = 24_000;

interface Reading {
  /** How much of the answer's audio has played (0 to 1). */
  readonly share: number;
  readonly scrollTop: number;
  readonly fontPx: number;
  /** Whether the character the voice is at, by its share of the audio, is inside the bubble's view. */
  readonly spokenInView: boolean;
}

// Runs in the page (a string: this file is compiled without the DOM library).
const READ = `(() => {
  const state = window.tourKiosk.snapshot();
  const played = state.played.at(-1);
  const share = Math.min(1, (state.audio.clock - played.clockStart) / (played.clockEnd - played.clockStart));
  const box = document.querySelector('#speech');
  const node = document.querySelector('#speech-text').firstChild;
  const offset = Math.min(node.length - 1, Math.round(share * node.length));
  const range = document.createRange();
  range.setStart(node, offset);
  range.setEnd(node, offset + 1);
  const spoken = range.getBoundingClientRect();
  const view = box.getBoundingClientRect();
  return {
    share,
    scrollTop: box.scrollTop,
    fontPx: parseFloat(getComputedStyle(box).fontSize),
    spokenInView: spoken.top >= view.top && spoken.bottom <= view.bottom,
  };
})()`;

const read = (page: Page): Promise<Reading> => page.evaluate<Reading>(READ);

/** Waits until `share` of the playing answer's audio has played; bounded by the answer's length. */
const untilShare = (page: Page, share: number) =>
  waitForSnapshot(
    page,
    (s) => {
      const played = s.played.at(-1);
      return (
        played !== undefined &&
        s.audio.clock >= played.clockStart + share * (played.clockEnd - played.clockStart)
      );
    },
    `${share * 100}% of the answer`,
    SPEECH_MS,
  );

const sayLongAnswer = async (service: KioskService, page: Page, ms: number): Promise<void> => {
  const before = (await snapshot(page)).played.length;
  await service.playAudio({ emotion: 'happy', text: LONG_ANSWER, audio: toneWav(ms, 220) });
  await waitForSnapshot(page, (s) => s.played.length > before, 'the long answer to start');
};

describe('kiosk: a long answer', () => {
  const shared = kioskServiceAndBrowser();

  it('follows the robot’s voice through a 3,079-character answer at 1280×800, and lets the visitor scroll back', async () => {
    assert.equal(LONG_ANSWER.length, 3_079);
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await sayLongAnswer(shared.service, page, SPEECH_MS);

    const start = await read(page);
    assert.ok(start.fontPx >= 29, `answer text ${start.fontPx} px`);
    assert.equal(start.scrollTop, 0, 'the answer starts at its beginning');

    await untilShare(page, 0.35);
    // The follower moves every quarter second, with a short glide: give it one step and the glide.
    await page.waitForTimeout(600);
    const third = await read(page);
    assert.ok(third.scrollTop > 0, 'the bubble did not move a third of the way through the answer');
    assert.ok(third.spokenInView, `what is said at ${Math.round(third.share * 100)}% is not in view`);

    await untilShare(page, 0.7);
    await page.waitForTimeout(600);
    const twoThirds = await read(page);
    assert.ok(twoThirds.scrollTop > third.scrollTop, 'the bubble stopped following the voice');
    assert.ok(twoThirds.spokenInView, `what is said at ${Math.round(twoThirds.share * 100)}% is not in view`);
    await assertNoSeriousViolations(page, 'the kiosk, following a long answer');

    // The visitor scrolls back to the top to reread: the bubble stays there while the robot speaks on.
    const box = await page.locator('#speech').boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // Turns of the wheel, as a visitor's, until the top: bounded.
    for (let turn = 0; turn < 30 && (await read(page)).scrollTop > 0; turn += 1) {
      await page.mouse.wheel(0, -600);
      await page.waitForTimeout(100);
    }
    await page.waitForTimeout(1_500);
    const reread = await read(page);
    assert.ok(reread.share < 1, 'the answer ended before the bubble could be watched');
    assert.equal(reread.scrollTop, 0, 'the bubble scrolled away from what the visitor went back to');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('keeps a 3,079-character answer legible on a phone (390×844)', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await page.setViewportSize({ width: 390, height: 844 });
    await sayLongAnswer(shared.service, page, 1_000);
    const reading = await read(page);
    assert.ok(reading.fontPx >= 20, `answer text ${reading.fontPx} px on a phone`);
    await assertNoSeriousViolations(page, 'the kiosk on a phone, with a long answer');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
