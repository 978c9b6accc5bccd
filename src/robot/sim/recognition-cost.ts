import { PCM_BYTES_PER_SECOND } from '../../protocol/ws-wire.js';
import { wavSeconds } from '../echo-chat.js';

/**
 * What the simulated recogniser's work costs: `rt` × the audio's duration (rt 0.3 recognises a second of
 * speech in 300 ms). No words are recognised; the cost is the honest part of the stand-in, so the time a
 * streamed utterance saves against a whole one is measured on the same model (docs/performance.md).
 */

/** Most `rt` the simulation takes (`--sim_recognition_rt`): 10 s of work per second of speech. */
export const MAX_RECOGNITION_RT = 10;

/** Seconds of speech in raw PCM as the kiosk streams it (16 kHz, 16-bit, mono). */
export const pcmSeconds = (bytes: number): number => bytes / PCM_BYTES_PER_SECOND;

/**
 * Seconds of speech in a whole utterance: a WAV file's data chunk at its own byte rate; anything else is
 * taken as raw PCM of the kiosk's format.
 */
export const utteranceSeconds = (audio: Uint8Array): number =>
  wavSeconds(audio) ?? pcmSeconds(audio.byteLength);

/** Milliseconds of recognition work for `seconds` of speech at `rt`. */
export const recognitionMs = (rt: number, seconds: number): number => rt * seconds * 1000;

/** Checks `rt` once, where the simulation is made: a bad value would make every delay NaN. */
export const checkRecognitionRt = (rt: number): number => {
  if (!Number.isFinite(rt) || rt < 0 || rt > MAX_RECOGNITION_RT) {
    throw new RangeError(`recognition rt must be a number from 0 to ${MAX_RECOGNITION_RT}, got ${rt}`);
  }
  return rt;
};
