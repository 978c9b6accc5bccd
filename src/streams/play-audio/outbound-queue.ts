import {
  CLOSE_CODES,
  closeFrame,
  textFrame,
  type AudioPairFrame,
  type OutboundFrame,
} from '../../protocol/ws/index.js';
import type { PlayAudioDropReason, WriteScheduler } from './fan-out.js';

/**
 * What waits to be written to the kiosks, held here rather than in uWebSockets.js. uWS keeps a socket's
 * send buffer as a string whose capacity stays at its largest until the socket closes, so every byte it
 * was ever asked to hold for a slow reader stays taken; here, a `/play_audio` pair waiting for 100 kiosks
 * is one shared object, and what a kiosk drained is given back at once. A socket is written only while
 * uWS holds less than LOW_WATER_BYTES for it, so uWS holds at most that plus one frame per socket.
 */
export const LOW_WATER_BYTES = 256 * 1024;

/** Bytes a frame puts on the wire (a pair: its metadata and binary frames). */
export const wireBytes = (frame: OutboundFrame): number => {
  if (frame.kind === 'text') return frame.text.length;
  if (frame.kind === 'close') return 0;
  let bytes = frame.meta.length;
  for (const part of frame.binary) bytes += part.byteLength;
  return bytes;
};

interface Waiting {
  readonly frame: OutboundFrame;
  readonly bytes: number;
  /** A `/play_audio` pair: may be dropped whole, oldest first, for a kiosk too far behind. */
  readonly playAudio: boolean;
}

export interface KioskQueueOptions {
  /**
   * Bytes that may wait here for this kiosk (besides uWS's buffer), and in uWS's buffer after a write:
   * `--send_buffer_bytes`. Past it after a write, the socket is closed with 1008.
   */
  readonly capBytes: number;
  /** Bytes waiting in uWS's send buffer for the socket now (read after each write, and when the last write's figure says wait). */
  readonly bufferedBytes: () => number;
  /** The transport's write of one frame (a pair in one corked write, or a close); throws when the socket is gone. */
  readonly send: (frame: OutboundFrame) => void;
  /**
   * Runs several writes as one to the socket where the transport can (uWebSockets.js's cork: a turn's last
   * pair and its `turn_end` in one syscall while they fit its 16 KiB buffer). Without it, one by one.
   */
  readonly batch?: ((writes: () => void) => void) | undefined;
  /** A write failed or left the kiosk past its cap: the session ends. */
  readonly writeFailed: () => void;
}

/**
 * One kiosk's frames that wait. The session's frames keep their order, and so do the `/play_audio` pairs,
 * each written whole. A session pair waits behind the `/play_audio` pairs already waiting (message ids
 * increase in the order pairs leave); a session text frame (an ack, an error, `turn_end`, a transcript,
 * none with an id) waits only behind the session's own frames, so a kiosk's answers do not wait behind a
 * backlog of announcements. A frame the session sends while none of its own wait and uWS holds little is
 * written at once. `/play_audio` pairs always wait for the scheduler (fan-out.ts), which spreads a
 * fan-out over loop turns. A write after which uWS holds more than the cap closes the socket with 1008.
 */
export class KioskQueue {
  readonly #waiting: Waiting[] = [];
  #bytes = 0;
  /** Pairs dropped and not yet told (the kiosk is told before the next pair it gets). */
  #untold = 0;
  /** Takes nothing more: cleared (the session ended), or broken. */
  #closed = false;
  /** A write threw, or the kiosk fell past its cap and was closed. */
  #broken = false;
  /**
   * What uWS held after the last write: at least what it holds now, as it only drains between writes. A
   * frame is written on this figure, so a frame costs one read of the buffer (the one after its write), and
   * the buffer is read again only when this figure says the frame should wait.
   */
  #held = 0;

  constructor(
    private readonly options: KioskQueueOptions,
    private readonly scheduler: WriteScheduler,
  ) {}

  /** Bytes waiting here (not counting uWS's buffer). */
  get bytes(): number {
    return this.#bytes;
  }

  /** A write threw, or the kiosk fell past its cap (closed with 1008): nothing more is sent. */
  get broken(): boolean {
    return this.#broken;
  }

