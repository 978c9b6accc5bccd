import { map, share, type Observable } from 'rxjs';
import {
  type MessageIdAllocator,
  encodeSharedAudioPair,
  type AudioPairFrame,
} from '../../protocol/ws/index.js';
import type { PlayAudioMsg } from '../../ros/port/ros-messages.js';
import { resubscribing, type ResubscribeOptions } from '../resubscribe.js';
import { playAudioBuffer, type PlayAudioBufferOptions } from './buffer.js';

/*
 * /play_audio, from the robot to every kiosk. This folder is the stream's home; the files each message
 * runs through are measured by `npm run paths` (docs/architecture.md, "Four event paths, by what runs").
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
