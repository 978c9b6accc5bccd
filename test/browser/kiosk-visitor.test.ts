import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, type Browser } from './browser.js';
import type { Page } from 'playwright-core';
import {
  holdTalkButton,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
} from './kiosk-harness.js';

/** What the visitor reads: the hint, the notice under the button, and the bubble (its idle text or answer). */
const shownTexts = async (page: Page) => ({
  hint: await page.locator('#talk-hint').textContent(),
  notice: await page.locator('#notice').textContent(),
  bubble:
    (await page.locator('#speech-text').textContent()) || (await page.locator('#speech-idle').textContent()),
});

/**
 * What a visitor sees and hears when things go off the happy path: every message on screen agrees with
 * what the robot does and with the others, in a real Chromium against the real service (simulated robot).
 */

describe('kiosk: nothing on screen contradicts the robot', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
  });

  it('stops the robot’s voice when the connection drops, so "offline" is not said over it', async () => {
    const service = await startKioskService();
    let stopped = false;
    try {
      const { page, problems } = await openKiosk(browser, service);
      await service.playAudio({
        emotion: 'happy',
        text: 'Let me tell you the whole story of the rose garden, from the very beginning.',
        audio: toneWav(20_000, 220),
      });
      await waitForSnapshot(page, (s) => s.audio.liveSources > 0, 'the long answer to start');

      const problemsWhileOnline = [...problems];
      await service.stop();
      stopped = true;
      await page.locator('body[data-connection="offline"]').waitFor();
      // Stopped at once, not 20 s later when the answer would have ended.
      const state = await waitForSnapshot(page, (s) => s.audio.liveSources === 0, 'the voice to stop', 2_000);
      assert.equal(state.audio.busy, false);
      assert.equal(state.played.at(-1)?.outcome, 'stopped');
      assert.equal(await page.locator('#face.face--speaking').count(), 0, 'the mouth still moves');
      assert.equal(
        await page.locator('#speech-idle').textContent(),
        'I am offline at the moment, so I cannot hear or answer you. Back soon!',
      );
      await assertNoSeriousViolations(page, 'the kiosk, offline after an answer was cut');
      // Up to the stop: the reconnect attempts after it fail by design.
      assert.deepEqual(problemsWhileOnline, []);
      await page.close();
    } finally {
      if (!stopped) await service.stop();
    }
  });

  it('points at the hint instead of repeating it when a press cannot talk while offline', async () => {
    const service = await startKioskService();
    const { page } = await openKiosk(browser, service);
    await service.stop();
    await page.locator('body[data-connection="offline"]').waitFor();
    await holdTalkButton(page, 300);
    assert.equal((await snapshot(page)).refused.at(-1), 'The robot is offline.');
    const shown = await shownTexts(page);
    assert.equal(shown.hint, 'The robot is offline: it cannot hear or answer until it is back.');
    // Said once, beside the button; no "Not connected … yet" to linger next to "Connected" later.
    assert.equal(shown.notice, '');
    assert.equal(await page.locator('#talk-hint').getAttribute('data-attention'), 'true');
    // A screen reader hears why.
    assert.equal(await page.locator('#talk-status').textContent(), 'The robot is offline.');
    await assertNoSeriousViolations(page, 'the kiosk, offline, after a refused press');
    await page.close();
  });

  it('says once that the robot switched the microphone off, and does not invite the visitor to talk', async () => {
    const service = await startKioskService();
    try {
      const { page, problems } = await openKiosk(browser, service);
      await service.setMicrophone(false);
      await page.locator('body[data-microphone="disabled"]').waitFor();
      await holdTalkButton(page, 300);
      const off = await shownTexts(page);
      assert.equal(off.hint, 'The robot has switched the microphone off for now.');
      assert.equal(off.notice, '');
      assert.equal(off.bubble, 'Hello! My microphone is off for now, so I cannot hear you.');
      assert.equal(
        await page.locator('#talk-status').textContent(),
        'The robot has switched the microphone off.',
      );
      await assertNoSeriousViolations(page, 'the kiosk with its microphone switched off');

      await service.setMicrophone(true);
      await page.locator('body[data-microphone="enabled"]').waitFor();
      const on = await shownTexts(page);
      assert.equal(on.notice, 'The microphone is on again.');
      assert.equal(on.bubble, 'Hello! Hold the big button and ask me something.');
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await service.stop();
    }
  });

  it('with no microphone (a page that is not a secure context), says so once and does not invite the visitor to talk', async () => {
    const service = await startKioskService();
    // The kiosk at a name other than localhost over plain http, as a tablet on the network without TLS: the
    // browser gives such a page no microphone. The name resolves to loopback.
    const insecure = await launchBrowser({ args: ['--host-resolver-rules=MAP kiosk.test 127.0.0.1'] });
    try {
      const page = await insecure.newPage();
      await page.goto(`http://kiosk.test:${service.service.listeningPort}/`);
      await page.locator('body[data-connection="online"][data-microphone="unavailable"]').waitFor();
      await holdTalkButton(page, 300);
      const shown = await shownTexts(page);
      // The visitor is asked to fetch staff; why (not a secure context) is for staff, in the console.
      assert.equal(shown.hint, 'The microphone is not available. Please ask a member of staff.');
      assert.equal(shown.notice, '');
      assert.equal(
        shown.bubble,
        'Hello! I cannot hear you on this screen: it has no working microphone. Please ask a member of staff.',
      );
      assert.equal(await page.locator('#talk-label').textContent(), 'No microphone');
      await assertNoSeriousViolations(page, 'the kiosk without a microphone');
    } finally {
      await insecure.close();
      await service.stop();
    }
  });

  it('on plain http at another name, has its microphone when the browser is told to trust that origin (a trial without TLS, docs/kiosk.md)', async () => {
    const service = await startKioskService();
    const origin = `http://kiosk.test:${service.service.listeningPort}`;
    const trial = await launchBrowser({
      args: [
        '--host-resolver-rules=MAP kiosk.test 127.0.0.1',
        `--unsafely-treat-insecure-origin-as-secure=${origin}`,
      ],
    });
    try {
      const page = await trial.newPage();
      await page.goto(`${origin}/`);
      await page.locator('body[data-connection="online"][data-microphone="enabled"]').waitFor();
      assert.equal(await page.evaluate('isSecureContext'), true);
      assert.equal(await page.locator('#talk-label').textContent(), 'Hold to talk');
    } finally {
      await trial.close();
      await service.stop();
    }
  });
});

