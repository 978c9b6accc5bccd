import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { PCM_BYTES_PER_SECOND, WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';
import type { TtfsRow } from './results.js';
import { round } from './stats.js';
import { summaryMs, turnProblem } from './ttfs.js';
import { TtfsKiosk, type TurnTimes } from './ttfs-kiosk.js';

/**
 * Scenario 6, streamed against whole (issue #39): time to first sound from the end of speech, for
 * utterances of several lengths, on one bridge (`--chat_interface action`, the simulation with its
 * recogniser stand-in at `recognitionRt`). Two kiosk sessions: one streams each utterance in parts at the
 * speed of speech (a session that streams sends only parts), the other sends it as one WAV frame once it is
 * over. Their turns alternate, length by length, so both see the same machine.
 */

export interface StreamingTtfsSettings {
  readonly url: string;
  readonly utteranceMs: readonly number[];
  readonly streamPartMs: number;
  readonly recognitionRt: number;
  /** The simulation's answer pipeline (--sim_chat_parts, --sim_part_ms), as the bridge was started. */
  readonly parts: number;
  readonly partMs: number;
  readonly warmupTurns: number;
  readonly turns: number;
}

/** `ms` of 16-bit PCM, a pattern rather than silence, so a lost or misplaced byte would show. */
const speech = (ms: number): Uint8Array => {
  const bytes = Math.round((ms / 1000) * PCM_BYTES_PER_SECOND);
  return Uint8Array.from({ length: bytes }, (_, index) => (index * 31 + 7) & 0xff);
};

interface Cell {
  readonly upload: 'streamed' | 'whole';
  readonly utteranceMs: number;
  readonly firstSound: number[];
  readonly added: number[];
  readonly problems: string[];
}

export const measureStreamedTtfs = async (settings: StreamingTtfsSettings): Promise<TtfsRow[]> => {
  const { streamPartMs, recognitionRt: rt, parts, partMs } = settings;
  const partBytes = Math.round((streamPartMs / 1000) * PCM_BYTES_PER_SECOND);
  const streaming = await TtfsKiosk.open(settings.url);
  const whole = await TtfsKiosk.open(settings.url);
  const cells: Cell[] = settings.utteranceMs.flatMap((utteranceMs) =>
    (['streamed', 'whole'] as const).map((upload) => ({
      upload,
      utteranceMs,
      firstSound: [],
      added: [],
      problems: [],
    })),
  );
  /** One turn: streamed by one kiosk, or whole by the other. */
  const run = async (upload: 'streamed' | 'whole', utteranceMs: number): Promise<TurnTimes> => {
    const pcm = speech(utteranceMs);
    const timeoutMs = 10_000 + utteranceMs * (1 + rt) + parts * partMs * 2;
    return upload === 'streamed'
      ? streaming.streamedTurn(pcm, partBytes, streamPartMs, timeoutMs)
      : whole.wholeTurn(wavOfPcmParts([pcm]), timeoutMs);
  };
  try {
    for (let index = 0; index < settings.warmupTurns; index += 1) {
      await run('streamed', 1000);
      await run('whole', 1000);
    }
    for (let index = 0; index < settings.turns; index += 1) {
      for (const cell of cells) {
        const { upload, utteranceMs } = cell;
        const turn = await run(upload, utteranceMs);
        const pcmBytes = speech(utteranceMs).byteLength;
        // The simulation echoes a streamed utterance as the WAV of its parts: the same bytes either way.
        const problem =
          turnProblem(turn, { parts, bytes: WAV_HEADER_BYTES + pcmBytes }) ??
          (upload === 'streamed' && !turn.finalBeforeAnswer
            ? `no final transcript before the answer (${turn.transcripts} transcripts)`
            : undefined);
        if (problem !== undefined) {
          cell.problems.push(`${upload} ${utteranceMs} ms, turn ${index + 1}: ${problem}`);
          continue;
        }
        cell.firstSound.push(turn.firstSoundAt - turn.endOfSpeechAt);
        // Recognition still due at the end of speech: the last part's (streamed), or all of it (whole).
        const lastPartMs = utteranceMs - Math.floor((utteranceMs - 1) / streamPartMs) * streamPartMs;
        const recognitionDue = rt * (upload === 'streamed' ? lastPartMs : utteranceMs);
        turn.parts.forEach((part, k) => {
          cell.added.push(part.at - (turn.endOfSpeechAt + recognitionDue + (k + 1) * partMs));
        });
      }
    }
  } finally {
    streaming.close();
    whole.close();
  }
  return cells.map((cell) => ({
    chatInterface: 'action',
    upload: cell.upload,
    utteranceMs: cell.utteranceMs,
    utteranceBytes: speech(cell.utteranceMs).byteLength + (cell.upload === 'whole' ? WAV_HEADER_BYTES : 0),
    streamPartMs: cell.upload === 'streamed' ? streamPartMs : 0,
    recognitionRt: round(rt),
    parts,
    partMs,
    turns: settings.turns,
    ...summaryMs(cell.firstSound),
    addedPerPart: summaryMs(cell.added),
    problems: cell.problems,
  }));
};
