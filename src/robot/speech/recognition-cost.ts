import { PCM_BYTES_PER_SECOND } from '../../protocol/ws/index.js';
import { wavSeconds } from '../echo-chat.js';

/*
 * The stand-in recogniser's stated cost, the one model of the simulation (`--sim_recognition_rt`) and the
 * reference nodes (`--recognition_rt`). Nothing is recognised: recognising speech takes `rt` × its
 * duration (rt 0.3: 300 ms for a second of speech), paid as a wait, the same on the streamed path (part by
 * part as the parts arrive) and the whole one (after the whole utterance), so the time a streamed
 * utterance saves against a whole one is measured on one recogniser (docs/performance.md). Its transcript
 * states how much speech it heard.
 */

/** Most `rt`: 10 s of work per second of speech is already no recogniser anyone would run. */
export const MAX_RECOGNITION_RT = 10;

/** Seconds of headerless 16-bit mono 16 kHz PCM, as the kiosk streams it and /utterance/audio carries it. */
export const pcmSeconds = (bytes: number): number => bytes / PCM_BYTES_PER_SECOND;

/**
 * Seconds of speech in a whole utterance: a WAV file's data chunk at its own byte rate; anything else is
 * taken as headerless PCM of the kiosk's format.
 */
export const utteranceSeconds = (audio: Uint8Array): number =>
  wavSeconds(audio) ?? pcmSeconds(audio.byteLength);

/** Milliseconds of recognition work for `seconds` of speech at `rt`. */
export const recognitionMs = (rt: number, seconds: number): number => rt * seconds * 1000;

/** The stand-in's transcript: no words, the speech it heard so far, e.g. "[1.2 s of speech]". */
export const transcriptText = (seconds: number): string => `[${seconds.toFixed(1)} s of speech]`;

/** Checks `rt` once, where a stand-in is made: a bad value would make every delay NaN. */
export const checkRecognitionRt = (rt: number): number => {
  if (!Number.isFinite(rt) || rt < 0 || rt > MAX_RECOGNITION_RT) {
    throw new RangeError(`recognition rt must be a number from 0 to ${MAX_RECOGNITION_RT}, got ${rt}`);
  }
  return rt;
};
