import { catchError, endWith, map, of, Subscription, type Observable } from 'rxjs';
import {
  type MessageIdAllocator,
  ackFrame,
  encodeAudioPair,
  turnEndFrame,
  type OutboundFrame,
} from '../../protocol/ws-frames.js';
import type { Turn, ChatInterface } from '../../protocol/ws-protocol.js';
import type { RosCalls } from '../../port/ros-calls.js';
import { playAudioWriter, type PlayAudioWriter } from '../../streams/play-audio/kiosk-writer.js';
import { rosCall$, turn$, type TurnPart } from '../../streams/call-streams.js';
import { trackSubscription, type ByteBudget } from '../conversation-gauges.js';
import { Outbox } from './session-outbox.js';
import { sendOutcome, type Refusal } from './session-frames.js';
import {
  type CallOutcome,
  type ConversationRequest,
  type SessionEvent,
  type SessionInput,
} from './session-types.js';

/**
 * What a session holds live, outside its snapshot: the socket's outbox, the audio of its admitted turns and
 * their share of the process-wide budget, the running call, and the /play_audio and microphone
 * subscriptions. The chart's named actions are its only callers (session-actions.ts); what comes back
 * (a call's parts and answer, a failed send) comes back as events.
 */

/**
 * The running call's stream, turned into the events the machine hears: with the Converse action one
 * `call.part` per part as it arrives, then `call.settled`; with `/chat` (and clear_history) only the one
 * `call.settled`, carrying the answer, so the service's round trip costs the machine one event as before.
 */
const callEvents$ = (
  calls: Pick<RosCalls, 'call' | 'converse'>,
  chatInterface: ChatInterface,
  audio: Uint8Array | undefined,
): Observable<SessionEvent> => {
  const settled = (outcome: CallOutcome): SessionEvent => ({ type: 'call.settled', outcome });
  const failed = (error: unknown) => of(settled({ kind: 'failed', error }));
  if (audio === undefined) {
    return rosCall$(calls, 'clear_history', {}).pipe(
      map(() => settled({ kind: 'answered' })),
      catchError(failed),
    );
  }
  if (chatInterface === 'service') {
    return turn$(calls, 'service', audio).pipe(
      map((part) => settled({ kind: 'answered', part })),
      catchError(failed),
    );
  }
  return turn$(calls, 'action', audio).pipe(
    map((part): SessionEvent => ({ type: 'call.part', part })),
    endWith(settled({ kind: 'answered' })),
    catchError(failed),
  );
};

/** A chat request's audio and its hold on the budget, from its admission to its call's end. */
interface HeldAudio {
  readonly audio: Uint8Array;
  /** Gives its bytes back to the budget; undefined when they were not taken. */
  readonly release: (() => void) | undefined;
}

export class SessionResources {
  readonly #input: SessionInput;
  readonly #outbox: Outbox;
  readonly #budget: ByteBudget;
  readonly #held = new Map<Turn, HeldAudio>();
  readonly #messageIds: MessageIdAllocator;
  readonly #chatInterface: ChatInterface;
  readonly #playAudio: PlayAudioWriter;
  readonly #subscriptions = new Subscription();
  #call: Subscription | undefined;
  /** The request whose call runs and has not settled: told to onCallAbandoned if it is stopped first. */
  #unsettled: ConversationRequest | undefined;
  #closed = false;

