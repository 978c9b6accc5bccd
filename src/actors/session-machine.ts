import { Subject, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import { assign, createActor, enqueueActions, fromCallback, sendTo, setup, type ActorRefFrom } from 'xstate';
import { chatQueue, type ConversationRequest } from '../streams/chat-queue.js';
import type { MessageIdAllocator } from '../protocol/message-ids.js';
import type { MicrophoneView } from './microphone-requests.js';
import { byteBudget, trackSubscription, type ConversationGauges } from '../streams/resource-gauges.js';
import type { RosCaller } from '../streams/ros-call.js';
import {
  closeFrame,
  errorFrame,
  parseClientText,
  textFrame,
  type AudioPairFrame,
  type OutboundFrame,
} from '../protocol/ws-frames.js';
import {
  CLOSE_CODES,
  INITIAL_EMOTION,
  INITIAL_TEXT,
  type ConversationLimits,
} from '../protocol/ws-protocol.js';

/**
 * One `/ws` connection. The transport only translates: frames in become `SessionTransportEvent`s, and every
 * outbound frame leaves through the injected `send`. Stopping the actor (or `ws.closed`) ends every
 * subscription it holds, including a running ROS call, and nothing is sent after that.
 */

/** What a session uses of the process; shared by all sessions. */
export interface SessionDeps {
  readonly port: RosCaller;
  readonly messageIds: MessageIdAllocator;
  readonly playAudioPairs$: Observable<AudioPairFrame>;
  readonly microphone: MicrophoneView;
  readonly scheduler: SchedulerLike;
  readonly limits: ConversationLimits;
  readonly gauges: ConversationGauges;
}

export interface SessionInput extends SessionDeps {
  /**
   * Writes one outbound item to this session's socket: a text frame, an audio pair (both frames in one corked
   * write), or a close. Throwing ends the session.
   */
  readonly send: (frame: OutboundFrame) => void;
  /** Told when the session stops with a call still unanswered; its late answer will be dropped. */
  readonly onCallAbandoned?: (service: ConversationRequest['service']) => void;
}

/** Events the transport sends. Frame data must stay valid after the call: pass a copy of uWS buffers. */
export type SessionTransportEvent =
  | { readonly type: 'ws.binary'; readonly data: Uint8Array }
  | { readonly type: 'ws.text'; readonly data: string | Uint8Array }
  /** The socket is closed; stop without sending anything. */
  | { readonly type: 'ws.closed' }
  /** Bytes waiting in the socket's send buffer, reported by the transport after writes (and on drain). */
  | { readonly type: 'ws.buffered'; readonly bytes: number }
  /** The server is stopping: close with 1001. */
  | { readonly type: 'server.shutdown' };

/** Events the session's own streams send it. */
type SessionStreamEvent =
  | { readonly type: 'conversation.frame'; readonly frame: OutboundFrame }
  | { readonly type: 'microphone.changed'; readonly enabled: boolean }
  | { readonly type: 'session.sendFailed'; readonly error: unknown }
  | { readonly type: 'session.streamFailed'; readonly error: unknown };

export type SessionEvent = SessionTransportEvent | SessionStreamEvent;

interface SessionContext {
  readonly input: SessionInput;
  /** Last microphone state this session was told about. */
  readonly microphoneEnabled: boolean;
}

interface ConversationRequestEvent {
  readonly type: 'conversation.request';
  readonly request: ConversationRequest;
}

/**
 * Every stream of a session in one child actor: the calls through its bounded serial queue (each request
 * yields one frame back; the queue is built on the first request), the /play_audio pairs and the microphone
 * changes. One child rather than one per stream: each XState actor costs a few KiB, and an idle session is
 * mostly its actors (docs/performance.md). The session counts as live for exactly as long as this child runs. A failing stream is reported with
 * `session.streamFailed`; the session then closes with 1011.
 */
const streamsLogic = fromCallback<ConversationRequestEvent, SessionInput>(({ input, sendBack, receive }) => {
  const { gauges } = input;
  gauges.liveSessions.increment();
  const fail = (error: unknown) => {
    sendBack({ type: 'session.streamFailed', error } satisfies SessionStreamEvent);
  };
  const subscription = new Subscription();
  // The call queue is built on the session's first request: most kiosks are idle most of the time, and the
  // queue's pipeline was a third of an idle session's heap (docs/performance.md). Until it exists its place
  // in the gauge is held, so the gauge reads 3 subscriptions per live session either way.
  let requests: Subject<ConversationRequest> | undefined;
  gauges.openSubscriptions.increment();
  const callQueue = (): Subject<ConversationRequest> => {
    if (requests !== undefined) return requests;
    requests = new Subject<ConversationRequest>();
    gauges.openSubscriptions.decrement(); // from now on counted by the queue's own subscription
    subscription.add(
      requests
        .pipe(
          chatQueue({
            port: input.port,
            messageIds: input.messageIds,
            scheduler: input.scheduler,
            limits: input.limits,
            inFlightRosCalls: gauges.inFlightRosCalls,
            // The gauge is the hub's, shared by every session: the limit holds for the process.
            audioBudget: byteBudget(gauges.queuedAudioBytes, input.limits.maxQueuedAudioBytes),
            ...(input.onCallAbandoned === undefined ? {} : { onCallAbandoned: input.onCallAbandoned }),
          }),
          trackSubscription(gauges.openSubscriptions),
        )
        .subscribe({
          next: (frame) => {
            sendBack({ type: 'conversation.frame', frame } satisfies SessionStreamEvent);
          },
          error: fail,
        }),
    );
    return requests;
  };
  // A /play_audio pair needs no decision of the machine: it goes straight to the transport while this child
  // runs (that is, while the session is open). Skipping a machine transition per session and message cut the
  // fan-out's server time by about a quarter (docs/performance.md). A failing send still ends the session.
  subscription.add(
    input.playAudioPairs$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
      next: (pair) => {
        try {
          input.send(pair);
        } catch (error) {
          sendBack({ type: 'session.sendFailed', error } satisfies SessionStreamEvent);
        }
      },
      error: fail,
    }),
  );
  subscription.add(
    input.microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
      next: (enabled) => {
        sendBack({ type: 'microphone.changed', enabled } satisfies SessionStreamEvent);
      },
      error: fail,
    }),
  );
  receive((event) => {
    callQueue().next(event.request);
  });
  return () => {
    subscription.unsubscribe();
    if (requests === undefined) gauges.openSubscriptions.decrement();
    gauges.liveSessions.decrement();
  };
});

