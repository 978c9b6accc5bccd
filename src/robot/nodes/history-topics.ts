import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import type { HeardMsg } from '../../ros/port/ros-messages.js';
import { ROS_HEARD_TOPIC } from '../../ros/port/ros-port.js';
import type { WireHeard } from '../../ros/port/ros-wire.js';
import { createDialogueHistory, historyJson, type DialogueHistory } from './dialogue-history.js';
import { conversationTopicQos, latestStateQos } from '../../ros/port/topic-qos.js';
import { heardFromWire } from './node-wire.js';

/**
 * The dialogue history, read back from outside: std_msgs/msg/String, its `data` the history's JSON
 * (`{"entries":[…]}`, dialogue-history.ts), republished on every change, transient local (keep-last 1)
 * so a reader that subscribes transient local gets the current one at once. Under the action it belongs
 * to: `<action name>/history`, `/converse/history` by default, so each Converse server's history is its
 * own when several share a graph (a remapped action takes its history along).
 */
export const historyTopicOf = (actionName: string): string => `${actionName}/history`;
export const HISTORY_TOPIC_TYPE = 'std_msgs/msg/String';

/** What a heard report may carry, at most: a bridge's ids are tens of characters, a text an answer's. */
export const HEARD_LIMITS = { utteranceIdChars: 256, heardTextChars: 16_384 } as const;

/** Why a heard report is not taken, or undefined when it is. */
export const heardRefusal = (report: HeardMsg): string | undefined => {
  if (report.utterance_id.length > HEARD_LIMITS.utteranceIdChars) {
    return `its utterance_id of ${report.utterance_id.length} characters is over the ${HEARD_LIMITS.utteranceIdChars} limit`;
  }
  if (report.heard_text.length > HEARD_LIMITS.heardTextChars) {
    return `its heard_text of ${report.heard_text.length} characters is over the ${HEARD_LIMITS.heardTextChars} limit`;
  }
  return undefined;
};

export interface HistoryTopicsDeps {
  readonly rcl: Pick<Rclnodejs, 'QoS'>;
  readonly node: Pick<Node, 'createSubscription' | 'createPublisher'>;
  readonly logger: Logger;
  readonly isClosed: () => boolean;
  /** The Converse action's name on the graph (remapping applied). */
  readonly actionName: string;
}

/**
 * The dialogue history on the graph: heard reports taken from /conversation/heard (reliable, keep-last
 * 16, volatile) into it, and the history published on `historyTopicOf(actionName)`. Returns the
 * history, which the Converse server writes the turns into.
 */
export const serveHistory = (deps: HistoryTopicsDeps): DialogueHistory => {
  const { rcl, node, logger } = deps;
  const topic = historyTopicOf(deps.actionName);
  const publisher = node.createPublisher<'std_msgs/msg/String'>(HISTORY_TOPIC_TYPE, topic, {
    qos: latestStateQos(rcl),
  });
  const history = createDialogueHistory((entries) => {
    if (deps.isClosed()) return;
    try {
      publisher.publish({ data: historyJson(entries) });
    } catch (error) {
      logger.warn({ err: error, topic }, 'could not publish the dialogue history');
    }
  });
  // The empty history at once: a reader gets a document from the start, not only after a first turn.
  history.clear();
  node.createSubscription(
    ROS_HEARD_TOPIC.type,
    ROS_HEARD_TOPIC.name,
    { qos: conversationTopicQos(rcl, ROS_HEARD_TOPIC.depth) },
    (message: WireHeard) => {
      // rclnodejs calls this from its executor: a throw would escape into it and end the process.
      try {
        const report = heardFromWire(message);
        const refusal = heardRefusal(report);
        if (refusal !== undefined) {
          logger.warn(`dropped a heard report: ${refusal}`);
          return;
        }
        const kept = history.heard(report);
        logger.info(
          { utteranceId: report.utterance_id, playedMs: report.played_ms, kept },
          kept
            ? 'heard report: the answer in the history now holds what was heard'
            : 'heard report of a turn the history does not hold; ignored',
        );
      } catch (error) {
        logger.warn({ err: error }, 'dropped a heard report that could not be read');
      }
    },
  );
  return history;
};
