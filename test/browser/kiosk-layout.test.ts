import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import {
  openKiosk,
  openSettings,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';

/**
 * The kiosk's layout at a landscape kiosk (1280×800), a portrait tablet (800×1280) and a phone (390×844):
 * the page never scrolls, whatever the robot says; the talk button, its hint and the visitor's options
 * stay on screen; the answer keeps a readable size and scrolls inside its own box when it must.
 */

/** An ordinary language-model paragraph: 440 characters. */
const LONG_ANSWER =
  'The rose garden was planted in 1898 by the first director of the museum, who brought the oldest ' +
  'bushes from his family estate in the south. Today it holds more than three hundred varieties, some ' +
  'found nowhere else in the country. The best time to visit is early June, when most are in flower, ' +
  'but even in autumn the hips and late blooms make it worth the walk. Ask me about any rose you see, ' +
  'or about the pond and the old gate!';
const HUGE_ANSWER = Array.from({ length: 6 }, () => LONG_ANSWER).join(' ');

const SIZES = [
  { name: 'landscape kiosk', width: 1280, height: 800 },
  { name: 'portrait tablet', width: 800, height: 1280 },
  { name: 'phone', width: 390, height: 844 },
] as const;

interface Box {
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}
interface Layout {
  readonly viewport: { readonly width: number; readonly height: number };
  readonly page: { readonly scrollWidth: number; readonly scrollHeight: number };
  readonly boxes: Record<string, Box>;
  readonly speech: {
    readonly fontPx: number;
    readonly scrollHeight: number;
    readonly clientHeight: number;
    readonly tabIndex: number;
    readonly text: string;
  };
}

/** Elements a visitor needs on screen at all times. */
const ALWAYS_ON_SCREEN = [
  '.status-bar',
  '#face',
  '#speech',
  '#talk',
  '#talk-hint',
  '#hands-free',
  '#new-conversation',
];

// Runs in the page (a string: this file is compiled without the DOM library).
const MEASURE = `(() => {
  const box = (selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return { top: r.top, left: r.left, bottom: r.bottom, right: r.right };
  };
  const speech = document.querySelector('#speech');
  return {
    viewport: { width: innerWidth, height: innerHeight },
    page: {
      scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
      scrollHeight: Math.max(document.documentElement.scrollHeight, document.body.scrollHeight),
    },
    boxes: Object.fromEntries(${JSON.stringify(ALWAYS_ON_SCREEN)}.map((s) => [s, box(s)])),
    speech: {
      fontPx: parseFloat(getComputedStyle(speech).fontSize),
      scrollHeight: speech.scrollHeight,
      clientHeight: speech.clientHeight,
      tabIndex: speech.tabIndex,
      text: document.querySelector('#speech-text').textContent,
    },
  };
})()`;

const measure = (page: Page): Promise<Layout> => page.evaluate<Layout>(MEASURE);

const assertFits = (layout: Layout, where: string): void => {
  const { viewport, page } = layout;
  assert.ok(
    page.scrollHeight <= viewport.height && page.scrollWidth <= viewport.width,
    `${where}: the page scrolls (${page.scrollWidth}×${page.scrollHeight} in ${viewport.width}×${viewport.height})`,
  );
  for (const [selector, box] of Object.entries(layout.boxes)) {
    assert.ok(
      box.top >= 0 && box.left >= 0 && box.bottom <= viewport.height && box.right <= viewport.width,
      `${where}: ${selector} is not fully on screen: ${JSON.stringify(box)}`,
    );
  }
  const talk = layout.boxes['#talk']!;
  const speech = layout.boxes['#speech']!;
  const overlap =
    Math.min(talk.bottom, speech.bottom) > Math.max(talk.top, speech.top) &&
    Math.min(talk.right, speech.right) > Math.max(talk.left, speech.left);
  assert.ok(!overlap, `${where}: the answer box overlaps the talk button`);
};

/** The answer box scrolls by itself: its end can be brought into view while the page stays put. */
const assertAnswerScrolls = async (page: Page, where: string): Promise<void> => {
  const scrolled = await page.evaluate<{ box: number; page: number }>(`(() => {
    const speech = document.querySelector('#speech');
    // Instant: the box glides when it follows the robot's voice, and this reads the position at once.
    speech.scrollTo({ top: speech.scrollHeight, behavior: 'instant' });
    const result = { box: speech.scrollTop, page: document.scrollingElement.scrollTop };
    speech.scrollTo({ top: 0, behavior: 'instant' });
    return result;
  })()`);
  assert.ok(scrolled.box > 0, `${where}: the answer box does not scroll`);
  assert.equal(scrolled.page, 0, `${where}: the page scrolled`);
};

/** How far inside the round button the label's box stays, at its nearest corner (px). */
const labelClearance = (page: Page): Promise<number> =>
  page.evaluate<number>(`(() => {
    const talk = document.querySelector('#talk').getBoundingClientRect();
    const label = document.querySelector('#talk-label').getBoundingClientRect();
    const cx = talk.left + talk.width / 2;
    const cy = talk.top + talk.height / 2;
    const r = Math.min(talk.width, talk.height) / 2;
    const corners = [[label.left, label.top], [label.right, label.top], [label.left, label.bottom], [label.right, label.bottom]];
    return Math.min(...corners.map(([x, y]) => r - Math.hypot(x - cx, y - cy)));
  })()`);

const say = async (service: KioskService, page: Page, text: string): Promise<void> => {
  const before = (await snapshot(page)).played.length;
  await service.playAudio({ emotion: 'happy', text, audio: toneWav(200) });
  await waitForSnapshot(
    page,
    (s) => s.played.length > before && s.played.at(-1)?.text === text,
    'the answer',
  );
};

describe('kiosk layout', () => {
  let browser: Browser;
  let service: KioskService;
  let page: Page;
  let problems: string[];

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    ({ page, problems } = await openKiosk(browser, service));
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('has no serious accessibility violation when idle and online', async () => {
    await assertNoSeriousViolations(page, 'the kiosk, online');
  });

  it('offers the Space bar in its hint where a mouse is the pointer (a desktop)', async () => {
    assert.equal(await page.evaluate(`matchMedia('(pointer: fine)').matches`), true);
    assert.equal(
      await page.locator('#talk-hint').textContent(),
      'Hold the button — or the Space bar — while you speak, then let go.',
    );
  });

  const fonts = new Map<string, number>();
  for (const size of SIZES) {
    it(`never scrolls at ${size.width}×${size.height} (${size.name}), however long the answer`, async () => {
      await page.setViewportSize({ width: size.width, height: size.height });
      const where = `${size.width}×${size.height}`;
      assertFits(await measure(page), `${where}, idle`);

      await say(service, page, LONG_ANSWER);
      const long = await measure(page);
      assert.equal(long.speech.text, LONG_ANSWER);
      assertFits(long, `${where}, a 440-character answer`);
      fonts.set(size.name, long.speech.fontPx);
      if (long.speech.scrollHeight > long.speech.clientHeight) {
        // It did not fit even at its smallest readable size: it scrolls, and can be scrolled by keyboard.
        assert.equal(long.speech.tabIndex, 0);
        await assertAnswerScrolls(page, `${where}, a 440-character answer`);
      }

      await say(service, page, HUGE_ANSWER);
      const huge = await measure(page);
      assertFits(huge, `${where}, a ${HUGE_ANSWER.length}-character answer`);
      assert.ok(
        huge.speech.scrollHeight > huge.speech.clientHeight,
        'the huge answer did not overflow its box',
      );
      assert.equal(huge.speech.tabIndex, 0);
      await assertAnswerScrolls(page, `${where}, a ${HUGE_ANSWER.length}-character answer`);
      // Even shrunk to fit more, it stays readable.
      assert.ok(huge.speech.fontPx >= 17, `${where}: answer text ${huge.speech.fontPx} px`);
    });
  }

  it('keeps the answer readable at a distance on tablets, in portrait as in landscape', () => {
    const landscape = fonts.get('landscape kiosk');
    const portrait = fonts.get('portrait tablet');
    assert.ok(landscape !== undefined && portrait !== undefined, 'the layout tests ran first');
    assert.ok(landscape >= 26, `landscape answer text ${landscape} px`);
    assert.ok(portrait >= 26, `portrait answer text ${portrait} px`);
    assert.ok(portrait >= landscape * 0.9, `portrait ${portrait} px vs landscape ${landscape} px`);
  });

  it('keeps the talk button’s label clear of its round edge, also while listening or the robot speaks', async () => {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      const where = `${size.width}×${size.height}`;
      const idle = await labelClearance(page);
      assert.ok(idle >= 8, `${where}: "Hold to talk" is ${idle.toFixed(1)} px from the edge`);

      const spoken = (await snapshot(page)).played.length;
      await service.playAudio({ emotion: 'happy', text: 'One moment.', audio: toneWav(1_000) });
      await page.locator('#talk[data-look="speaking"]').waitFor();
      const speaking = await labelClearance(page);
      assert.ok(
        speaking >= 8,
        `${where}: "Speaking… hold to interrupt" is ${speaking.toFixed(1)} px from the edge`,
      );
      await waitForSnapshot(
        page,
        (s) => s.played.length > spoken && s.played.at(-1)?.endedAt !== undefined,
        'the message to end',
      );

      const before = (await snapshot(page)).played.length;
      const box = await page.locator('#talk').boundingBox();
      assert.ok(box !== null);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      try {
        await page.locator('#talk[data-look="listening"]').waitFor();
        assert.equal(await page.locator('#talk-label').textContent(), 'Listening…\nlet go to send');
        const listening = await labelClearance(page);
        assert.ok(
          listening >= 8,
          `${where}: "Listening… let go to send" is ${listening.toFixed(1)} px from the edge`,
        );
        await page.waitForTimeout(300);
      } finally {
        await page.mouse.up();
      }
      // The utterance went out and its echo played; the next size starts from a quiet kiosk.
      await waitForSnapshot(
        page,
        (s) => s.played.length > before && s.played.at(-1)?.endedAt !== undefined,
        'the echo',
      );
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('keeps the operator’s settings behind a long press on the face, and remembers them', async () => {
    // Nothing technical in the visitor's view.
    for (const selector of ['#threshold', '#level', '#settings']) {
      assert.equal(await page.locator(selector).isVisible(), false, `${selector} is visible`);
    }
    // A tap on the face is just a tap.
    await page.locator('#face').click();
    await page.waitForTimeout(300);
    assert.equal(await page.locator('#settings').isVisible(), false);

    await openSettings(page);
    await assertNoSeriousViolations(page, 'the kiosk settings');
    // The level meter follows the (fake, beeping) microphone while the settings are open.
    await page.locator('#level-value', { hasText: /^-?\d+ dB$/ }).waitFor();
    // The meter and the threshold share one scale, so the threshold can be set against the level.
    const scale = async (selector: string) => [
      await page.locator(selector).getAttribute('min'),
      await page.locator(selector).getAttribute('max'),
    ];
    assert.deepEqual(await scale('#level'), ['-70', '0']);
    assert.deepEqual(await scale('#threshold'), ['-70', '0']);
    await page.getByLabel('Voice threshold').focus();
    for (let step = 0; step < 5; step += 1) await page.keyboard.press('ArrowLeft');
    assert.equal(await page.locator('#threshold-value').textContent(), '-45 dB');
    await page.getByRole('button', { name: 'Close' }).click();
    assert.equal(await page.locator('#settings').isVisible(), false);

    await page.reload();
    await page.locator('body[data-connection="online"][data-microphone="enabled"]').waitFor();
    assert.equal(await page.locator('#threshold').inputValue(), '-45');
    assert.equal(await page.locator('#threshold-value').textContent(), '-45 dB');
  });

  it('opens the operator’s settings from a keyboard (Ctrl+Alt+S) without a tab stop for visitors', async () => {
    // Nothing new for a visitor to land on: Tab goes from the talk button to the visitor's options.
    assert.equal(await page.locator('#face-wrap').getAttribute('tabindex'), null);
    await page.locator('#talk').focus();
    await page.keyboard.press('Control+Alt+KeyS');
    await page.locator('#settings').waitFor({ state: 'visible' });
    // The keyboard is in the dialog: its first control has the focus, and Tab moves on inside it.
    assert.equal(await page.evaluate(`document.activeElement.id`), 'threshold');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(`document.querySelector('#settings').contains(document.activeElement)`),
      true,
    );
    await assertNoSeriousViolations(page, 'the kiosk settings, opened from the keyboard');
    await page.keyboard.press('Escape');
    await page.locator('#settings').waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(`document.activeElement.id`), 'talk');
  });

  it('loaded nothing from outside the service and logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
