import { PCM_SAMPLE_RATE } from '../../src/protocol/ws/index.js';

/** One utterance is cut at a minute (1.9 MB), or at the service's own limit if it takes less. */
const MINUTE_SAMPLES = 60 * PCM_SAMPLE_RATE;

/** The samples an utterance may hold: a minute, or what the service's `state` says it takes if less. */
export const maxUtteranceSamples = (utteranceMs: number): number =>
  Math.min(MINUTE_SAMPLES, Math.floor((utteranceMs * PCM_SAMPLE_RATE) / 1000));

/** Why a message was sent before the visitor let go, naming the limit it reached. */
export const limitNotice = (maxSamples: number): string => {
  const longest =
    maxSamples === MINUTE_SAMPLES ? 'One minute' : `${Math.floor(maxSamples / PCM_SAMPLE_RATE)} seconds`;
  return `${longest} is the longest a message can be, so what you said was sent.`;
};
