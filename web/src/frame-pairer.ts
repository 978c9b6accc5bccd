import { readAudioFrame, type AudioMessage } from '../../src/protocol/ws/index.js';

export interface AudioPair {
  readonly meta: AudioMessage;
  readonly audio: ArrayBuffer;
}

export type BinaryResult =
  | { readonly kind: 'pair'; readonly pair: AudioPair }
  /** A binary frame whose metadata never came (or was evicted): dropped. */
  | { readonly kind: 'orphan'; readonly messageId: number }
  | { readonly kind: 'malformed' };

/**
 * Joins `audio` metadata frames with the binary frames that carry the same message id. The server sends
 * each binary frame right after its metadata, so at most one is normally waiting; the bound only guards
 * against a server that misbehaves, evicting the oldest.
 */
export class FramePairer {
  private readonly waiting = new Map<number, AudioMessage>();

  constructor(readonly maxWaiting = 4) {}

  /** Records metadata; returns metadata evicted to stay within the bound, if any. */
  meta(message: AudioMessage): AudioMessage | undefined {
    this.waiting.delete(message.messageId);
    this.waiting.set(message.messageId, message);
    if (this.waiting.size <= this.maxWaiting) return undefined;
    // A Map iterates in insertion order: the first key is the oldest.
    const oldestId = this.waiting.keys().next().value;
    if (oldestId === undefined) return undefined;
    const oldest = this.waiting.get(oldestId);
    this.waiting.delete(oldestId);
    return oldest;
  }

  binary(frame: ArrayBuffer): BinaryResult {
    const parsed = readAudioFrame(frame);
    if (parsed === undefined) return { kind: 'malformed' };
    const meta = this.waiting.get(parsed.messageId);
    if (meta === undefined) return { kind: 'orphan', messageId: parsed.messageId };
    this.waiting.delete(parsed.messageId);
    return { kind: 'pair', pair: { meta, audio: parsed.audio } };
  }

  /** Forgets everything, e.g. when the connection drops (ids restart with a new session). */
  clear(): void {
    this.waiting.clear();
  }
}
