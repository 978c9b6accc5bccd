import type { Page } from 'playwright-core';
import { pagePoller } from './page-poller.js';

/**
 * Watches the kiosk from outside its code: a script run before the page's own wraps the Web Audio API, so
 * every `AudioBufferSourceNode.start(when)` and `stop()` the page makes is logged on the AudioContext's
 * clock, and records, on that clock, each change of the answer text and of the thinking state and each
 * click as the page receives it. The tests and bench/kiosk-first-sound.ts compare the schedule with what the
 * page showed.
 */

export interface SourceRecord {
  /** The `when` the page passed to start(), and its buffer's duration (s, audio clock). */
  readonly when: number;
  readonly duration: number;
  /** The clock when start() was called, when stop() was called (null: never), and whether `ended` came. */
  readonly calledAt: number;
  readonly stoppedAt: number | null;
  readonly ended: boolean;
}

export interface ShownRecord {
  readonly clock: number;
  readonly text: string;
  readonly thinking: string | undefined;
  readonly status: string;
  readonly emotion: string | undefined;
}

/** A click as the page received it, before its own handlers ran (capture phase on the document). */
export interface ClickRecord {
  /** The id of the element clicked, or of its nearest ancestor with one. */
  readonly target: string;
  readonly clock: number;
  /** How many sources had been started by then. */
  readonly sources: number;
}

export interface AudioLog {
  readonly sources: readonly SourceRecord[];
  readonly clicks: readonly ClickRecord[];
  /** One entry per change of the answer text or of the thinking state. */
  readonly shown: readonly ShownRecord[];
  /** The audio clock now. */
  readonly clock: number;
}

const INIT_SCRIPT = `(() => {
  const log = { sources: [], shown: [], clicks: [] };
  let context;
  Object.defineProperty(window, '__audioLog', {
    value: () => structuredClone({ ...log, clock: context ? context.currentTime : -1 }),
  });
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(...args) {
      super(...args);
      context = this;
    }
  };
  const start = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (when = 0, ...rest) {
    const record = {
      when,
      duration: this.buffer ? this.buffer.duration : 0,
      calledAt: this.context.currentTime,
      stoppedAt: null,
      ended: false,
    };
    log.sources.push(record);
    this.addEventListener('ended', () => { record.ended = true; });
    this.__record = record;
    return start.call(this, when, ...rest);
  };
  const stop = AudioBufferSourceNode.prototype.stop;
  AudioBufferSourceNode.prototype.stop = function (...args) {
    if (this.__record && this.__record.stoppedAt === null) this.__record.stoppedAt = this.context.currentTime;
    return stop.apply(this, args);
  };
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('[id]') : null;
    log.clicks.push({
      target: target ? target.id : '',
      clock: context ? context.currentTime : -1,
      sources: log.sources.length,
    });
  }, { capture: true });
  document.addEventListener('DOMContentLoaded', () => {
    const speech = document.getElementById('speech-text');
    const status = document.getElementById('face-status');
    const face = document.getElementById('face');
    const note = () => log.shown.push({
      clock: context ? context.currentTime : -1,
      text: speech.textContent,
      thinking: document.body.dataset.thinking,
      status: status.textContent,
      emotion: face.dataset.emotion,
    });
    new MutationObserver(note).observe(speech, { childList: true, characterData: true, subtree: true });
    new MutationObserver(note).observe(document.body, { attributes: true, attributeFilter: ['data-thinking'] });
  });
})();`;

/** Installs the watcher; call before the page is opened. */
export const watchAudio = async (page: Page): Promise<void> => {
  await page.addInitScript({ content: INIT_SCRIPT });
};

export const audioLog = (page: Page): Promise<AudioLog> =>
  // globalThis is the page's window there (this file is compiled without the DOM library).
  page.evaluate(() => (globalThis as unknown as { __audioLog(): AudioLog }).__audioLog());

/** Polls the page's audio log until `condition` holds; bounded. */
export const waitForLog = pagePoller(
  audioLog,
  10,
  (what, _timeoutMs, log) => `timed out waiting for ${what}; log: ${JSON.stringify(log)}`,
);

/** When a source really starts: at `when`, or at once if `when` had already passed. */
export const startOf = (source: SourceRecord): number => Math.max(source.when, source.calledAt);

/** The silence (s) before each source after the first: its start minus the previous one's end. */
export const gapsBetween = (sources: readonly SourceRecord[]): number[] =>
  sources.slice(1).map((source, index) => {
    const previous = sources[index];
    return previous === undefined ? Number.NaN : startOf(source) - (startOf(previous) + previous.duration);
  });
