import { PCM_BYTES_PER_SECOND } from '../../src/protocol/ws/index.js';
import type { TtfsRow } from './results.js';
import { round, summarize, type LatencySummary } from './stats.js';
import { TtfsKiosk, type TurnTimes } from './ttfs-kiosk.js';

/**
 * Scenario 6, time to first sound: one kiosk session, one turn at a time. Each turn sends a 1 s utterance
 * whole and records when its last byte was handed to the socket and when the answer's frames came
 * (ttfs-kiosk.ts). The bridge runs the simulation with a modelled pipeline: part k is scheduled k × partMs
 * after the goal, the `/chat` answer after parts × partMs, so arrival minus that schedule is what the
 * bridge (and loopback, and the timer's own lateness) adds.
 */

export const summaryMs = (values: readonly number[]): LatencySummary => {
  const summary = summarize(values);
  return {
    samples: summary.samples,
    p50: round(summary.p50),
    p99: round(summary.p99),
    max: round(summary.max),
    mean: round(summary.mean),
  };
};

/** Milliseconds of 16 kHz 16-bit mono speech in `bytes`. */
export const speechMs = (bytes: number): number => (bytes / PCM_BYTES_PER_SECOND) * 1000;

/** A turn's problem, or undefined when it ended answered with every part and every byte. */
export const turnProblem = (
  turn: TurnTimes,
  expected: { readonly parts: number; readonly bytes: number },
): string | undefined => {
  const bytes = turn.parts.reduce((total, part) => total + part.bytes, 0);
  if (turn.outcome === 'answered' && turn.parts.length === expected.parts && bytes === expected.bytes) {
    return undefined;
  }
  const errors = turn.errors.length === 0 ? '' : ` (${turn.errors.join('; ')})`;
  return `${turn.outcome}, ${turn.parts.length} parts, ${bytes} of ${expected.bytes} bytes${errors}`;
};

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
  const expectedParts = chatInterface === 'action' ? parts : 1;
  try {
    for (let index = 0; index < settings.warmupTurns; index += 1) await kiosk.wholeTurn(utterance, timeoutMs);
    for (let index = 0; index < settings.turns; index += 1) {
      const turn = await kiosk.wholeTurn(utterance, timeoutMs);
      const problem = turnProblem(turn, { parts: expectedParts, bytes: utteranceBytes });
      if (problem !== undefined) {
        problems.push(`turn ${index + 1}: ${problem}`);
        continue;
      }
      firstByte.push(turn.firstSoundAt - turn.endOfSpeechAt);
      turn.parts.forEach((part, k) => {
        const scheduled =
          turn.endOfSpeechAt + (chatInterface === 'action' ? (k + 1) * partMs : parts * partMs);
        added.push(part.at - scheduled);
      });
    }
  } finally {
    kiosk.close();
  }
  return {
    chatInterface,
    upload: 'whole',
    utteranceMs: round(speechMs(utteranceBytes)),
    utteranceBytes,
    streamPartMs: 0,
    recognitionRt: 0,
    parts,
    partMs,
    turns: settings.turns,
    ...summaryMs(firstByte),
    addedPerPart: summaryMs(added),
    problems,
  };
};
