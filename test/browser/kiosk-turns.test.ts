import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousViolations } from './axe.js';
import { audioLog, gapsBetween, startOf, waitForLog } from './audio-log.js';
import {
  holdTalkButton,
  kioskServiceAndBrowser,
  openKiosk,
  snapshot,
  startKioskService,
  waitForSnapshot,
} from './kiosk-harness.js';

/**
 * Streamed turns in the kiosk, in a real Chromium against the real service whose simulation answers over
 * the Converse action in 4 parts, 400 ms apart: the echo of what the kiosk recorded, its bytes cut in
 * four. An utterance of about 3 s gives parts of about 0.75 s, so each part arrives while the one before
 * still plays: they must join without a gap. Barge-in talks over a 6 s utterance (parts of 1.5 s): the
 * press comes after part 2 arrived (800 ms) and must reach the bridge before part 4 ends the turn
 * (1,600 ms); with 3 parts 150 ms apart that window was 150 ms, which a loaded CI machine missed. What
 * the page scheduled is read from the Web Audio API itself (audio-log.ts), what went over the socket from
 * the browser's own view of it.
 */

const PARTS = 4;
const PART_MS = 400;

/** Every text frame the page sent and received on its WebSocket, in order. */
const watchSocket = (page: Page): { sent: string[]; received: string[] } => {
  const frames = { sent: [] as string[], received: [] as string[] };
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => {
      if (typeof frame.payload === 'string') frames.sent.push(frame.payload);
    });
    socket.on('framereceived', (frame) => {
      if (typeof frame.payload === 'string') frames.received.push(frame.payload);
    });
  });
  return frames;
};

const parsed = (frames: readonly string[]): Record<string, unknown>[] =>
  frames.map((frame) => JSON.parse(frame) as Record<string, unknown>);

