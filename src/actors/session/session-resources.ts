import { Subscription } from 'rxjs';
import { UtteranceEvent, type UtteranceEventCode } from '../../ros/port/ros-messages.js';
import {
  type MessageIdAllocator,
  ackFrame,
  encodeAudioPair,
  errorFrame,
  turnEndFrame,
  type OutboundFrame,
  type TurnNumber as Turn,
  type ChatInterface,
  type HeardCommand,
  type MessageId,
} from '../../protocol/ws/index.js';
import { wavOfPcmParts } from '../../protocol/pcm-wav.js';
import { rosCall$, turn$, type TurnPart, type TurnUtterance } from '../../streams/call-streams.js';
import { heardText } from './heard-text.js';
import { trackSubscription } from '../conversation-gauges.js';
import { type BudgetShortfall, type ByteBudget } from '../budgets.js';
import { type Outbox, outboxOf, sendOutcome } from './session-outbox.js';
import {
  type CallOutcome,
  type ConversationRequest,
  type Refusal,
  type SessionEvent,
  type SessionInput,
} from './session-types.js';

/**
 * What a session holds live, outside its snapshots: the socket's outbox, the audio of its admitted turns and
 * their share of the process-wide budget, the running call, the streamed utterance told to the robot, and
 * the /play_audio and microphone subscriptions. Its only callers are the session chart's effects and its
 * call, given to the chart by session.ts; what comes back (a call's parts and answer, a failed send, a
 * transcript) comes back as the chart's events, through `tell`.
 */

/**
 * A chat request's audio and its hold on the budget, from its admission to its call's end: a whole
 * utterance's one frame, or a streamed utterance's parts (kept only for `/chat`), each part's hold kept.
 */
interface HeldAudio {
  readonly chunks: Uint8Array[];
  /** Give their bytes back to the budget; one per chunk that took any. */
  readonly releases: (() => void)[];
}

const EMPTY_AUDIO = new Uint8Array(0);

/** Parts of one answer remembered for a heard report; an answer of more parts is cut there. */
const MAX_SPOKEN_PARTS = 256;

/** The latest answered (or answering) turn's pairs: what a heard report about it is read against. */
interface SpokenTurn {
  turn: Turn;
  readonly messageIds: MessageId[];
  readonly texts: string[];
}

export class SessionResources {
  readonly #input: SessionInput;
  readonly #outbox: Outbox;
  readonly #budget: ByteBudget;
  readonly #held = new Map<Turn, HeldAudio>();
  readonly #messageIds: MessageIdAllocator;
  readonly #chatInterface: ChatInterface;
  readonly #subscriptions = new Subscription();
  /** Streamed turns whose transcripts come to this session, until each turn ends. */
  readonly #following = new Map<Turn, () => void>();
  #spoken: SpokenTurn | undefined;
  /** The streamed utterance told to the robot and not ended: told as abandoned if the session ends first. */
  #open: { readonly turn: Turn; parts: number } | undefined;
  #closed = false;

  readonly #tell: (event: SessionEvent) => void;

  constructor(input: SessionInput, tell: (event: SessionEvent) => void) {
    this.#input = input;
    this.#tell = tell;
    this.#outbox = outboxOf(input, this.#sendFailed);
    this.#budget = input.audioBudget;
    this.#messageIds = input.messageIds;
    this.#chatInterface = input.chatInterface ?? 'service';
    input.gauges.liveSessions.value += 1;
  }

  /** Why `bytes` of audio would not fit in the budget now (share or limit): the fact an `utterance` carries. */
  audioShortfall(bytes: number): BudgetShortfall | undefined {
    return this.#budget.shortfall(bytes);
  }

  /** The same for a streamed part of `bytes`: it is held only for `/chat`; the Converse goal names it. */
  partShortfall(bytes: number): BudgetShortfall | undefined {
    return this.#chatInterface === 'action' ? undefined : this.#budget.shortfall(bytes);
  }

  /** Turn `turn`'s name on the graph: the Converse goal's and the streamed utterance's `utterance_id`. */
  utteranceId(turn: Turn): string {
    return `${this.#input.utterancePrefix}-${turn}`;
  }

