import { PCM_BYTES_PER_SECOND } from '../../protocol/ws-wire.js';
import { wavSeconds } from '../echo-chat.js';

/*
 * The stand-in recogniser's stated cost. Nothing is recognised: recognising speech takes `rt` × its
 * duration (`--recognition_rt`, e.g. 0.3: 300 ms for a second of speech), paid as a wait, the same on
 * the streamed path (part by part as the parts arrive) and the whole one (after the whole utterance), so
 * the two compare on one recogniser. Its transcript states how much speech it heard.
 */

/** Most `--recognition_rt`: ten times slower than speech is already no recogniser anyone would run. */
export const MAX_RECOGNITION_RT = 10;

/** Seconds of headerless 16-bit mono 16 kHz PCM, as /utterance/audio carries it. */
export const pcmSeconds = (bytes: number): number => bytes / PCM_BYTES_PER_SECOND;

/** Seconds of a whole utterance: a WAV's data chunk, or its bytes taken as headerless PCM. */
export const utteranceSeconds = (audio: Uint8Array): number =>
  wavSeconds(audio) ?? pcmSeconds(audio.byteLength);

/** How long recognising `seconds` of speech takes at `rt`, in milliseconds. */
export const recognitionMs = (rt: number, seconds: number): number => rt * seconds * 1000;

/** The stand-in's transcript: no words, the speech it heard so far, e.g. "[1.2 s of speech]". */
export const transcriptText = (seconds: number): string => `[${seconds.toFixed(1)} s of speech]`;
