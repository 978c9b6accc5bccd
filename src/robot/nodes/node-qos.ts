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
