import type { ErrorCode } from '../../src/protocol/ws-wire.js';

/**
 * What the robot says in its speech bubble when a question gets no answer: an apology, a face to match,
 * and what to do next. Pure; the kiosk shows these where the answer would have been, so a visitor looking
 * at the robot sees them (a notice under the button is easy to miss).
 */

export interface FailureLine {
  readonly text: string;
  readonly emotion: string;
}

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
};

/** The line for an error about a turn, or undefined when the code is not about an unanswered question. */
export const failureLine = (code: ErrorCode): FailureLine | undefined => BY_CODE[code];

/** A question sent on a connection that dropped before its answer came. */
export const LOST_QUESTION: FailureLine = {
  text: 'Sorry, I lost your question when my connection dropped. Please ask me again.',
  emotion: 'sad',
};
