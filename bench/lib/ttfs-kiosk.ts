import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { COMMAND, encodePartFrame } from '../../src/protocol/ws/index.js';
import { zeroMask } from '../clients/protocol.js';

/**
 * One kiosk session of the time-to-first-sound scenarios: it sends an utterance, whole or streamed in
 * parts at the speed of speech, and records on this process's monotonic clock when the end of speech was
 * handed to the socket (the `send` callback: written to the kernel) and when each frame of the answer came.
 * Turns are numbered as the bridge numbers them (every whole frame and every utterance_start is one).
 */

interface Frame {
  readonly at: number;
  readonly data: Buffer;
  readonly isBinary: boolean;
}

export interface TurnTimes {
  /** The end of speech: the whole frame's, or the last part's, `send` callback. */
  readonly endOfSpeechAt: number;
  /** The first frame of the answer (its first pair's metadata); NaN when none came. */
  readonly firstSoundAt: number;
  /** Pairs complete, in arrival order: time and audio bytes. */
  readonly parts: readonly { readonly at: number; readonly bytes: number }[];
  readonly outcome: string;
  /** Transcript frames received, and whether the last was final and came before the first answer frame. */
  readonly transcripts: number;
  readonly finalBeforeAnswer: boolean;
  /** Error frames of the turn, as `code: message`. */
  readonly errors: readonly string[];
}

const textOf = (frame: Frame): string => frame.data.toString('utf8');
const isType = (frame: Frame, type: string): boolean =>
  !frame.isBinary && frame.data.includes(`"type":"${type}"`);

const sleepUntil = async (at: number): Promise<void> => {
  const wait = at - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
};

export class TtfsKiosk {
  #frames: Frame[] = [];
  #wake: (() => void) | undefined;
  #turn = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.#frames.push({ at: performance.now(), data, isBinary });
      this.#wake?.();
    });
    socket.on('close', () => this.#wake?.());
  }

  static async open(url: string): Promise<TtfsKiosk> {
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      generateMask: zeroMask,
      handshakeTimeout: 10_000,
    });
    const kiosk = new TtfsKiosk(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    await kiosk.#until((frames) => frames.length >= 1, 10_000); // the state frame
    kiosk.#frames = [];
    return kiosk;
  }

  /** Waits (bounded) until `done` holds over the frames received since the turn began. */
  async #until(done: (frames: readonly Frame[]) => boolean, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done(this.#frames)) {
      const left = deadline - performance.now();
      if (left <= 0 || this.socket.readyState !== WebSocket.OPEN) {
        const last = this.#frames
          .filter((frame) => !frame.isBinary)
          .slice(-3)
          .map(textOf);
        throw new Error(
          `turn ${this.#turn}: no turn_end within ${timeoutMs} ms (${this.#frames.length} frames; last: ${last.join(' ')})`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** A write not waited for; a failed one closes the socket, which the turn's wait reports. */
  #post(data: Uint8Array | string): void {
    this.#send(data).catch(() => undefined);
  }

  #send(data: Buffer | Uint8Array | string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.socket.send(data, { binary: typeof data !== 'string' }, (error) => {
        // ws passes null or undefined when the write went through, whatever its types say.
        if (error instanceof Error) reject(error);
        else resolve(performance.now());
      });
    });
  }

  /** The utterance as one binary frame, the specification's way. */
  async wholeTurn(utterance: Uint8Array, timeoutMs: number): Promise<TurnTimes> {
    this.#turn += 1;
    this.#frames = [];
    const endOfSpeechAt = await this.#send(utterance);
    return this.#finish(endOfSpeechAt, timeoutMs);
  }

  /**
   * The utterance streamed: `utterance_start`, then part k (from 0) once its audio has been "spoken",
   * (k + 1) × partMs after the start, as a kiosk sends what it recorded; `utterance_end` right after the
   * last part. `pcm` is raw 16-bit PCM, cut in parts of `partBytes`.
   */
  async streamedTurn(
    pcm: Uint8Array,
    partBytes: number,
    partMs: number,
    timeoutMs: number,
  ): Promise<TurnTimes> {
    this.#turn += 1;
    const turn = this.#turn;
    this.#frames = [];
    const parts = Math.ceil(pcm.byteLength / partBytes);
    this.#post(JSON.stringify({ service: COMMAND.utteranceStart }));
    const startedAt = performance.now();
    let endOfSpeechAt = Number.NaN;
    for (let sequence = 0; sequence < parts; sequence += 1) {
      await sleepUntil(startedAt + (sequence + 1) * partMs);
      const frame = encodePartFrame(
        turn,
        sequence,
        pcm.subarray(sequence * partBytes, Math.min(pcm.byteLength, (sequence + 1) * partBytes)),
      );
      // Only the last part's write is waited for: it is the end of speech.
      if (sequence === parts - 1) endOfSpeechAt = await this.#send(frame);
      else this.#post(frame);
    }
    this.#post(JSON.stringify({ service: COMMAND.utteranceEnd, turn, parts }));
    return this.#finish(endOfSpeechAt, timeoutMs);
  }

  async #finish(endOfSpeechAt: number, timeoutMs: number): Promise<TurnTimes> {
    await this.#until((frames) => frames.some((frame) => isType(frame, 'turn_end')), timeoutMs);
    const frames = this.#frames;
    const parts: { at: number; bytes: number }[] = [];
    const errors: string[] = [];
    let outcome = 'missing';
    let firstSoundAt = Number.NaN;
    let transcripts = 0;
    let finalBeforeAnswer = false;
    for (const frame of frames) {
      if (frame.isBinary) {
        parts.push({ at: frame.at, bytes: frame.data.byteLength - 4 });
        continue;
      }
      if (isType(frame, 'audio') && Number.isNaN(firstSoundAt)) firstSoundAt = frame.at;
      else if (isType(frame, 'transcript')) {
        transcripts += 1;
        const { final } = JSON.parse(textOf(frame)) as { final: boolean };
        if (final && Number.isNaN(firstSoundAt)) finalBeforeAnswer = true;
      } else if (isType(frame, 'error')) {
        const { code, message } = JSON.parse(textOf(frame)) as { code: string; message: string };
        errors.push(`${code}: ${message}`);
      } else if (isType(frame, 'turn_end')) {
        outcome = (JSON.parse(textOf(frame)) as { outcome: string }).outcome;
      }
    }
    return { endOfSpeechAt, firstSoundAt, parts, outcome, transcripts, finalBeforeAnswer, errors };
  }

  close(): void {
    this.socket.close();
  }
}
