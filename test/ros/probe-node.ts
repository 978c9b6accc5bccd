import type { Node } from 'rclnodejs';
import { pino } from 'pino';
import { subscriptionCount } from '../../src/robot/nodes/demo-chat-node.js';
import type { PlayAudioMsg, SetBoolResponseMsg } from '../../src/ros/ros-messages.js';
import { ROS_MICROPHONE_SERVICE, ROS_PLAY_AUDIO_TOPIC, ROS_SERVICES } from '../../src/ros/ros-port.js';
import { initRclnodejs } from '../../src/ros/rclnodejs/ros-init.js';

/**
 * The test's own ROS node, a plain rclnodejs node in the test process (as any robot node would be,
 * nothing of the bridge's adapter in the path): it publishes on /play_audio, calls the bridge's
 * /microphone/set_enabled, and serves a /tour_get and a /chat, under a prefix of the run's own, that
 * take requests and never answer. Everything it does goes through whichever RMW is configured.
 */
export interface ProbeNode {
  publishPlayAudio(message: PlayAudioMsg): void;
  /** Subscriptions matched by the /play_audio publisher (the bridge's, once discovered). */
  playAudioSubscribers(): number;
  /** Calls /microphone/set_enabled; rejects when no server appears or no answer comes in time. */
  setMicrophone(enabled: boolean, timeoutMs: number): Promise<SetBoolResponseMsg>;
  /** Requests taken by the silent services so far, by service key. */
  readonly silentRequests: { tour_get: number; chat: number };
  close(): void;
}

export const PROBE_NODE_NAME = 'tour_bridge_contract_probe';

export const startProbeNode = async (silentPrefix: string): Promise<ProbeNode> => {
  const { rcl, context } = await initRclnodejs({ logger: pino({ level: 'warn' }) });
  let node: Node;
  try {
    node = new rcl.Node(PROBE_NODE_NAME, '', context);
  } catch (error) {
    context.shutdown();
    throw error;
  }
  // Default publisher QoS (reliable, keep last 10, volatile), as an rclcpp or rclpy node would publish.
  const publisher = node.createPublisher<'tour_guide_interfaces/msg/PlayAudio'>(
    ROS_PLAY_AUDIO_TOPIC.type,
    ROS_PLAY_AUDIO_TOPIC.name,
  );
  const microphone = node.createClient<'std_srvs/srv/SetBool'>(
    ROS_MICROPHONE_SERVICE.type,
    ROS_MICROPHONE_SERVICE.name,
  );
  const silentRequests = { tour_get: 0, chat: 0 };
  // Each callback takes the request and returns nothing: rclnodejs then sends no response, ever.
  node.createService<'tour_guide_interfaces/srv/TourGet'>(
    ROS_SERVICES.tour_get.type,
    `${silentPrefix}${ROS_SERVICES.tour_get.name}`,
    () => {
      silentRequests.tour_get += 1;
    },
  );
  node.createService<'tour_guide_interfaces/srv/Chat'>(
    ROS_SERVICES.chat.type,
    `${silentPrefix}${ROS_SERVICES.chat.name}`,
    () => {
      silentRequests.chat += 1;
    },
  );
  node.spin(10);

  let closed = false;
  return {
    publishPlayAudio: (message) => {
      publisher.publish({ emotion: message.emotion, text: message.text, audio: message.audio });
    },
    playAudioSubscribers: () => subscriptionCount(publisher),
    setMicrophone: async (enabled, timeoutMs) => {
      if (!(await microphone.waitForService(timeoutMs))) {
        throw new Error(`no ${ROS_MICROPHONE_SERVICE.name} server within ${timeoutMs} ms`);
      }
      const response = await microphone.sendRequestAsync({ data: enabled }, { timeout: timeoutMs });
      return { success: response.success, message: response.message };
    },
    silentRequests,
    close: () => {
      if (closed) return;
      closed = true;
      context.shutdown();
    },
  };
};
