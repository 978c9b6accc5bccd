import { randomBytes } from 'node:crypto';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import {
  createMessageIdAllocator,
  type MessageIdAllocator,
  closeFrame,
  type OutboundFrame,
  CLOSE_CODES,
  DEFAULT_LIMITS,
  type ConversationLimits,
  type ChatInterface,
} from '../protocol/ws/index.js';
import type { RosCalls } from '../ros/port/ros-calls.js';
import type { RosPort } from '../ros/port/ros-port.js';
import { playAudioFanOut, WriteScheduler, type PlayAudioDropped } from '../streams/play-audio/fan-out.js';
import { speechUplink, type SpeechUplink } from '../streams/speech-uplink.js';
import {
  createConversationGauges,
  readGauges,
  type ConversationGaugeValues,
  type ConversationGauges,
} from './conversation-gauges.js';
import { sharedByteBudget } from './budgets.js';
import { resubscribing } from '../streams/resubscribe.js';
import {
  driveMicrophone,
  microphoneView,
  startMicrophoneActor,
  type KeepMicrophoneState,
  type MicrophoneActor,
} from './microphone-machine.js';
import { startSessionActor, type SessionActor } from './session/session.js';
import type { SessionInput } from './session/session-types.js';

/**
 * The process-wide part of the conversation endpoint: one microphone actor, one /play_audio fan-out, one
 * message-id allocator, the audio budget, the gauges, and the live sessions. The `/ws` endpoint holds one
 * hub.
 */

export type HubStreamSource = 'play_audio' | 'microphone_requests';

export interface ConversationHubOptions {
  /** The one call wrapper (time-outs, in-flight count, metrics): every session's calls go through it. */
  readonly calls: Pick<RosCalls, 'call' | 'converse' | 'inFlight'>;
  /** How a kiosk utterance reaches the robot (`--chat_interface`); `service` when not given. */
  readonly chatInterface?: ChatInterface;
  readonly port: Pick<
    RosPort,
    'playAudio$' | 'microphoneRequests$' | 'publishUtteranceAudio' | 'publishHeard' | 'transcripts$'
  >;
  /**
   * Heads every `utterance_id` this bridge names (`<instance>-<session>-<turn>`); default 8 random hex
   * digits, so ids stay unique across restarts.
   */
  readonly instanceId?: string;
  /** Publishing a streamed utterance's event or a heard report failed (the port is closed). */
  readonly onSpeechPublishFailed?: (error: unknown) => void;
  readonly limits?: Partial<ConversationLimits>;
  /** Resubscription delays run on it; defaults to asyncScheduler. */
  readonly scheduler?: SchedulerLike;
  readonly messageIds?: MessageIdAllocator;
  /**
   * For logging: a port stream failed or ended (the hub resubscribes after `resubscribeDelayMs`), or
   * answering a microphone request threw.
   */
  readonly onStreamError?: (source: HubStreamSource, error: unknown) => void;
  readonly resubscribeDelayMs?: number;
  /** /play_audio audio held between the port and the kiosks (`--play_audio_buffer_bytes`); default 64 MiB. */
  readonly playAudioBufferBytes?: number;
  /** `/play_audio` messages dropped on the way to the kiosks, by reason (the fan-out's and the queues'). */
  readonly playAudioDropped?: PlayAudioDropped;
  /** The microphone's state at start (kept from the previous run with `--state_dir`); default enabled. */
  readonly microphoneEnabled?: boolean;
  /** Keeps each microphone change before it is answered (`--state_dir`); without it nothing is kept. */
  readonly keepMicrophone?: KeepMicrophoneState;
  /** Each /play_audio message, once for all sessions, as it is encoded for them. */
  readonly onPlayAudioPair?: () => void;
  /** A session ended: what it held (its audio, its queue) is garbage now. */
  readonly onSessionEnded?: () => void;
  /** Runs the fan-out's hand-on turns (default setImmediate). */
  readonly schedulePlayAudio?: (task: () => void) => void;
}

