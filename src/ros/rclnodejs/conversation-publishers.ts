import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import type { HeardMsg, UtteranceAudioMsg } from '../port/ros-messages.js';
import { ROS_HEARD_TOPIC, ROS_UTTERANCE_AUDIO_TOPIC } from '../port/ros-port.js';
import { conversationTopicQos } from '../port/topic-qos.js';
import { resolvedName } from './resolved-name.js';
import { bytesToWire, type WireHeard, type WireUtteranceAudio } from '../port/ros-wire.js';

const utteranceAudioToWire = (message: UtteranceAudioMsg): WireUtteranceAudio => ({
  utterance_id: message.utterance_id,
  sequence: message.sequence,
  event: message.event,
  audio: bytesToWire(message.audio),
});

const heardToWire = (message: HeardMsg): WireHeard => ({
  utterance_id: message.utterance_id,
  played_ms: message.played_ms,
  heard_text: message.heard_text,
});

/**
 * What the bridge tells the robot of a conversation as it happens: a streamed utterance's events on
 * /utterance/audio (its parts, then its end or abandonment) and how much of an interrupted answer was
 * heard on /conversation/heard. Both publishers exist from the start: a publisher nobody subscribes to
 * costs no CPU, and a recogniser that subscribed once is matched before the first part, never racing a
 * publisher made when the utterance opens.
 */
export interface ConversationPublishers {
  /** The topics' names after remapping. */
  readonly utteranceAudioTopic: string;
  readonly heardTopic: string;
  /** Publishes one event, in call order. Never throws: a failure is logged (the robot sees the gap). */
  readonly publishUtteranceAudio: (message: UtteranceAudioMsg) => void;
  /** Publishes one heard report. Never throws: a failure is logged. */
  readonly publishHeard: (message: HeardMsg) => void;
}

export const createConversationPublishers = (
  rcl: Pick<Rclnodejs, 'QoS'>,
  node: Pick<Node, 'createPublisher' | 'resolveTopicName'>,
  lifetime: AbortSignal,
  logger: Logger,
): ConversationPublishers => {
  const audio = node.createPublisher<'tour_guide_interfaces/msg/UtteranceAudio'>(
    ROS_UTTERANCE_AUDIO_TOPIC.type,
    ROS_UTTERANCE_AUDIO_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_UTTERANCE_AUDIO_TOPIC.depth) },
  );
  const heard = node.createPublisher<'tour_guide_interfaces/msg/Heard'>(
    ROS_HEARD_TOPIC.type,
    ROS_HEARD_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_HEARD_TOPIC.depth) },
  );
  const utteranceAudioTopic = resolvedName(
    () => node.resolveTopicName(ROS_UTTERANCE_AUDIO_TOPIC.name),
    ROS_UTTERANCE_AUDIO_TOPIC.name,
  );
  const heardTopic = resolvedName(() => node.resolveTopicName(ROS_HEARD_TOPIC.name), ROS_HEARD_TOPIC.name);

  return {
    utteranceAudioTopic,
    heardTopic,
    publishUtteranceAudio: (message) => {
      // After close the publisher is destroyed; the session abandoning its utterance then has nobody to tell.
      if (lifetime.aborted) return;
      try {
        audio.publish(utteranceAudioToWire(message));
      } catch (error) {
        logger.error(
          {
            err: error,
            utteranceId: message.utterance_id,
            sequence: message.sequence,
            event: message.event,
          },
          `failed to publish on ${utteranceAudioTopic}`,
        );
      }
    },
    publishHeard: (message) => {
      if (lifetime.aborted) return;
      try {
        heard.publish(heardToWire(message));
      } catch (error) {
        logger.error(
          { err: error, utteranceId: message.utterance_id, playedMs: message.played_ms },
          `failed to publish on ${heardTopic}`,
        );
      }
    },
  };
};
