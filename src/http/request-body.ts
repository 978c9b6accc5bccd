import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult =
  | { readonly kind: 'complete'; readonly bytes: Buffer }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'aborted' };

/**
 * Collects a request body of at most `limit` bytes. uWebSockets.js reuses each chunk's memory after
 * the callback returns, so chunks are copied. Stops collecting (and reports too-large) as soon as the
 * limit is passed, so an oversized body never sits in memory.
 */
export const readRequestBody = (
  res: HttpResponse,
  limit: number,
  onAbort: (listener: () => void) => void,
): Promise<BodyResult> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    onAbort(() => {
      settle({ kind: 'aborted' });
    });
    res.onData((chunk, isLast) => {
      if (settled) return;
      received += chunk.byteLength;
      if (received > limit) {
        chunks.length = 0;
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (isLast) settle({ kind: 'complete', bytes: Buffer.concat(chunks, received) });
    });
  });
