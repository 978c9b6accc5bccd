import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { announcements, pageNow, watchAnnouncements, type Announcement } from './live-regions.js';
import {
  holdTalkButton,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  waitForSnapshot,
} from './kiosk-harness.js';

/**
 * What a screen reader is told (docs/kiosk.md, "For screen readers"): one announcement per change, in the
 * right politeness, and nothing announced that did not happen. Read from the page's live regions as they
 * change, in a real Chromium with its fake microphone against the real service on the simulation.
 */

const since = async (page: Page, from: number): Promise<Announcement[]> =>
  (await announcements(page)).filter((entry) => entry.at >= from);

const TOO_SHORT = 'Not sent: that was very short. Hold the button while you speak.';

describe('kiosk: what a screen reader hears', () => {
  const shared = kioskServiceAndBrowser();
  let page: Page;
  let problems: string[];

  before(async () => {
    ({ page, problems } = await openKiosk(shared.browser, shared.service));
    await watchAnnouncements(page);
  });

  /**
   * A 120 ms tap, and what was announced from it until a second later. On a loaded machine the release can
   * reach the page 250 ms or more after the press: the page then sends it, rightly. Such a tap is made
   * again (at most 3 times), so that what is judged is a tap the page itself timed as too short.
   */
  const shortTap = async (): Promise<Announcement[]> => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const sentBefore = (await snapshot(page)).sent.length;
      const from = await pageNow(page);
      await holdTalkButton(page, 120);
      await page.waitForTimeout(1_000);
      if ((await snapshot(page)).sent.length === sentBefore) return since(page, from);
    }
    throw new Error('three 120 ms taps each reached the page as a hold long enough to send');
  };

  it('a 120 ms tap announces nothing as sent, and a second tap is told again', async () => {
    for (const tap of ['first', 'second']) {
      const heard = await shortTap();
      const said = `${tap} tap, announced: ${JSON.stringify(heard)}`;
      assert.deepEqual(
        heard.filter((entry) => /sent/i.test(entry.text)),
        heard.filter((entry) => entry.text === TOO_SHORT),
        said,
      );
      const tooShort = heard.filter((entry) => entry.text === TOO_SHORT);
      assert.equal(tooShort.length, 1, said);
      assert.ok(
        tooShort.every((entry) => entry.region === 'talk-status'),
        said,
      );
    }
    assert.equal(await page.locator('#notice').textContent(), TOO_SHORT);
    await assertNoSeriousViolations(page, 'the kiosk after a tap too short to send');
  });

  it('a release is announced once: "Sent." in one region', async () => {
    const before = (await snapshot(page)).played.length;
    const from = await pageNow(page);
    await holdTalkButton(page, 1_000);
    const answered = await waitForSnapshot(
      page,
      (s) => s.played.length === before + 1 && s.played[before]!.endedAt !== undefined,
      'the answer to play',
    );
    const heard = await since(page, from);
    // Of what is about the press (the answer's words and the visitor's are said by their own regions).
    const aboutPress = heard.filter(
      (entry) => entry.region !== 'speech-said' && entry.region !== 'visitor-words',
    );
    assert.deepEqual(
      aboutPress.map((entry) => [entry.region, entry.text]),
      [
        ['talk-status', 'Listening. Release to send.'],
        ['talk-status', 'Sent.'],
      ],
    );
    // "Sent." at the release, a second or more after the press (a loaded machine only makes it later).
    assert.ok(aboutPress[1]!.at >= from + 1_000 - 50, JSON.stringify(aboutPress));
    // The answer is said once, as its voice starts.
    assert.deepEqual(
      heard.filter((entry) => entry.region === 'speech-said').map((entry) => entry.text),
      [answered.played[before]!.text],
    );
  });

  it('an interruption is said, and a reason for a refused press does not outstay it', async () => {
    await holdTalkButton(page, 3_000);
    await waitForSnapshot(page, (s) => s.audio.busy, 'the answer to play');
    const from = await pageNow(page);
    await holdTalkButton(page, 120);
    await page.locator('#speech-cut:not([hidden])').waitFor();
    const heard = await since(page, from);
    assert.ok(
      heard.some((entry) => entry.region === 'announcer' && entry.text.startsWith('You interrupted me')),
      `announced: ${JSON.stringify(heard)}`,
    );
    await assertNoSeriousViolations(page, 'the kiosk with an interrupted answer');

    await shared.service.setMicrophone(false);
    await page.locator('body[data-microphone="disabled"]').waitFor();
    await holdTalkButton(page, 300);
    assert.equal(
      await page.locator('#talk-status').textContent(),
      'The robot has switched the microphone off.',
    );
    await shared.service.setMicrophone(true);
    await page.locator('body[data-microphone="enabled"]').waitFor();
    assert.equal(await page.locator('#talk-status').textContent(), '');
    const onAgain = await since(page, from);
    assert.ok(onAgain.some((entry) => entry.text === 'The robot has switched the microphone off for now.'));
    assert.ok(onAgain.some((entry) => entry.text === 'The microphone is on again.'));
    assert.deepEqual(problems, []);
  });
});

describe('kiosk: a streamed answer is read part by part', () => {
  const shared = kioskServiceAndBrowser({ chat_interface: 'action' }, { chatParts: 4, partMs: 400 });

  it('each part is announced once, as it starts, not the whole answer again', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await watchAnnouncements(page);
    const from = await pageNow(page);
    await holdTalkButton(page, 3_000);
    const answered = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.endedAt !== undefined).length === 4,
      'the four parts to play',
    );
    const said = (await since(page, from)).filter((entry) => entry.region === 'speech-said');
    assert.deepEqual(
      said.map((entry) => entry.text),
      answered.played.map((p) => p.text),
    );
    await assertNoSeriousViolations(page, 'the kiosk after a streamed answer');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
