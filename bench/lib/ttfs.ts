import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { zeroMask } from '../clients/protocol.js';
import type { TtfsRow } from './results.js';
import { round, summarize, type LatencySummary } from './stats.js';

/**
 * Scenario 6, time to first sound: one kiosk session, one turn at a time. Each turn sends a 1 s utterance
 * and records, on this process's monotonic clock, when its last byte was handed to the socket (the `send`
 * callback: written to the kernel), when the first byte of the answer arrived (the first pair's metadata
 * frame) and when each part's pair was complete. The bridge runs the simulation with a modelled pipeline:
 * part k is scheduled k × partMs after the goal, the `/chat` answer after parts × partMs, so arrival minus
 * that schedule is what the bridge (and loopback, and the timer's own lateness) adds.
 */

interface TurnTimes {
  readonly sentAt: number;
  readonly firstByteAt: number;
  /** Pairs complete, in arrival order: time and audio bytes. */
  readonly parts: readonly { readonly at: number; readonly bytes: number }[];
  readonly outcome: string;
}

const summaryMs = (values: readonly number[]): LatencySummary => {
  const summary = summarize(values);
  return {
    samples: summary.samples,
    p50: round(summary.p50),
    p99: round(summary.p99),
    max: round(summary.max),
    mean: round(summary.mean),
  };
};

class TtfsKiosk {
  #frames: { readonly at: number; readonly data: Buffer; readonly isBinary: boolean }[] = [];
  #wake: (() => void) | undefined;

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

  /** Waits (bounded) until `done` holds over the frames received since the last turn. */
  async #until(
    done: (frames: readonly { isBinary: boolean; data: Buffer }[]) => boolean,
    timeoutMs: number,
  ): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done(this.#frames)) {
      const left = deadline - performance.now();
      if (left <= 0 || this.socket.readyState !== WebSocket.OPEN) {
        throw new Error(`no complete turn within ${timeoutMs} ms (${this.#frames.length} frames)`);
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

  async turn(utterance: Buffer, timeoutMs: number): Promise<TurnTimes> {
    this.#frames = [];
    const sentAt = await new Promise<number>((resolve, reject) => {
      this.socket.send(utterance, { binary: true }, (error) => {
        // ws passes null or undefined when the write went through, whatever its types say.
        if (error instanceof Error) reject(error);
        else resolve(performance.now());
      });
    });
    const isTurnEnd = (frame: { isBinary: boolean; data: Buffer }) =>
      !frame.isBinary && frame.data.includes('"type":"turn_end"');
    await this.#until((frames) => frames.some(isTurnEnd), timeoutMs);
    const frames = this.#frames;
    const parts: { at: number; bytes: number }[] = [];
    let outcome = 'missing';
    for (const frame of frames) {
      if (frame.isBinary) parts.push({ at: frame.at, bytes: frame.data.byteLength - 4 });
      else if (isTurnEnd(frame))
        outcome = (JSON.parse(frame.data.toString('utf8')) as { outcome: string }).outcome;
    }
    const firstByteAt = frames[0]?.at ?? Number.NaN;
    return { sentAt, firstByteAt, parts, outcome };
  }

  close(): void {
    this.socket.close();
  }
}

export interface TtfsSettings {
  readonly url: string;
  readonly chatInterface: 'service' | 'action';
  readonly utteranceBytes: number;
  readonly parts: number;
  readonly partMs: number;
  readonly warmupTurns: number;
  readonly turns: number;
}

/** Runs the turns of one interface against a bridge started with the matching options. */
export const measureTtfs = async (settings: TtfsSettings): Promise<TtfsRow> => {
  const { chatInterface, utteranceBytes, parts, partMs } = settings;
  const utterance = Buffer.alloc(utteranceBytes);
  for (let index = 0; index < utteranceBytes; index += 1) utterance[index] = (index * 31) & 0xff;
  const kiosk = await TtfsKiosk.open(settings.url);
  const timeoutMs = 10_000 + parts * partMs * 2;
  const firstByte: number[] = [];
  const added: number[] = [];
  const problems: string[] = [];
  try {
    for (let index = 0; index < settings.warmupTurns; index += 1) await kiosk.turn(utterance, timeoutMs);
    for (let index = 0; index < settings.turns; index += 1) {
      const turn = await kiosk.turn(utterance, timeoutMs);
      const expectedParts = chatInterface === 'action' ? parts : 1;
      const bytes = turn.parts.reduce((total, part) => total + part.bytes, 0);
      if (turn.outcome !== 'answered' || turn.parts.length !== expectedParts || bytes !== utteranceBytes) {
        problems.push(
          `turn ${index + 1}: ${turn.outcome}, ${turn.parts.length} parts, ${bytes} of ${utteranceBytes} bytes`,
        );
        continue;
      }
      firstByte.push(turn.firstByteAt - turn.sentAt);
      turn.parts.forEach((part, k) => {
        const scheduled = turn.sentAt + (chatInterface === 'action' ? (k + 1) * partMs : parts * partMs);
        added.push(part.at - scheduled);
      });
    }
  } finally {
    kiosk.close();
  }
  return {
    chatInterface,
    utteranceBytes,
    parts,
    partMs,
    turns: settings.turns,
    firstByte: summaryMs(firstByte),
    addedPerPart: summaryMs(added),
    problems,
  };
};
