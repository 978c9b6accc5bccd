import type { Observable } from 'rxjs';
import type {
  MessageIdAllocator,
  AudioPairFrame,
  OutboundFrame,
  TextFrame,
  ConversationLimits,
  ErrorCode,
  TurnNumber as Turn,
  ChatInterface,
  HeardCommand,
} from '../../protocol/ws/index.js';
import type { RosCalls } from '../../ros/port/ros-calls.js';
import type { CallEvent } from '../../streams/call-streams.js';
import type { WriteScheduler } from '../../streams/play-audio/fan-out.js';
import type { ConversationGauges } from '../conversation-gauges.js';
import type { ByteBudget } from '../budgets.js';
import type { MicrophoneView } from '../microphone-machine.js';
import type { SpeechUplink } from '../../streams/speech-uplink.js';

/** The session's requests, events and context: the vocabulary of session-machine.ts and its helpers. */

/**
 * A ROS call a session asks for; a chat request is one turn, its audio kept by the session (session.ts). A streamed
 * turn's audio went to the robot as it was spoken (with `/chat`, it is kept too, and sent whole).
 */
export type ConversationRequest =
  | { readonly service: 'chat'; readonly turn: Turn; readonly audioBytes: number; readonly streamed: boolean }
  | { readonly service: 'clear_history' };
export type ChatRequest = Extract<ConversationRequest, { service: 'chat' }>;

/**
 * A request that is not queued: its error frame (none for a turn refused `busy` again), and for a turn its
 * number (then `turn_end` refused).
 */
export interface Refusal {
  readonly frame: OutboundFrame | undefined;
  readonly turn: Turn | undefined;
}

/** What a session uses of the process; shared by all sessions. */
export interface SessionDeps {
  readonly calls: Pick<RosCalls, 'call' | 'converse'>;
  /** Streamed utterances and heard reports to the robot, its transcripts back. */
  readonly speech: SpeechUplink;
  /**
   * Names this session's turns on the graph: turn N is `${utterancePrefix}-${N}` (the Converse goal's and
   * the streamed utterance's `utterance_id`). Unique per session and bridge run.
   */
  readonly utterancePrefix: string;
  /** How a turn reaches the robot (`--chat_interface`); `service` when not given. */
  readonly chatInterface?: ChatInterface;
  readonly messageIds: MessageIdAllocator;
  readonly playAudioPairs$: Observable<AudioPairFrame>;
  readonly microphone: MicrophoneView;
  readonly limits: ConversationLimits;
  readonly gauges: ConversationGauges;
  /** Audio bytes held by the chat calls of all sessions, running or waiting (`maxQueuedAudioBytes`). */
  readonly audioBudget: ByteBudget;
  /**
   * Where what the socket cannot take yet waits, process-wide (fan-out.ts): `/play_audio` pairs are
   * written on its turns and a slow kiosk's frames wait there; it counts what is dropped. Without it a
   * session has one of its own.
   */
  readonly outboundScheduler?: WriteScheduler;
}

/** What the transport gives a session to write with; SessionInput documents each. */
export interface SessionWrites {
  readonly send: (frame: OutboundFrame) => void;
  readonly batch?: ((writes: () => void) => void) | undefined;
  readonly bufferedBytes?: (() => number) | undefined;
}

