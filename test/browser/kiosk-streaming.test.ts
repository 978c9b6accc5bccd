import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousViolations } from './axe.js';
import { audioLog, startOf, waitForLog } from './audio-log.js';
import {
  kioskServiceAndBrowser,
  openKiosk,
  openSettings,
  parseWav,
  snapshot,
  startKioskService,
  waitForSnapshot,
} from './kiosk-harness.js';
import { UtteranceEvent } from '../../src/ros/port/ros-messages.js';
import { readPartHeader, PART_HEADER_BYTES } from '../../src/protocol/ws/index.js';

/**
 * The kiosk sends the visitor's voice while they speak (docs/kiosk.md, "Streamed utterances"), in a real
 * Chromium with its fake microphone against the real service on the simulation. The simulation answers
 * over the Converse action in 4 parts, 400 ms apart, and its recogniser stand-in works on each part as it
 * arrives (0.3 × its duration) and publishes a transcript after each. What reached the robot is read where
 * the bridge publishes it (/utterance/audio, /conversation/heard); what the page sent, from the browser's
 * own view of its socket.
 */

const PARTS = 4;
const ANSWER_PART_MS = 400;

type SentFrame =
  | { readonly at: number; readonly kind: 'text'; readonly json: Record<string, unknown> }
  | { readonly at: number; readonly kind: 'binary'; readonly bytes: Uint8Array };

/** Every frame the page sent on its WebSocket, when (Date.now()), commands parsed. */
const watchSent = (page: Page): SentFrame[] => {
  const frames: SentFrame[] = [];
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      const at = Date.now();
      frames.push(
        typeof payload === 'string'
          ? { at, kind: 'text', json: JSON.parse(payload) as Record<string, unknown> }
          : { at, kind: 'binary', bytes: new Uint8Array(payload) },
      );
    });
  });
  return frames;
};

const commands = (frames: readonly SentFrame[]) =>
  frames.flatMap((frame) => (frame.kind === 'text' ? [frame.json] : []));

/** The part headers of the binary frames sent: each must be a part, with audio behind its header. */
const partHeaders = (frames: readonly SentFrame[]) =>
  frames.flatMap((frame) => {
    if (frame.kind !== 'binary') return [];
    const header = readPartHeader(frame.bytes);
    assert.ok(
      header !== undefined && frame.bytes.byteLength > PART_HEADER_BYTES,
      'a binary frame that is no part',
    );
    return [header];
  });

/** Utterances the page opened so far: the number of its latest turn (it sends no whole frame here). */
const openedTurns = (frames: readonly SentFrame[]): number =>
  commands(frames).filter((json) => json['service'] === 'utterance_start').length;

/** Presses the talk button with the mouse and keeps it down. */
const pressTalk = async (page: Page): Promise<void> => {
  const box = await page.locator('#talk').boundingBox();
  assert.ok(box !== null);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
};

/** The visitor's words as the page showed them, each change with `busy` (still being recognised). */
interface WordsShown {
  readonly at: number;
  readonly text: string;
  readonly busy: string | null;
}
const WATCH_WORDS = `(() => {
  const line = document.getElementById('visitor-words');
  const shown = [];
  window.__wordsShown = shown;
  new MutationObserver(() =>
    shown.push({ at: Date.now(), text: line.textContent.trim(), busy: line.getAttribute('aria-busy') }),
  ).observe(line, { childList: true, characterData: true, subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
})()`;
const wordsShown = (page: Page): Promise<WordsShown[]> => page.evaluate<WordsShown[]>('window.__wordsShown');
const forgetWordsShown = (page: Page): Promise<void> =>
  page.evaluate('void (window.__wordsShown.length = 0)');

