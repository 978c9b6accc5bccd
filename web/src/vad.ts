/**
 * Hands-free mode's voice-activity detection: a level threshold with time hysteresis. Deliberately simple
 * (the robot's /chat does the real recognition); the timings keep a cough or a door from starting an
 * utterance and a pause between words from ending one.
 */

export interface VadOptions {
  /** Block level (dBFS) at or above which a block counts as voice. */
  readonly thresholdDb: number;
  /** Voice needed, uninterrupted, before an utterance starts. */
  readonly startMs: number;
  /** Silence that ends an utterance. */
  readonly hangoverMs: number;
  /** Utterances with less voice than this are discarded, not sent. */
  readonly minVoiceMs: number;
}

export const DEFAULT_VAD: VadOptions = {
  thresholdDb: -40,
  startMs: 120,
  hangoverMs: 900,
  minVoiceMs: 300,
};

/** The thresholds the kiosk settings offer, in dBFS. */
export const THRESHOLD_RANGE = { minDb: -70, maxDb: 0 } as const;

/** A threshold from settings or storage, as a whole dB inside THRESHOLD_RANGE; anything else is the default. */
export const clampThreshold = (value: number): number =>
  Number.isFinite(value)
    ? Math.min(THRESHOLD_RANGE.maxDb, Math.max(THRESHOLD_RANGE.minDb, Math.round(value)))
    : DEFAULT_VAD.thresholdDb;

/** `start`: an utterance began (record, including the pre-roll); `end`: send it; `discard`: drop it. */
export type VadEvent = 'start' | 'end' | 'discard';

type Phase =
  | { readonly kind: 'silence' }
  | { readonly kind: 'rising'; readonly voiceMs: number }
  | { readonly kind: 'speech'; readonly voiceMs: number; readonly silenceMs: number };

export class VoiceActivityDetector {
  private phase: Phase = { kind: 'silence' };

  constructor(private options: VadOptions = DEFAULT_VAD) {}

  get speaking(): boolean {
    return this.phase.kind === 'speech';
  }

  /** Speech with at least minVoiceMs of voice: this utterance ends with `end`, never `discard`. */
  get confirmed(): boolean {
    return this.phase.kind === 'speech' && this.phase.voiceMs >= this.options.minVoiceMs;
  }

  /** Block level (dBFS) at or above which a block counts as voice. */
  get thresholdDb(): number {
    return this.options.thresholdDb;
  }

  setThreshold(thresholdDb: number): void {
    this.options = { ...this.options, thresholdDb };
  }

  /** Back to silence without an event (the caller ended or dropped the utterance itself). */
  reset(): void {
    this.phase = { kind: 'silence' };
  }

  /** Feeds one block's level; returns what the block changed, if anything. */
  update(levelDb: number, blockMs: number): VadEvent | undefined {
    const voiced = levelDb >= this.options.thresholdDb;
    const phase = this.phase;
    switch (phase.kind) {
      case 'silence':
        if (!voiced) return undefined;
        this.phase = { kind: 'rising', voiceMs: blockMs };
        return this.risen();
      case 'rising':
        if (!voiced) {
          this.phase = { kind: 'silence' };
          return undefined;
        }
        this.phase = { kind: 'rising', voiceMs: phase.voiceMs + blockMs };
        return this.risen();
      case 'speech': {
        if (voiced) {
          this.phase = { kind: 'speech', voiceMs: phase.voiceMs + blockMs, silenceMs: 0 };
          return undefined;
        }
        const silenceMs = phase.silenceMs + blockMs;
        if (silenceMs < this.options.hangoverMs) {
          this.phase = { kind: 'speech', voiceMs: phase.voiceMs, silenceMs };
          return undefined;
        }
        this.phase = { kind: 'silence' };
        return phase.voiceMs >= this.options.minVoiceMs ? 'end' : 'discard';
      }
    }
  }

  private risen(): VadEvent | undefined {
    if (this.phase.kind !== 'rising' || this.phase.voiceMs < this.options.startMs) return undefined;
    this.phase = { kind: 'speech', voiceMs: this.phase.voiceMs, silenceMs: 0 };
    return 'start';
  }
}