  constructor(
    input: SessionInput,
    private readonly tell: (event: SessionEvent) => void,
  ) {
    this.#input = input;
    this.#outbox = new Outbox(input.send, input.batch, input.bufferedBytes, input.limits.maxSendBufferBytes);
    this.#budget = input.audioBudget;
    this.#messageIds = input.messageIds;
    this.#chatInterface = input.chatInterface ?? 'service';
    this.#playAudio = playAudioWriter({
      maxSendBufferBytes: input.limits.maxSendBufferBytes,
      bufferedBytes: input.bufferedBytes,
      send: this.#outbox.send,
      sendFailed: this.#sendFailed,
      onDropped: input.onPlayAudioDropped,
    });
    input.gauges.liveSessions.increment();
  }

  /** Whether `bytes` of audio fit in the process-wide budget now (the fact an `utterance` carries). */
  audioFits(bytes: number): boolean {
    return this.#budget.fits(bytes);
  }

  /** Subscribes to /play_audio and the microphone: once the session's first frame is out. */
  listen(): void {
    const { playAudioPairs$, microphone, gauges } = this.#input;
    const fail = (error: unknown) => {
      this.tell({ type: 'session.streamFailed', error });
    };
    this.#subscriptions.add(
      playAudioPairs$
        .pipe(trackSubscription(gauges.openSubscriptions))
        .subscribe({ next: this.#playAudio.offer, error: fail }),
    );
    this.#subscriptions.add(
      microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
        next: (enabled) => {
          this.tell({ type: 'microphone.changed', enabled });
        },
        error: fail,
      }),
    );
  }

  deliver(frame: OutboundFrame): void {
    if (!this.#outbox.send(frame)) this.#sendFailed();
  }

  /** A request that is not queued: its error, and for a turn `turn_end` refused, in one write. */
  refuse(refusal: Refusal): void {
    const outbox = this.#outbox;
    this.#writeTogether(
      () =>
        (refusal.frame === undefined || outbox.send(refusal.frame)) &&
        (refusal.turn === undefined || outbox.send(turnEndFrame(refusal.turn, 'refused'))),
    );
  }

  /** An admitted turn's audio: kept for its call, its bytes taken from the budget (the event said they fit). */
  holdAudio(turn: Turn, audio: Uint8Array): void {
    this.#held.set(turn, { audio, release: this.#budget.take(audio.byteLength) });
  }

  /** Gives back the audio of a turn whose call ended or that was dropped. */
  releaseAudio(request: ConversationRequest | undefined): void {
    if (request?.service !== 'chat') return;
    const held = this.#held.get(request.turn);
    if (held === undefined) return;
    this.#held.delete(request.turn);
    held.release?.();
  }

  /** Starts `request`'s call; its parts and answer come back as events. Nothing starts for a gone socket. */
  startCall(request: ConversationRequest): void {
    this.stopCall();
    if (this.#outbox.broken || this.#closed) return;
    const audio = request.service === 'chat' ? this.#held.get(request.turn)?.audio : undefined;
    if (request.service === 'chat' && audio === undefined) {
      throw new Error(`turn ${request.turn} started without its audio`);
    }
    this.#unsettled = request;
    this.#call = callEvents$(this.#input.calls, this.#chatInterface, audio).subscribe((event) => {
      if (event.type === 'call.settled') this.#unsettled = undefined;
      this.tell(event);
    });
  }

  /** Stops the running call, if one runs: abandoned, a Converse goal cancelled; nothing of it is heard again. */
  stopCall(): void {
    this.#call?.unsubscribe();
    this.#call = undefined;
    const unsettled = this.#unsettled;
    this.#unsettled = undefined;
    if (unsettled === undefined) return;
    const { service } = unsettled;
    this.#input.onCallAbandoned?.(
      service === 'chat' && this.#chatInterface === 'action' ? 'converse' : service,
    );
  }

  /** A part of the running turn's answer: its pair goes out at once, its message id taken as it leaves. */
  deliverPart(turn: Turn, part: TurnPart): void {
    if (!this.#outbox.send(encodeAudioPair(this.#messageIds.next(), part, turn))) this.#sendFailed();
  }

  /** How the running call ended, as frames in one write. */
  deliverOutcome(request: ConversationRequest, outcome: CallOutcome): void {
    this.#writeTogether(() => sendOutcome(request, outcome, this.#messageIds, this.#outbox));
  }

  /** `turn_end` cancelled for each stopped or dropped turn, in turn order, then the ack, in one write. */
  deliverCancelled(turns: readonly Turn[]): void {
    const outbox = this.#outbox;
    this.#writeTogether(
      () =>
        turns.every((turn) => outbox.send(turnEndFrame(turn, 'cancelled'))) &&
        outbox.send(ackFrame('cancel')),
    );
  }

  /** The socket took what it held (drain): write the `/play_audio` pairs that waited, while they fit. */
  flushPlayAudio(): void {
    this.#playAudio.flush();
  }

  /** The session ended, however it ended: its call abandoned, its subscriptions and budget given back. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stopCall();
    this.#subscriptions.unsubscribe();
    this.#playAudio.clear();
    for (const held of this.#held.values()) held.release?.();
    this.#held.clear();
    this.#input.gauges.liveSessions.decrement();
  }

  /** Several frames in one write (the transport's cork); a frame that could not be sent ends the session. */
  #writeTogether(writes: () => boolean): void {
    if (!this.#outbox.batch(writes)) this.#sendFailed();
  }

  readonly #sendFailed = (): void => {
    this.tell({ type: 'session.sendFailed' });
  };
}
