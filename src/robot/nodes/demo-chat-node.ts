import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { echoChat } from '../echo-chat.js';
import { ROS_PLAY_AUDIO_TOPIC, ROS_SERVICES } from '../../ros/port/ros-port.js';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import { speechPublisherQos } from './node-qos.js';
import { playAudioToWire, REQUEST_FROM_WIRE, RESPONSE_TO_WIRE } from './node-wire.js';
import { greetingMessage } from './greeting.js';
import { recognitionMs, utteranceSeconds } from '../speech/recognition-cost.js';
import { REAL_CLOCK, type StandInClock } from '../speech/stand-in-clock.js';

export const DEMO_CHAT_NODE_NAME = 'demo_chat';

/** The greeting waits for a subscriber (the bridge) this long at most, checking this often. */
export interface GreetingLimits {
  readonly maxWaitMs: number;
  readonly pollMs: number;
}
export const GREETING_LIMITS: GreetingLimits = { maxWaitMs: 10 * 60_000, pollMs: 500 };

export interface DemoChatDeps {
  readonly rcl: Pick<Rclnodejs, 'QoS'>;
  readonly node: Pick<Node, 'createService' | 'createPublisher'>;
  readonly logger: Logger;
  readonly isClosed: () => boolean;
  /**
   * `--recognition_rt`: /chat pays the stand-in recogniser's cost, rt × the utterance's duration, after
   * the whole utterance arrived and before it answers (the streamed path pays it as the parts arrive).
   */
  readonly recognitionRt?: number;
  readonly clock?: StandInClock;
  /** /clear_history: the Converse server's dialogue history starts again. */
  readonly clearHistory?: () => void;
}

export interface DemoChat {
  /** How many /clear_history calls were served. */
  readonly historyClears: number;
  /**
   * Publishes the greeting on /play_audio once a subscriber is matched, checking every `pollMs` for
   * at most `maxWaitMs`: /play_audio is volatile, so a message nobody subscribes to is lost.
   * Resolves whether it was published.
   */
  greet(signal: AbortSignal, limits?: Partial<GreetingLimits>): Promise<boolean>;
}

/**
 * Matched subscriptions of a publisher. rclnodejs 2.2.0 declares `subscriptionCount()` as a method
 * (types/publisher.d.ts) but implements a getter (lib/publisher.js, `get subscriptionCount()`), so
 * calling it as declared throws; this reads either form.
 */
export const subscriptionCount = (publisher: object): number => {
  const value: unknown = (publisher as { subscriptionCount?: unknown }).subscriptionCount;
  const count: unknown = typeof value === 'function' ? (value as () => unknown).call(publisher) : value;
  return typeof count === 'number' ? count : 0;
};

const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The demo robot's conversation side: `/chat` echoes (as the simulation does) after the stand-in
 * recogniser's cost, `/clear_history` clears the dialogue history and acknowledges.
 */
export const serveDemoChat = (deps: DemoChatDeps): DemoChat => {
  const qos = { qos: deps.rcl.QoS.profileServicesDefault };
  const { recognitionRt = 0, clock = REAL_CLOCK } = deps;
  let historyClears = 0;

  deps.node.createService<'tour_guide_interfaces/srv/Chat'>(
    ROS_SERVICES.chat.type,
    ROS_SERVICES.chat.name,
    qos,
    (request, response) => {
      const answer = () => {
        // Late (after the cost) the node may be closed: its service is gone.
        if (deps.isClosed()) return;
        try {
          const echoed = echoChat(chatRequest);
          deps.logger.debug({ audioBytes: echoed.audio.byteLength }, '/chat');
          response.send(RESPONSE_TO_WIRE.chat(echoed));
        } catch (error) {
          deps.logger.warn({ err: error }, 'could not answer a /chat call');
        }
      };
      const chatRequest = REQUEST_FROM_WIRE.chat(request);
      const costMs = recognitionMs(recognitionRt, utteranceSeconds(chatRequest.audio));
      if (costMs <= 0) answer();
      else clock.later(costMs, answer);
    },
  );
  deps.node.createService<'std_srvs/srv/Empty'>(
    ROS_SERVICES.clear_history.type,
    ROS_SERVICES.clear_history.name,
    qos,
    (_request, response) => {
      historyClears += 1;
      deps.clearHistory?.();
      deps.logger.info({ historyClears }, '/clear_history: the dialogue history starts again');
      // rclnodejs calls this synchronously from its spin loop: a throw here would escape into it.
      try {
        response.send({});
      } catch (error) {
        deps.logger.warn({ err: error }, 'could not answer a /clear_history call');
      }
    },
  );
  const publisher = deps.node.createPublisher<'tour_guide_interfaces/msg/PlayAudio'>(
    ROS_PLAY_AUDIO_TOPIC.type,
    ROS_PLAY_AUDIO_TOPIC.name,
    // Reliable + keep all, as docs/robot.md asks of a robot's speech publisher (rmw_zenoh drops otherwise).
    { qos: speechPublisherQos(deps.rcl) },
  );

  return {
    get historyClears() {
      return historyClears;
    },
    greet: async (signal, limits = {}) => {
      const { maxWaitMs, pollMs } = { ...GREETING_LIMITS, ...limits };
      const deadline = Date.now() + maxWaitMs;
      while (!signal.aborted && !deps.isClosed()) {
        if (subscriptionCount(publisher) > 0) {
          const greeting = greetingMessage();
          // The node may be shutting down under us; a greeting is a courtesy, never a reason to crash.
          try {
            publisher.publish(playAudioToWire(greeting));
          } catch (error) {
            deps.logger.warn({ err: error }, 'could not publish the greeting on /play_audio');
            return false;
          }
          deps.logger.info({ text: greeting.text }, 'published the greeting on /play_audio');
          return true;
        }
        if (Date.now() >= deadline) break;
        await delay(Math.min(pollMs, Math.max(0, deadline - Date.now())), signal);
      }
      if (!signal.aborted) {
        deps.logger.info({ maxWaitMs }, 'no /play_audio subscriber came; the greeting was not published');
      }
      return false;
    },
  };
};