describe('kiosk: the robot talks like a robot, and the bubble says what happened to its answer', () => {
  const shared = kioskServiceAndBrowser();

  it('answers in the demo with how long the visitor spoke, not with a byte count', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await holdTalkButton(page, 1_200);
    const state = await waitForSnapshot(page, (s) => s.played.length === 1, 'the echo');
    const said = state.played[0]!.text;
    assert.match(said, /^You spoke for about [12] seconds?\. This is what I heard\.$/);
    assert.equal(await page.locator('#speech-text').textContent(), said);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('says "hold to interrupt" while the robot speaks in hold-to-talk mode, and marks the answer the visitor cut', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    const answer = 'The pond was dug in 1902, when the old gate was moved here from the town square.';
    await shared.service.playAudio({ emotion: 'happy', text: answer, audio: toneWav(6_000, 220) });
    await page.locator('#talk[data-look="speaking"]').waitFor();
    assert.equal(await page.locator('#talk-label').textContent(), 'Speaking…\nhold to interrupt');
    assert.equal(
      await page.locator('#talk-hint').textContent(),
      'The robot is speaking: hold the button to interrupt it and ask something else.',
    );
    assert.equal(await page.locator('#speech-cut').isVisible(), false);
    await assertNoSeriousViolations(page, 'the kiosk while the robot speaks, hold-to-talk mode');

    const box = await page.locator('#talk').boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    try {
      await waitForSnapshot(page, (s) => s.played.at(-1)?.outcome === 'stopped', 'the answer to stop');
      // The cut answer stays, with a line that says the visitor interrupted it, and what was not said greyed.
      assert.equal(await page.locator('#speech-text').textContent(), answer);
      assert.equal(await page.locator('#speech-cut').isVisible(), true);
      assert.equal(
        await page.locator('#speech-cut').textContent(),
        'You interrupted me: I did not say the part in grey.',
      );
      const unsaid = await page.evaluate<string>(
        `[...CSS.highlights.get('unsaid')].map((range) => range.toString()).join('')`,
      );
      assert.ok(unsaid.length > 0 && answer.endsWith(unsaid), `greyed: ${JSON.stringify(unsaid)}`);
      assert.ok(unsaid.length < answer.length, 'the whole answer was greyed, as if none of it was said');
      await assertNoSeriousViolations(page, 'the kiosk with an interrupted answer');
      await page.waitForTimeout(400);
    } finally {
      await page.mouse.up();
    }
    // The next answer replaces it, unmarked.
    await waitForSnapshot(page, (s) => s.played.length === 2, 'the echo of the question');
    assert.equal(await page.locator('#speech-cut').isVisible(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('clears the old answer from the bubble when a new conversation starts', async () => {
    const { page, problems } = await openKiosk(shared.browser, shared.service);
    await shared.service.playAudio({
      emotion: 'sad',
      text: 'The old gate fell in the storm.',
      audio: toneWav(200),
    });
    await waitForSnapshot(page, (s) => s.played.at(-1)?.endedAt !== undefined, 'the answer to end');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.locator('#notice', { hasText: 'New conversation' }).waitFor();
    const shown = await shownTexts(page);
    assert.equal(await page.locator('#speech-text').textContent(), '');
    assert.equal(shown.bubble, 'Hello! Hold the big button and ask me something.');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
    await assertNoSeriousViolations(page, 'the kiosk after New conversation');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
