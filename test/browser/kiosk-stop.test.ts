import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { audioLog, waitForLog } from './audio-log.js';
import {
  holdTalkButton,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';
import type { Browser } from './browser.js';
import { commandsSent, watchSentFrames, type SentFrame } from './socket-log.js';

/**
 * The visitor is in charge of the conversation (docs/kiosk.md): New conversation stops the robot's voice
 * at once and cancels what it does, a new question replaces one the robot still thinks about, and the
 * robot does not talk over a visitor who is recording. In a real Chromium with its fake microphone against
 * the real service on the simulation; what the page played is read from the Web Audio API itself
 * (audio-log.ts), what it sent from the browser's own view of its socket.
 */

const open = async (
  browser: Browser,
  service: KioskService,
): Promise<{ page: Page; problems: string[]; sent: SentFrame[] }> => {
  let sent: SentFrame[] = [];
  const { page, problems } = await openKiosk(browser, service, {
    watchingAudio: true,
    beforeLoad: (opened) => {
      sent = watchSentFrames(opened);
    },
  });
  return { page, problems, sent };
};

/** Presses the talk button with the mouse and keeps it down. */
const pressTalk = async (page: Page): Promise<void> => {
  const box = await page.locator('#talk').boundingBox();
  assert.ok(box !== null);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
};

/**
 * Clicks New conversation while the robot speaks, and checks stop means stop: the voice is stopped within
 * 300 ms of the click reaching the page, `cancel` goes before `clear_history`, and afterwards (`settleMs`,
 * time for the rest of the old answer to have come) nothing of it starts or shows. Timed from the click as
 * the page received it, so the browser automation's own latency in delivering it is not counted.
 */
const newConversationStops = async (page: Page, sent: readonly SentFrame[], settleMs: number) => {
  const clicksBefore = (await audioLog(page)).clicks.length;
  await page.locator('#new-conversation').click();
  const click = (await audioLog(page)).clicks
    .slice(clicksBefore)
    .find((c) => c.target === 'new-conversation');
  assert.ok(click !== undefined, 'the page received the click on New conversation');
  const stopped = await waitForLog(
    page,
    (log) => log.sources.every((source) => source.ended),
    'every source to have ended after New conversation',
    3_000,
  );
  const cut = stopped.sources.filter((source) => source.stoppedAt !== null);
  assert.ok(cut.length >= 1, `nothing was stopped: ${JSON.stringify(stopped.sources)}`);
  for (const source of cut) {
    assert.ok(source.stoppedAt! - click.clock < 0.3, `stopped ${source.stoppedAt! - click.clock} s after`);
  }
  const commands = commandsSent(sent);
  const cancel = commands.lastIndexOf('cancel');
  assert.ok(cancel >= 0, `no cancel: ${commands.join(' ')}`);
  assert.ok(
    commands.indexOf('clear_history', cancel) > cancel,
    `cancel, then clear_history: ${commands.join(' ')}`,
  );
  await waitForSnapshot(page, (s) => s.acks.includes('clear_history'), 'the new conversation confirmed');
  await page.waitForTimeout(settleMs);
  const after = await audioLog(page);
  assert.equal(after.sources.length, click.sources, 'a source started after New conversation');
  assert.equal(await page.locator('#speech-text').textContent(), '');
  assert.equal(await page.locator('#talk-label').textContent(), 'Hold to talk');
  assert.equal(await page.locator('body').getAttribute('data-thinking'), 'false');
  const state = await snapshot(page);
  assert.equal(state.audio.liveSources, 0);
  assert.equal(state.audio.busy, false);
  await assertNoSeriousViolations(page, 'the kiosk after New conversation stopped the robot');
};

describe('kiosk: New conversation while the robot speaks stops it (whole answers)', () => {
  const shared = kioskServiceAndBrowser();

  it('silences the voice, cancels, and shows nothing of the old answer after', async () => {
    const { page, problems, sent } = await open(shared.browser, shared.service);
    await holdTalkButton(page, 3_000);
    // The echo of 3 s plays: New conversation 1 s into it.
    await waitForSnapshot(page, (s) => s.played.length === 1 && s.audio.busy, 'the answer to play');
    await page.waitForTimeout(1_000);
    await newConversationStops(page, sent, 2_500);
    assert.deepEqual(
      (await snapshot(page)).played.map((p) => p.outcome),
      ['stopped'],
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('kiosk: New conversation while the robot speaks stops it (streamed answers)', () => {
  const shared = kioskServiceAndBrowser({ chat_interface: 'action' }, { chatParts: 4, partMs: 400 });

  it('silences part 1 and no later part plays or shows', async () => {
    const { page, problems, sent } = await open(shared.browser, shared.service);
    await holdTalkButton(page, 4_000);
    await waitForSnapshot(page, (s) => s.played.length === 1 && s.audio.busy, 'part 1 to play');
    // Parts 2 to 4 come 400 ms apart after part 1: 2 s is time for all of them to have come.
    await newConversationStops(page, sent, 2_000);
    const state = await snapshot(page);
    assert.deepEqual(
      state.played.map((p) => [p.turn, p.outcome]),
      [[1, 'stopped']],
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});

/**
 * A second question while the robot still thinks about the first: the first is cancelled before the
 * second opens, and its answer never plays. `pressAfterMs` after the first release the visitor presses
 * again and holds for `holdMs`.
 */
const secondQuestionReplacesFirst = async (
  browser: Browser,
  service: KioskService,
  holdMs: number,
): Promise<void> => {
  const { page, problems, sent } = await open(browser, service);
  await holdTalkButton(page, 1_000);
  await page.locator('body[data-thinking="true"]').waitFor({ timeout: 3_000 });
  await pressTalk(page);
  await page.waitForTimeout(holdMs);
  // While the visitor holds the button, nothing of the first answer plays.
  assert.equal((await audioLog(page)).sources.length, 0, 'the robot spoke while the visitor held the button');
  await assertNoSeriousViolations(page, 'the kiosk recording a second question');
  await page.mouse.up();
  const answered = await waitForSnapshot(
    page,
    (s) => s.played.some((p) => p.turn === 2 && p.endedAt !== undefined) && !s.audio.busy,
    'the second question to be answered',
    20_000,
  );
  const commands = commandsSent(sent);
  const opens = commands.flatMap((command, index) => (command === 'utterance_start' ? [index] : []));
  assert.equal(opens.length, 2, commands.join(' '));
  const cancel = commands.indexOf('cancel');
  assert.ok(
    cancel > opens[0]! && cancel < opens[1]!,
    `cancel before the second question: ${commands.join(' ')}`,
  );
  assert.deepEqual(
    answered.played.filter((p) => p.turn === 1),
    [],
    'the first answer played',
  );
  assert.ok(answered.turnEnds.some((end) => end.turn === 1 && end.outcome === 'cancelled'));
  assert.deepEqual(problems, []);
  await page.close();
};

describe('kiosk: a new question while the robot thinks replaces the old one (slow robot)', () => {
  const shared = kioskServiceAndBrowser({}, { latencyMs: 4_000 });

  it('sends cancel before the new question opens; the old answer never plays', async () => {
    // The first answer would come 4 s after the first release: the second press is held past that.
    await secondQuestionReplacesFirst(shared.browser, shared.service, 4_500);
  });
});

describe('kiosk: a new question while the robot thinks replaces the old one (streamed answers)', () => {
  const shared = kioskServiceAndBrowser({ chat_interface: 'action' }, { chatParts: 2, partMs: 3_000 });

  it('sends cancel before the new question opens; the old answer never plays, not even while held', async () => {
    // The first part of the first answer would come 3 s after the first release, during this hold.
    await secondQuestionReplacesFirst(shared.browser, shared.service, 3_500);
  });
});

describe('kiosk: the robot waits while the visitor records', () => {
  const shared = kioskServiceAndBrowser();

  it('plays /play_audio that came during a recording only after it was sent', async () => {
    const { page, problems } = await open(shared.browser, shared.service);
    await pressTalk(page);
    await page.locator('body[data-recording="true"]').waitFor();
    await shared.service.playAudio({ emotion: 'happy', text: 'Welcome to the museum', audio: toneWav(800) });
    // The pair reaches the page within milliseconds on loopback: 1.5 s is long enough for it to have played.
    await page.waitForTimeout(1_500);
    assert.equal((await audioLog(page)).sources.length, 0, 'the robot spoke over the visitor');
    assert.equal(await page.locator('#speech-text').textContent(), '');
    await page.mouse.up();
    const released = (await snapshot(page)).sent[0]!.releasedClock;
    const played = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.endedAt !== undefined).length === 2,
      'the announcement, then the answer, to have played',
    );
    assert.deepEqual(
      played.played.map((p) => [p.text.startsWith('Welcome') ? 'play_audio' : 'answer', p.outcome]),
      [
        ['play_audio', 'played'],
        ['answer', 'played'],
      ],
    );
    assert.ok(played.played[0]!.clockStart >= released);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
