import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import {
  UtteranceEvent,
  type ConverseFeedbackMsg,
  type TranscriptMsg,
  type UtteranceAudioMsg,
} from '../../src/ros/port/ros-messages.js';
import type { RosConverseHandler } from '../../src/ros/port/ros-port.js';
import { createSimBackend, type SimBackendOptions } from '../../src/robot/sim/sim-backend.js';

/**
 * The simulation on virtual time, for the streaming recogniser's tests: what it publishes and what goals
 * hear, each with the virtual time it happened at.
 */

/** `ms` of 16 kHz 16-bit mono PCM, a recognisable pattern (not silence, so a copy is told from zeros). */
export const pcm = (ms: number, seed = 1): Uint8Array =>
  Uint8Array.from({ length: ms * 32 }, (_, index) => (index * 7 + seed) & 0xff);

export const part = (id: string, sequence: number, audio: Uint8Array): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence,
  event: UtteranceEvent.PART,
  audio,
});
export const end = (id: string, parts: number): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence: parts,
  event: UtteranceEvent.END,
  audio: new Uint8Array(),
});
export const abandoned = (id: string, parts: number): UtteranceAudioMsg => ({
  utterance_id: id,
  sequence: parts,
  event: UtteranceEvent.ABANDONED,
  audio: new Uint8Array(),
});

/** What one goal heard: its parts and its result or failure, with times. */
export const goalRecorder = (now: () => number) => {
  const heard: string[] = [];
  const parts: ConverseFeedbackMsg[] = [];
  let resultMessage = '';
  const handler: RosConverseHandler = {
    part: (feedback) => {
      parts.push(feedback);
      heard.push(`part ${parts.length} @${now()}`);
    },
    finished: (result) => {
      resultMessage = result.message;
      heard.push(`result ${result.outcome} ${String(result.success)} @${now()}`);
    },
    failed: (error) => heard.push(`failed ${error.message} @${now()}`),
  };
  return { heard, parts, handler, message: () => resultMessage };
};

export const simOnVirtualTime = (options: SimBackendOptions = {}) => {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
  const sim = createSimBackend({ ...options, scheduler });
  const transcripts: string[] = [];
  const received: TranscriptMsg[] = [];
  sim.transcripts$.subscribe((transcript) => {
    received.push(transcript);
    transcripts.push(
      `${transcript.utterance_id} ${transcript.final ? 'final' : 'partial'} ${transcript.text} @${scheduler.now()}`,
    );
  });
  /** Runs `work` at virtual time `at` (ms). */
  const at = (time: number, work: () => void): void => {
    scheduler.schedule(work, time);
  };
  /**
   * Streams `parts` parts of `partMs` each, in real time from `from` (part k at from + k × partMs), and
   * the END with the last part.
   */
  const stream = (id: string, from: number, parts: number, partMs: number): void => {
    for (let sequence = 0; sequence < parts; sequence += 1) {
      at(from + sequence * partMs, () => {
        sim.publishUtteranceAudio(part(id, sequence, pcm(partMs, sequence)));
        if (sequence === parts - 1) sim.publishUtteranceAudio(end(id, parts));
      });
    }
  };
  return { scheduler, sim, transcripts, received, at, stream };
};
