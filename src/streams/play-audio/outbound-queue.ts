import { textFrame, type AudioPairFrame, type OutboundFrame } from '../../protocol/ws/index.js';

/**
 * What waits to be written to the kiosks, held here rather than in uWebSockets.js. uWS keeps a socket's
 * send buffer as a string whose capacity stays at its largest until the socket closes, so every byte it
 * was ever asked to hold for a slow reader stays taken; here, a `/play_audio` pair waiting for 100 kiosks
 * is one shared object, and what a kiosk drained is given back at once. A socket is written only while
 * uWS holds less than LOW_WATER_BYTES for it, so uWS holds at most that plus one frame per socket.
 */
export const LOW_WATER_BYTES = 256 * 1024;

/**
 * Bytes written to all kiosks in one event-loop turn, at most (and at least one frame): a 1 MiB
 * `/play_audio` to 1,000 kiosks is written one kiosk a turn, over 1,000 turns of about 2 ms each, and
 * everything else (HTTP, other frames, ROS callbacks) runs between them. Measured in docs/operations.md.
 */
export const TURN_WRITE_BYTES = 1024 * 1024;

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
  /** Bytes that may wait here for this kiosk (besides uWS's buffer): `--send_buffer_bytes`. */
  readonly capBytes: number;
  /** Bytes waiting in uWS's send buffer for the socket now (read only when the last write's figure says wait). */
  readonly bufferedBytes: () => number;
  /** Writes one frame (a pair in one corked write): what uWS holds for the socket after it; undefined when the socket is gone. */
  readonly write: (frame: OutboundFrame) => number | undefined;
  /** A write failed: the session ends. */
  readonly writeFailed: () => void;
  /** `count` `/play_audio` pairs dropped for this kiosk, by why. */
  readonly onDropped?: (count: number, reason: PlayAudioDropReason) => void;
}

/** slow_kiosk: past the kiosk's own cap; outbound_full: past the process-wide ceiling, furthest behind first. */
export type PlayAudioDropReason = 'slow_kiosk' | 'outbound_full';

/**
 * One kiosk's frames that wait, in order. A frame the session sends while nothing waits and uWS holds
 * little is written at once (a turn's answer costs what it did); otherwise it waits its turn, so frames
 * never pass each other and a pair is always written whole. `/play_audio` pairs always wait for the
 * scheduler, which spreads a fan-out over loop turns.
 */
export class KioskQueue {
  readonly #waiting: Waiting[] = [];
  #bytes = 0;
  /** Pairs dropped and not yet told (the kiosk is told before the next pair it gets). */
  #untold = 0;
  #failed = false;
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

