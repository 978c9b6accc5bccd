import type { Page } from 'playwright-core';

/**
 * Every frame a page sent on its WebSockets, in order, as the browser saw it: commands parsed, a binary
 * frame as its byte count.
 */
export type SentFrame =
  | { readonly kind: 'text'; readonly json: Record<string, unknown> }
  | { readonly kind: 'binary'; readonly bytes: number };

export const watchSentFrames = (page: Page): SentFrame[] => {
  const frames: SentFrame[] = [];
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      frames.push(
        typeof payload === 'string'
          ? { kind: 'text', json: JSON.parse(payload) as Record<string, unknown> }
          : { kind: 'binary', bytes: payload.byteLength },
      );
    });
  });
  return frames;
};

/** The services of the commands sent, in order ("utterance_start", "cancel", "clear_history", …). */
export const commandsSent = (frames: readonly SentFrame[]): string[] =>
  frames.flatMap((frame) => (frame.kind === 'text' ? [String(frame.json['service'])] : []));
