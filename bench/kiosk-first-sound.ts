/**
 * `node --import tsx bench/kiosk-first-sound.ts [runs]` (after `npm run build:web`): time to first sound in
 * the kiosk, in a real headless Chromium against the real service on the simulation, whose answer
 * pipeline is modelled as 3 parts 400 ms apart (`--sim_chat_parts 3 --sim_part_ms 400`).
 *
 * - Release of the talk button → first sound: the first part's start on the AudioContext's clock minus the
 *   clock when the button was let go (the kiosk's own record), with `--chat_interface service` (one answer
 *   after 1.2 s) and `action` (part 1 after 0.4 s), a 1 s utterance each time.
 * - The silence between parts: the start of each part's audio minus the end of the one before, as the page
 *   scheduled them (test/browser/audio-log.ts watches the Web Audio API), once with a 2 s utterance (parts
 *   of 0.67 s arrive ahead of playback) and once with the 1 s one (parts of 0.33 s arrive 0.4 s apart: they
 *   fall behind, and the silence is the difference).
 *
 * Prints a Markdown table (p50 and max over the runs) for docs/performance.md. Reuses the browser tests'
 * harness; loopback only.
 */
import type { Page } from 'playwright-core';
import { audioLog, gapsBetween, startOf, watchAudio } from '../test/browser/audio-log.js';
import { launchBrowser, type Browser } from '../test/browser/browser.js';
import {
  holdTalkButton,
  snapshot,
  startKioskService,
  waitForSnapshot,
  type KioskService,
} from '../test/browser/kiosk-harness.js';
import { round, summarize } from './lib/stats.js';

const PARTS = 3;
const PART_MS = 400;
const runs = Math.min(50, Math.max(1, Number(process.argv[2] ?? 10) || 10));

interface Run {
  readonly firstSoundMs: number;
  readonly gapsMs: readonly number[];
}

/** One utterance held `holdMs`, and its answer played to the end. */
const oneTurn = async (page: Page, holdMs: number, pairs: number): Promise<Run> => {
  const before = await snapshot(page);
  const sourcesBefore = (await audioLog(page)).sources.length;
  await holdTalkButton(page, holdMs);
  const turn = before.sent.length + 1;
  const state = await waitForSnapshot(
    page,
    (s) => s.played.filter((p) => p.turn === turn && p.endedAt !== undefined).length === pairs,
    `turn ${turn} to have played`,
    20_000,
  );
  const sources = (await audioLog(page)).sources.slice(sourcesBefore);
  const sent = state.sent.find((record) => record.turn === turn);
  const first = sources[0];
  if (sent === undefined || first === undefined || sources.length !== pairs) {
    throw new Error(`turn ${turn}: ${sources.length} sources for ${pairs} parts`);
  }
  return {
    firstSoundMs: (startOf(first) - sent.releasedClock) * 1000,
    gapsMs: gapsBetween(sources).map((gap) => gap * 1000),
  };
};

const measure = async (
  browser: Browser,
  chatInterface: 'service' | 'action',
  holdMs: number,
): Promise<Run[]> => {
  const service: KioskService = await startKioskService(
    0,
    { chat_interface: chatInterface },
    { chatParts: PARTS, partMs: PART_MS },
  );
  const page = await browser.newPage();
  try {
    await watchAudio(page);
    // One frame per utterance, as this bench has always measured it (the streamed path: `npm run bench -- --only ttfs`).
    await page.goto(`${service.baseUrl}/?upload=whole`);
    await page.locator('body[data-connection="online"][data-microphone="enabled"]').waitFor();
    const results: Run[] = [];
    for (let index = 0; index < runs; index += 1) {
      results.push(await oneTurn(page, holdMs, chatInterface === 'action' ? PARTS : 1));
      await page.waitForTimeout(200);
    }
    return results;
  } finally {
    await page.close();
    await service.stop();
  }
};

const ms = (value: number): string => String(round(value, 0));

const main = async (): Promise<void> => {
  const browser = await launchBrowser();
  try {
    const rows: string[] = [];
    for (const chatInterface of ['service', 'action'] as const) {
      const first = summarize((await measure(browser, chatInterface, 1_000)).map((r) => r.firstSoundMs));
      const modelled = chatInterface === 'action' ? PART_MS : PARTS * PART_MS;
      rows.push(
        `| release → first sound, \`${chatInterface}\`, 1 s utterance | ${ms(first.p50)} | ${ms(first.max)} | ${ms(first.p50 - modelled)} |`,
      );
    }
    for (const holdMs of [2_000, 1_000]) {
      const gaps = summarize((await measure(browser, 'action', holdMs)).flatMap((r) => r.gapsMs));
      const ahead = holdMs / PARTS > PART_MS ? 'ahead of playback' : 'behind playback';
      rows.push(
        `| silence between parts, \`action\`, ${holdMs / 1000} s utterance (parts arrive ${ahead}) | ${round(gaps.p50, 2)} | ${round(gaps.max, 2)} | |`,
      );
    }
    process.stdout.write(
      [
        `${runs} runs each (p50 and max in ms; the last column: p50 minus the modelled pipeline's delay)`,
        '',
        '| Measured in Chromium | p50 | max | beyond the model |',
        '| --- | --: | --: | --: |',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
  }
};

await main();
