import type { Observable } from 'rxjs';
import type { MessageIdAllocator } from '../../protocol/message-ids.js';
import { type AudioPairFrame, type OutboundFrame } from '../../protocol/ws-frames.js';
import { type ConversationLimits, type Turn } from '../../protocol/ws-protocol.js';
import type { RosCalls } from '../../ros/ros-calls.js';
import type { ChatInterface } from '../../cli/options.js';
import { type TurnPart } from '../../streams/ros-call.js';
import type { BudgetHoldings, ByteBudget, ConversationGauges } from '../../streams/resource-gauges.js';
import type { MicrophoneView } from '../microphone-machine.js';
import { type Outbox, type SessionSocket } from './session-outbox.js';

/** The session's requests, events and context: the vocabulary of session-machine.ts and its helpers. */

/** A ROS call a session asks for; a chat request is one turn. */
export type ConversationRequest =
  | { readonly service: 'chat'; readonly audio: Uint8Array; readonly turn: Turn }
  | { readonly service: 'clear_history' };
export type ChatRequest = Extract<ConversationRequest, { service: 'chat' }>;

/** What a session uses of the process; shared by all sessions. */
export interface SessionDeps {
  readonly calls: Pick<RosCalls, 'call' | 'converse'>;
  /** How a turn reaches the robot (`--chat_interface`); `service` when not given. */
  readonly chatInterface?: ChatInterface;
  readonly messageIds: MessageIdAllocator;
  readonly playAudioPairs$: Observable<AudioPairFrame>;
  readonly microphone: MicrophoneView;
  readonly limits: ConversationLimits;
  readonly gauges: ConversationGauges;
  /** Audio bytes held by the chat calls of all sessions, running or waiting (`maxQueuedAudioBytes`). */
  readonly audioBudget: ByteBudget;
  /** Told how many `/play_audio` messages a slow kiosk's backlog dropped (counted, logged). */
  readonly onPlayAudioDropped?: (count: number) => void;
}

export interface SessionInput extends SessionDeps, SessionSocket {
  /**
   * Writes one outbound item to this session's socket: a text frame, an audio pair (both frames in one corked
   * write), or a close. Throwing ends the session.
   */
  readonly send: (frame: OutboundFrame) => void;
  /**
   * Runs `writes` (several `send` calls) as one write to the socket where the transport can (uWebSockets.js
   * cork): a turn's last pair and its `turn_end`, or a cancel's frames, leave in one syscall while they fit the
   * cork buffer (16 KiB). A larger frame is written at once, with what was corked before it; what follows goes
   * in a second write. Optional: without it the frames are sent one by one, in the same order.
   */
  readonly batch?: (writes: () => void) => void;
  /**
   * Told when the session stops with a call still unanswered (named as on the graph's side: `converse` for a
   * turn with the Converse action); its late answer will be dropped.
   */
  readonly onCallAbandoned?: (service: 'chat' | 'clear_history' | 'converse') => void;
  /**
   * Bytes waiting in the socket's send buffer now. With it, `/play_audio` pairs are written only while they
   * fit under `maxSendBufferBytes` and wait in a bounded backlog otherwise (PlayAudioBacklog), and a write
   * that leaves more than that waiting closes the socket with 1008 (the outbox); without it pairs are
   * written at once and only `ws.buffered` reports are checked.
   */
  readonly bufferedBytes?: () => number;
}

/** Events the transport sends. Frame data must stay valid after the call: pass a copy of uWS buffers. */
export type SessionTransportEvent =
  | { readonly type: 'ws.binary'; readonly data: Uint8Array }
  | { readonly type: 'ws.text'; readonly data: string | Uint8Array }
  /** The socket is closed; stop without sending anything. */
  | { readonly type: 'ws.closed' }
  /**
   * Bytes waiting in the socket's send buffer, reported by the transport when the socket drains or is
   * pinged (never after the session's own writes: its outbox reads `bufferedBytes` then).
   */
  | { readonly type: 'ws.buffered'; readonly bytes: number }
  /** The server is stopping: close with 1001. */
  | { readonly type: 'server.shutdown' };

/**
 * What the running call ended with; the `answering` state turns it into frames. A `/chat` answer carries
 * its one part; a Converse goal's parts went out as they came, so its answer carries none.
 */
export type CallOutcome =
  | { readonly kind: 'answered'; readonly request: ChatRequest; readonly part: TurnPart | undefined }
  | { readonly kind: 'answered'; readonly request: { readonly service: 'clear_history' } }
  | { readonly kind: 'failed'; readonly request: ConversationRequest; readonly error: unknown };

export type SessionInternalEvent =
  | { readonly type: 'request'; readonly request: ConversationRequest }
  /** One part of the running turn's answer (Converse feedback): its pair is sent at once. */
  | { readonly type: 'call.part'; readonly request: ChatRequest; readonly part: TurnPart }
  | { readonly type: 'call.settled'; readonly outcome: CallOutcome }
  /** The kiosk's `cancel` command (barge-in). */
  | { readonly type: 'cancel' }
  | { readonly type: 'microphone.changed'; readonly enabled: boolean }
  /** A send threw: the socket is gone. */
  | { readonly type: 'session.sendFailed' }
  | { readonly type: 'session.streamFailed'; readonly error: unknown };

export type SessionEvent = SessionTransportEvent | SessionInternalEvent;

export interface SessionContext {
  readonly input: SessionInput;
  readonly outbox: Outbox;
  /** The audio its admitted requests hold of the process-wide budget; all given back when it ends. */
  readonly holdings: BudgetHoldings<ConversationRequest>;
  /** Last microphone state this session was told about. */
  readonly microphoneEnabled: boolean;
  /** The request whose call runs (`calling`), if any. */
  readonly running: ConversationRequest | undefined;
  /** Requests waiting behind it, oldest first. */
  readonly waiting: readonly ConversationRequest[];
  /** Binary frames received so far: the number of the last turn. */
  readonly turns: number;
  /** Turns a `cancel` stopped or dropped, in turn order, for `cancelled` (and the ack after them). */
  readonly cancelledTurns: readonly Turn[];
  /**
   * A turn was refused `busy` since the last request was queued: the turns refused after it end with
   * `turn_end` alone, the error is not repeated.
   */
  readonly busyTold: boolean;
}