describe('kiosk: the visitor’s voice streamed while they speak', () => {
  const shared = kioskServiceAndBrowser(
    { chat_interface: 'action' },
    { chatParts: PARTS, partMs: ANSWER_PART_MS, recognitionRt: 0.3 },
  );
  let page: Page;
  let problems: string[];
  let sent: SentFrame[];

  before(async () => {
    ({ page, problems } = await openKiosk(shared.browser, shared.service, {
      watchingAudio: true,
      beforeLoad: (opened) => {
        sent = watchSent(opened);
      },
    }));
    await page.evaluate(WATCH_WORDS);
  });

  it('streams parts while the button is held, closes the utterance on release, and the answer plays', async () => {
    await pressTalk(page);
    const pressedAt = Date.now();
    await page.locator('body[data-recording="true"]').waitFor();
    await page.waitForTimeout(1_600);
    const releasedAt = Date.now();
    await page.mouse.up();
    const state = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.turn === 1 && p.endedAt !== undefined).length === PARTS,
      'the answer to have played',
    );

    // At the robot: the parts, in order, most of them while the visitor still held the button.
    const events = shared.service.utteranceAudio.map(({ at, message }) => ({ at, ...message }));
    const parts = events.filter((event) => event.event === UtteranceEvent.PART);
    assert.deepEqual(
      parts.map((part) => part.sequence),
      parts.map((_, index) => index),
    );
    const early = parts.filter((part) => part.at < releasedAt);
    // 1.6 s held, opened after 250 ms: about 13 parts of 100 ms before the release.
    assert.ok(early.length >= 8, `${early.length} of ${parts.length} parts before the release`);
    assert.ok(parts[0]!.at - pressedAt < 1_000, `first part ${parts[0]!.at - pressedAt} ms after the press`);
    const last = events.at(-1)!;
    assert.deepEqual([last.event, last.sequence], [UtteranceEvent.END, parts.length]);
    assert.ok(last.at >= releasedAt);
    assert.equal(new Set(events.map((event) => event.utterance_id)).size, 1);

    // From the page: utterance_start, the parts of turn 1 from 0, then utterance_end with their count.
    assert.deepEqual(commands(sent)[0], { service: 'utterance_start' });
    assert.deepEqual(
      partHeaders(sent).map((header) => [header.turn, header.sequence]),
      parts.map((_, index) => [1, index]),
    );
    assert.deepEqual(commands(sent).at(-1), { service: 'utterance_end', turn: 1, parts: parts.length });
    const endAt = sent.findIndex(
      (frame) => frame.kind === 'text' && frame.json['service'] === 'utterance_end',
    );
    assert.equal(endAt, sent.length - 1, 'nothing after utterance_end');

    // The parts are the recording: the fake microphone's beep, as long as the press, whole.
    const pcm = Buffer.concat(parts.map((part) => part.audio));
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
    const seconds = samples.length / 16_000;
    assert.ok(seconds > 1.2 && seconds < 3, `streamed ${seconds} s for a 1.6 s press`);
    assert.ok(
      samples.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0) > 1_000,
      'the beep, not silence',
    );
    const record = state.sent[0]!;
    assert.deepEqual(
      [record.upload, record.turn, record.parts, record.bytes, record.ms],
      ['streamed', 1, parts.length, pcm.byteLength, seconds * 1000],
    );
    // The answer echoes what the robot got: the parts' audio, played whole.
    const played = state.played.filter((p) => p.turn === 1);
    assert.ok(played.every((p) => p.outcome === 'played'));
    const echoed = (await audioLog(page)).sources.reduce((sum, source) => sum + source.duration, 0);
    assert.ok(Math.abs(echoed - seconds) < 0.002, `played ${echoed} s of ${seconds} s`);
    assert.deepEqual(state.turnEnds, [{ turn: 1, outcome: 'answered' }]);
  });

  it('shows the words the robot heard while the visitor speaks, replaced by the final ones', async () => {
    await forgetWordsShown(page);
    await pressTalk(page);
    await page.locator('body[data-recording="true"]').waitFor();
    // The last answer's words went at the press: a new question begins.
    assert.equal((await page.locator('#visitor-words').textContent())?.trim(), '');
    await page.waitForTimeout(1_600);
    const shownWhileHeld = await wordsShown(page);
    const busyWhileHeld = await page.locator('#visitor-words').getAttribute('aria-busy');
    assert.deepEqual(await seriousViolations(page), []);
    await page.mouse.up();
    const turn = openedTurns(sent);
    assert.equal(turn, 2);
    const state = await waitForSnapshot(
      page,
      (s) => s.transcripts.some((t) => t.turn === turn && t.final),
      'the final transcript',
    );
    await page.locator('#visitor-words[aria-busy="false"]').waitFor();

    const transcripts = state.transcripts.filter((t) => t.turn === turn);
    const partials = transcripts.filter((t) => !t.final);
    const final = transcripts.find((t) => t.final)!;
    assert.ok(partials.length >= 3, `${partials.length} partial transcripts`);
    // While held: the partial words, each in place of the last, marked as still changing.
    assert.equal(busyWhileHeld, 'true');
    const heldTexts = shownWhileHeld.map((entry) => entry.text).filter((text) => text !== '');
    assert.ok(new Set(heldTexts).size >= 2, `shown while held: ${JSON.stringify(heldTexts)}`);
    for (const text of heldTexts) {
      assert.ok(
        partials.some((t) => text === `You: ${t.text}`),
        `"${text}" is one partial transcript, not several joined`,
      );
    }
    // Then the final words, no longer busy: a screen reader reads the line once, now.
    assert.equal(
      await page
        .locator('#visitor-words')
        .textContent()
        .then((t) => t?.trim()),
      `You: ${final.text}`,
    );
    const shown = await wordsShown(page);
    assert.deepEqual(shown.at(-1), { at: shown.at(-1)!.at, text: `You: ${final.text}`, busy: 'false' });
    assert.equal(await page.locator('#visitor-words').getAttribute('aria-live'), 'polite');
    assert.deepEqual(await seriousViolations(page), []);
    await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.turn === turn && p.endedAt !== undefined).length === PARTS,
      'the answer to have played',
    );
    // The words stay while the robot answers them.
    assert.equal(
      await page
        .locator('#visitor-words')
        .textContent()
        .then((t) => t?.trim()),
      `You: ${final.text}`,
    );
  });

  it('reports how much of the answer the visitor heard when they talk over it', async () => {
    const sourcesBefore = (await audioLog(page)).sources.length;
    const sentBefore = sent.length;
    await pressTalk(page);
    await page.waitForTimeout(3_000);
    await page.mouse.up();
    const turn = openedTurns(sent);
    // Part 2 of the answer has played for a while: then the visitor presses talk.
    const playing = await waitForLog(
      page,
      (log) =>
        log.sources.length >= sourcesBefore + 2 &&
        log.clock > startOf(log.sources[sourcesBefore + 1]!) + 0.25,
      'part 2 to play for a quarter second',
    );
    const [part1, part2] = playing.sources.slice(sourcesBefore);
    await pressTalk(page);
    const stopped = await waitForLog(
      page,
      (log) => log.sources[sourcesBefore + 1]!.stoppedAt !== null,
      'part 2 to be stopped',
      2_000,
    );
    const stoppedAt = stopped.sources[sourcesBefore + 1]!.stoppedAt!;
    await page.mouse.up();

    const state = await snapshot(page);
    const answer = state.played.filter((p) => p.turn === turn);
    assert.deepEqual(
      answer.map((p) => p.outcome),
      ['played', 'stopped'],
    );
    // The report, sent before the cancel, from what the player played.
    const after = commands(sent.slice(sentBefore));
    const heardAt = after.findIndex((json) => json['service'] === 'heard');
    assert.ok(heardAt >= 0, `sent: ${JSON.stringify(after)}`);
    assert.deepEqual(after[heardAt + 1], { service: 'cancel' });
    const heard = after[heardAt]!;
    const part1Ms = Math.round(part1!.duration * 1000);
    const part2Ms = Math.round(part2!.duration * 1000);
    const part2PlayedMs = (stoppedAt - startOf(part2!)) * 1000;
    assert.equal(heard['turn'], turn);
    assert.equal(heard['messageId'], answer[1]!.messageId);
    assert.equal(heard['partMs'], part2Ms);
    const partPlayedMs = Number(heard['partPlayedMs']);
    assert.ok(
      Math.abs(partPlayedMs - part2PlayedMs) <= 30,
      `reported ${partPlayedMs} ms of part 2, the audio stopped after ${part2PlayedMs} ms`,
    );
    assert.ok(partPlayedMs >= 250 && partPlayedMs < part2Ms);
    assert.equal(heard['playedMs'], part1Ms + Number(heard['partPlayedMs']));
    assert.deepEqual(state.heard.at(-1), {
      turn,
      playedMs: heard['playedMs'],
      messageId: heard['messageId'],
      partPlayedMs: heard['partPlayedMs'],
      partMs: heard['partMs'],
    });

    // The robot was told: the milliseconds, and the text up to there (part 1, then part 2's words in
    // proportion to its audio played).
    const reports = shared.service.sim.heardHistory();
    const report = reports.at(-1);
    assert.ok(report !== undefined, 'no /conversation/heard report');
    assert.equal(report.played_ms, heard['playedMs']);
    const part2Words = answer[1]!.text.split(/\s+/).filter((word) => word !== '');
    const shareWords = Math.round((part2Words.length * Number(heard['partPlayedMs'])) / part2Ms);
    assert.equal(report.heard_text, [answer[0]!.text, ...part2Words.slice(0, shareWords)].join(' '));
    assert.match(report.utterance_id, new RegExp(`-${turn}$`));
  });

  it('streams in hands-free mode from the voice onset, with what came before it, to the silence after', async () => {
    /** One hands-free utterance, checked; says whether its audio starts on the quiet before the voice. */
    const handsFreeUtterance = async (): Promise<{ quietStart: boolean; detail: string }> => {
      await waitForSnapshot(page, (s) => !s.audio.busy, 'the robot to be quiet');
      const eventsBefore = shared.service.utteranceAudio.length;
      const turnsBefore = openedTurns(sent);
      await page.getByLabel('Hands-free').check();
      let silentAt = 0;
      try {
        // The fake microphone beeps twice a second, well over the default -40 dB: an utterance starts, and
        // opens once there is enough voice not to be a cough.
        await page.locator('body[data-recording="true"]').waitFor({ timeout: 5_000 });
        await waitForSnapshot(
          page,
          () =>
            openedTurns(sent) === turnsBefore + 1 && shared.service.utteranceAudio.length - eventsBefore >= 5,
          'parts to reach the robot while the visitor speaks',
        );
        assert.equal((await snapshot(page)).page['recording'], 'true');
        // The visitor falls silent: with the threshold at its top nothing counts as voice any more.
        await openSettings(page);
        await page.locator('#threshold').focus();
        await page.keyboard.press('End');
        silentAt = Date.now();
        await page.getByRole('button', { name: 'Close' }).click();
        await waitForSnapshot(
          page,
          (s) =>
            s.played.filter((p) => p.turn === turnsBefore + 1 && p.endedAt !== undefined).length === PARTS,
          'the hands-free utterance to be answered',
        );
      } finally {
        await page.getByLabel('Hands-free').uncheck();
        await page.locator('body[data-mode="push"]').waitFor();
        await openSettings(page);
        await page.locator('#threshold').fill('-40');
        await page.getByRole('button', { name: 'Close' }).click();
      }
      const turn = turnsBefore + 1;
      const events = shared.service.utteranceAudio
        .slice(eventsBefore)
        .map(({ at, message }) => ({ at, ...message }));
      const parts = events.filter((event) => event.event === UtteranceEvent.PART);
      assert.deepEqual(
        parts.map((part) => part.sequence),
        parts.map((_, index) => index),
      );
      assert.ok(parts.filter((part) => part.at < silentAt).length >= 5);
      const last = events.at(-1)!;
      assert.deepEqual([last.event, last.sequence], [UtteranceEvent.END, parts.length]);
      // The silence ends it: 900 ms after the last voice, which came at most a beep before the silence.
      assert.ok(
        last.at - silentAt >= 400 && last.at - silentAt < 2_000,
        `ended ${last.at - silentAt} ms after the silence`,
      );
      const record = (await snapshot(page)).sent.find((s) => s.turn === turn)!;
      assert.equal(record.upload, 'streamed');
      assert.equal(record.parts, parts.length);
      const pcm = Buffer.concat(parts.map((part) => part.audio));
      assert.equal(record.bytes, pcm.byteLength);
      assert.ok(record.ms > 300 + 120 + 900, `${record.ms} ms streamed`);
      // The pre-roll went up first: the 300 ms before the voice detector tripped, 120 ms into a beep, so
      // the stream opens on the quiet before that beep.
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
      const peak = (from: number, to: number) =>
        samples.subarray(from, to).reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);
      return {
        quietStart: peak(0, 1_600) < peak(0, samples.length) / 4,
        detail: `first 100 ms peak ${peak(0, 1_600)}, utterance peak ${peak(0, samples.length)}`,
      };
    };
    // The pre-roll's level is read from Chromium's fake microphone, whose beeps a loaded machine can
    // deliver late or torn: one more utterance, never more, when the first did not start on quiet. A kiosk
    // that sent no pre-roll fails both.
    const first = await handsFreeUtterance();
    const result = first.quietStart ? first : await handsFreeUtterance();
    assert.ok(result.quietStart, `${first.detail}; then ${result.detail}`);
  });

  it('opens nothing for a tap, so a question the robot is still thinking about is not cancelled', async () => {
    await waitForSnapshot(page, (s) => !s.audio.busy, 'the robot to be quiet');
    const sentBefore = sent.length;
    const turn = openedTurns(sent) + 1;
    await pressTalk(page);
    await page.waitForTimeout(1_000);
    await page.mouse.up();
    // At once, while the robot thinks about it (no answer yet, so a press is no barge-in): a tap.
    await pressTalk(page);
    await page.waitForTimeout(100);
    await page.mouse.up();
    assert.equal((await snapshot(page)).played.filter((p) => p.turn === turn).length, 0, 'answered too soon');
    await page.locator('#notice', { hasText: 'That was very short' }).waitFor();
    const state = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.turn === turn && p.endedAt !== undefined).length === PARTS,
      'the question to be answered',
    );
    assert.deepEqual(state.turnEnds.at(-1), { turn, outcome: 'answered' });
    // The question's utterance went up; the tap sent nothing, no cancel among it.
    assert.deepEqual(
      commands(sent.slice(sentBefore)).map((json) => json['service']),
      ['utterance_start', 'utterance_end'],
    );
  });

  it('sends one WAV frame per utterance with ?upload=whole, as the specification has it', async () => {
    const chatService = await startKioskService();
    try {
      let wholeSent: SentFrame[] = [];
      const whole = await openKiosk(shared.browser, chatService, {
        query: '?upload=whole',
        beforeLoad: (opened) => {
          wholeSent = watchSent(opened);
        },
      });
      try {
        await pressTalk(whole.page);
        await whole.page.waitForTimeout(800);
        await whole.page.mouse.up();
        const state = await waitForSnapshot(whole.page, (s) => s.played.length === 1, 'the echo');
        assert.equal(chatService.chats.length, 1);
        assert.equal(chatService.utteranceAudio.length, 0, 'nothing streamed');
        const wav = parseWav(chatService.chats[0]!);
        assert.deepEqual(
          [state.sent[0]!.upload, state.sent[0]!.parts, state.sent[0]!.bytes],
          ['whole', 1, chatService.chats[0]!.byteLength],
        );
        assert.ok(wav.samples.length > 0.6 * 16_000);
        // One binary frame, the WAV file itself, and no streaming command.
        assert.deepEqual(
          wholeSent.map((frame) => (frame.kind === 'text' ? frame.json : 'binary')),
          ['binary'],
        );
        const frame = wholeSent[0]!;
        assert.ok(frame.kind === 'binary');
        assert.deepEqual(frame.bytes, chatService.chats[0]);
        assert.deepEqual(whole.problems, []);
      } finally {
        await whole.page.close();
      }
    } finally {
      await chatService.stop();
    }
  });

  it('loaded nothing from outside the service and logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
