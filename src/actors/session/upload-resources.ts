import { UtteranceEvent, type UtteranceEventCode } from '../../ros/port/ros-messages.js';
import type { TextFrame, TurnNumber as Turn } from '../../protocol/ws/index.js';
import type { SpeechUplink } from '../../streams/speech-uplink.js';
import type { Refusal } from './session-outbox.js';
import type { SessionResources } from './session-resources.js';
import type { OpenUtterance } from './session-types.js';

const EMPTY_AUDIO = new Uint8Array(0);

/**
 * What the upload chart's effects act on (upload-actions.ts): the robot told of the open utterance part by
 * part on /utterance/audio, and the session's resources for what is the session's (the parts kept for
 * `/chat`, the transcripts followed, the frames, the news told to the session's chart).
 */
export class UploadResources {
  /** The streamed utterance open now: told to the robot as abandoned if the session ends first. */
  #open: { readonly turn: Turn; parts: number } | undefined;

  constructor(
    private readonly speech: SpeechUplink,
    private readonly session: SessionResources,
  ) {}

  /** A streamed utterance opened as turn `turn`. */
  open(turn: Turn): void {
    this.#open = { turn, parts: 0 };
    this.session.followUtterance(turn);
  }

  /** One part of the open utterance: to the robot at once; kept too for `/chat`. */
  sendPart(turn: Turn, sequence: number, audio: Uint8Array): void {
    if (this.#open?.turn === turn) this.#open.parts = sequence + 1;
    this.#publish(turn, sequence, UtteranceEvent.PART, audio);
    this.session.holdPart(turn, audio);
  }

  /** The open utterance ended whole: the robot told before the session queues its turn. */
  end(open: OpenUtterance): void {
    this.#open = undefined;
    this.#publish(open.turn, open.parts, UtteranceEvent.END, EMPTY_AUDIO);
    this.session.tellEnded(open);
  }

  /** The open utterance is given up (cancel, a bad part, a stall): the robot told, then the session. */
  abandon(turn: Turn, parts: number, refusal: Refusal | undefined): void {
    this.#tellAbandoned(turn, parts);
    this.session.dropUtterance(turn, refusal);
  }

  tellCancelled(turn: Turn): void {
    this.session.tellCancelled(turn);
  }

  deliver(frame: TextFrame): void {
    this.session.deliver(frame);
  }

  /** The session ended: an utterance still open is told to the robot as abandoned. */
  close(): void {
    if (this.#open !== undefined) this.#tellAbandoned(this.#open.turn, this.#open.parts);
  }

  #tellAbandoned(turn: Turn, parts: number): void {
    if (this.#open?.turn === turn) this.#open = undefined;
    this.#publish(turn, parts, UtteranceEvent.ABANDONED, EMPTY_AUDIO);
  }

  #publish(turn: Turn, sequence: number, event: UtteranceEventCode, audio: Uint8Array): void {
    this.speech.publish({ utterance_id: this.session.utteranceId(turn), sequence, event, audio });
  }
}
