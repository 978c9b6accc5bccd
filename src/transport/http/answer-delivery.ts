import type { HttpResponse } from 'uWebSockets.js';

/**
 * An answer whose body the client's connection did not take at once (its receive window and the kernel's
 * send buffer full: the client is not reading), written on as the client reads.
 *
 * This is what bounds what one HTTP connection may hold (docs/operations.md, "What one connection may
 * hold"). uWebSockets.js keeps a response pending until tryEnd has written its last byte, and closes a
 * connection on which a request arrives while a response is pending (both builds). So a connection owes
 * at most one answer at a time: what it holds of it is the body the route answered (a static file's is
 * the one copy the site holds) and at most one cork buffer (16 KiB) of what went before, never a copy per
 * pipelined request; the requests pipelined behind it close the connection instead of being answered into
 * an unbounded buffer. A client that takes nothing for SEND_TIMEOUT_MS is closed.
 */

/** Why an answer left unsent ended without reaching its client (`tour_bridge_http_answers_unsent_total`). */
export type UnsentReason = 'send_timeout' | 'connection_closed';

/** The answers written on as their clients read: how many wait now, and those that ended unsent, by reason. */
export interface AnswerDeliveries {
  /** Answers waiting now for their client to take the rest (`tour_bridge_http_answers_waiting`). */
  readonly waiting: { value: number };
  count(reason: UnsentReason): void;
}

/**
 * How long an answer may wait with its client taking none of it before the connection is closed
 * (nginx's send_timeout). Below the 10 s after which uWebSockets.js closes such a connection itself, so
 * the close is this one's, and counted as such.
 */
export const SEND_TIMEOUT_MS = 8_000;

/** Writes the rest of `body` (of `totalSize` bytes, as tryEnd was told) as the connection drains. */
export const finishWhenDrained = (
  res: HttpResponse,
  body: Uint8Array,
  totalSize: number,
  deliveries: AnswerDeliveries,
): void => {
  let finished = false;
  deliveries.waiting.value += 1;
  const finish = () => {
    finished = true;
    deliveries.waiting.value -= 1;
    clearTimeout(timer);
  };
  const timer = setTimeout(() => {
    if (finished) return;
    finish();
    deliveries.count('send_timeout');
    // Runs the abort handler below at once, which finds the answer finished.
    res.close();
  }, SEND_TIMEOUT_MS);
  timer.unref();
  // The request's own abort handler (if it had one) is replaced: its exchange has already answered.
  res.onAborted(() => {
    if (finished) return;
    finish();
    // The client left, or sent another request before taking this answer (uWebSockets.js then closes).
    deliveries.count('connection_closed');
  });
  res.onWritable((offset) => {
    const [ok, done] = res.tryEnd(body.subarray(offset), totalSize);
    if (done) {
      finish();
    } else {
      // The client took some: the time-out counts from now.
      timer.refresh();
    }
    return ok;
  });
};
