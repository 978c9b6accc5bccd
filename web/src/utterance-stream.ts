import { COMMAND, encodePartFrame, PCM_SAMPLE_RATE } from '../../src/protocol/ws/index.js';
import type { Recorder } from './utterance.js';
import { pcmBytes } from './wav.js';

/**
 * One utterance sent while it is spoken (docs/protocol.md, "Streamed utterances"): `utterance_start`, its
 * audio in parts of PART_MS of raw 16-bit PCM, then `utterance_end` naming how many parts went. What is
 * recorded before the kiosk opens the utterance waits here, so an utterance too short to keep never
 * reaches the service (kiosk.ts decides when to open). No DOM: the socket is whatever `send` is.
 */

/**
 * Audio per part, as docs/protocol.md has the reference kiosk send it (the robot's topic depth is sized on
 * it): the recogniser hears the visitor a tenth of a second behind, and 10 frames a second stay half of a
 * session's inbound budget (20 a second), a hands-free opening's burst far inside its 40.
 */
export const PART_MS = 100;
export const PART_SAMPLES = (PART_MS * PCM_SAMPLE_RATE) / 1000;

/** Sends one frame on the session; false when there is none to send it on. */
export type SendFrame = (frame: string | Uint8Array) => boolean;

/** What went up for a closed utterance. */
export interface StreamedUtterance {
  readonly turn: number;
  readonly parts: number;
  /** PCM bytes of all its parts (headers not counted). */
  readonly bytes: number;
}

export class UtteranceStream implements Recorder {
  /** Recorded and not sent yet: everything before the utterance opens, then the part being filled. */
  private held: Int16Array[] = [];
  private heldSamples = 0;
  private recorded = 0;
  private openTurn: number | undefined;
  private sequence = 0;
  private sentBytes = 0;
  /** A frame could not be sent: the session is gone, and the rest of this utterance with it. */
  private broken = false;

  constructor(
    private readonly send: SendFrame,
    readonly maxSamples: number,
  ) {}

  /** Samples recorded so far, sent or not. */
  get samples(): number {
    return this.recorded;
  }

  /** The utterance's turn once it is open. */
  get turn(): number | undefined {
    return this.openTurn;
  }

  /** Parts sent so far. */
  get parts(): number {
    return this.sequence;
  }

  /** Appends what fits (as UtteranceBuffer does) and, once open, sends every part it completes. */
  append(chunk: Int16Array): boolean {
    const room = this.maxSamples - this.recorded;
    if (room <= 0) return false;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.held.push(part);
    this.heldSamples += part.length;
    this.recorded += part.length;
    if (this.openTurn !== undefined) this.sendWholeParts();
    return this.recorded < this.maxSamples;
  }

  /**
   * Opens the utterance: sends `utterance_start`, takes its turn number from `turnOpened` (called only when
   * the command went), then what was held, in whole parts. False when the session is gone.
   */
  open(turnOpened: () => number): boolean {
    if (this.openTurn !== undefined) return true;
    if (this.broken || !this.send(JSON.stringify({ service: COMMAND.utteranceStart }))) {
      this.broken = true;
      return false;
    }
    this.openTurn = turnOpened();
    this.sendWholeParts();
    return !this.broken;
  }

  /**
   * Sends the rest as the last part and `utterance_end`; undefined when the utterance never opened or a
   * frame could not be sent (the session ended, and the service abandoned the utterance itself).
   */
  close(): StreamedUtterance | undefined {
    const turn = this.openTurn;
    if (turn === undefined) return undefined;
    if (this.heldSamples > 0) this.sendPart(this.heldSamples);
    const end = JSON.stringify({ service: COMMAND.utteranceEnd, turn, parts: this.sequence });
    if (this.broken || !this.send(end)) return undefined;
    return { turn, parts: this.sequence, bytes: this.sentBytes };
  }

  private sendWholeParts(): void {
    // Each pass sends PART_SAMPLES of what is held, so this ends.
    while (this.heldSamples >= PART_SAMPLES && !this.broken) this.sendPart(PART_SAMPLES);
  }

  /** Sends the first `count` held samples as the next part. */
  private sendPart(count: number): void {
    const turn = this.openTurn;
    if (turn === undefined || this.broken) return;
    const samples = new Int16Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.held[0];
      if (chunk === undefined) break;
      const take = Math.min(chunk.length, count - filled);
      samples.set(chunk.subarray(0, take), filled);
      filled += take;
      if (take === chunk.length) this.held.shift();
      else this.held[0] = chunk.subarray(take);
    }
    this.heldSamples -= filled;
    const pcm = pcmBytes(samples.subarray(0, filled));
    if (!this.send(encodePartFrame(turn, this.sequence, pcm))) {
      this.broken = true;
      return;
    }
    this.sequence += 1;
    this.sentBytes += pcm.byteLength;
  }
}
