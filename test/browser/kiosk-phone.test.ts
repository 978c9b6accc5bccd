import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CDPSession, Page } from 'playwright-core';
import { AUDIO_NEEDS_A_GESTURE } from './audio-gesture.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, PHONE, type Browser } from './browser.js';
import {
  openKiosk,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';

/**
 * The kiosk on a phone (390×844, a mobile viewport with touch, as a visitor's own phone or a small kiosk
 * tablet gives it), measured in the page: what the hint offers, where "Tap anywhere to start" sits, that the
 * visitor's words and "Thinking…" leave the face uncovered, and that a long answer shows it scrolls.
 */

/** Long enough to scroll on a phone: about 1,800 characters. */
const LONG_ANSWER = Array.from(
  { length: 6 },
  () =>
    'The rose garden was planted in 1898 by the first director of the museum, who brought the oldest ' +
    'bushes from his family estate in the south. Today it holds more than three hundred varieties.',
).join(' ');

interface Box {
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}

// Runs in the page (strings: this file is compiled without the DOM library).
const BOX = `(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  return { top: r.top, left: r.left, bottom: r.bottom, right: r.right };
}`;
const boxOf = (page: Page, selector: string): Promise<Box> => page.evaluate<Box>(`(${BOX})('${selector}')`);

const overlaps = (a: Box, b: Box): boolean =>
  Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top) &&
  Math.min(a.right, b.right) > Math.max(a.left, b.left);

/** The parts of the face that must stay uncovered: the drawn head, and the thought bubble while it thinks. */
const assertFaceUncovered = async (page: Page, selector: string, where: string): Promise<void> => {
  const covering = await boxOf(page, selector);
  assert.ok(covering.bottom - covering.top > 0, `${where}: ${selector} shows`);
  for (const part of ['#face .face__head', '#face #thought']) {
    const face = await boxOf(page, part);
    assert.ok(
      !overlaps(covering, face),
      `${where}: ${selector} ${JSON.stringify(covering)} covers ${part} ${JSON.stringify(face)}`,
    );
  }
  const viewport = page.viewportSize()!;
  assert.ok(
    covering.top >= 0 && covering.left >= 0 && covering.right <= viewport.width,
    `${where}: ${selector} is off screen: ${JSON.stringify(covering)}`,
  );
};

/** A finger on the talk button, held until `lift` is called. */
const touchTalkButton = async (page: Page, touch: CDPSession): Promise<{ lift(): Promise<void> }> => {
  const box = await page.locator('#talk').boundingBox();
  assert.ok(box !== null);
  const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
  return {
    lift: async () => {
      await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    },
  };
};

interface AnswerBox {
  readonly scrollTop: number;
  readonly room: number;
  /** Where the text's lines begin: the box's top edge plus its top padding (px, in the viewport). */
  readonly contentTop: number;
  readonly boxTop: number;
  /** The top of each line of the answer's text (px, in the viewport). */
  readonly lineTops: readonly number[];
  readonly lineHeight: number;
  /** The fades over the top and bottom edges: whether drawn, and how opaque now. */
  readonly topFade: { readonly drawn: boolean; readonly opacity: number; readonly height: number };
  readonly bottomFade: { readonly drawn: boolean; readonly opacity: number };
  /** The box's own scroll bar: its layers, and the share scrolled it is drawn at. */
  readonly background: string;
  readonly scrolledShare: string;
  /** Room the browser's own scroll bar takes (0 where it overlays the content and hides at rest). */
  readonly nativeBar: number;
}

