import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult =
  | { readonly kind: 'complete'; readonly bytes: Buffer }
  /** `drained`: the rest of the body was read and thrown away, so the connection can stay open. */
  | { readonly kind: 'too-large'; readonly drained: boolean }
  | { readonly kind: 'aborted' };

/**
 * Most bytes of an oversized body read and thrown away before answering 413. Answering while the client
 * is still sending and then closing makes many clients fail with EPIPE instead of reading the 413; past
 * this bound the connection is closed anyway, so a client cannot make the server read forever.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Collects a request body of at most `limit` bytes and hands it to `done` once. uWebSockets.js reuses each
 * chunk's memory after the callback returns, so chunks are copied. Past the limit nothing more is kept:
 * the rest is read and discarded (up to DISCARD_LIMIT_BYTES), so an oversized body never sits in memory.
 * The caller reports an aborted request with `BodyReader.abort()`; `done` then hears `aborted`.
 */
export const readRequestBody = (
  res: HttpResponse,
  limit: number,
  done: (result: BodyResult) => void,
): { abort(): void } => {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    done(result);
  };
  res.onData((chunk, isLast) => {
    if (settled) return;
    received += chunk.byteLength;
    if (received > limit) {
      chunks.length = 0;
      if (isLast) settle({ kind: 'too-large', drained: true });
      else if (received > DISCARD_LIMIT_BYTES) settle({ kind: 'too-large', drained: false });
      return;
    }
    chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
    if (isLast) settle({ kind: 'complete', bytes: Buffer.concat(chunks, received) });
  });
  return {
    abort: () => {
      settle({ kind: 'aborted' });
    },
  };
};
