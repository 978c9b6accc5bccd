import type { Rclnodejs } from '../../binding/rclnodejs-loader.js';

/**
 * What a node publishing speech uses (the demo chat's greeting on /play_audio, the Converse parts as
 * its action server's feedback): reliable, keep all, volatile. On rmw_zenoh_cpp only a reliable
 * keep-all publisher gets congestion control "block"; any other publisher drops a message that finds
 * the link busy (1 ms, or 50 ms for a message of several 64 KiB fragments) without a word. Keep-all
 * keeps every message the subscriber has not acknowledged, so a publisher bounds its own bursts.
 */
export const speechPublisherQos = (rcl: Pick<Rclnodejs, 'QoS'>) =>
  new rcl.QoS(
    rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_ALL,
    0,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
  );

/**
 * The streamed conversation's topics as the demo chat meets them (/utterance/audio and
 * /conversation/heard subscribed, /utterance/transcript published): reliable, keep-last `depth` (each
 * topic's, src/port/ros-port.ts), volatile, as docs/robot.md asks of a robot and as the bridge uses them.
 */
export const conversationQos = (rcl: Pick<Rclnodejs, 'QoS'>, depth: number) =>
  new rcl.QoS(
    rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
    depth,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
  );

/**
 * A state published on change (the demo chat's /converse/history): reliable, keep-last 1, transient
 * local, so a node that subscribes later (transient local too) gets the last one at once.
 */
export const latestStateQos = (rcl: Pick<Rclnodejs, 'QoS'>) =>
  new rcl.QoS(
    rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
    1,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL,
  );