const ANSWER_BOX = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const box = document.querySelector('#speech');
  const text = document.querySelector('#speech-text');
  const style = getComputedStyle(box);
  const rect = box.getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(text);
  const tops = [...new Set([...range.getClientRects()].map((r) => Math.round(r.top * 10) / 10))];
  const fade = (which) => {
    const pseudo = getComputedStyle(box, which);
    return {
      drawn: pseudo.content !== 'none' && pseudo.display !== 'none',
      opacity: Number(pseudo.opacity),
      height: parseFloat(pseudo.height),
    };
  };
  resolve({
    scrollTop: box.scrollTop,
    room: box.scrollHeight - box.clientHeight,
    contentTop: rect.top + box.clientTop + parseFloat(style.paddingTop),
    boxTop: rect.top,
    lineTops: tops,
    lineHeight: parseFloat(getComputedStyle(text).lineHeight),
    topFade: fade('::before'),
    bottomFade: fade('::after'),
    background: style.backgroundImage,
    scrolledShare: style.getPropertyValue('--speech-scrolled').trim(),
    nativeBar: box.offsetWidth - box.clientWidth,
  });
})))`;
const answerBox = (page: Page): Promise<AnswerBox> => page.evaluate<AnswerBox>(ANSWER_BOX);

/** The box scrolled to `top` at once (no glide), as a finger leaves it. */
const scrollAnswerTo = (page: Page, top: number | 'end'): Promise<void> =>
  page.evaluate(`(() => {
    const box = document.querySelector('#speech');
    box.scrollTo({ top: ${top === 'end' ? 'box.scrollHeight' : top}, behavior: 'instant' });
  })()`);

describe('kiosk on a phone (390×844, touch)', () => {
  let browser: Browser;
  let service: KioskService;
  let page: Page;
  let touch: CDPSession;
  let problems: string[];

  before(async () => {
    // The robot takes a while over each answer, so "Thinking…" shows long enough to be measured.
    service = await startKioskService(0, {}, { latencyMs: 1_500 });
    browser = await launchBrowser({ device: PHONE });
    ({ page, problems } = await openKiosk(browser, service));
    touch = await page.context().newCDPSession(page);
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('is a phone to the page: a finger is its pointer', async () => {
    assert.deepEqual(page.viewportSize(), PHONE.viewport);
    assert.equal(await page.evaluate(`matchMedia('(pointer: coarse)').matches`), true);
    await assertNoSeriousViolations(page, 'the kiosk on a phone, idle');
  });

  it('offers the button only in its hint: a phone has no Space bar', async () => {
    const hint = await page.locator('#talk-hint').textContent();
    assert.equal(hint, 'Hold the button while you speak, then let go.');
  });

  it('centres "Tap anywhere to start" on the screen, each of its lines', async () => {
    const { page: locked } = await openKiosk(browser, service, {
      beforeLoad: (opening) => opening.addInitScript(AUDIO_NEEDS_A_GESTURE),
    });
    try {
      await locked.locator('#unlock').waitFor({ state: 'visible' });
      const lines = await locked.evaluate<{ left: number; right: number }[]>(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('#unlock p'));
        return [...range.getClientRects()].map((r) => ({ left: r.left, right: r.right }));
      })()`);
      assert.ok(lines.length > 0);
      const width = locked.viewportSize()!.width;
      for (const line of lines) {
        assert.ok(line.left >= 16, `a line starts ${line.left.toFixed(1)} px from the left edge`);
        assert.ok(
          Math.abs(line.left - (width - line.right)) <= 2,
          `a line is off centre: ${line.left.toFixed(1)} px left, ${(width - line.right).toFixed(1)} px right`,
        );
      }
      await assertNoSeriousViolations(locked, 'the kiosk on a phone, asking for a tap');
    } finally {
      await locked.close();
    }
  });

  it('keeps the visitor’s words and "Thinking…" off the face', async () => {
    const finger = await touchTalkButton(page, touch);
    try {
      await page.locator('#talk[data-look="listening"]').waitFor();
      await page.locator('#visitor-words[data-shown="true"]').waitFor();
      await page.waitForTimeout(400);
      await assertFaceUncovered(page, '#visitor-words', 'while the visitor speaks');
      await assertNoSeriousViolations(page, 'the kiosk on a phone, the visitor’s words shown');
    } finally {
      await finger.lift();
    }
    await page.locator('#face-status', { hasText: 'Thinking…' }).waitFor();
    await page.waitForTimeout(400);
    await assertFaceUncovered(page, '#face-status', 'while the robot thinks');
    await assertFaceUncovered(page, '#visitor-words', 'while the robot thinks');
    await waitForSnapshot(
      page,
      (kiosk) => kiosk.played.at(-1)?.endedAt !== undefined && kiosk.sent.length === 1,
      'the echo of what was said to end',
      15_000,
    );
  });

  it('shows a long answer scrolls: faded edges, its own scroll bar, and no line cut in half at rest', async () => {
    const before = (await snapshot(page)).played.length;
    await service.playAudio({ emotion: 'happy', text: LONG_ANSWER, audio: toneWav(12_000, 220) });
    const started = await waitForSnapshot(page, (kiosk) => kiosk.played.length > before, 'the answer');
    const answer = started.played.at(-1)!;
    assert.equal(answer.text, LONG_ANSWER);

    // At its start: the bottom edge fades (more below), the top one does not (nothing above).
    const start = await answerBox(page);
    assert.ok(start.room > 0, 'the answer overflows its box');
    assert.equal(start.scrollTop, 0);
    assert.ok(start.topFade.drawn && start.bottomFade.drawn, 'the box has faded edges');
    assert.equal(start.topFade.opacity, 0, 'the first line is faded');
    assert.ok(start.bottomFade.opacity > 0.99, `the bottom edge fades at ${start.bottomFade.opacity}`);
    // The box draws a scroll bar of its own, where the phone's own one shows only while it moves.
    assert.equal(start.nativeBar, 0);
    assert.match(start.background, /linear-gradient.*linear-gradient/);
    assert.equal(Number(start.scrolledShare), 0);

    // Two fifths through, the box has followed the voice; once it stops moving, a line starts right where
    // the top padding ends, and the one before, cut by the box's edge, is under the fade.
    await waitForSnapshot(
      page,
      (kiosk) => kiosk.audio.clock >= answer.clockStart + 0.4 * (answer.clockEnd - answer.clockStart),
      'two fifths of the answer',
      20_000,
    );
    let resting = await answerBox(page);
    for (let look = 0; look < 20; look += 1) {
      await page.waitForTimeout(60);
      const now = await answerBox(page);
      if (now.scrollTop === resting.scrollTop && now.scrollTop > 0) break;
      resting = now;
    }
    assert.ok(resting.scrollTop > 0, 'the box followed the voice');
    const cut = resting.lineTops.filter(
      (top) => top < resting.contentTop - 1 && top + resting.lineHeight > resting.contentTop + 1,
    );
    const nearTop = resting.lineTops
      .filter((top) => Math.abs(top - resting.contentTop) < 2 * resting.lineHeight)
      .join(', ');
    assert.deepEqual(
      cut,
      [],
      `a line is cut at the top padding (${resting.contentTop}): lines at ${nearTop}`,
    );
    assert.ok(
      resting.lineTops.some((top) => Math.abs(top - resting.contentTop) <= 1),
      `no line starts at the top padding (${resting.contentTop}): lines at ${nearTop}`,
    );
    assert.ok(resting.topFade.opacity > 0.99, `the top edge fades at ${resting.topFade.opacity}`);
    assert.ok(
      resting.topFade.height >= resting.contentTop - resting.boxTop,
      'the top fade covers the padding',
    );
    assert.ok(resting.bottomFade.opacity > 0.99, `the bottom edge fades at ${resting.bottomFade.opacity}`);
    const share = Number(resting.scrolledShare);
    assert.ok(
      Math.abs(share - resting.scrollTop / resting.room) < 0.02,
      `the scroll bar is drawn at ${share}, the box is scrolled ${resting.scrollTop} of ${resting.room}`,
    );
    await assertNoSeriousViolations(page, 'the kiosk on a phone, a long answer');

    // At the end of the answer: nothing more below, so the bottom edge does not fade.
    await scrollAnswerTo(page, 'end');
    const end = await answerBox(page);
    assert.equal(end.scrollTop, end.room);
    assert.equal(end.bottomFade.opacity, 0, 'the last line is faded');
    assert.equal(Number(end.scrolledShare), 1);
    await waitForSnapshot(
      page,
      (kiosk) => kiosk.played.at(-1)?.endedAt !== undefined,
      'the answer to end',
      20_000,
    );
  });

  it('loaded nothing from outside the service and logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
