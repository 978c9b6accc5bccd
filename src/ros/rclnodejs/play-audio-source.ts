import { Observable, Subject } from 'rxjs';
import type { Node } from 'rclnodejs';
import type { Logger } from '../../log/logger.js';
import type { PlayAudioMsg } from '../port/ros-messages.js';
import { ROS_PLAY_AUDIO_TOPIC } from '../port/ros-port.js';
import { bytesFromWire, type WirePlayAudio } from '../port/ros-wire.js';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import type { AttachMessageLost } from './message-lost.js';
import { playAudioQos } from './qos.js';
import { resolvedName } from './resolved-name.js';

/*
 * /play_audio as the port offers it: the first of the files a message crosses on its way to every kiosk
 * (the route: src/streams/play-audio/fan-out.ts).
 */

export const playAudioFromWire = (message: WirePlayAudio): PlayAudioMsg => ({
  emotion: message.emotion,
  text: message.text,
  audio: bytesFromWire(message.audio),
});

/** The /play_audio topic as the port offers it. */
export interface PlayAudioSource {
  /** The topic's name after remapping. */
  readonly topic: string;
  readonly messages$: Observable<PlayAudioMsg>;
  readonly lost$: Observable<number>;
  /** Ends both streams (the port closed). */
  complete(): void;
}

/**
 * The /play_audio subscription exists only while someone (a kiosk's session, through the hub's shared
 * stream) listens: with no kiosk connected the middleware delivers nothing to this process and no CPU
 * goes into taking or converting speech nobody hears. Created on the first listener, destroyed after
 * the last.
 */
export const createPlayAudioSource = (
  rcl: Rclnodejs,
  node: Node,
  lifetime: AbortSignal,
  logger: Logger,
  attachMessageLost: AttachMessageLost | undefined,
): PlayAudioSource => {
  const playAudio = new Subject<PlayAudioMsg>();
  const playAudioLost = new Subject<number>();
  const topic = resolvedName(
    () => node.resolveTopicName(ROS_PLAY_AUDIO_TOPIC.name),
    ROS_PLAY_AUDIO_TOPIC.name,
  );
  let subscription: ReturnType<Node['createSubscription']> | undefined;

  const subscribe = (): void => {
    const created = node.createSubscription(
      ROS_PLAY_AUDIO_TOPIC.type,
      ROS_PLAY_AUDIO_TOPIC.name,
      { qos: playAudioQos(rcl), enableTypedArray: true },
      // Annotated: the overload's callback type is a union (typed or raw message) that gives no contextual type.
      (message: WirePlayAudio) => {
        // An exception here would escape into rclnodejs's executor callback and end the process.
        try {
          const converted = playAudioFromWire(message);
          logger.debug(
            { emotion: converted.emotion, audioBytes: converted.audio.byteLength },
            '/play_audio message',
          );
          playAudio.next(converted);
        } catch (error) {
          logger.warn({ err: error }, 'dropped a /play_audio message that could not be read');
        }
      },
    );
    subscription = created;
    attachMessageLost?.(node, created, (count) => {
      playAudioLost.next(count);
    });
    logger.info({ topic }, 'subscribed to /play_audio: a kiosk is connected');
  };

  const unsubscribe = (): void => {
    const ending = subscription;
    subscription = undefined;
    // After close the node and its entities are gone already.
    if (ending === undefined || lifetime.aborted) return;
    try {
      node.destroySubscription(ending);
      logger.info({ topic }, 'unsubscribed from /play_audio: no kiosk is connected');
    } catch (error) {
      logger.warn({ err: error }, 'could not destroy the /play_audio subscription');
    }
  };

  const messages$ = new Observable<PlayAudioMsg>((subscriber) => {
    if (lifetime.aborted) {
      subscriber.complete();
      return undefined;
    }
    // The first listener makes the subscription; whether anyone listens is the Subject's own count.
    if (!playAudio.observed) {
      try {
        subscribe();
      } catch (error) {
        subscriber.error(error);
        return undefined;
      }
    }
    const inner = playAudio.subscribe(subscriber);
    return () => {
      inner.unsubscribe();
      if (!playAudio.observed) unsubscribe();
    };
  });

  return {
    topic,
    messages$,
    lost$: playAudioLost.asObservable(),
    complete: () => {
      playAudio.complete();
      playAudioLost.complete();
    },
  };
};
