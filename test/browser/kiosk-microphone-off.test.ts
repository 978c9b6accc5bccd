import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertNoSeriousViolations } from './axe.js';
import { kioskServiceAndBrowser, openKiosk, pressTalkButton, snapshot } from './kiosk-harness.js';
import { announcements, pageNow, watchAnnouncements } from './live-regions.js';
import { commandsSent, watchSentFrames, type SentFrame } from './socket-log.js';

/**
 * The robot switches the microphone off while a visitor holds the button with a streamed utterance open
 * (docs/kiosk.md): the service abandons it (`error microphone_disabled`, `turn_end abandoned`) and says
 * the microphone is off; the kiosk stops recording at once, says so, and no answer comes. In Chromium with
 * its fake microphone against the real service on the simulation, answering through the Converse action.
 */

const binaryFrames = (sent: readonly SentFrame[]): number =>
  sent.filter((frame) => frame.kind === 'binary').length;

describe('kiosk: the microphone switched off while the visitor speaks', () => {
  const shared = kioskServiceAndBrowser({ chat_interface: 'action' });

  it('stops recording at once, says the microphone was switched off, and plays no answer', async () => {
    let sent: SentFrame[] = [];
    /** The parts the page had sent when its socket received the microphone switched off. */
    let partsAtMute: number | undefined;
    const { page, problems } = await openKiosk(shared.browser, shared.service, {
      beforeLoad: (opened) => {
        sent = watchSentFrames(opened);
        // Registered after watchSentFrames: the browser reports a socket's frames in the order they went.
        opened.on('websocket', (socket) => {
          socket.on('framereceived', ({ payload }) => {
            if (typeof payload === 'string' && /"type":"microphone","enabled":false/.test(payload)) {
              partsAtMute ??= binaryFrames(sent);
            }
          });
        });
      },
    });
    await watchAnnouncements(page);
    await pressTalkButton(page);
    try {
      await page.locator('body[data-recording="true"]').waitFor();
      // The utterance is open and its parts flow (100 ms each).
      await page.waitForTimeout(800);
      assert.deepEqual(commandsSent(sent), ['utterance_start']);
      const from = await pageNow(page);
      const muted = Date.now();
      await shared.service.setMicrophone(false);
      await page
        .locator('body[data-recording="false"][data-microphone="disabled"]')
        .waitFor({ timeout: 2_000 });
      console.log(
        `# recording stopped ${Date.now() - muted} ms after the POST (the POST and polling included)`,
      );
      // Still held: nothing more goes up, and nothing of an answer comes.
      await page.waitForTimeout(2_000);
      assert.ok(partsAtMute !== undefined, 'the page never received the microphone switched off');
      // At once: at most the one part already on its way from the capture worklet when the frame came.
      const after = binaryFrames(sent) - partsAtMute;
      console.log(`# parts sent after the microphone frame: ${after}`);
      assert.ok(after <= 1, `${after} parts sent after the microphone was switched off`);
      const state = await snapshot(page);
      assert.deepEqual(state.played, []);
      assert.ok(state.errors.includes('microphone_disabled'), JSON.stringify(state.errors));
      assert.deepEqual(state.turnEnds, [{ turn: 1, outcome: 'abandoned' }]);
      assert.equal(await page.locator('#talk-label').textContent(), 'Microphone off');
      assert.equal(
        await page.locator('#talk-hint').textContent(),
        'The robot has switched the microphone off for now.',
      );
      // The button, the hint and the bubble say the microphone is off; the notice what became of the question.
      assert.equal(await page.locator('#notice').textContent(), 'What you were saying was not sent.');
      assert.equal(await page.locator('#speech-text').textContent(), '');
      assert.equal(
        await page.locator('#speech-idle').textContent(),
        'Hello! My microphone is off for now, so I cannot hear you.',
      );
      const said = (await announcements(page)).filter((entry) => entry.at >= from);
      // A screen reader hears both: at once what became of the press, then why.
      assert.deepEqual(
        said.map((entry) => [entry.region, entry.text]),
        [
          ['talk-status', 'What you were saying was not sent.'],
          ['announcer', 'The robot has switched the microphone off for now.'],
        ],
      );
      await assertNoSeriousViolations(page, 'the kiosk after the microphone was switched off mid-question');
    } finally {
      await page.mouse.up();
    }
    await page.waitForTimeout(300);
    assert.deepEqual((await snapshot(page)).sent, []);
    assert.deepEqual(problems, []);
    await shared.service.setMicrophone(true);
    await page.close();
  });
});
