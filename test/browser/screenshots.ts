/**
 * `npm run screenshots`: the pictures in docs/img, taken from the real pages in headless Chromium against
 * the service on the simulation: the kiosk at a landscape kiosk (1280×800), on a phone (390×844, touch)
 * speaking and following a long answer, following a long answer at 1280×800, with an answer the visitor
 * interrupted, with what the robot heard the visitor say, counting down to the recording limit, and offline,
 * and the operator page (1280×800): a tour open, and a save refused because another operator saved first.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { sendJson } from '../support/http.js';
import { launchBrowser, PHONE, VIEWPORT } from './browser.js';
import {
  holdTalkButton,
  openKiosk,
  openSettings,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
} from './kiosk-harness.js';

const directory = fileURLToPath(new URL('../../docs/img/', import.meta.url));
mkdirSync(directory, { recursive: true });

const ANSWER =
  'Welcome to the museum! Today we will see the rose garden, planted in 1898, the pond with its old ' +
  'carp, and the gate built in 1750. The walk takes about forty minutes, with benches on the way. ' +
  'Hold the blue button to ask me anything, at any time.';

/** About 3,000 characters: longer than the bubble, as a language model answers a broad question. */
const LONG_ANSWER = Array.from({ length: 12 }, () => ANSWER).join(' ');

