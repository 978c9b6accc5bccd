import type { Subscription } from 'rxjs';
import type { HeardMsg, TranscriptMsg, UtteranceAudioMsg } from '../ros/port/ros-messages.js';
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
