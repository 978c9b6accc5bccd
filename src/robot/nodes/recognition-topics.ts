import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import { ROS_TRANSCRIPT_TOPIC, ROS_UTTERANCE_AUDIO_TOPIC } from '../../ros/port/ros-port.js';
import type { WireUtteranceAudio } from '../../ros/port/ros-wire.js';
import { conversationTopicQos } from '../../ros/port/topic-qos.js';
import { transcriptToWire, utteranceAudioFromWire } from './node-wire.js';
import type { StandInClock } from '../speech/stand-in-clock.js';
import { RECOGNISER_LIMITS, type RecogniserLimits } from '../speech/recogniser-limits.js';
import { createStreamingRecogniser, type StreamingRecogniser } from './streaming-recogniser.js';

/** The node's limits: 16 utterances, each of at most maxUtteranceBytes, so maxBytes in all. */
const NODE_RECOGNISER_LIMITS: RecogniserLimits = { ...RECOGNISER_LIMITS, maxUtterances: 16 };

export interface RecognitionTopicsDeps {
  readonly rcl: Pick<Rclnodejs, 'QoS'>;
  readonly node: Pick<Node, 'createSubscription' | 'createPublisher'>;
  readonly logger: Logger;
  readonly isClosed: () => boolean;
  /** `--recognition_rt`. */
  readonly rt: number;
  readonly clock: StandInClock;
  readonly limits?: RecogniserLimits;
}

/**
 * The streaming recogniser on the graph: it takes /utterance/audio as the bridge publishes it and
 * publishes /utterance/transcript, both with the topics' QoS (reliable, keep-last their depth,
 * volatile). Returns the recogniser, where the Converse server claims the utterances.
 */
export const serveRecognition = (deps: RecognitionTopicsDeps): StreamingRecogniser => {
  const { rcl, node, logger } = deps;
  const transcripts = node.createPublisher<'tour_guide_interfaces/msg/Transcript'>(
    ROS_TRANSCRIPT_TOPIC.type,
    ROS_TRANSCRIPT_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_TRANSCRIPT_TOPIC.depth) },
  );
  const recogniser = createStreamingRecogniser({
    rt: deps.rt,
    clock: deps.clock,
    logger,
    limits: deps.limits ?? NODE_RECOGNISER_LIMITS,
    publish: (transcript) => {
      // Recognition finishing while the node shuts down has nobody left to publish to.
      if (!deps.isClosed()) transcripts.publish(transcriptToWire(transcript));
    },
  });
  node.createSubscription(
    ROS_UTTERANCE_AUDIO_TOPIC.type,
    ROS_UTTERANCE_AUDIO_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_UTTERANCE_AUDIO_TOPIC.depth) },
    // Annotated: the overload's callback type is a union (typed or raw message) that gives no contextual type.
    (message: WireUtteranceAudio) => {
      // rclnodejs calls this from its executor: a throw would escape into it and end the process.
      try {
        recogniser.take(utteranceAudioFromWire(message));
      } catch (error) {
        logger.warn({ err: error }, 'dropped an /utterance/audio event that could not be read');
      }
    },
  );
  return recogniser;
};
