import type { Node } from 'rclnodejs';
import { pino } from 'pino';
import { subscriptionCount } from '../../src/robot/nodes/demo-chat-node.js';
import type { PlayAudioMsg, SetBoolResponseMsg, UtteranceAudioMsg } from '../../src/ros/port/ros-messages.js';
import {
  ROS_MICROPHONE_SERVICE,
  ROS_PLAY_AUDIO_TOPIC,
  ROS_SERVICES,
  ROS_UTTERANCE_AUDIO_TOPIC,
} from '../../src/ros/port/ros-port.js';
import { bytesFromWire } from '../../src/ros/port/ros-wire.js';
import { initRclnodejs } from '../../src/ros/binding/ros-init.js';

/**
 * The test's own ROS node, a plain rclnodejs node in the test process (as any robot node would be,
 * nothing of the bridge's adapter in the path): it publishes on /play_audio, calls the bridge's
 * /microphone/set_enabled, and serves a /tour_get and a /chat, under a prefix of the run's own, that
 * take requests and never answer. Everything it does goes through whichever RMW is configured.
 */
export interface ProbeNode {
  /** Publishes with the default publisher QoS (reliable, keep last 10), as most robot nodes would. */
  publishPlayAudio(message: PlayAudioMsg): void;
  /** Publishes with reliable + keep all, the QoS docs/robot.md asks of a /play_audio publisher. */
  publishPlayAudioKeepAll(message: PlayAudioMsg): void;
  /**
   * How the burst, memory and latency tests publish. On rmw_zenoh_cpp only a reliable keep-all publisher
   * blocks when the link is busy; one with the default QoS drops messages there (the speech-loss suite
   * measures it), so on Zenoh they publish as docs/robot.md asks a robot's node to. On other RMWs, with
   * the default QoS a robot developer would write, which a reliable DDS writer delivers whole.
   */
  publishSpeech(message: PlayAudioMsg): void;
  /** Subscriptions matched by the /play_audio publisher (the bridge's, once discovered). */
  playAudioSubscribers(): number;
  /** Subscriptions to `topic` on the graph, as this node sees them (rcl_count_subscribers). */
  subscribersOf(topic: string): number;
  /** Publishers of `topic` on the graph, as this node sees them (rcl_count_publishers). */
  publishersOf(topic: string): number;
  /**
   * Records every /utterance/audio event taken on `topic` from now on, in order, subscribed as docs/robot.md
   * asks of a robot's recogniser (reliable, keep-last 256, volatile). The array fills as they come.
   */
  recordUtteranceAudio(topic: string): UtteranceAudioMsg[];
  /**
   * Records every std_msgs/msg/String taken on `topic` by a transient-local subscription (reliable, keep-last
   * 1): the publisher's last one first, then each new one. The array fills as they come.
   */
  recordStrings(topic: string): string[];
  /** Calls /microphone/set_enabled; rejects when no server appears or no answer comes in time. */
  setMicrophone(enabled: boolean, timeoutMs: number): Promise<SetBoolResponseMsg>;
  /** Calls a /microphone/set_enabled server under another name (a remapped bridge's). */
  setMicrophoneAt(service: string, enabled: boolean, timeoutMs: number): Promise<SetBoolResponseMsg>;
  /**
   * The first message a new transient-local subscription to `topic` (std_msgs/msg/Bool) gets: the
   * publisher's last one, if it keeps it. Rejects when none comes in time.
   */
  latchedBool(topic: string, timeoutMs: number): Promise<boolean>;
  /**
   * Calls the tour store's /tour_get as a plain rclnodejs client (no bridge in the path) and resolves
   * with its `success`: the reference the bridge's `GET /tour/{name}` is measured against.
   */
  getTour(tourName: string, timeoutMs: number): Promise<boolean>;
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
  const keepAllPublisher = node.createPublisher<'tour_guide_interfaces/msg/PlayAudio'>(
    ROS_PLAY_AUDIO_TOPIC.type,
    ROS_PLAY_AUDIO_TOPIC.name,
    {
      qos: new rcl.QoS(
        rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_ALL,
        0,
        rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
        rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
      ),
    },
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

  const setBool = async (
    client: ReturnType<typeof node.createClient<'std_srvs/srv/SetBool'>>,
    name: string,
    enabled: boolean,
    timeoutMs: number,
  ): Promise<SetBoolResponseMsg> => {
    if (!(await client.waitForService(timeoutMs))) {
      throw new Error(`no ${name} server within ${timeoutMs} ms`);
    }
    const response = await client.sendRequestAsync({ data: enabled }, { timeout: timeoutMs });
    return { success: response.success, message: response.message };
  };
  const latchedQos = new rcl.QoS(
    rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
    1,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL,
  );

  let tourGet: ReturnType<typeof node.createClient<'tour_guide_interfaces/srv/TourGet'>> | undefined;

  let closed = false;
  return {
    publishPlayAudio: (message) => {
      publisher.publish({ emotion: message.emotion, text: message.text, audio: message.audio });
    },
    publishPlayAudioKeepAll: (message) => {
      keepAllPublisher.publish({ emotion: message.emotion, text: message.text, audio: message.audio });
    },
    publishSpeech: (message) => {
      const chosen = process.env['RMW_IMPLEMENTATION'] === 'rmw_zenoh_cpp' ? keepAllPublisher : publisher;
      chosen.publish({ emotion: message.emotion, text: message.text, audio: message.audio });
    },
    playAudioSubscribers: () => subscriptionCount(publisher),
    subscribersOf: (topic) => node.countSubscribers(topic),
    publishersOf: (topic) => node.countPublishers(topic),
    recordUtteranceAudio: (topic) => {
      const events: UtteranceAudioMsg[] = [];
      // Kept with the node (destroyed by close), as the transient-local subscription below.
      node.createSubscription<'tour_guide_interfaces/msg/UtteranceAudio'>(
        ROS_UTTERANCE_AUDIO_TOPIC.type,
        topic,
        {
          qos: new rcl.QoS(
            rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
            ROS_UTTERANCE_AUDIO_TOPIC.depth,
            rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
            rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
          ),
        },
        (message: {
          utterance_id: string;
          sequence: number;
          event: number;
          audio: number[] | Uint8Array;
        }) => {
          events.push({
            utterance_id: message.utterance_id,
            sequence: message.sequence,
            event: message.event,
            // A copy: rclnodejs may reuse the message's buffer.
            audio: bytesFromWire(message.audio).slice(),
          });
        },
      );
      return events;
    },
    recordStrings: (topic) => {
      const strings: string[] = [];
      node.createSubscription<'std_msgs/msg/String'>(
        'std_msgs/msg/String',
        topic,
        { qos: latchedQos },
        (message: { data: string }) => {
          strings.push(message.data);
        },
      );
      return strings;
    },
    setMicrophone: (enabled, timeoutMs) =>
      setBool(microphone, ROS_MICROPHONE_SERVICE.name, enabled, timeoutMs),
    setMicrophoneAt: async (service, enabled, timeoutMs) => {
      const client = node.createClient<'std_srvs/srv/SetBool'>(ROS_MICROPHONE_SERVICE.type, service);
      try {
        return await setBool(client, service, enabled, timeoutMs);
      } finally {
        node.destroyClient(client);
      }
    },
    latchedBool: (topic, timeoutMs) =>
      new Promise<boolean>((resolve, reject) => {
        let settled = false;
        node.createSubscription<'std_msgs/msg/Bool'>(
          'std_msgs/msg/Bool',
          topic,
          { qos: latchedQos },
          (message: { data: boolean }) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(message.data);
          },
        );
        // Not destroyed here but with the node (close): on rmw_zenoh, a transient-local subscription
        // destroyed while the publisher's cached sample is still on its way ("SubscriberCallback triggered
        // over …") left this process's Zenoh session deaf to its later requests in some runs (3 of 6 in
        // one clone): the next service call timed out and the probe's own services heard nothing.
        const timer = setTimeout(() => {
          settled = true;
          reject(new Error(`no message on ${topic} within ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    getTour: async (tourName, timeoutMs) => {
      if (tourGet === undefined) {
        tourGet = node.createClient<'tour_guide_interfaces/srv/TourGet'>(
          ROS_SERVICES.tour_get.type,
          ROS_SERVICES.tour_get.name,
        );
        if (!(await tourGet.waitForService(timeoutMs))) {
          throw new Error(`no ${ROS_SERVICES.tour_get.name} server within ${timeoutMs} ms`);
        }
      }
      const response = await tourGet.sendRequestAsync({ tour_name: tourName }, { timeout: timeoutMs });
      return response.success;
    },
    silentRequests,
    close: () => {
      if (closed) return;
      closed = true;
      context.shutdown();
    },
  };
};