  /**
   * A session frame: written now when nothing waits and uWS holds less than LOW_WATER_BYTES, else queued;
   * a close frame at once, what waits dropped. False when it was not sent, or cannot wait either: more than
   * the cap would wait even with every `/play_audio` pair dropped (then the socket is closed with 1008).
   */
  send(frame: OutboundFrame): boolean {
    if (frame.kind === 'close') return this.#end(frame);
    if (this.#closed) return false;
    if (this.#placeFor(frame) === 0 && this.#heldBelow(LOW_WATER_BYTES)) return this.#write(frame);
    const bytes = wireBytes(frame);
    while (this.#over(bytes) && this.dropOldest('slow_kiosk')) {
      // dropped one pair; check again
    }
    if (this.#over(bytes)) {
      this.#overflow();
      return false;
    }
    this.#push({ frame, bytes, playAudio: false }, this.#placeFor(frame));
    return true;
  }

  /** Runs `writes` as one write where the transport can; returns what `writes` returns (every frame sent). */
  batch(writes: () => boolean): boolean {
    const { batch } = this.options;
    if (batch === undefined || this.#broken) return writes();
    let sent = false;
    batch(() => {
      sent = writes();
    });
    return sent;
  }

  /** The session closes the socket: what waits is dropped, the close frame written now. */
  #end(frame: OutboundFrame): boolean {
    if (this.#broken) return false;
    this.clear();
    try {
      this.options.send(frame);
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  }

  /** Where a session frame waits: a text frame just after the session's own waiting frames, a pair last. */
  #placeFor(frame: OutboundFrame): number {
    if (frame.kind !== 'text') return this.#waiting.length;
    let at = this.#waiting.length;
    while (at > 0 && this.#waiting[at - 1]?.playAudio === true) at -= 1;
    return at;
  }

  /** A `/play_audio` pair: queued, the oldest pairs dropped while more than the cap would wait. */
  readonly offer = (pair: AudioPairFrame): void => {
    if (this.#closed) return;
    const bytes = wireBytes(pair);
    if (bytes > this.options.capBytes) {
      this.#drop('slow_kiosk');
      return;
    }
    while (this.#over(bytes) && this.dropOldest('slow_kiosk')) {
      // dropped one pair; check again
    }
    if (this.#over(bytes)) {
      this.#drop('slow_kiosk');
      return;
    }
    this.#push({ frame: pair, bytes, playAudio: true });
  };

  /** Drops the oldest waiting `/play_audio` pair; false when none waits. */
  dropOldest(reason: PlayAudioDropReason): boolean {
    const index = this.#waiting.findIndex((item) => item.playAudio);
    if (index === -1) return false;
    const [item] = this.#waiting.splice(index, 1);
    if (item !== undefined) this.#taken(item);
    this.#drop(reason);
    if (this.#waiting.length === 0) this.scheduler.forget(this);
    return true;
  }

  /** The socket drained: its waiting frames are written again, on the scheduler's turns. */
  drained(): void {
    if (this.#waiting.length > 0 && !this.#closed) this.scheduler.wake(this);
  }

  /**
   * Writes waiting frames while uWS holds less than LOW_WATER_BYTES, until `maxBytes` are written (at
   * least one frame); returns the bytes written. Whether it could write more now is `writable` after.
   */
  pump(maxBytes: number): number {
    let written = 0;
    while (!this.#closed && written < maxBytes && this.#fits(this.#waiting[0])) {
      const item = this.#waiting.shift();
      if (item === undefined) break;
      this.#taken(item);
      if (item.playAudio && this.#untold > 0) {
        const count = this.#untold;
        this.#untold = 0;
        if (!this.#write(textFrame({ type: 'audio_dropped', count }))) break;
      }
      if (!this.#write(item.frame)) break;
      written += item.bytes;
    }
    if (this.#waiting.length === 0) this.scheduler.forget(this);
    return written;
  }

  /** Something waits and uWS would take it now. */
  get writable(): boolean {
    return !this.#closed && this.#fits(this.#waiting[0]);
  }

  /** uWS holds less than LOW_WATER_BYTES, and `item` keeps it within the cap (or it holds nothing). */
  #fits(item: Waiting | undefined): boolean {
    if (item === undefined) return false;
    return this.#admits(this.#held, item) || this.#admits(this.#read(), item);
  }

  #admits(held: number, item: Waiting): boolean {
    return held < LOW_WATER_BYTES && (held === 0 || held + item.bytes <= this.options.capBytes);
  }

  /** uWS holds less than `bytes`: by the last write's figure, else by reading the buffer again. */
  #heldBelow(bytes: number): boolean {
    return this.#held < bytes || this.#read() < bytes;
  }

  #read(): number {
    this.#held = this.options.bufferedBytes();
    return this.#held;
  }

  clear(): void {
    for (const item of this.#waiting) this.#taken(item);
    this.#waiting.length = 0;
    this.#closed = true;
    this.scheduler.forget(this);
  }

  /** The queue is capped apart from uWS's buffer, which holds at most LOW_WATER_BYTES and one frame. */
  #over(bytes: number): boolean {
    return this.#bytes + bytes > this.options.capBytes;
  }

  #push(item: Waiting, at = this.#waiting.length): void {
    this.#waiting.splice(at, 0, item);
    this.#bytes += item.bytes;
    this.scheduler.hold(item.frame, item.bytes, item.playAudio);
    this.scheduler.wake(this);
  }

  /** `item` left the queue (written, dropped or cleared). */
  #taken(item: Waiting): void {
    this.#bytes -= item.bytes;
    this.scheduler.release(item.frame, item.bytes, item.playAudio);
  }

  #drop(reason: PlayAudioDropReason): void {
    this.#untold += 1;
    this.scheduler.playAudioDropped(reason, 1);
  }

  /** One frame to the socket now, and what uWS holds after it (read once); past the cap, closed with 1008. */
  #write(frame: OutboundFrame): boolean {
    try {
      this.options.send(frame);
    } catch {
      this.#broken = true;
      this.clear();
      this.options.writeFailed();
      return false;
    }
    this.#held = this.options.bufferedBytes();
    if (this.#held <= this.options.capBytes) return true;
    this.#overflow();
    this.options.writeFailed();
    return false;
  }

  /** More than the cap waits for the kiosk: it is closed with 1008, what waited given back. */
  #overflow(): void {
    this.#broken = true;
    this.clear();
    try {
      this.options.send(closeFrame(CLOSE_CODES.sendBufferExceeded));
    } catch {
      // the socket is gone already
    }
  }
}
