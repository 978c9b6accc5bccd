import type { ErrorCode } from '../../src/protocol/ws/index.js';

/**
 * What the robot says in its speech bubble when a question gets no answer: an apology, a face to match,
 * and what to do next. Pure; the kiosk shows these where the answer would have been, so a visitor looking
 * at the robot sees them (a notice under the button is easy to miss).
 */

export interface FailureLine {
  readonly text: string;
  readonly emotion: string;
}

/** Part of a streamed utterance went wrong on its way: what the robot got is not what was said. */
const LOST_WORDS: FailureLine = {
  text: 'Sorry, some of your words got lost on the way to me. Please say that again.',
  emotion: 'sad',
};

/** By the error frame's code, for errors about a turn the visitor still waits for. */
const BY_CODE: Readonly<Partial<Record<ErrorCode, FailureLine>>> = {
  chat_timeout: { text: 'Sorry, I took too long to think about that. Please ask me again.', emotion: 'sad' },
  chat_failed: {
    text: 'Sorry, something went wrong while I was answering. Please ask me again.',
    emotion: 'sad',
  },
  chat_unavailable: {
    text: 'Sorry, I cannot answer questions right now. Please try again in a moment.',
    emotion: 'sad',
  },
  busy: { text: 'Sorry, I was still answering and missed that. Please ask me again.', emotion: 'surprised' },
  microphone_disabled: {
    text: 'Sorry, my microphone was switched off, so I did not hear that.',
    emotion: 'sad',
  },
  // A streamed utterance the service abandoned (turn_end `abandoned`) or refused: the visitor hears what to
  // do, not which rule of the protocol broke.
  utterance_too_large: {
    text: 'Sorry, that was more than I can take in at once. Please ask me in fewer words.',
    emotion: 'surprised',
  },
  utterance_stalled: {
    text: 'Sorry, your words stopped reaching me halfway. Please say that again.',
    emotion: 'sad',
  },
  utterance_too_fast: LOST_WORDS,
  utterance_incomplete: LOST_WORDS,
  part_out_of_order: LOST_WORDS,
  part_too_large: LOST_WORDS,
  part_odd_length: LOST_WORDS,
  utterance_too_slow: {
    text: 'Sorry, your words stopped reaching me halfway. Please say that again.',
    emotion: 'sad',
  },
  utterance_too_long: {
    text: 'Sorry, that was more than I can take in at once. Please ask me in fewer words.',
    emotion: 'surprised',
  },
  utterance_open: {
    text: 'Sorry, I was still listening to you and missed that. Please say it again.',
    emotion: 'surprised',
  },
};

/** The line for an error about a turn, or undefined when the code is not about an unanswered question. */
export const failureLine = (code: ErrorCode): FailureLine | undefined => BY_CODE[code];

/** A question sent on a connection that dropped before its answer came. */
export const LOST_QUESTION: FailureLine = {
  text: 'Sorry, I lost your question when my connection dropped. Please ask me again.',
  emotion: 'sad',
};

/** A streamed utterance the service abandoned without an error this page could say (turn_end `abandoned`). */
export const ABANDONED_UTTERANCE: FailureLine = LOST_WORDS;

/** The connection dropped while the visitor was speaking: nothing of it reached the robot to answer. */
export const LOST_RECORDING: FailureLine = {
  text: 'Sorry, my connection dropped while you were speaking, so I did not hear you. Please say that again.',
  emotion: 'sad',
};
