import type { Rclnodejs } from '../binding/rclnodejs-loader.js';

/*
 * The topic QoS the bridge and the robot's reference nodes build alike, so both ends of a topic match
 * (docs/robot.md lists them for a robot's own nodes). Every topic between them is reliable: a lost
 * message is speech the visitor never hears or a stale screen, and a best-effort end would not match a
 * reliable one.
 */

/** A reliable profile keeping the last `keep` messages, or all of them (keep-all has no depth: 0). */
export const reliableQos = (
  rcl: Pick<Rclnodejs, 'QoS'>,
  keep: number | 'all',
  durability: 'volatile' | 'transient-local',
) =>
  new rcl.QoS(
    keep === 'all'
      ? rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_ALL
      : rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
    keep === 'all' ? 0 : keep,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    durability === 'volatile'
      ? rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE
      : rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL,
  );

/**
 * The streamed conversation's topics (/utterance/audio, /utterance/transcript, /conversation/heard):
 * reliable, keep-last `depth` (each topic's, src/ros/port/ros-port.ts), volatile. Reliable: a lost part is a
 * hole in what the recogniser hears, a lost transcript or report a stale screen or history. Keep-last,
 * not keep-all: rclnodejs publishes on the event loop, and a keep-all publisher on rmw_zenoh blocks
 * while the link is congested, so a stalled recogniser would stall every kiosk; parts come at the speed
 * of speech (the session bounds how far ahead), and the depth holds seconds of them for a recogniser
 * that lags. Volatile: speech is of its moment, a node that joins late gets none of what was said before.
 */
export const conversationTopicQos = (rcl: Pick<Rclnodejs, 'QoS'>, depth: number) =>
  reliableQos(rcl, depth, 'volatile');

/**
 * A state published on change (/microphone/enabled, the demo chat's /converse/history): reliable,
 * keep-last 1, transient local. The publisher keeps the last state and hands it to every subscription
 * that joins later with transient-local durability (a volatile one gets the changes from then on).
 */
export const latestStateQos = (rcl: Pick<Rclnodejs, 'QoS'>) => reliableQos(rcl, 1, 'transient-local');
