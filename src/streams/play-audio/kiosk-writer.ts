import { textFrame, type AudioPairFrame, type OutboundFrame } from '../../protocol/ws-frames.js';

/**
 * One kiosk's `/play_audio` messages that its socket could not take yet. Speech is only worth hearing
 * whole and recent: a kiosk slower than a burst keeps the newest messages, up to `capBytes`, and the
 * oldest are dropped whole, counted, so the kiosk can be told. The kiosk stays connected: closing it for
 * being slower than a burst would lose everything, not just the oldest words.
 *
 * The pairs are the ones shared by every session (never copied here); a pair's size is what its frames
 * put on the wire.
 */
export class PlayAudioBacklog {
  readonly #waiting: AudioPairFrame[] = [];
  #bytes = 0;
  #dropped = 0;

  constructor(readonly capBytes: number) {}

  /** Bytes a pair puts on the wire (its metadata and binary frames). */
  static sizeOf(pair: AudioPairFrame): number {
    let bytes = pair.meta.length;
    for (const part of pair.binary) bytes += part.byteLength;
    return bytes;
  }

  get length(): number {
    return this.#waiting.length;
  }

  /** Queues `pair`; drops the oldest waiting pairs (or `pair` itself, when alone it passes the cap). */
  push(pair: AudioPairFrame): void {
    const size = PlayAudioBacklog.sizeOf(pair);
    if (size > this.capBytes) {
      this.#dropped += 1;
      return;
    }
    this.#waiting.push(pair);
    this.#bytes += size;
    while (this.#bytes > this.capBytes) {
      const oldest = this.#waiting.shift();
      if (oldest === undefined) break;
      this.#bytes -= PlayAudioBacklog.sizeOf(oldest);
      this.#dropped += 1;
    }
  }

  /** The oldest waiting pair, if `fits` its size; taken out of the backlog. */
  takeIf(fits: (bytes: number) => boolean): AudioPairFrame | undefined {
    const oldest = this.#waiting[0];
    if (oldest === undefined) return undefined;
    const size = PlayAudioBacklog.sizeOf(oldest);
    if (!fits(size)) return undefined;
    this.#waiting.shift();
    this.#bytes -= size;
    return oldest;
  }

  /** Pairs dropped since the last call (the kiosk is told this number); resets it. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }

  clear(): void {
    this.#waiting.length = 0;
    this.#bytes = 0;
  }
}

export interface PlayAudioWriterOptions {
  readonly maxSendBufferBytes: number;
  /** Bytes waiting in the socket's send buffer now; without it pairs are written at once. */
  readonly bufferedBytes: (() => number) | undefined;
  /** Writes one frame or pair to the kiosk; false when the socket is gone or too far behind. */
  readonly send: (frame: OutboundFrame) => boolean;
  /** A write failed: the session ends. */
  readonly sendFailed: () => void;
  /** Told how many messages the backlog dropped (counted, logged). */
  readonly onDropped: ((count: number, reason: 'slow_kiosk') => void) | undefined;
}

export interface PlayAudioWriter {
  /** A new pair for this kiosk: written now if it fits, else it waits. */
  readonly offer: (pair: AudioPairFrame) => void;
  /** The socket took what it held (drain): write the pairs that waited, while they fit. */
  readonly flush: () => void;
  readonly clear: () => void;
}

/**
 * How one kiosk is written its `/play_audio` pairs: at once while the socket's send buffer can take them
 * under `maxSendBufferBytes`, so a burst never closes a slow kiosk with 1008; otherwise they wait in a
 * backlog of the same size, which drops the oldest whole messages. A kiosk that lost some is told how
 * many (`audio_dropped`) before the next message it gets, and every loss is counted.
 */
export const playAudioWriter = ({
  maxSendBufferBytes: limit,
  bufferedBytes: buffered,
  send,
  sendFailed,
  onDropped,
}: PlayAudioWriterOptions): PlayAudioWriter => {
  const backlog = new PlayAudioBacklog(limit);
  const write = (pair: AudioPairFrame): boolean => {
    const dropped = backlog.takeDropped();
    if (dropped > 0) {
      onDropped?.(dropped, 'slow_kiosk');
      if (!send(textFrame({ type: 'audio_dropped', count: dropped }))) return false;
    }
    return send(pair);
  };
  const flush = (): void => {
    if (buffered === undefined) return;
    for (;;) {
      const pair = backlog.takeIf((bytes) => buffered() + bytes <= limit);
      if (pair === undefined) return;
      if (!write(pair)) {
        sendFailed();
        return;
      }
    }
  };
  return {
    offer: (pair) => {
      if (buffered === undefined) {
        if (!send(pair)) sendFailed();
        return;
      }
      backlog.push(pair);
      flush();
    },
    flush,
    clear: () => {
      backlog.clear();
    },
  };
};