  /**
   * A session frame: written now when nothing waits and uWS holds less than LOW_WATER_BYTES, else queued.
   * False when it cannot wait either: more than the cap would wait even with every `/play_audio` pair
   * dropped (the session closes with 1008).
   */
  send(frame: OutboundFrame): boolean {
    if (this.#failed) return false;
    if (this.#waiting.length === 0 && this.#heldBelow(LOW_WATER_BYTES)) return this.#write(frame);
    const bytes = wireBytes(frame);
    while (this.#over(bytes) && this.dropOldest('slow_kiosk')) {
      // dropped one pair; check again
    }
    if (this.#over(bytes)) return false;
    this.#push({ frame, bytes, playAudio: false });
    return true;
  }

  /** A `/play_audio` pair: queued, the oldest pairs dropped while more than the cap would wait. */
  offer(pair: AudioPairFrame): void {
    if (this.#failed) return;
    const bytes = wireBytes(pair);
    if (bytes > this.options.capBytes) {
      this.#drop(1, 'slow_kiosk');
      return;
    }
    while (this.#over(bytes) && this.dropOldest('slow_kiosk')) {
      // dropped one pair; check again
    }
    if (this.#over(bytes)) {
      this.#drop(1, 'slow_kiosk');
      return;
    }
    this.#push({ frame: pair, bytes, playAudio: true });
    this.scheduler.overflowCheck();
  }

  /** Drops the oldest waiting `/play_audio` pair; false when none waits. */
  dropOldest(reason: PlayAudioDropReason): boolean {
    const index = this.#waiting.findIndex((item) => item.playAudio);
    if (index === -1) return false;
    const [item] = this.#waiting.splice(index, 1);
    if (item !== undefined) this.#taken(item);
    this.#drop(1, reason);
    if (this.#waiting.length === 0) this.scheduler.forget(this);
    return true;
  }

  /** The socket drained: its waiting frames are written again, on the scheduler's turns. */
  drained(): void {
    if (this.#waiting.length > 0 && !this.#failed) this.scheduler.wake(this);
  }

  /**
   * Writes waiting frames while uWS holds less than LOW_WATER_BYTES, until `maxBytes` are written (at
   * least one frame); returns the bytes written. Whether it could write more now is `writable` after.
   */
  pump(maxBytes: number): number {
    let written = 0;
    while (!this.#failed && written < maxBytes && this.#fits(this.#waiting[0])) {
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
    return !this.#failed && this.#fits(this.#waiting[0]);
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
    this.#failed = true;
    this.scheduler.forget(this);
  }

  /** The queue is capped apart from uWS's buffer, which holds at most LOW_WATER_BYTES and one frame. */
  #over(bytes: number): boolean {
    return this.#bytes + bytes > this.options.capBytes;
  }

  #push(item: Waiting): void {
    this.#waiting.push(item);
    this.#bytes += item.bytes;
    this.scheduler.hold(item.frame, item.bytes, item.playAudio);
    this.scheduler.wake(this);
  }

  /** `item` left the queue (written, dropped or cleared). */
  #taken(item: Waiting): void {
    this.#bytes -= item.bytes;
    this.scheduler.release(item.frame, item.bytes, item.playAudio);
  }

  #drop(count: number, reason: PlayAudioDropReason): void {
    this.#untold += count;
    this.options.onDropped?.(count, reason);
  }

  #write(frame: OutboundFrame): boolean {
    const held = this.options.write(frame);
    if (held !== undefined) {
      this.#held = held;
      return true;
    }
    this.#failed = true;
    this.options.writeFailed();
    return false;
  }
}

export interface WriteSchedulerOptions {
  /** Bytes that may wait in all kiosks' queues together (`--outbound_buffer_bytes`). */
  readonly totalCapBytes: number;
  /** Runs a write turn later; setImmediate by default, so I/O is handled between turns. */
  readonly schedule?: (task: () => void) => void;
  readonly turnBytes?: number;
}

/**
 * The process-wide side: which queues have something uWS would take now, written round-robin in turns of
 * at most TURN_WRITE_BYTES; and the total waiting, kept under `totalCapBytes` by dropping the oldest
 * `/play_audio` pair of the kiosk furthest behind.
 */
export class WriteScheduler {
  readonly #ready = new Set<KioskQueue>();
  readonly #holding = new Set<KioskQueue>();
  /** Each waiting `/play_audio` pair, with the number of queues holding it. */
  readonly #shared = new Map<OutboundFrame, number>();
  #bytes = 0;
  #scheduled = false;
  readonly #schedule: (task: () => void) => void;
  readonly #turnBytes: number;

  constructor(private readonly options: WriteSchedulerOptions) {
    this.#schedule = options.schedule ?? setImmediate;
    this.#turnBytes = options.turnBytes ?? TURN_WRITE_BYTES;
  }

  /** Bytes waiting in all queues, each shared pair once. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * A frame waits in a queue. A `/play_audio` pair is shared by every kiosk it waits for and counts once,
   * while any queue holds it: the ceiling bounds memory, not references.
   */
  hold(frame: OutboundFrame, bytes: number, shared: boolean): void {
    if (shared) {
      const holders = this.#shared.get(frame) ?? 0;
      this.#shared.set(frame, holders + 1);
      if (holders > 0) return;
    }
    this.#bytes += bytes;
  }

  release(frame: OutboundFrame, bytes: number, shared: boolean): void {
    if (shared) {
      const holders = this.#shared.get(frame) ?? 0;
      if (holders > 1) {
        this.#shared.set(frame, holders - 1);
        return;
      }
      this.#shared.delete(frame);
    }
    this.#bytes -= bytes;
  }

  wake(queue: KioskQueue): void {
    this.#holding.add(queue);
    this.#ready.add(queue);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(this.#turn);
  }

  forget(queue: KioskQueue): void {
    this.#holding.delete(queue);
    this.#ready.delete(queue);
  }

  /** While more than the ceiling waits: the kiosk with the most waiting loses its oldest pair. */
  overflowCheck(): void {
    while (this.#bytes > this.options.totalCapBytes) {
      let furthest: KioskQueue | undefined;
      for (const queue of this.#holding)
        if (furthest === undefined || queue.bytes > furthest.bytes) furthest = queue;
      if (furthest === undefined || !furthest.dropOldest('outbound_full')) return;
    }
  }

  readonly #turn = (): void => {
    this.#scheduled = false;
    let written = 0;
    for (const queue of [...this.#ready]) {
      if (written >= this.#turnBytes) break;
      this.#ready.delete(queue);
      written += queue.pump(this.#turnBytes - written);
      // Still writable: to the back of the round, so every kiosk gets its share of each turn.
      if (queue.writable) this.#ready.add(queue);
    }
    // A pump may have scheduled the next turn already (a write's wake).
    const next = this.#ready.values().next();
    if (next.done !== true) this.wake(next.value);
  };
}