  /**
   * A streamed utterance opened as turn `turn`: its parts are kept for `/chat`, its transcripts come to this
   * session from now until its turn ends.
   */
  followUtterance(turn: Turn): void {
    this.#open = { turn, parts: 0 };
    if (this.#chatInterface === 'service') this.#held.set(turn, { chunks: [], releases: [] });
    this.#following.set(
      turn,
      this.#input.speech.followTranscripts(this.utteranceId(turn), (transcript) => {
        this.#tell({ type: 'transcript', turn, text: transcript.text, final: transcript.final });
      }),
    );
  }

  /** A part of the open utterance: to the robot at once; kept too (its bytes taken) for `/chat`. */
  sendPart(turn: Turn, sequence: number, audio: Uint8Array): void {
    if (this.#open?.turn === turn) this.#open.parts = sequence + 1;
    this.#publish(turn, sequence, UtteranceEvent.PART, audio);
    const held = this.#held.get(turn);
    if (held === undefined) return;
    held.chunks.push(audio);
    const release = this.#budget.take(audio.byteLength);
    if (release !== undefined) held.releases.push(release);
  }

  /** The open utterance ended whole after `parts` parts: the robot told, before the turn is queued. */
  endUtterance(turn: Turn, parts: number): void {
    if (this.#open?.turn === turn) this.#open = undefined;
    this.#publish(turn, parts, UtteranceEvent.END, EMPTY_AUDIO);
  }

  /**
   * The open utterance was given up: the robot told, its audio and transcripts let go, and, for an error,
   * the error frame and `turn_end` abandoned in one write.
   */
  abandonUtterance(turn: Turn, parts: number, refusal: Refusal | undefined): void {
    if (this.#open?.turn === turn) this.#open = undefined;
    this.#publish(turn, parts, UtteranceEvent.ABANDONED, EMPTY_AUDIO);
    this.releaseAudio({ service: 'chat', turn, audioBytes: 0, streamed: true });
    this.#unfollow(turn);
    if (refusal === undefined) return;
    const outbox = this.#outbox;
    this.#writeTogether(
      () =>
        (refusal.frame === undefined || outbox.send(refusal.frame)) &&
        outbox.send(turnEndFrame(turn, 'abandoned')),
    );
  }

  /**
   * A kiosk's heard report, told to the robot when it names the latest answered turn and one of its pairs;
   * answered `heard_invalid` otherwise.
   */
  reportHeard(report: Omit<HeardCommand, 'service'>): void {
    const spoken = this.#spoken;
    const cut = spoken?.turn === report.turn ? spoken.messageIds.indexOf(report.messageId) : -1;
    if (spoken === undefined || cut < 0) {
      this.deliver(
        errorFrame(
          'heard_invalid',
          `message ${report.messageId} of turn ${report.turn} is not one of the latest answer's (turn ${spoken?.turn ?? 'none'})`,
        ),
      );
      return;
    }
    this.#input.speech.heard({
      utterance_id: this.utteranceId(report.turn),
      played_ms: report.playedMs,
      heard_text: heardText(spoken.texts, cut, report.partPlayedMs, report.partMs),
    });
  }

  /** Subscribes to /play_audio and the microphone: once the session's first frame is out. */
  listen(): void {
    const { playAudioPairs$, microphone, gauges } = this.#input;
    const fail = (error: unknown) => {
      this.#tell({ type: 'session.streamFailed', error });
    };
    this.#subscriptions.add(
      playAudioPairs$
        .pipe(trackSubscription(gauges.openSubscriptions))
        .subscribe({ next: this.#outbox.offer, error: fail }),
    );
    this.#subscriptions.add(
      microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
        next: (enabled) => {
          this.#tell({ type: 'microphone.changed', enabled });
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
    const release = this.#budget.take(audio.byteLength);
    this.#held.set(turn, { chunks: [audio], releases: release === undefined ? [] : [release] });
  }

  /** Gives back the audio of a turn whose call ended or that was dropped. */
  releaseAudio(request: ConversationRequest | undefined): void {
    if (request?.service !== 'chat') return;
    const held = this.#held.get(request.turn);
    if (held === undefined) return;
    this.#held.delete(request.turn);
    for (const release of held.releases) release();
  }

  /**
   * Runs `request`'s call, its stream told as the chart's events: with the Converse action a `call.part`
   * per part as it arrives, then `call.settled`; with `/chat` and clear_history only `call.settled`, the
   * answer in it. Returns its stop: the call abandoned, a Converse goal cancelled, nothing of it heard
   * again. Nothing starts for a gone socket.
   */
  runCall(request: ConversationRequest | undefined, tell: (event: SessionEvent) => void): () => void {
    if (request === undefined || this.#outbox.broken || this.#closed) return () => undefined;
    let settled = false;
    const settle = (outcome: CallOutcome): void => {
      settled = true;
      tell({ type: 'call.settled', outcome });
    };
    const error = (cause: unknown): void => {
      settle({ kind: 'failed', error: cause });
    };
    const { calls } = this.#input;
    let call: Subscription;
    if (request.service === 'clear_history') {
      call = rosCall$(calls, 'clear_history', {}).subscribe({
        next: () => {
          settle({ kind: 'answered' });
        },
        error,
      });
    } else {
      const utterance = this.#utteranceOf(request);
      call =
        this.#chatInterface === 'service'
          ? turn$(calls, 'service', utterance).subscribe({
              next: (part) => {
                settle({ kind: 'answered', part });
              },
              error,
            })
          : turn$(calls, 'action', utterance).subscribe({
              next: (part) => {
                tell({ type: 'call.part', part });
              },
              complete: () => {
                settle({ kind: 'answered' });
              },
              error,
            });
    }
    return () => {
      call.unsubscribe();
      if (settled) return;
      const { service } = request;
      this.#input.onCallAbandoned?.(
        service === 'chat' && this.#chatInterface === 'action' ? 'converse' : service,
      );
    };
  }

  /** A part of the running turn's answer: its pair goes out at once, its message id taken as it leaves. */
  deliverPart(turn: Turn, part: TurnPart): void {
    const messageId = this.#messageIds.next();
    this.#noteSpoken(turn, messageId, part.text);
    if (!this.#outbox.send(encodeAudioPair(messageId, part, turn))) this.#sendFailed();
  }

  /** How the running call ended, as frames in one write; a streamed turn's transcripts end with it. */
  deliverOutcome(request: ConversationRequest, outcome: CallOutcome): void {
    if (request.service === 'chat') this.#unfollow(request.turn);
    this.#writeTogether(() =>
      sendOutcome(request, outcome, this.#messageIds, this.#outbox, this.#noteSpoken),
    );
  }

  /** `turn_end` cancelled for each stopped or dropped turn, in turn order, then the ack, in one write. */
  deliverCancelled(turns: readonly Turn[]): void {
    for (const turn of turns) this.#unfollow(turn);
    const outbox = this.#outbox;
    this.#writeTogether(
      () =>
        turns.every((turn) => outbox.send(turnEndFrame(turn, 'cancelled'))) &&
        outbox.send(ackFrame('cancel')),
    );
  }

  /** The socket took what it held (drain): write the `/play_audio` pairs that waited, while they fit. */
  flushPlayAudio(): void {
    this.#outbox.drained();
  }

  /**
   * The session ended, however it ended (its call stopped with its chart): an utterance still open told to
   * the robot as abandoned, its subscriptions and budget given back.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#open !== undefined) {
      this.#publish(this.#open.turn, this.#open.parts, UtteranceEvent.ABANDONED, EMPTY_AUDIO);
      this.#open = undefined;
    }
    for (const unfollow of this.#following.values()) unfollow();
    this.#following.clear();
    this.#subscriptions.unsubscribe();
    this.#outbox.clear();
    for (const held of this.#held.values()) for (const release of held.releases) release();
    this.#held.clear();
    this.#input.gauges.liveSessions.value -= 1;
  }

  /** What the call of chat request `request` sends: a whole frame, or a streamed utterance. */
  #utteranceOf(request: Extract<ConversationRequest, { service: 'chat' }>): TurnUtterance {
    const id = this.utteranceId(request.turn);
    const chunks = this.#held.get(request.turn)?.chunks;
    if (request.streamed) {
      return {
        id,
        streamed: this.#chatInterface === 'action',
        audio: this.#chatInterface === 'action' ? EMPTY_AUDIO : wavOfPcmParts(chunks ?? []),
      };
    }
    const audio = chunks?.[0];
    if (audio === undefined) throw new Error(`turn ${request.turn} started without its audio`);
    return { id, streamed: false, audio };
  }

  #publish(turn: Turn, sequence: number, event: UtteranceEventCode, audio: Uint8Array): void {
    this.#input.speech.publish({ utterance_id: this.utteranceId(turn), sequence, event, audio });
  }

  #unfollow(turn: Turn): void {
    const unfollow = this.#following.get(turn);
    if (unfollow === undefined) return;
    this.#following.delete(turn);
    unfollow();
  }

  /** A pair of turn `turn` left: remembered, with the turn's earlier ones, for a heard report. */
  readonly #noteSpoken = (turn: Turn, messageId: MessageId, text: string): void => {
    const spoken = this.#spoken;
    if (spoken === undefined) {
      this.#spoken = { turn, messageIds: [messageId], texts: [text] };
      return;
    }
    // A new turn's pairs replace the last turn's.
    if (spoken.turn !== turn) {
      spoken.turn = turn;
      spoken.messageIds.length = 0;
      spoken.texts.length = 0;
    }
    if (spoken.messageIds.length >= MAX_SPOKEN_PARTS) return;
    spoken.messageIds.push(messageId);
    spoken.texts.push(text);
  };

  /** Several frames in one write (the transport's cork); a frame that could not be sent ends the session. */
  #writeTogether(writes: () => boolean): void {
    if (!this.#outbox.batch(writes)) this.#sendFailed();
  }

  readonly #sendFailed = (): void => {
    this.#tell({ type: 'session.sendFailed' });
  };
}
