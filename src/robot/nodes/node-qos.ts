import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import { reliableQos } from '../../ros/port/topic-qos.js';

/**
 * What a node publishing speech uses (the demo chat's greeting on /play_audio, the Converse parts as
 * its action server's feedback): reliable, keep all, volatile. On rmw_zenoh_cpp only a reliable
 * keep-all publisher gets congestion control "block"; any other publisher drops a message that finds
 * the link busy (1 ms, or 50 ms for a message of several 64 KiB fragments) without a word. Keep-all
 * keeps every message the subscriber has not acknowledged, so a publisher bounds its own bursts.
 */
export const speechPublisherQos = (rcl: Pick<Rclnodejs, 'QoS'>) => reliableQos(rcl, 'all', 'volatile');
