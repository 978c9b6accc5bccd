import { Observable, type Subscriber, type Subscription } from 'rxjs';
import {
  encodeSharedAudioPair,
  type AudioPairFrame,
  type MessageIdAllocator,
  type OutboundFrame,
} from '../../protocol/ws/index.js';
import type { PlayAudioMsg } from '../../ros/port/ros-messages.js';
import type { KioskQueue } from './outbound-queue.js';

/*
 * /play_audio, from the robot to every kiosk, in this file's three steps:
 *  1. `take`: a message from the port waits in a buffer of at most `bufferBytes`
 *     (`--play_audio_buffer_bytes`); one that would pass it is dropped (`buffer_full`).
 *  2. `handOn`, one message a loop turn: it becomes one pair (one id, encoded once) and a loop puts that
 *     pair in every kiosk's queue (outbound-queue.ts); then the process-wide ceiling is kept
 *     (`--outbound_buffer_bytes`: the kiosks furthest behind lose their oldest pair, `outbound_full`).
 *  3. `WriteScheduler`'s turns write the queues round-robin, at most TURN_WRITE_BYTES a turn.
 * Each kiosk is told how many pairs it missed (`audio_dropped`) before the next one it gets.
 */

/** Why a `/play_audio` message was lost, as `play_audio_dropped_total` counts it. */
export type PlayAudioDropReason = 'buffer_full' | 'slow_kiosk' | 'outbound_full' | 'middleware_lost';

/** `count` `/play_audio` messages lost (`bytes` of audio, where known): counted and logged by reason. */
export type PlayAudioDropped = (reason: PlayAudioDropReason, count: number, bytes?: number) => void;

/**
 * Bytes written to all kiosks in one event-loop turn, at most (and at least one frame): a 1 MiB
 * `/play_audio` to 1,000 kiosks is written one kiosk a turn, over 1,000 turns of about 2 ms each, and
 * everything else (HTTP, other frames, ROS callbacks) runs between them. Measured in docs/operations.md.
 */
export const TURN_WRITE_BYTES = 1024 * 1024;

export interface WriteSchedulerOptions {
  /** Bytes that may wait in all kiosks' queues together (`--outbound_buffer_bytes`). */
  readonly totalCapBytes: number;
  /** Told of every pair a kiosk's queue drops. */
  readonly playAudioDropped?: PlayAudioDropped;
  /** Runs a write turn later; setImmediate by default, so I/O is handled between turns. */
  readonly schedule?: (task: () => void) => void;
  readonly turnBytes?: number;
}

/**
 * The process-wide side of the kiosks' queues: which have something uWS would take now, written
 * round-robin in turns of at most TURN_WRITE_BYTES; and the total waiting, kept under `totalCapBytes`.
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
  readonly playAudioDropped: PlayAudioDropped;

  constructor(private readonly options: WriteSchedulerOptions) {
    this.#schedule = options.schedule ?? setImmediate;
    this.#turnBytes = options.turnBytes ?? TURN_WRITE_BYTES;
    this.playAudioDropped = options.playAudioDropped ?? (() => undefined);
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
  keepWithinCeiling(): void {
    while (this.#bytes > this.options.totalCapBytes) {
      let furthest: KioskQueue | undefined;
      for (const queue of this.#holding)
        if (furthest === undefined || queue.bytes > furthest.bytes) furthest = queue;
      if (furthest === undefined || !furthest.dropOldest('outbound_full')) return;
    }
  }

  /** One write turn: each ready queue in turn, until TURN_WRITE_BYTES are written. */
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

export interface PlayAudioFanOutOptions {
  /** Audio bytes held between the port and the kiosks (`--play_audio_buffer_bytes`). */
  readonly bufferBytes: number;
  readonly messageIds: MessageIdAllocator;
  /** The kiosks' queues' scheduler, whose ceiling is kept after each message. */
  readonly writes: WriteScheduler;
  /** Told of each message past `bufferBytes` (`buffer_full`). */
  readonly playAudioDropped?: PlayAudioDropped;
  /** Each message, once for all kiosks, as it becomes a pair. */
  readonly onPair?: () => void;
  /** Runs a hand-on turn later; setImmediate by default, so ROS callbacks run between messages. */
  readonly schedule?: (task: () => void) => void;
}

/**
 * The port's `/play_audio` as every kiosk hears it. A kiosk is a subscriber whose `next` puts the pair in
 * its queue (the session's KioskQueue). The port is subscribed while at least one kiosk listens; its end or
 * failure reaches the kiosks after the messages the buffer still holds.
 */
export const playAudioFanOut = (
  playAudio$: Observable<PlayAudioMsg>,
  {
    bufferBytes,
    messageIds,
    writes,
    playAudioDropped = () => undefined,
    onPair,
    schedule = setImmediate,
  }: PlayAudioFanOutOptions,
): Observable<AudioPairFrame> => {
  const kiosks = new Set<Subscriber<AudioPairFrame>>();
  /** Taken from the port, not yet handed on; taking is cheap, so the port's queue empties during a fan-out. */
  const buffer: PlayAudioMsg[] = [];
  let bufferedBytes = 0;
  let handOnScheduled = false;
  let port: Subscription | undefined;
  /** How the port's stream ended, once it has: told after the messages still held. */
  let ended: { readonly error?: unknown; readonly failed: boolean } | undefined;

  const take = (message: PlayAudioMsg): void => {
    const bytes = message.audio.byteLength;
    // The newest is dropped, so a sentence already held is never cut out of the middle.
    if (bufferedBytes + bytes > bufferBytes) {
      playAudioDropped('buffer_full', 1, bytes);
      return;
    }
    bufferedBytes += bytes;
    buffer.push(message);
    scheduleHandOn();
  };

  const handOn = (): void => {
    handOnScheduled = false;
    const message = buffer.shift();
    if (message !== undefined) {
      bufferedBytes -= message.audio.byteLength;
      const pair = encodeSharedAudioPair(messageIds.next(), message);
      onPair?.();
      for (const kiosk of kiosks) kiosk.next(pair);
      writes.keepWithinCeiling();
    }
    if (buffer.length > 0) scheduleHandOn();
    else if (ended !== undefined) tellEnd(ended);
  };

  const scheduleHandOn = (): void => {
    if (handOnScheduled) return;
    handOnScheduled = true;
    schedule(handOn);
  };

  const stopListening = (): void => {
    port?.unsubscribe();
    port = undefined;
    buffer.length = 0;
    bufferedBytes = 0;
    ended = undefined;
  };

  const tellEnd = (end: NonNullable<typeof ended>): void => {
    const told = [...kiosks];
    kiosks.clear();
    stopListening();
    for (const kiosk of told) {
      if (end.failed) kiosk.error(end.error);
      else kiosk.complete();
    }
  };

  const portEnded = (end: NonNullable<typeof ended>): void => {
    ended = end;
    if (buffer.length === 0) tellEnd(end);
    else scheduleHandOn();
  };

  return new Observable<AudioPairFrame>((kiosk) => {
    kiosks.add(kiosk);
    if (port === undefined && ended === undefined) {
      const listening = playAudio$.subscribe({
        next: take,
        error: (error: unknown) => {
          portEnded({ error, failed: true });
        },
        complete: () => {
          portEnded({ failed: false });
        },
      });
      // A stream that ended as it was subscribed is not followed.
      if (!listening.closed) port = listening;
    }
    return () => {
      if (kiosks.delete(kiosk) && kiosks.size === 0) stopListening();
    };
  });
};
