import { map, share, type Observable } from 'rxjs';
import {
  type MessageIdAllocator,
  encodeSharedAudioPair,
  type AudioPairFrame,
} from '../../protocol/ws-frames.js';
import type { PlayAudioMsg } from '../../port/ros-messages.js';
import { resubscribing, type ResubscribeOptions } from '../resubscribe.js';
import { playAudioBuffer, type PlayAudioBufferOptions } from './buffer.js';

/*
 * /play_audio, from the robot to every kiosk. This folder is the stream's home; the files whose code runs
 * for each message (docs/architecture.md, "Three event paths"):
 *
 *   1. src/adapters/rclnodejs/play-audio-source.ts  the subscription (while a kiosk listens), its callback
 *                                                   converting the message (the simulation: sim-backend.ts)
 *   2. src/port/ros-wire.ts                         the audio as a plain Uint8Array, not copied
 *   3. buffer.ts                                    held within --play_audio_buffer_bytes, one a loop turn
 *   4. pairs.ts (here)                              one id and one encoding per message, for every session
 *   5. src/protocol/ws-frames.ts                    the metadata JSON and the 4-byte id + audio frame
 *   6. outbound-queue.ts                            each kiosk's bounded queue, written over loop turns
 *   7. src/actors/session/session-outbox.ts         the write, and the slow-reader rule
 *   8. src/transport/ws/ws-endpoint.ts              both frames in one corked write
 */

export interface PlayAudioPairsOptions {
  /** How a failed or ended subscription is followed again. */
  readonly restart: ResubscribeOptions;
  readonly buffer: PlayAudioBufferOptions;
  readonly messageIds: MessageIdAllocator;
  /** Each message, once for all sessions, as it becomes a pair. */
  readonly onPair?: () => void;
}

/**
 * /play_audio messages as audio pairs for every session. Each message gets one id and is serialised once
 * (the metadata and the whole binary frame); all sessions receive the same frame object, so fan-out to N
 * sessions costs N writes, not N encodings. Subscribes to the topic while at least one session listens.
 */
export const playAudioPairs = (
  playAudio$: Observable<PlayAudioMsg>,
  messageIds: MessageIdAllocator,
  onPair?: () => void,
): Observable<AudioPairFrame> =>
  playAudio$.pipe(
    map((message) => {
      onPair?.();
      return encodeSharedAudioPair(messageIds.next(), message);
    }),
    share(),
  );

/** The port's /play_audio as every session hears it: followed again after a failure, buffered, as pairs. */
export const playAudioStream = (
  playAudio$: Observable<PlayAudioMsg>,
  { restart, buffer, messageIds, onPair }: PlayAudioPairsOptions,
): Observable<AudioPairFrame> =>
  playAudioPairs(
    playAudio$.pipe(resubscribing('play_audio', restart), playAudioBuffer(buffer)),
    messageIds,
    onPair,
  );
