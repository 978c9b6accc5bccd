import type { Rclnodejs } from '../binding/rclnodejs-loader.js';
import { latestStateQos, reliableQos } from '../port/topic-qos.js';

/*
 * The QoS profiles of the bridge's own topics and calls, in one place (the streamed conversation's topics
 * use the profile the robot's nodes build too, src/ros/port/topic-qos.ts; the reference nodes' speech
 * publishers are src/robot/nodes/node-qos.ts). docs/robot.md lists what a robot's nodes must use to match
 * them, and why (on rmw_zenoh only a reliable keep-all publisher blocks instead of dropping a message when
 * the link is congested).
 */

/**
 * How many /play_audio messages the RMW keeps for the bridge until it takes them. rclnodejs takes one
 * message per turn of the event loop, and a node publishing back to back outruns that: with the last
 * 10 kept, 100 × 64 KiB reached kiosks 33–73 times and 200 × 1 KiB 54–72 (a depth-1000
 * subscriber got every one, even from a depth-10 publisher, since a reliable writer resends what the
 * reader has room for). 1000 holds bursts well beyond the 200 the real-graph test publishes. A count,
 * not bytes: the bridge takes messages at once into its own buffer, bounded in bytes by
 * `--play_audio_buffer_bytes` (src/streams/play-audio/fan-out.ts), so this queue fills only while the
 * event loop is blocked.
 */
export const PLAY_AUDIO_DEPTH = 1000;

/**
 * /play_audio: reliable, keep-last PLAY_AUDIO_DEPTH, volatile. Reliable because a lost message is a
 * sentence the visitor never hears, and rclcpp/rclpy publishers are reliable by default (a best-effort
 * publisher would not match a reliable subscription; the RMW reports that as incompatible QoS). Volatile
 * because an utterance published before the bridge started is stale, and a volatile subscription
 * matches publishers of either durability.
 */
export const playAudioQos = (rcl: Pick<Rclnodejs, 'QoS'>, depth = PLAY_AUDIO_DEPTH) =>
  reliableQos(rcl, depth, 'volatile');

/**
 * /microphone/enabled: reliable, keep-last 1, transient local. The publisher keeps the last state and
 * hands it to every subscription that joins later with transient-local durability (a volatile one gets
 * the changes from then on), so a node started after the bridge, or after a disable, learns the state.
 */
export const microphoneStateQos = latestStateQos;

/** Services use rmw's services profile (reliable, volatile), as rclcpp and rclpy do, so any server matches. */
export const serviceQos = (rcl: Pick<Rclnodejs, 'QoS'>) => rcl.QoS.profileServicesDefault;

/**
 * The Converse feedback topic (the parts of an answer): reliable, keep-last 100, volatile, on both ends.
 * rclnodejs's default for a subscription (system-default history and reliability, depth 10) lost parts of a 40-part burst
 * on the real graph: a part is a sentence the visitor never hears. Reliable matches the rclcpp and
 * rclpy default (reliable, depth 10) of a server's publisher; the depth outlasts a burst of parts taken
 * one per executor wake (the simulation's and the demo chat's at most 50), and holds only parts not yet taken.
 */
export const converseFeedbackQos = (rcl: Pick<Rclnodejs, 'QoS'>) => reliableQos(rcl, 100, 'volatile');
