import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIO_NEEDS_A_GESTURE } from './audio-gesture.js';
import { assertNoSeriousViolations } from './axe.js';
import { type Browser } from './browser.js';
import {
  holdTalkButton,
  type KioskService,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  waitForSnapshot,
} from './kiosk-harness.js';

/**
 * A kiosk whose browser has no autoplay exemption: audio stays off until a gesture, and the page asks for
 * a tap. The visitor's first press on the talk button must count as a press, not only as that tap.
 */
const openLockedKiosk = async (browser: Browser, service: KioskService) => {
  const opened = await openKiosk(browser, service, {
    beforeLoad: (page) => page.addInitScript(AUDIO_NEEDS_A_GESTURE),
  });
  await opened.page.locator('#unlock').waitFor({ state: 'visible' });
  return opened;
};

describe('kiosk: audio that needs a gesture', () => {
  const shared = kioskServiceAndBrowser();

  it('the first press on the talk button starts audio and is a press: what is said is sent', async () => {
    const { page, problems } = await openLockedKiosk(shared.browser, shared.service);
    assert.equal(await page.locator('#unlock').innerText(), 'Tap anywhere to start');
    await assertNoSeriousViolations(page, 'the kiosk, asking for a tap');
    const chatsBefore = shared.service.chats.length;
    // Audio is off: its clock stands still.
    const stopped = (await snapshot(page)).audio.clock;
    await page.waitForTimeout(300);
    assert.equal((await snapshot(page)).audio.clock, stopped);

    await holdTalkButton(page, 600);
    const state = await waitForSnapshot(page, (kiosk) => kiosk.sent.length === 1, 'the first press sent');
    assert.equal(state.sent[0]?.turn, 1);
    await page.locator('#unlock').waitFor({ state: 'hidden' });
    await waitForSnapshot(page, (kiosk) => kiosk.audio.clock > stopped + 0.2, 'the audio clock to move');
    assert.equal(shared.service.chats.length, chatsBefore + 1);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('so is a first touch hold, as on the kiosk tablets', async () => {
    const { page, problems } = await openLockedKiosk(shared.browser, shared.service);
    const box = await page.locator('#talk').boundingBox();
    assert.ok(box !== null);
    const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    // A real touch, as the tablet's screen gives it (the browser context has no touch emulation).
    const touch = await page.context().newCDPSession(page);
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
    await page.waitForTimeout(600);
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await waitForSnapshot(page, (kiosk) => kiosk.sent.length === 1, 'the first touch hold sent');
    await page.locator('#unlock').waitFor({ state: 'hidden' });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('so is a first Space held from the keyboard', async () => {
    const { page, problems } = await openLockedKiosk(shared.browser, shared.service);
    await page.keyboard.down('Space');
    await page.waitForTimeout(600);
    await page.keyboard.up('Space');
    await waitForSnapshot(page, (kiosk) => kiosk.sent.length === 1, 'the first Space held sent');
    await page.locator('#unlock').waitFor({ state: 'hidden' });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a tap elsewhere only starts audio: nothing is sent', async () => {
    const { page, problems } = await openLockedKiosk(shared.browser, shared.service);
    // The top left corner: the overlay, away from every control.
    await page.mouse.click(10, 10);
    await page.locator('#unlock').waitFor({ state: 'hidden' });
    await page.waitForTimeout(500);
    assert.deepEqual((await snapshot(page)).sent, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