export interface SessionInput extends SessionDeps, SessionWrites {
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
   * Bytes waiting in the socket's send buffer now. Frames are written while it holds less than
   * LOW_WATER_BYTES and wait in the session's queue otherwise (outbound-queue.ts), and a write that leaves
   * more than `maxSendBufferBytes` waiting closes the socket with 1008 (the kiosk queue); without it the socket
   * is taken to hold nothing and only `ws.buffered` reports are checked.
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
   * pinged (never after the session's own writes: its kiosk queue reads `bufferedBytes` then).
   */
  | { readonly type: 'ws.buffered'; readonly bytes: number }
  /** The server is stopping: close with 1001. */
  | { readonly type: 'server.shutdown' };

/**
 * What the chart hears: the transport's events, read into what they mean (session.ts), and the effects'
 * answers. Every fact a decision needs is in the event, so a transition depends on the snapshot and the
 * event alone.
 */
export type SessionEvent =
  /**
   * A kiosk's utterance (a binary frame); `fits`: its audio fits in the budget now; `overShare`: it does
   * not because the sessions of its address hold their share.
   */
  | {
      readonly type: 'utterance';
      readonly audio: Uint8Array;
      readonly fits: boolean;
      readonly overShare?: boolean;
    }
  /** `utterance_start`: a streamed utterance opens; `at` is the session clock's time (ms). */
  | { readonly type: 'utterance_start'; readonly at: number }
  /** The socket's part, end of the open utterance: the upload's (upload-machine.ts), passed on to it. */
  | Extract<UploadEvent, { type: 'part' | 'utterance_end' }>
  /** The upload's news, told to its parent. An admitted part: to the robot, and kept for `/chat`. */
  | {
      readonly type: 'upload.part';
      readonly turn: Turn;
      readonly sequence: number;
      readonly audio: Uint8Array;
    }
  /** The open utterance was accepted whole (`parts` of them): its turn joins the queue. */
  | {
      readonly type: 'utterance.ended';
      readonly turn: Turn;
      readonly parts: number;
      readonly audioBytes: number;
    }
  /** The open utterance was given up after `parts` parts; `refusal` says why to the kiosk (none on a cancel). */
  | {
      readonly type: 'upload.abandoned';
      readonly turn: Turn;
      readonly parts: number;
      readonly refusal: Refusal | undefined;
    }
  /** A part or an end that names no open utterance: its error, the utterance (if any) goes on. */
  | { readonly type: 'upload.refused'; readonly frame: TextFrame }
  /** The kiosk's `heard` report: how much of a turn's answer it played before the visitor interrupted. */
  | ({ readonly type: 'heard' } & Omit<HeardCommand, 'service'>)
  /** The robot's transcript of a streamed turn: sent on to the kiosk. */
  | { readonly type: 'transcript'; readonly turn: Turn; readonly text: string; readonly final: boolean }
  | { readonly type: 'clear_history' }
  /** The kiosk's `cancel` command (barge-in). */
  | { readonly type: 'cancel' }
  /** A text frame that is no command: answered with its error. */
  | { readonly type: 'text.rejected'; readonly code: ErrorCode; readonly message: string }
  /** The running call's parts and end (its request is the context's `running`). */
  | CallEvent
  | { readonly type: 'microphone.changed'; readonly enabled: boolean }
  | Exclude<SessionTransportEvent, { type: 'ws.binary' | 'ws.text' }>
  /** A send threw, or left the reader too far behind: the socket is gone. */
  | { readonly type: 'session.sendFailed' }
  | { readonly type: 'session.streamFailed'; readonly error: unknown };

/** What the chart starts from. */
export interface SessionMachineInput {
  readonly limits: ConversationLimits;
  /** The process-wide audio budget's size, for the `busy` message. */
  readonly audioBudgetBytes: number;
  readonly microphoneEnabled: boolean;
}

/**
 * Plain data: a snapshot can be copied, stored and replayed. What the session holds live (the socket, the
 * audio, the running call, its share of the budget) is session.ts's.
 */
export interface SessionContext extends SessionMachineInput {
  /** The request whose call runs (`calling`), if any. */
  readonly running: ConversationRequest | undefined;
  /** Requests waiting behind it, oldest first. */
  readonly waiting: readonly ConversationRequest[];
  /** Binary frames and `utterance_start`s received so far: the number of the last turn. */
  readonly turns: number;
  /** The session sent `utterance_start` once: from then on its binary frames are parts (the upload's). */
  readonly streams: boolean;
  /** The streamed utterance the upload has open, if any: one at a time. */
  readonly openTurn: Turn | undefined;
  /** Turns a `cancel` stopped or dropped, in turn order, for `cancelled` (and the ack after them). */
  readonly cancelledTurns: readonly Turn[];
  /**
   * A turn was refused `busy` since the last request was queued: the turns refused after it end with
   * `turn_end` alone, the error is not repeated.
   */
  readonly busyTold: boolean;
}

/**
 * The streamed utterance open now: its turn, parts and bytes so far, when it opened and when its last part
 * carrying audio came (ms; its opening until one has).
 */
export interface OpenUtterance {
  readonly turn: Turn;
  readonly parts: number;
  readonly bytes: number;
  readonly openedAt: number;
  readonly lastAudioAt: number;
}

/**
 * What the upload chart hears from its parent, the session (upload-machine.ts): the admitted
 * `utterance_start`, and the socket's parts, ends and cancels. Facts that are the session's (the queue) come
 * in the event, as the budget's do.
 */
export type UploadEvent =
  /** The session admitted an `utterance_start` as turn `turn`, at `at` (the session clock, ms). */
  | { readonly type: 'upload.open'; readonly turn: Turn; readonly at: number }
  /**
   * A binary frame of a session that streams: a part, `header` undefined when the frame is shorter than
   * the header; `fits`: its audio fits in the budget now (it is held only with `/chat`).
   */
  | {
      readonly type: 'part';
      readonly header: { readonly turn: number; readonly sequence: number } | undefined;
      readonly audio: Uint8Array;
      readonly at: number;
      readonly fits: boolean;
      /** It does not fit because the sessions of its address hold their share of the budget. */
      readonly overShare?: boolean;
    }
  /** `queueFull`: the session's queue has no room for the turn now. */
  | {
      readonly type: 'utterance_end';
      readonly turn: Turn;
      readonly parts: number;
      readonly queueFull: boolean;
    }
  | { readonly type: 'cancel' }
  /** The microphone was disabled: the open utterance is abandoned at once (told by the session). */
  | { readonly type: 'upload.muted' };

/** What the upload chart starts from; its context adds the open utterance. Plain data, as the session's. */
export interface UploadInput {
  readonly limits: ConversationLimits;
  /** The process-wide audio budget's size, for the `busy` message. */
  readonly audioBudgetBytes: number;
}

export interface UploadContext extends UploadInput {
  readonly open: OpenUtterance | undefined;
}