export interface ConversationHub {
  readonly limits: ConversationLimits;
  readonly microphone: MicrophoneActor;
  readonly gauges: ConversationGauges;
  /** Streamed utterances out, transcripts in: `followed` counts the utterances whose transcripts are routed. */
  readonly speech: Pick<SpeechUplink, 'followed'>;
  readGauges(): ConversationGaugeValues;
  /**
   * Opens a session whose frames go to `send`; its `state` frame is sent before this returns. When the hub
   * already holds `limits.maxSessions` sessions, sends a 1013 close frame (1001 once closed) and returns
   * undefined.
   */
  openSession(
    send: (frame: OutboundFrame) => void,
    hooks?: Pick<SessionInput, 'onCallAbandoned' | 'batch' | 'bufferedBytes'>,
    /** Whose share of the audio budget the session's audio takes: its client's address, as the transport keys it. */
    addressKey?: string,
  ): SessionActor | undefined;
  /** Closes every session with 1001 and releases the hub's subscriptions. Idempotent. */
  close(): void;
}

export const DEFAULT_PLAY_AUDIO_BUFFER_BYTES = 64 * 1024 * 1024;

export const createConversationHub = (options: ConversationHubOptions): ConversationHub => {
  const limits: ConversationLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const scheduler = options.scheduler ?? asyncScheduler;
  const messageIds = options.messageIds ?? createMessageIdAllocator();
  const gauges = createConversationGauges();
  const restartOptions = (source: HubStreamSource) => ({
    delayMs: options.resubscribeDelayMs ?? 1_000,
    scheduler,
    onRestart: (error: unknown) => options.onStreamError?.(source, error),
  });

  const microphone = startMicrophoneActor(options.microphoneEnabled ?? true, options.keepMicrophone);
  const microphoneSubscription = driveMicrophone(
    options.port.microphoneRequests$.pipe(
      resubscribing('microphone_requests', restartOptions('microphone_requests')),
    ),
    microphone,
    (error) => options.onStreamError?.('microphone_requests', error),
  );
  const speech = speechUplink(options.port, options.onSpeechPublishFailed);
  const instanceId = options.instanceId ?? randomBytes(4).toString('hex');
  let sessionsOpened = 0;
  const { playAudioDropped } = options;
  // What waits for the kiosks, for all of them together: written over loop turns, within one ceiling.
  const outboundScheduler = new WriteScheduler({
    totalCapBytes: limits.maxOutboundBytes,
    ...(playAudioDropped === undefined ? {} : { playAudioDropped }),
  });
  const sessionDeps = {
    calls: options.calls,
    speech,
    chatInterface: options.chatInterface ?? 'service',
    messageIds,
    playAudioPairs$: playAudioFanOut(
      options.port.playAudio$.pipe(resubscribing('play_audio', restartOptions('play_audio'))),
      {
        bufferBytes: options.playAudioBufferBytes ?? DEFAULT_PLAY_AUDIO_BUFFER_BYTES,
        messageIds,
        writes: outboundScheduler,
        ...(playAudioDropped === undefined ? {} : { playAudioDropped }),
        ...(options.onPlayAudioPair === undefined ? {} : { onPair: options.onPlayAudioPair }),
        ...(options.schedulePlayAudio === undefined ? {} : { schedule: options.schedulePlayAudio }),
      },
    ),
    microphone: microphoneView(microphone),
    outboundScheduler,
    limits,
    gauges,
  };
  // One budget over the hub's gauge: the limit holds for all sessions together, and each client address
  // may hold its share of it; every session gets its address's view.
  const audioBudget = sharedByteBudget(
    gauges.queuedAudioBytes,
    limits.maxQueuedAudioBytes,
    limits.maxQueuedAudioBytesPerAddress,
  );

  const sessions = new Set<SessionActor>();
  let closed = false;

  return {
    limits,
    microphone,
    gauges,
    speech,
    readGauges: () => readGauges(gauges, options.calls),
    openSession: (send, hooks = {}, addressKey = '') => {
      if (closed) {
        send(closeFrame(CLOSE_CODES.goingAway));
        return undefined;
      }
      if (sessions.size >= limits.maxSessions) {
        send(closeFrame(CLOSE_CODES.tooManySessions));
        return undefined;
      }
      sessionsOpened += 1;
      const utterancePrefix = `${instanceId}-${sessionsOpened}`;
      const session = startSessionActor({
        ...sessionDeps,
        ...hooks,
        send,
        utterancePrefix,
        audioBudget: audioBudget.budgetFor(addressKey),
      });
      if (session.getSnapshot().status !== 'active') return session;
      sessions.add(session);
      const forget = (): void => {
        sessions.delete(session);
        options.onSessionEnded?.();
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
