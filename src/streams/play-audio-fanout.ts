import { map, share, type Observable } from 'rxjs';
import type { PlayAudioMsg } from '../ros/ros-messages.js';
import { encodeSharedAudioPair, type AudioPairFrame } from '../protocol/ws-frames.js';
import type { MessageIdAllocator } from '../protocol/message-ids.js';

/**
 * /play_audio messages as audio pairs for every session. Each message gets one id and is serialised once
 * (the metadata and the whole binary frame); all sessions receive the same frame object, so fan-out to N
 * sessions costs N writes, not N encodings. Subscribes to the topic while at least one session listens.
 */
export const playAudioPairs = (
  playAudio$: Observable<PlayAudioMsg>,
  messageIds: MessageIdAllocator,
): Observable<AudioPairFrame> =>
  playAudio$.pipe(
    map((message) => encodeSharedAudioPair(messageIds.next(), message)),
    share(),
  );
