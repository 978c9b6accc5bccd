import { Subject, type Observable } from 'rxjs';
import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import type { TranscriptMsg } from '../port/ros-messages.js';
import { ROS_TRANSCRIPT_TOPIC } from '../port/ros-port.js';
import type { WireTranscript } from '../port/ros-wire.js';
import { conversationTopicQos } from '../port/topic-qos.js';
import { resolvedName } from './resolved-name.js';

/** A transcript as the port types it: only the fields it knows. */
const transcriptFromWire = (message: WireTranscript): TranscriptMsg => ({
  utterance_id: message.utterance_id,
  text: message.text,
  final: message.final,
});

/**
 * What the bridge takes of a robot's transcript, at most. The bridge's utterance ids are tens of
 * characters, and a transcript is what a visitor said in one utterance; anything longer is not a
 * transcript of ours and would go to a kiosk's screen unbounded.
 */
export const TRANSCRIPT_LIMITS = { utteranceIdChars: 256, textChars: 4096 } as const;

/** Why a transcript is not taken, or undefined when it is. */
export const transcriptRefusal = (message: TranscriptMsg): string | undefined => {
  if (message.utterance_id.length > TRANSCRIPT_LIMITS.utteranceIdChars) {
    return `its utterance_id of ${message.utterance_id.length} characters is over the ${TRANSCRIPT_LIMITS.utteranceIdChars} limit`;
  }
  if (message.text.length > TRANSCRIPT_LIMITS.textChars) {
    return `its text of ${message.text.length} characters is over the ${TRANSCRIPT_LIMITS.textChars} limit`;
  }
  return undefined;
};

/** /utterance/transcript as the port offers it. */
export interface TranscriptSource {
  /** The topic's name after remapping. */
  readonly topic: string;
  /** Hot: the transcripts taken after subscription. */
  readonly messages$: Observable<TranscriptMsg>;
  /** Ends the stream (the port closed). */
  complete(): void;
}

/**
 * The subscription is made with the port, not when a kiosk listens (as /play_audio is): a robot
 * publishes a partial transcript a fraction of a second after a part, and a subscription made when an
 * utterance opens would still be in discovery then (up to a DDS participant's round), losing the first
 * words. It costs nothing while idle: no timer, one more entry in the executor's wait set, and
 * messages only when a robot transcribes a bridge's utterance.
 */
export const createTranscriptSource = (
  rcl: Pick<Rclnodejs, 'QoS'>,
  node: Pick<Node, 'createSubscription' | 'resolveTopicName'>,
  logger: Logger,
): TranscriptSource => {
  const transcripts = new Subject<TranscriptMsg>();
  const topic = resolvedName(
    () => node.resolveTopicName(ROS_TRANSCRIPT_TOPIC.name),
    ROS_TRANSCRIPT_TOPIC.name,
  );
  node.createSubscription(
    ROS_TRANSCRIPT_TOPIC.type,
    ROS_TRANSCRIPT_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_TRANSCRIPT_TOPIC.depth) },
    // Annotated: the overload's callback type is a union (typed or raw message) that gives no contextual type.
    (message: WireTranscript) => {
      // An exception here would escape into rclnodejs's executor callback and end the process.
      try {
        const converted = transcriptFromWire(message);
        const refusal = transcriptRefusal(converted);
        if (refusal !== undefined) {
          logger.warn({ topic }, `dropped a transcript: ${refusal}`);
          return;
        }
        transcripts.next(converted);
      } catch (error) {
        logger.warn({ err: error, topic }, 'dropped a transcript that could not be read');
      }
    },
  );
  return {
    topic,
    messages$: transcripts.asObservable(),
    complete: () => {
      transcripts.complete();
    },
  };
};
