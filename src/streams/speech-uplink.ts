import type { Subscription } from 'rxjs';
import type { TurnNumber as Turn } from '../protocol/ws/index.js';
import {
  UtteranceEvent,
  type HeardMsg,
  type TranscriptMsg,
  type UtteranceAudioMsg,
  type UtteranceEventCode,
} from '../ros/port/ros-messages.js';
import type { RosPort } from '../ros/port/ros-port.js';

/**
 * What sessions send the robot about speech, and the transcripts it sends back: streamed utterances out on
 * `/utterance/audio`, heard-so-far reports on `/conversation/heard`, and each `/utterance/transcript`
 * message routed to the one session whose utterance it names. One subscription to the transcripts serves
 * every session, held only while some utterance is followed, so an idle bridge subscribes to nothing.
 */
export interface SpeechUplink {
  /** Publishes one event of a streamed utterance; false when the port could not (it is closed). */
  publish(message: UtteranceAudioMsg): boolean;
  /** Publishes a heard-so-far report; false when the port could not. */
  heard(message: HeardMsg): boolean;
  /** Hands `utteranceId`'s transcripts to `deliver` until the returned function is called. */
  followTranscripts(utteranceId: string, deliver: (transcript: TranscriptMsg) => void): () => void;
  /** Utterances followed now (a gauge: back to 0 when no streamed turn is live). */
  readonly followed: number;
}

export const speechUplink = (
  port: Pick<RosPort, 'publishUtteranceAudio' | 'publishHeard' | 'transcripts$'>,
  onPublishFailed: (error: unknown) => void = () => undefined,
): SpeechUplink => {
  const routes = new Map<string, (transcript: TranscriptMsg) => void>();
  let subscription: Subscription | undefined;

  const attempt = (publish: () => void): boolean => {
    try {
      publish();
      return true;
    } catch (error) {
      onPublishFailed(error);
      return false;
    }
  };

  return {
    publish: (message) =>
      attempt(() => {
        port.publishUtteranceAudio(message);
      }),
    heard: (message) =>
      attempt(() => {
        port.publishHeard(message);
      }),
    followTranscripts: (utteranceId, deliver) => {
      routes.set(utteranceId, deliver);
      subscription ??= port.transcripts$.subscribe({
        next: (transcript) => routes.get(transcript.utterance_id)?.(transcript),
        // A transcript stream that fails leaves streamed turns without words shown, never without answers.
        error: () => {
          subscription = undefined;
        },
      });
      return () => {
        if (routes.get(utteranceId) !== deliver) return;
        routes.delete(utteranceId);
        if (routes.size === 0) {
          subscription?.unsubscribe();
          subscription = undefined;
        }
      };
    },
    get followed() {
      return routes.size;
    },
  };
};

/** The audio of an event that carries none (an end, an abandon, a Converse goal of a streamed turn). */
export const NO_AUDIO = new Uint8Array(0);

/**
 * One session's streamed utterances on the uplink: each part told to the robot as it comes, then the end,
 * or the utterance abandoned (by a cancel, a refusal, or the session ending with it open); each streamed
 * turn's transcripts handed to `deliver` until the turn ends.
 */
export class SessionSpeech {
  /** The streamed utterance told to the robot and not ended. */
  #open: { readonly turn: Turn; parts: number } | undefined;
  /** Streamed turns whose transcripts come to this session, until each turn ends. */
  readonly #following = new Map<Turn, () => void>();

  constructor(
    private readonly uplink: SpeechUplink,
    /** Turn `turn`'s name on the graph: the utterance's and its Converse goal's `utterance_id`. */
    readonly utteranceId: (turn: Turn) => string,
    private readonly deliver: (turn: Turn, transcript: TranscriptMsg) => void,
  ) {}

  /** Turn `turn` opens as a streamed utterance: its transcripts come from now until its turn ends. */
  open(turn: Turn): void {
    this.#open = { turn, parts: 0 };
    this.#following.set(
      turn,
      this.uplink.followTranscripts(this.utteranceId(turn), (transcript) => {
        this.deliver(turn, transcript);
      }),
    );
  }

  part(turn: Turn, sequence: number, audio: Uint8Array): void {
    if (this.#open?.turn === turn) this.#open.parts = sequence + 1;
    this.#publish(turn, sequence, UtteranceEvent.PART, audio);
  }

  /** The utterance ended whole after `parts` parts. */
  end(turn: Turn, parts: number): void {
    if (this.#open?.turn === turn) this.#open = undefined;
    this.#publish(turn, parts, UtteranceEvent.END, NO_AUDIO);
  }

  /** The utterance was given up after `parts` parts: the robot told, its transcripts no longer followed. */
  abandon(turn: Turn, parts: number): void {
    if (this.#open?.turn === turn) this.#open = undefined;
    this.#publish(turn, parts, UtteranceEvent.ABANDONED, NO_AUDIO);
    this.unfollow(turn);
  }

  /** Turn `turn` ended: its transcripts are no longer followed. */
  unfollow(turn: Turn): void {
    const unfollow = this.#following.get(turn);
    if (unfollow === undefined) return;
    this.#following.delete(turn);
    unfollow();
  }

  /** The session ended: an utterance still open is abandoned, no transcript is followed. */
  close(): void {
    if (this.#open !== undefined) this.abandon(this.#open.turn, this.#open.parts);
    for (const unfollow of this.#following.values()) unfollow();
    this.#following.clear();
  }

  #publish(turn: Turn, sequence: number, event: UtteranceEventCode, audio: Uint8Array): void {
    this.uplink.publish({ utterance_id: this.utteranceId(turn), sequence, event, audio });
  }
}