const service = await startKioskService();
const browser = await launchBrowser();
const written: string[] = [];
/** Saves what `page` shows as docs/img/`name`, noting its size for the summary line. */
const shoot = async (page: Page, name: string): Promise<void> => {
  const size = page.viewportSize() ?? VIEWPORT;
  await page.screenshot({ path: `${directory}${name}` });
  written.push(`${name} (${size.width}×${size.height})`);
};
/** Holds the talk button down while `during` runs, then lets go and waits for the answer to end. */
const talkOver = async (page: Page, during: () => Promise<void>): Promise<void> => {
  const before = (await snapshot(page)).played.length;
  const box = await page.locator('#talk').boundingBox();
  if (box === null) throw new Error('the talk button is not visible');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  try {
    await during();
  } finally {
    await page.mouse.up();
  }
  await waitForSnapshot(
    page,
    (state) => state.played.length === before + 1 && state.played.at(-1)?.endedAt !== undefined,
    'the answer to end',
  );
};
/** The welcome message, pictured mid-sentence as `name`; returns once it has played. */
const welcome = async (page: Page, name: string): Promise<void> => {
  const before = (await snapshot(page)).played.length;
  await service.playAudio({ emotion: 'happy', text: ANSWER, audio: toneWav(3_000, 220) });
  await waitForSnapshot(page, (state) => state.played.length === before + 1, 'the welcome message to start');
  // Past the mouth animation's first swing, so the face is mid-sentence.
  await page.waitForTimeout(400);
  await shoot(page, name);
  await waitForSnapshot(page, (state) => state.played.at(-1)?.endedAt !== undefined, 'the message to end');
};
/** A long answer, pictured as `name` two fifths of the way through: the bubble has followed the voice down. */
const longAnswer = async (page: Page, name: string): Promise<void> => {
  const before = (await snapshot(page)).played.length;
  await service.playAudio({ emotion: 'happy', text: LONG_ANSWER, audio: toneWav(20_000, 220) });
  const started = await waitForSnapshot(
    page,
    (state) => state.played.length === before + 1,
    'the long answer to start',
  );
  const answer = started.played.at(-1)!;
  await waitForSnapshot(
    page,
    (state) => state.audio.clock >= answer.clockStart + 0.4 * (answer.clockEnd - answer.clockStart),
    'two fifths of the long answer',
    20_000,
  );
  await page.waitForTimeout(600);
  await shoot(page, name);
};
let stopped = false;
try {
  // A phone: a touch screen, as a visitor's own phone gives it.
  const phone = await launchBrowser({ device: PHONE });
  try {
    const { page: held } = await openKiosk(phone, service);
    await welcome(held, 'kiosk-phone.png');
    await longAnswer(held, 'kiosk-phone-long-answer.png');
  } finally {
    await phone.close();
  }

  const { page: kiosk } = await openKiosk(browser, service);
  await welcome(kiosk, 'kiosk.png');
  await longAnswer(kiosk, 'kiosk-long-answer.png');
  const longBefore = (await snapshot(kiosk)).played.length - 1;
  // The visitor holds the button over it: the answer stops and says it was interrupted.
  const talk = await kiosk.locator('#talk').boundingBox();
  if (talk === null) throw new Error('the talk button is not visible');
  await kiosk.mouse.move(talk.x + talk.width / 2, talk.y + talk.height / 2);
  await kiosk.mouse.down();
  await kiosk.locator('#speech-cut').waitFor();
  await kiosk.waitForTimeout(400);
  await shoot(kiosk, 'kiosk-interrupted.png');
  await kiosk.mouse.up();
  await waitForSnapshot(
    kiosk,
    (state) => state.played.length === longBefore + 2 && state.played.at(-1)?.endedAt !== undefined,
    'the echo of the interruption to end',
  );

  // A visitor has spoken: what the robot heard shows above its face, beside its answer.
  await talkOver(kiosk, async () => {
    await kiosk.locator('#visitor-words[aria-busy="true"]').waitFor();
    await kiosk.waitForTimeout(1_600);
  });
  await kiosk.locator('#visitor-words[aria-busy="false"][data-shown="true"]').waitFor();
  await shoot(kiosk, 'kiosk-visitor-words.png');

  // A visitor near the one-minute limit: the button counts down.
  const { page: holding } = await openKiosk(browser, service);
  const holdAt = await holding.locator('#talk').boundingBox();
  if (holdAt === null) throw new Error('the talk button is not visible');
  await holding.mouse.move(holdAt.x + holdAt.width / 2, holdAt.y + holdAt.height / 2);
  await holding.mouse.down();
  await holding.locator('#talk-label', { hasText: '7 s left' }).waitFor({ timeout: 60_000 });
  await shoot(holding, 'kiosk-time-left.png');
  await holding.mouse.up();
  await holding.close();

  await sendJson(service.baseUrl, 'POST', '/tour', {
    tour_name: 'garden',
    map_name: 'park',
    steps: [
      {
        description: 'Rose garden',
        destination: 'rose_bed',
        dialogue: 'These roses are a hundred years old.',
      },
      { description: 'Pond', destination: 'pond', dialogue: null },
      { description: 'Old gate', destination: 'gate', dialogue: 'Built in 1750, moved here in 1902.' },
    ],
  });
  const admin = await browser.newPage();
  await admin.goto(`${service.baseUrl}/admin`);
  await admin.getByRole('button', { name: 'garden', exact: true }).click();
  await admin.locator('#editor-heading', { hasText: 'Edit tour' }).waitFor();
  await shoot(admin, 'admin.png');

  // Two operators on one tour: another tab saves first, so this one's save is refused and says why.
  const other = await browser.newPage();
  await other.goto(`${service.baseUrl}/admin`);
  await other.getByRole('button', { name: 'garden', exact: true }).click();
  await other.locator('#editor-heading', { hasText: 'Edit tour' }).waitFor();
  await other.locator('#steps > li').first().getByLabel('Dialogue').fill('These roses were planted in 1898.');
  await other.getByRole('button', { name: 'Save', exact: true }).click();
  await other.locator('#editor-status', { hasText: 'Saved' }).waitFor();
  await other.close();
  await admin.locator('#steps > li').nth(1).getByLabel('Description').fill('Pond with the old carp');
  await admin.getByRole('button', { name: 'Save', exact: true }).click();
  await admin.locator('#problem h3', { hasText: 'changed by someone else' }).waitFor();
  await admin.evaluate('window.scrollTo(0, 0)');
  await shoot(admin, 'admin-conflict.png');

  // Hands-free while the robot speaks: voice or a press would interrupt it (the threshold at 0 dB keeps the
  // fake microphone's beeps from doing so before the picture is taken). A new conversation first, so the
  // words the visitor said last are not left above the face.
  await kiosk.getByRole('button', { name: 'New conversation' }).click();
  await kiosk.locator('#visitor-words[data-shown="false"]').waitFor({ state: 'attached' });
  await openSettings(kiosk);
  await kiosk.locator('#threshold').focus();
  await kiosk.keyboard.press('End');
  await kiosk.getByRole('button', { name: 'Close' }).click();
  await kiosk.getByLabel('Hands-free').check();
  await service.playAudio({ emotion: 'happy', text: ANSWER, audio: toneWav(4_000, 220) });
  await kiosk.locator('#talk[data-look="hands-free-speaking"]').waitFor();
  await kiosk.waitForTimeout(400);
  await shoot(kiosk, 'kiosk-hands-free-speaking.png');
  await waitForSnapshot(kiosk, (state) => state.played.at(-1)?.endedAt !== undefined, 'the message to end');
  await kiosk.getByLabel('Hands-free').uncheck();

  // A question the robot took too long to answer: the apology in the bubble.
  const slow = await startKioskService(0, { chat_timeout_ms: '300' }, { latencyMs: 3_000 });
  try {
    const { page: waiting } = await openKiosk(browser, slow);
    await holdTalkButton(waiting, 800);
    await waiting.locator('#speech-text', { hasText: 'Sorry' }).waitFor({ timeout: 10_000 });
    await waiting.waitForTimeout(400);
    await shoot(waiting, 'kiosk-failure.png');
    await waiting.close();
  } finally {
    await slow.stop();
  }

  // A kiosk whose token the service refuses.
  const guarded = await startKioskService(0, { auth_token: 'screenshot-token-0123456789' });
  try {
    const refused = await browser.newPage();
    await refused.goto(`${guarded.baseUrl}/?token=not-this-kiosks-token`);
    await refused.locator('body[data-connection="refused"]').waitFor({ timeout: 10_000 });
    await refused.waitForTimeout(600);
    await shoot(refused, 'kiosk-refused.png');
    await refused.close();
  } finally {
    await guarded.stop();
  }

  // Last: the service goes away under the kiosk.
  stopped = true;
  await service.stop();
  await kiosk.locator('body[data-connection="offline"]').waitFor();
  // A countdown of a few seconds, and the face's fade to grey finished.
  await kiosk
    .locator('#connection-retry', { hasText: /trying again in [3-9] s/ })
    .waitFor({ timeout: 20_000 });
  await kiosk.waitForTimeout(600);
  await shoot(kiosk, 'kiosk-offline.png');
  console.log(`wrote ${written.join(', ')} in ${directory}`);
} finally {
  await browser.close();
  if (!stopped) await service.stop();
}
