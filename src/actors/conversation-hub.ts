import { asyncScheduler, repeat, retry, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { RosPort } from '../ros/ros-port.js';
import { createMessageIdAllocator, type MessageIdAllocator } from '../protocol/message-ids.js';
import { driveMicrophone, microphoneView } from './microphone-requests.js';
import { playAudioPairs } from '../streams/play-audio-fanout.js';
import type { RosCaller } from '../streams/ros-call.js';
import {
  createConversationGauges,
  readGauges,
  type ConversationGaugeValues,
  type ConversationGauges,
} from '../streams/resource-gauges.js';
import { closeFrame, type OutboundFrame } from '../protocol/ws-frames.js';
import { CLOSE_CODES, DEFAULT_LIMITS, type ConversationLimits } from '../protocol/ws-protocol.js';
import { startMicrophoneActor, type MicrophoneActor } from './microphone-machine.js';
import { startSessionActor, type SessionActor, type SessionInput } from './session-machine.js';

/**
 * The process-wide part of the conversation endpoint: one microphone actor, one /play_audio fan-out, one
 * message-id allocator, the gauges, and the live sessions. The `/ws` handler holds one hub.
 */

export type HubStreamSource = 'play_audio' | 'microphone_requests';

export interface ConversationHubOptions {
  readonly port: RosCaller & Pick<RosPort, 'playAudio$' | 'microphoneRequests$'>;
  readonly limits?: Partial<ConversationLimits>;
  /** Time-outs and resubscription delays run on it; defaults to asyncScheduler. */
  readonly scheduler?: SchedulerLike;
  readonly messageIds?: MessageIdAllocator;
  /**
   * For logging: a port stream failed (the hub resubscribes after `resubscribeDelayMs`), or answering a
   * microphone request threw.
   */
  readonly onStreamError?: (source: HubStreamSource, error: unknown) => void;
  readonly resubscribeDelayMs?: number;
}

export interface ConversationHub {
  readonly limits: ConversationLimits;
  readonly microphone: MicrophoneActor;
  readonly gauges: ConversationGauges;
  readGauges(): ConversationGaugeValues;
  /**
   * Opens a session whose frames go to `send`; its `state` frame is sent before this returns. When the hub
   * already holds `limits.maxSessions` sessions, sends a 1013 close frame (1001 once closed) and returns undefined.
   */
  openSession(
    send: (frame: OutboundFrame) => void,
    hooks?: Pick<SessionInput, 'onCallAbandoned'>,
  ): SessionActor | undefined;
  /** Closes every session with 1001 and releases the hub's subscriptions. Idempotent. */
  close(): void;
}

export const createConversationHub = (options: ConversationHubOptions): ConversationHub => {
  const limits: ConversationLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const scheduler = options.scheduler ?? asyncScheduler;
  const messageIds = options.messageIds ?? createMessageIdAllocator();
  const gauges = createConversationGauges();
  const resubscribeDelayMs = options.resubscribeDelayMs ?? 1_000;

  // A port stream that fails or ends must not end the sessions: report it and subscribe again.
  const resilient = <T>(source: HubStreamSource, stream$: Observable<T>): Observable<T> =>
    stream$.pipe(
      retry({
        delay: (error: unknown) => {
          options.onStreamError?.(source, error);
          return timer(resubscribeDelayMs, scheduler);
        },
      }),
      repeat({
        delay: () => {
          options.onStreamError?.(source, new Error(`the ${source} stream ended`));
          return timer(resubscribeDelayMs, scheduler);
        },
      }),
    );

  const microphone = startMicrophoneActor();
  const microphoneSubscription = driveMicrophone(
    resilient('microphone_requests', options.port.microphoneRequests$),
    microphone,
    (error) => options.onStreamError?.('microphone_requests', error),
  );
  const pairs$ = playAudioPairs(resilient('play_audio', options.port.playAudio$), messageIds);
  const sessionDeps = {
    port: options.port,
    messageIds,
    playAudioPairs$: pairs$,
    microphone: microphoneView(microphone),
    scheduler,
    limits,
    gauges,
  };

  const sessions = new Set<SessionActor>();
  let closed = false;

  return {
    limits,
    microphone,
    gauges,
    readGauges: () => readGauges(gauges),
    openSession: (send, hooks = {}) => {
      if (closed) {
        send(closeFrame(CLOSE_CODES.goingAway));
        return undefined;
      }
      if (sessions.size >= limits.maxSessions) {
        send(closeFrame(CLOSE_CODES.tooManySessions));
        return undefined;
      }
      const session = startSessionActor({ ...sessionDeps, ...hooks, send });
      if (session.getSnapshot().status !== 'active') return session;
      sessions.add(session);
      const forget = (): void => {
        sessions.delete(session);
      };
      session.subscribe({ complete: forget, error: forget });
      return session;
    },
    close: () => {
      if (closed) return;
      closed = true;
      for (const session of [...sessions]) session.send({ type: 'server.shutdown' });
      microphoneSubscription.unsubscribe();
      microphone.stop();
    },
  };
};
