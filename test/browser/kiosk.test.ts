import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { audioLog, gapsBetween } from './audio-log.js';
import { launchBrowser, type Browser } from './browser.js';
import {
  holdTalkButton,
  openKiosk,
  openSettings,
  parseWav,
  snapshot,
  startKioskService,
  toneWav,
  waitForSnapshot,
  type KioskService,
} from './kiosk-harness.js';
import { FRAGMENT_BYTES } from '../../src/transport/ws/ws-endpoint.js';
import { echoChat } from '../../src/robot/echo-chat.js';

/**
 * The kiosk page in a real headless Chromium against the real service on the simulation (whose /chat
 * echoes the audio it gets, so what the kiosk recorded comes back to be played). The fake media device
 * is Chromium's: a microphone that beeps. This page sends each utterance as one WAV frame
 * (`?upload=whole`, the specification's path); kiosk-streaming.test.ts covers the parts sent while the
 * visitor speaks, which the other kiosk tests use.
 */

describe('kiosk page', () => {
  let browser: Browser;
  let service: KioskService;
  let page: Page;
  let problems: string[];

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    ({ page, problems } = await openKiosk(browser, service, { watchingAudio: true, query: '?upload=whole' }));
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('connects and shows the state the service sent', async () => {
    assert.equal(await page.locator('#connection-status').textContent(), 'Connected');
    assert.equal(await page.locator('#mic-text').textContent(), 'Microphone on');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
    assert.equal(await page.locator('#talk').getAttribute('aria-disabled'), 'false');
    const state = await snapshot(page);
    assert.equal(state.connects, 1);
    assert.equal(state.statesApplied, 1);
  });

  it('sends a held push-to-talk as one 16 kHz mono 16-bit WAV and plays the echo', async () => {
    await holdTalkButton(page, 1_200);
    const state = await waitForSnapshot(
      page,
      (s) => s.played.length === 1 && s.played[0]?.outcome === 'played',
      'the echo to have played',
    );
    assert.equal(service.chats.length, 1);
    const sent = service.chats[0]!;
    const wav = parseWav(sent);
    assert.deepEqual([wav.format, wav.channels, wav.sampleRate, wav.bitsPerSample], [1, 1, 16_000, 16]);
    const seconds = wav.samples.length / 16_000;
    // The upper bound is loose: a loaded CI machine can hold the button a little past 1.2 s.
    assert.ok(seconds > 0.9 && seconds < 2.2, `recorded ${seconds} s for a 1.2 s press`);
    // The fake microphone beeps: the recording must carry it, not silence.
    const peak = wav.samples.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);
    assert.ok(peak > 1_000, `peak ${peak}`);

    assert.deepEqual(
      state.sent.map(({ bytes, ms, turn }) => ({ bytes, ms, turn })),
      [{ bytes: sent.byteLength, ms: seconds * 1000, turn: 1 }],
    );
    const played = state.played[0]!;
    assert.equal(played.text, echoChat({ audio: sent }).text);
    assert.equal(played.audioBytes, sent.byteLength);
    // Played for as long as it lasts: decoded and rendered, not skipped.
    const playedMs = played.endedAt! - played.startedAt;
    // Not cut short; the `ended` event may come late on a loaded machine, so the upper margin is wider.
    assert.ok(
      playedMs > seconds * 1000 - 300 && playedMs < seconds * 1000 + 1_000,
      `played ${playedMs} ms of ${seconds * 1000} ms`,
    );
    assert.equal(await page.locator('#speech-text').textContent(), played.text);
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'happy');
  });

  it('talks while Space is held', async () => {
    await page.locator('body').focus();
    await page.keyboard.down('Space');
    await page.locator('body[data-recording="true"]').waitFor();
    await page.waitForTimeout(600);
    await page.keyboard.up('Space');
    await waitForSnapshot(
      page,
      (s) => s.played.length === 2 && s.played[1]?.outcome === 'played',
      'a second echo',
    );
    assert.equal(service.chats.length, 2);
    assert.ok(parseWav(service.chats[1]!).samples.length > 0.4 * 16_000);
  });

  it('talks while Enter is held on the focused talk button, and tells a screen reader when it listens and sends', async () => {
    const before = (await snapshot(page)).played.length;
    const chatsBefore = service.chats.length;
    await page.locator('#talk').focus();
    await page.keyboard.down('Enter');
    await page.locator('body[data-recording="true"]').waitFor();
    assert.equal(await page.locator('#talk').getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('#talk-status').textContent(), 'Listening. Release to send.');
    assert.equal(await page.locator('#talk-status').getAttribute('aria-live'), 'assertive');
    await page.waitForTimeout(600);
    await page.keyboard.up('Enter');
    await waitForSnapshot(
      page,
      (s) => s.played.length === before + 1 && s.played[before]?.outcome === 'played',
      'the echo of what was said with Enter held',
    );
    assert.equal(service.chats.length, chatsBefore + 1, 'one utterance: Enter did not also click');
    assert.equal(await page.locator('#talk').getAttribute('aria-pressed'), 'false');
    assert.equal(await page.locator('#talk-status').textContent(), 'Sent.');
  });

  it('plays a burst of /play_audio messages in arrival order, one after another', async () => {
    const before = (await snapshot(page)).played.length;
    const sourcesBefore = (await audioLog(page)).sources.length;
    const messages = ['happy', 'sad', 'surprised', 'thinking', 'angry'].map((emotion, index) => ({
      emotion,
      text: `Message ${index + 1} (${emotion})`,
      audio: toneWav(300, 300 + 100 * index),
    }));
    for (const message of messages) await service.playAudio(message);
    const state = await waitForSnapshot(
      page,
      (s) => s.played.length === before + messages.length && s.played.every((p) => p.endedAt !== undefined),
      'the burst to have played',
    );
    const burst = state.played.slice(before);
    assert.deepEqual(
      burst.map((p) => p.text),
      messages.map((m) => m.text),
    );
    for (let index = 1; index < burst.length; index += 1) {
      const previous = burst[index - 1]!;
      const current = burst[index]!;
      assert.ok(current.messageId > previous.messageId);
      assert.ok(current.startedAt >= previous.endedAt!, `message ${index + 1} started before ${index} ended`);
    }
    // What the page asked Web Audio to play, on the audio clock (audio-log.ts): each message's whole 300 ms,
    // never stopped, and each started at or after the end of the one before, so no two played at once.
    // The page's own start and end records above follow that clock by timer ticks, which a loaded machine
    // delays (a start recorded 52 ms late once made a message look 248 ms long), so they give the order only.
    const sources = (await audioLog(page)).sources.slice(sourcesBefore);
    assert.equal(sources.length, messages.length);
    for (const [index, source] of sources.entries()) {
      assert.ok(source.duration > 0.299, `message ${index + 1} lasts ${source.duration} s`);
      assert.equal(source.stoppedAt, null, `message ${index + 1} was stopped`);
    }
    for (const [index, gap] of gapsBetween(sources).entries()) {
      assert.ok(gap > -0.001, `message ${index + 2} started ${-gap} s before message ${index + 1} ended`);
    }
    // Only catches a stuck queue: `ended` can come late on a loaded machine.
    for (const [index, played] of burst.entries()) {
      const ms = played.endedAt! - played.startedAt;
      assert.ok(ms < 1_200, `message ${index + 1} played for ${ms} ms`);
    }
    assert.ok(burst.every((p) => p.outcome === 'played'));
    assert.deepEqual(state.dropped, []);
    assert.equal(await page.locator('#speech-text').textContent(), 'Message 5 (angry)');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'angry');
  });

  it('plays a /play_audio message larger than one WebSocket fragment, joined whole', async () => {
    const before = (await snapshot(page)).played.length;
    const sourcesBefore = (await audioLog(page)).sources.length;
    // 2.5 s of 16 kHz 16-bit mono, 80,044 bytes: the bridge writes its binary frame as two fragments.
    const audio = toneWav(2_500, 523);
    assert.ok(4 + audio.byteLength > FRAGMENT_BYTES, `${audio.byteLength} bytes fit one fragment`);
    await service.playAudio({ emotion: 'happy', text: 'A long message', audio });
    const state = await waitForSnapshot(
      page,
      (s) => s.played.length === before + 1 && s.played.at(-1)?.endedAt !== undefined,
      'the long message to have played',
    );
    const played = state.played.at(-1)!;
    assert.equal(played.text, 'A long message');
    assert.equal(played.outcome, 'played');
    assert.equal(played.audioBytes, audio.byteLength);
    // Decoded whole: Web Audio was given all 2.5 s, not the first fragment's 2 s.
    const [source] = (await audioLog(page)).sources.slice(sourcesBefore);
    assert.ok(source !== undefined && source.duration > 2.499, `played ${source?.duration} s of 2.5 s`);
  });

  it('keeps its playback queue bounded: a burst beyond it drops the oldest waiting messages', async () => {
    const before = await snapshot(page);
    // One plays at once, 8 may wait: of 12 arriving together, the 2nd to 4th are dropped. Each lasts long
    // enough (0.6 s) that all twelve arrive while the first plays, even on a loaded machine.
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        service.playAudio({ emotion: 'happy', text: `Burst ${index}`, audio: toneWav(600) }),
      ),
    );
    const state = await waitForSnapshot(
      page,
      (s) => s.played.length === before.played.length + 9 && s.played.every((p) => p.endedAt !== undefined),
      'nine of twelve to have played',
      20_000,
    );
    const ids = state.played.slice(before.played.length).map((p) => p.messageId);
    const first = ids[0]!;
    assert.deepEqual(state.dropped, [first + 1, first + 2, first + 3]);
    assert.deepEqual(
      ids,
      [0, 4, 5, 6, 7, 8, 9, 10, 11].map((offset) => first + offset),
    );
  });

  it('shows the fallback face for an emotion it does not know', async () => {
    const before = (await snapshot(page)).played.length;
    await service.playAudio({ emotion: 'euphoric', text: 'Unknown mood', audio: toneWav(100) });
    await waitForSnapshot(page, (s) => s.played.length === before + 1, 'the message');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'neutral');
    assert.equal(await page.locator('#face').getAttribute('data-emotion-known'), 'false');
  });

  it('hands-free: the threshold starts and ends utterances, and the kiosk does not listen while it speaks', async () => {
    // Nothing of the earlier tests still playing: while the robot speaks a press is usable (it interrupts).
    await waitForSnapshot(page, (s) => !s.audio.busy, 'the robot to be quiet');
    const before = await snapshot(page);
    const chatsBefore = service.chats.length;
    await page.getByLabel('Hands-free').check();
    await page.locator('body[data-mode="hands-free"]').waitFor();
    assert.equal(await page.locator('#talk').getAttribute('aria-disabled'), 'true');
    // The page says what to do now, and the button looks live, not switched off.
    assert.equal(
      await page.locator('#talk-hint').textContent(),
      'Hands-free is on: just speak. The robot answers when you pause.',
    );
    assert.match((await page.locator('#talk').getAttribute('data-look')) ?? '', /^hands-free/);
    const greyed = await page.evaluate(`(() => {
      const talk = document.querySelector('#talk');
      const look = talk.dataset.look;
      const shown = getComputedStyle(talk).backgroundColor;
      talk.dataset.look = 'waiting';
      const waiting = getComputedStyle(talk).backgroundColor;
      talk.dataset.look = look;
      return shown === waiting;
    })()`);
    assert.equal(greyed, false, 'the button looks like the greyed-out "waiting" one');
    // The fake microphone beeps twice a second, well over the default -40 dB: an utterance starts.
    await page.locator('body[data-recording="true"]').waitFor({ timeout: 5_000 });
    assert.equal(await page.locator('#talk').getAttribute('data-look'), 'hands-free-listening');
    assert.equal(await page.locator('#talk-label').textContent(), 'Listening…');
    // Each beep is voice for ~0.1–0.2 s: a few of them make an utterance long enough to send (300 ms).
    await page.waitForTimeout(1_000);
    // The visitor falls silent: with the threshold at its top (0 dBFS) nothing counts as voice any more.
    await openSettings(page);
    await page.locator('#threshold').focus();
    await page.keyboard.press('End');
    assert.equal(await page.locator('#threshold-value').textContent(), '0 dB');
    const answered = await waitForSnapshot(
      page,
      (s) => s.played.length === before.played.length + 1 && s.played.at(-1)?.endedAt !== undefined,
      'the hands-free utterance to be sent and its echo played',
    );
    assert.equal(answered.sent.length, before.sent.length + 1);
    assert.equal(service.chats.length, chatsBefore + 1);
    const wav = parseWav(service.chats.at(-1)!);
    assert.equal(wav.sampleRate, 16_000);
    assert.ok(wav.samples.length > 0.5 * 16_000, `${wav.samples.length} samples`);

    // While the robot speaks, voice over the threshold does not start an utterance where voice may not
    // interrupt it (the next tests cover the other case).
    await page.getByLabel('Voice can interrupt the robot').uncheck();
    await service.playAudio({ emotion: 'happy', text: 'I am speaking now', audio: toneWav(1_500) });
    await waitForSnapshot(page, (s) => s.played.length === before.played.length + 2, 'the message to start');
    await page.locator('#threshold').focus();
    for (let step = 0; step < 40; step += 1) await page.keyboard.press('ArrowLeft');
    assert.equal(await page.locator('#threshold-value').textContent(), '-40 dB');
    for (let poll = 0; poll < 100; poll += 1) {
      const state = await snapshot(page);
      assert.equal(state.page['recording'], 'false', 'recorded while the robot was speaking');
      if (state.played.at(-1)?.endedAt !== undefined) break;
      await page.waitForTimeout(50);
    }
    // Once it has finished, the beeps start an utterance again; switching hands-free off drops it unsent.
    await page.locator('body[data-recording="true"]').waitFor({ timeout: 5_000 });
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Hands-free').uncheck();
    await page.locator('body[data-recording="false"][data-mode="push"]').waitFor();
    await page.waitForTimeout(300);
    assert.equal(service.chats.length, chatsBefore + 1);
  });

  it('hands-free: while the robot speaks the page says so, and a press interrupts it', async () => {
    // No voice over the threshold meanwhile (set before hands-free starts listening): only the robot speaks.
    await openSettings(page);
    await page.locator('#threshold').focus();
    await page.keyboard.press('End');
    assert.equal(
      await page.getByLabel('Voice can interrupt the robot').isChecked(),
      false,
      'kept from before',
    );
    await page.getByRole('button', { name: 'Close' }).click();
    const chatsBefore = service.chats.length;
    await page.getByLabel('Hands-free').check();
    await page.locator('body[data-mode="hands-free"]').waitFor();
    const before = await snapshot(page);
    await service.playAudio({ emotion: 'happy', text: 'A long story', audio: toneWav(4_000) });
    await waitForSnapshot(page, (s) => s.played.length === before.played.length + 1, 'the message to start');
    await page.locator('#talk[data-look="hands-free-speaking"]').waitFor();
    assert.equal(await page.locator('#talk-label').textContent(), 'Speaking…\npress to interrupt');
    assert.equal(await page.locator('#talk').getAttribute('aria-disabled'), 'false');
    assert.equal(
      await page.locator('#talk-hint').textContent(),
      'The robot is speaking and does not listen meanwhile: press the button to interrupt it.',
    );
    await holdTalkButton(page, 200);
    const stopped = await waitForSnapshot(
      page,
      (s) => s.played.at(-1)?.outcome === 'stopped',
      'the robot to stop speaking at the press',
    );
    assert.equal(stopped.bargeIns.length, before.bargeIns.length + 1);
    assert.equal(
      stopped.page['recording'],
      'false',
      'the press interrupts; it does not start a push utterance',
    );
    assert.equal(service.chats.length, chatsBefore);
    await page.getByLabel('Hands-free').uncheck();
    await page.locator('body[data-mode="push"]').waitFor();
    await openSettings(page);
    await page.locator('#threshold').focus();
    for (let step = 0; step < 40; step += 1) await page.keyboard.press('ArrowLeft');
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('hands-free: voice louder than the robot interrupts it and is recorded, where echo cancellation is on', async () => {
    await openSettings(page);
    await page.getByLabel('Voice can interrupt the robot').check();
    // Chromium applies echo cancellation to its fake microphone, as to a real one.
    assert.equal(await page.locator('#echo-status').textContent(), 'Echo cancellation: on in this browser.');
    // The fake microphone's beeps are the visitor: each peaks near -6 dB and decays, over -54 dB (the
    // threshold plus the 6 dB voice needs over the robot's) for longer than the 120 ms that start an utterance.
    await page.locator('#threshold').fill('-60');
    assert.equal(await page.locator('#threshold-value').textContent(), '-60 dB');
    await page.getByRole('button', { name: 'Close' }).click();
    const chatsBefore = service.chats.length;
    const before = await snapshot(page);
    // The robot starts speaking before hands-free listens: nothing the visitor said earlier counts.
    await service.playAudio({ emotion: 'happy', text: 'A story to talk over', audio: toneWav(6_000) });
    await waitForSnapshot(page, (s) => s.played.length === before.played.length + 1, 'the message to start');
    await page.getByLabel('Hands-free').check();
    await page
      .locator('#talk[data-look="hands-free-speaking"], body[data-recording="true"]')
      .first()
      .waitFor();
    const interrupted = await waitForSnapshot(
      page,
      (s) => s.voiceInterrupts === before.voiceInterrupts + 1 && s.played.at(-1)?.outcome === 'stopped',
      'the voice of the visitor to interrupt the robot',
      5_000,
    );
    const cut = interrupted.played.at(-1)!;
    assert.ok(cut.endedAt! - cut.startedAt < 5_000, `played ${cut.endedAt! - cut.startedAt} ms of 6000`);
    assert.equal(interrupted.bargeIns.length, before.bargeIns.length + 1);
    // What the visitor says over the robot is being recorded (not thrown away with the robot's voice).
    assert.equal(interrupted.page['recording'], 'true');
    assert.equal(await page.locator('#talk').getAttribute('data-look'), 'hands-free-listening');
    // Switching hands-free off drops it unsent.
    await page.getByLabel('Hands-free').uncheck();
    await page.locator('body[data-recording="false"][data-mode="push"]').waitFor();
    assert.equal(service.chats.length, chatsBefore);
    await openSettings(page);
    await page.locator('#threshold').fill('-40');
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('stops capture when the service disables the microphone, and resumes when it enables it', async () => {
    const chatsBefore = service.chats.length;
    await service.setMicrophone(false);
    await page.locator('body[data-microphone="disabled"]').waitFor();
    assert.equal(await page.locator('#mic-text').textContent(), 'Microphone off');
    assert.equal(await page.locator('#talk').getAttribute('aria-disabled'), 'true');
    const refusedBefore = (await snapshot(page)).refused.length;
    await holdTalkButton(page, 500);
    await page.locator('#talk').focus();
    await page.keyboard.down('Space');
    await page.waitForTimeout(300);
    await page.keyboard.up('Space');
    const refused = (await snapshot(page)).refused.slice(refusedBefore);
    assert.deepEqual(refused, [
      'The robot has switched the microphone off.',
      'The robot has switched the microphone off.',
    ]);
    await page.waitForTimeout(300);
    assert.equal(service.chats.length, chatsBefore);

    await service.setMicrophone(true);
    await page.locator('body[data-microphone="enabled"]').waitFor();
    assert.equal(await page.locator('#talk').getAttribute('aria-disabled'), 'false');
    const sentBefore = (await snapshot(page)).sent.length;
    await holdTalkButton(page, 600);
    await waitForSnapshot(page, (s) => s.sent.length === sentBefore + 1, 'another utterance');
    assert.equal(service.chats.length, chatsBefore + 1);
  });

  it('loaded nothing from outside the service and logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