export const sessionMachine = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    streams: streamsLogic,
  },
  actions: {
    deliver: ({ context, self }, frame: OutboundFrame) => {
      try {
        context.input.send(frame);
      } catch (error) {
        self.send({ type: 'session.sendFailed', error });
      }
    },
  },
  guards: {
    binaryTooLarge: ({ context, event }) =>
      event.type === 'ws.binary' && event.data.byteLength > context.input.limits.maxBinaryFrameBytes,
    microphoneDisabled: ({ context }) => !context.microphoneEnabled,
    microphoneChanged: ({ context, event }) =>
      event.type === 'microphone.changed' && event.enabled !== context.microphoneEnabled,
    sendBufferExceeded: ({ context, event }) =>
      event.type === 'ws.buffered' && event.bytes > context.input.limits.maxSendBufferBytes,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ input, microphoneEnabled: input.microphone.isEnabled() }),
  initial: 'open',
  states: {
    open: {
      entry: {
        type: 'deliver',
        params: ({ context }) =>
          textFrame({
            type: 'state',
            emotion: INITIAL_EMOTION,
            text: INITIAL_TEXT,
            microphone: { enabled: context.microphoneEnabled },
          }),
      },
      invoke: {
        id: 'streams',
        src: 'streams',
        input: ({ context }) => context.input,
        onError: { target: 'failed' },
      },
      on: {
        'ws.binary': [
          {
            guard: 'binaryTooLarge',
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.binaryFrameTooLarge) },
          },
          // Checked on arrival: audio recorded while the microphone was enabled is still answered.
          {
            guard: 'microphoneDisabled',
            actions: { type: 'deliver', params: errorFrame('microphone_disabled') },
          },
          {
            actions: sendTo('streams', ({ event }) => ({
              type: 'conversation.request',
              request: { service: 'chat', audio: event.data },
            })),
          },
        ],
        'ws.text': {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const parsed = parseClientText(event.data, context.input.limits.maxTextFrameBytes);
            if (!parsed.ok) {
              enqueue({ type: 'deliver', params: errorFrame(parsed.code, parsed.message) });
              return;
            }
            enqueue.sendTo('streams', {
              type: 'conversation.request',
              request: { service: parsed.command.service },
            } satisfies ConversationRequestEvent);
          }),
        },
        'conversation.frame': {
          actions: { type: 'deliver', params: ({ event }) => event.frame },
        },
        'microphone.changed': {
          guard: 'microphoneChanged',
          actions: [
            assign({ microphoneEnabled: ({ event }) => event.enabled }),
            {
              type: 'deliver',
              params: ({ event }) => textFrame({ type: 'microphone', enabled: event.enabled }),
            },
          ],
        },
        'ws.buffered': {
          guard: 'sendBufferExceeded',
          target: 'closed',
          actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.sendBufferExceeded) },
        },
        'server.shutdown': {
          target: 'closed',
          actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.goingAway) },
        },
        'ws.closed': { target: 'closed' },
        'session.sendFailed': { target: 'closed' },
        'session.streamFailed': { target: 'failed' },
      },
    },
    /** One of the session's own streams failed: tell the client, then end. */
    failed: {
      always: {
        target: 'closed',
        actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
      },
    },
    closed: { type: 'final' },
  },
});

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

/** Starts a session; its initial `state` frame is sent before this returns. */
export const startSessionActor = (input: SessionInput): SessionActor =>
  createActor(sessionMachine, { input }).start();