describe('kiosk: streamed turns', () => {
  const shared = kioskServiceAndBrowser({ chat_interface: 'action' }, { chatParts: PARTS, partMs: PART_MS });
  let page: Page;
  let problems: string[];
  let socket: { sent: string[]; received: string[] };

  before(async () => {
    ({ page, problems } = await openKiosk(shared.browser, shared.service, {
      watchingAudio: true,
      beforeLoad: (opened) => {
        socket = watchSocket(opened);
      },
    }));
  });

  it('thinks until the first part, then plays the parts back to back, each shown as it starts', async () => {
    await holdTalkButton(page, 3_000);
    const state = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.turn === 1 && p.endedAt !== undefined).length === PARTS,
      'the three parts to have played',
    );
    const log = await audioLog(page);
    const released = state.sent[0]!.releasedClock;
    const parts = state.played.filter((p) => p.turn === 1);
    const answers = parsed(socket.received).filter((f) => f['type'] === 'audio' && f['turn'] === 1);
    assert.deepEqual(
      parts.map((p) => [p.messageId, p.text]),
      answers.map((f) => [f['messageId'], f['text']]),
    );
    assert.equal(parts.length, PARTS);
    assert.deepEqual(
      parsed(socket.received).filter((f) => f['type'] === 'turn_end'),
      [{ type: 'turn_end', turn: 1, outcome: 'answered' }],
    );

    // Scheduled on the audio clock back to back: no silence between parts (a timer-started part would
    // come some ms late; one started when the previous `ended` fired, tens of ms).
    assert.equal(log.sources.length, PARTS);
    for (const gap of gapsBetween(log.sources)) assert.ok(Math.abs(gap) < 0.003, `gap of ${gap * 1000} ms`);
    // Together they are the whole utterance: nothing dropped, nothing doubled.
    const seconds = state.sent[0]!.ms / 1000;
    const total = log.sources.reduce((sum, source) => sum + source.duration, 0);
    assert.ok(Math.abs(total - seconds) < 0.002, `played ${total} s of ${seconds} s`);
    // Parts 2 and 3 were scheduled before part 1 ended: they arrived ahead of playback.
    const firstEnd = startOf(log.sources[0]!) + log.sources[0]!.duration;
    assert.ok(log.sources[1]!.calledAt < firstEnd, 'part 2 was not scheduled ahead');
    assert.ok(log.sources.every((source) => source.ended && source.stoppedAt === null));

    // Thinking from the release until the first part, then the answer's face.
    const shown = log.shown.filter((entry) => entry.clock >= released);
    const thinking = shown.find((entry) => entry.thinking === 'true');
    assert.ok(thinking !== undefined, `never thinking: ${JSON.stringify(shown)}`);
    assert.equal(thinking.status, 'Thinking…');
    assert.equal(thinking.emotion, 'thinking');
    assert.ok(thinking.clock < startOf(log.sources[0]!));
    const stopped = shown.find((entry) => entry.clock > thinking.clock && entry.thinking === 'false');
    assert.ok(stopped !== undefined && stopped.clock <= startOf(log.sources[0]!) + 0.05);
    assert.equal(await page.locator('#face-status').textContent(), '');
    assert.equal(await page.locator('#face').getAttribute('data-emotion'), 'happy');

    // Each part's text appears when its audio starts (not when it arrives, up to 0.4 s earlier), after
    // the turn's earlier parts, which stay visible.
    for (const index of parts.keys()) {
      const sofar = parts
        .slice(0, index + 1)
        .map((p) => p.text)
        .join(' ');
      const appeared = shown.find((entry) => entry.text === sofar);
      assert.ok(appeared !== undefined, `part ${index + 1} never shown`);
      const start = startOf(log.sources[index]!);
      assert.ok(
        appeared.clock >= start - 0.015 && appeared.clock < start + 0.1,
        `part ${index + 1} shown at ${appeared.clock}, starts at ${start}`,
      );
    }
    assert.equal(await page.locator('#speech-text').textContent(), parts.map((p) => p.text).join(' '));
  });

  it('barge-in: talking over part 1 stops the audio at once, cancels the turn and listens', async () => {
    const before = await snapshot(page);
    const sourcesBefore = (await audioLog(page)).sources.length;
    await holdTalkButton(page, 6_000);
    // Part 1 plays and part 2 is already scheduled behind it: then the visitor presses talk.
    await waitForLog(
      page,
      (log) => log.sources.length === sourcesBefore + 2 && log.clock > startOf(log.sources[sourcesBefore]!),
      'part 1 to play with part 2 scheduled',
    );
    const box = await page.locator('#talk').boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    const pressedClock = (await audioLog(page)).clock;
    await page.locator('body[data-recording="true"]').waitFor();
    const afterPress = await waitForLog(
      page,
      (log) => log.sources.slice(sourcesBefore).every((source) => source.ended),
      'every source of the turn to have ended',
      2_000,
    );
    const [part1, part2] = afterPress.sources.slice(sourcesBefore);
    // Part 1 was stopped before its end, part 2 before it ever started; the kiosk says nothing is playing.
    assert.ok(part1!.stoppedAt !== null && part1!.stoppedAt <= pressedClock + 0.05);
    assert.ok(part1!.stoppedAt < startOf(part1!) + part1!.duration);
    assert.ok(part2!.stoppedAt !== null && part2!.stoppedAt < startOf(part2!));
    const stopped = await snapshot(page);
    assert.equal(stopped.audio.liveSources, 0);
    assert.deepEqual(stopped.bargeIns, [...before.bargeIns, 2]);
    assert.ok(socket.sent.includes('{"service":"cancel"}'), `sent: ${socket.sent.join(' ')}`);

    // Still pressed: it is listening. Let go: the new utterance is turn 3 and is answered.
    await page.waitForTimeout(700);
    await page.mouse.up();
    const answered = await waitForSnapshot(
      page,
      (s) => s.played.filter((p) => p.turn === 3 && p.endedAt !== undefined).length === PARTS,
      'the next turn to be answered',
    );
    const received = parsed(socket.received);
    const cancelled = received.findIndex((f) => f['type'] === 'turn_end' && f['turn'] === 2);
    assert.deepEqual(received[cancelled], { type: 'turn_end', turn: 2, outcome: 'cancelled' });
    assert.deepEqual(received[cancelled + 1], { type: 'ack', service: 'cancel' });
    // Nothing of turn 2 after part 1: not played, not shown; whatever still arrived was dropped.
    assert.deepEqual(
      answered.played.filter((p) => p.turn === 2).map((p) => p.outcome),
      ['stopped'],
    );
    const turn2Texts = received
      .filter((f) => f['type'] === 'audio' && f['turn'] === 2)
      .map((f) => String(f['text']));
    // Turn 3's parts have the same texts: only what was shown before it started counts.
    const turn3Start = Math.min(...answered.played.filter((p) => p.turn === 3).map((p) => p.clockStart));
    const shownAfterPress = (await audioLog(page)).shown
      .filter((entry) => entry.clock >= pressedClock && entry.clock < turn3Start - 0.001)
      .map((entry) => entry.text);
    for (const text of turn2Texts.slice(1)) {
      assert.ok(!shownAfterPress.some((shownText) => shownText.includes(text)), `${text} was shown`);
    }
    const late = received.filter(
      (f, index) => f['type'] === 'audio' && f['turn'] === 2 && index > cancelled + 1,
    );
    assert.deepEqual(late, [], 'a pair of the cancelled turn came after the ack');
    // Every pair of turn 2 that came: part 1 stopped; the rest dropped unplayed, when the visitor pressed
    // talk (waiting) or on arrival (came before the ack).
    const turn2Ids = received
      .filter((f) => f['type'] === 'audio' && f['turn'] === 2)
      .map((f) => Number(f['messageId']));
    assert.ok(turn2Ids.length >= 2);
    assert.deepEqual(
      turn2Ids.slice(1).filter((id) => !answered.dropped.includes(id) && !answered.ignored.includes(id)),
      [],
    );
  });

  it('shows the thinking state visibly and accessibly while an answer is slow to come', async () => {
    const slow = await startKioskService(0, { chat_interface: 'action' }, { chatParts: 1, partMs: 2_500 });
    try {
      const { page: slowPage, problems: slowProblems } = await openKiosk(shared.browser, slow);
      try {
        assert.equal(await slowPage.locator('body').getAttribute('data-thinking'), 'false');
        await holdTalkButton(slowPage, 600);
        await slowPage.locator('body[data-thinking="true"]').waitFor({ timeout: 2_000 });
        // Shown under the face; not a live region, since "Sent." has just said it (one announcement).
        const status = slowPage.locator('#face-status', { hasText: /^Thinking…$/ });
        assert.equal(await status.isVisible(), true);
        assert.equal(await slowPage.locator('#face').getAttribute('data-emotion'), 'thinking');
        assert.equal(await slowPage.locator('#face-label').textContent(), 'The robot looks thinking');
        assert.deepEqual(await seriousViolations(slowPage), []);
        // The answer ends it.
        await slowPage.locator('body[data-thinking="false"]').waitFor({ timeout: 5_000 });
        assert.equal(await slowPage.locator('#face-status').textContent(), '');
        assert.equal((await snapshot(slowPage)).played.at(-1)?.turn, 1);
        assert.deepEqual(slowProblems, []);
      } finally {
        await slowPage.close();
      }
    } finally {
      await slow.stop();
    }
  });

  it('loaded nothing from outside the service and logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
