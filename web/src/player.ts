import type { AudioPair } from './frame-pairer.js';
import { PcmPartDecoder } from './pcm-parts.js';
import { PlaybackTimeline, type Entry, type Slot } from './playback-timeline.js';

export type PlayOutcome = 'played' | 'undecodable' | 'silent' | 'stopped';

export interface PlayerHandlers {
  /** The item's audio starts (or, without playable audio, its text is shown): show its emotion and text. */
  readonly onStart: (pair: AudioPair, slot: Slot) => void;
  readonly onEnd: (pair: AudioPair, outcome: PlayOutcome) => void;
  /** Dropped unplayed: the queue was full (the oldest waiting item goes), or playback was stopped. */
  readonly onDrop: (pair: AudioPair) => void;
}

/** Waiting messages held at most, besides the one playing (about a minute of typical answers). */
export const PLAYBACK_QUEUE_CAPACITY = 8;
/** How long text without playable audio stays "speaking", per character, within bounds. */
const SILENT_MS_PER_CHAR = 60;
const SILENT_MIN_MS = 1_500;
const SILENT_MAX_MS = 8_000;
/** Past a boundary's wall-clock time, the longest wait for the audio clock before moving on regardless. */
const CLOCK_GRACE_MS = 2_000;
/** Timers may fire a little early; a boundary this close on the audio clock counts as reached. */
const CLOCK_EPSILON_S = 0.002;

interface Item {
  readonly pair: AudioPair;
  buffer: AudioBuffer | undefined;
  source: AudioBufferSourceNode | undefined;
  outcome: PlayOutcome;
}

/**
 * Plays answers on the AudioContext's clock (playback-timeline.ts decides when): each buffer is started
 * with `start(when)` at the previous one's end, so the parts of a turn join without a gap, and its
 * handlers are called when it starts and ends on that clock, not when it arrives. 16-bit PCM WAV (what the
 * simulation echoes, also cut into parts) is decoded here (pcm-parts.ts); anything else by
 * decodeAudioData. Every wait is bounded, so a stuck decoder or a suspended AudioContext cannot stall it.
 */
export class Player {
  private readonly timeline = new PlaybackTimeline<Item>(PLAYBACK_QUEUE_CAPACITY);
  private readonly pcm = new PcmPartDecoder();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The boundary the timer waits for, and the wall-clock time after which it is taken as reached. */
  private boundary: { readonly at: number; readonly deadline: number } | undefined;
  /** Audio sources started and not yet ended: what is audible or about to be. */
  private sources = 0;

  constructor(
    private readonly context: AudioContext,
    private readonly handlers: PlayerHandlers,
  ) {}

  /** True while an item plays or waits. */
  get busy(): boolean {
    return this.timeline.busy;
  }

  /** Audio sources scheduled or playing now (the tests read it to see that playback stopped). */
  get liveSources(): number {
    return this.sources;
  }

  /** Whether any held item (playing or waiting) is one `test` picks. */
  holds(test: (pair: AudioPair) => boolean): boolean {
    return this.timeline.items.some((item) => test(item.pair));
  }

  enqueue(pair: AudioPair): void {
    const item: Item = { pair, buffer: undefined, source: undefined, outcome: 'played' };
    const { prepare, dropped } = this.timeline.add(item);
    for (const entry of dropped) this.drop(entry);
    this.prepare(prepare);
  }

  /** Barge-in: silences the playing item and drops everything waiting, at once. */
  stopAll(): void {
    const { playing, dropped } = this.timeline.clear();
    this.pcm.reset();
    this.disarm();
    if (playing !== undefined) {
      this.silence(playing.item);
      this.handlers.onEnd(playing.item.pair, 'stopped');
    }
    for (const entry of dropped) this.drop(entry);
  }

  private drop(entry: Entry<Item>): void {
    this.silence(entry.item);
    this.handlers.onDrop(entry.item.pair);
  }

  private silence(item: Item): void {
    // Stopping a source that has not started yet cancels it; `ended` then still fires and counts it out.
    item.source?.stop();
  }

  /** Decodes the item (synchronously when it is PCM WAV), then places it on the clock. */
  private prepare(item: Item | undefined): void {
    if (item === undefined) return;
    const pcm = this.pcm.decode(new Uint8Array(item.pair.audio), item.pair.meta.turn);
    if (pcm !== undefined) {
      if (pcm.frames > 0) {
        const buffer = this.context.createBuffer(pcm.format.channels, pcm.frames, pcm.format.sampleRate);
        for (const [index, samples] of pcm.channels.entries()) buffer.copyToChannel(samples, index);
        item.buffer = buffer;
      }
      this.place(item);
      return;
    }
    void this.decode(item.pair.audio).then((buffer) => {
      item.buffer = buffer;
      this.place(item);
    });
  }

  private async decode(audio: ArrayBuffer): Promise<AudioBuffer | undefined> {
    if (audio.byteLength === 0) return undefined;
    try {
      // decodeAudioData detaches its argument; the copy keeps the pair intact for the handlers.
      return await this.context.decodeAudioData(audio.slice(0));
    } catch {
      return undefined;
    }
  }

  private place(item: Item): void {
    const { buffer, pair } = item;
    const silentMs = Math.min(
      SILENT_MAX_MS,
      Math.max(SILENT_MIN_MS, pair.meta.text.length * SILENT_MS_PER_CHAR),
    );
    const duration = buffer === undefined ? silentMs / 1000 : buffer.duration;
    const slot = this.timeline.place(item, duration, this.context.currentTime);
    if (slot === undefined) return;
    if (buffer === undefined) {
      item.outcome = pair.audio.byteLength === 0 ? 'silent' : 'undecodable';
    } else {
      const source = this.context.createBufferSource();
      source.buffer = buffer;
      source.connect(this.context.destination);
      source.addEventListener('ended', () => {
        this.sources -= 1;
        source.disconnect();
      });
      source.start(slot.start);
      this.sources += 1;
      item.source = source;
    }
    // The clock runs on the audio thread and may have moved past the slot while this ran (by render quanta,
    // several at once under load): a start in the past plays from the clock's now, so the slot is read
    // again after start() and follows it, and the next part is placed at this one's real end.
    this.timeline.delay(item, this.context.currentTime);
    this.tick();
  }

  /** Moves the timeline to the audio clock's now, tells the page, and waits for the next boundary. */
  private tick(): void {
    const now = this.context.currentTime;
    const overdue = this.boundary !== undefined && performance.now() >= this.boundary.deadline;
    const { ended, started, prepare } = this.timeline.advance(
      overdue ? Math.max(now, this.boundary?.at ?? now) : now + CLOCK_EPSILON_S,
    );
    for (const entry of ended) this.handlers.onEnd(entry.item.pair, entry.item.outcome);
    for (const entry of started) {
      if (entry.slot !== undefined) this.handlers.onStart(entry.item.pair, entry.slot);
    }
    this.prepare(prepare);
    this.arm();
  }

  private arm(): void {
    const at = this.timeline.nextBoundary;
    if (at === undefined) {
      this.disarm();
      return;
    }
    const ms = Math.max(0, (at - this.context.currentTime) * 1000);
    if (this.boundary?.at !== at) this.boundary = { at, deadline: performance.now() + ms + CLOCK_GRACE_MS };
    clearTimeout(this.timer);
    // Not less than a few ms apart while the clock lags the wall clock (a suspended context): bounded by
    // the deadline, after which the boundary is taken as reached.
    this.timer = setTimeout(
      () => {
        this.tick();
      },
      Math.max(ms, 4),
    );
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.boundary = undefined;
  }
}
