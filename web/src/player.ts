import { BoundedQueue } from './bounded-queue.js';
import type { AudioPair } from './frame-pairer.js';

export type PlayOutcome = 'played' | 'undecodable' | 'silent';

export interface PlayerHandlers {
  /** The item's audio starts (or, without playable audio, its text is shown): show its emotion and text. */
  readonly onStart: (pair: AudioPair) => void;
  readonly onEnd: (pair: AudioPair, outcome: PlayOutcome) => void;
  /** The queue was full: the oldest waiting item was dropped. */
  readonly onDrop: (pair: AudioPair) => void;
}

/** Waiting messages held at most, besides the one playing (about a minute of typical answers). */
export const PLAYBACK_QUEUE_CAPACITY = 8;
/** How long text without playable audio stays "speaking", per character, within bounds. */
const SILENT_MS_PER_CHAR = 60;
const SILENT_MIN_MS = 1_500;
const SILENT_MAX_MS = 8_000;
/** Beyond the audio's own duration, the longest wait for `ended` before moving on regardless. */
const ENDED_GRACE_MS = 2_000;

/**
 * Plays answers one at a time, in arrival order, never overlapping: the next starts only when the previous
 * ended. Each item is decoded when its turn comes (decodeAudioData handles the WAV the simulation echoes
 * and whatever the robot's TTS sends). Every wait is bounded, so a stuck decoder or a suspended
 * AudioContext cannot stall the queue forever.
 */
export class Player {
  private readonly queue = new BoundedQueue<AudioPair>(PLAYBACK_QUEUE_CAPACITY);
  private current: AudioPair | undefined;

  constructor(
    private readonly context: AudioContext,
    private readonly handlers: PlayerHandlers,
  ) {}

  /** True while an item is being decoded or played. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  get waiting(): number {
    return this.queue.size;
  }

  enqueue(pair: AudioPair): void {
    const dropped = this.queue.push(pair);
    if (dropped !== undefined) this.handlers.onDrop(dropped);
    if (this.current === undefined) void this.run();
  }

  /** Plays until the queue is empty. Only one run is active: `current` is set before the first await. */
  private async run(): Promise<void> {
    try {
      await this.playAll();
    } finally {
      this.current = undefined;
    }
  }

  private async playAll(): Promise<void> {
    for (let pair = this.queue.shift(); pair !== undefined; pair = this.queue.shift()) {
      this.current = pair;
      const buffer = await this.decode(pair.audio);
      this.handlers.onStart(pair);
      let outcome: PlayOutcome;
      if (buffer === undefined) {
        outcome = pair.audio.byteLength === 0 ? 'silent' : 'undecodable';
        await delay(
          Math.min(SILENT_MAX_MS, Math.max(SILENT_MIN_MS, pair.meta.text.length * SILENT_MS_PER_CHAR)),
        );
      } else {
        outcome = 'played';
        await this.play(buffer);
      }
      this.handlers.onEnd(pair, outcome);
    }
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

  private play(buffer: AudioBuffer): Promise<void> {
    return new Promise((resolve) => {
      const source = this.context.createBufferSource();
      source.buffer = buffer;
      source.connect(this.context.destination);
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(guard);
        source.disconnect();
        resolve();
      };
      const guard = setTimeout(
        () => {
          source.stop();
          finish();
        },
        buffer.duration * 1000 + ENDED_GRACE_MS,
      );
      source.addEventListener('ended', finish);
      source.start();
    });
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });
