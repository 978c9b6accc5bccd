import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import type { PlayAudioMsg } from '../../ros/port/ros-messages.js';

export interface PlayAudioBufferOptions {
  /** Audio bytes held at most (`--play_audio_buffer_bytes`); a message that would pass it is dropped. */
  readonly budgetBytes: number;
  /** Told of each message dropped because the buffer was full. */
  readonly onDropped: (message: PlayAudioMsg) => void;
  /** Runs a delivery turn later; setImmediate by default, so ROS callbacks run between deliveries. */
  readonly schedule?: (task: () => void) => void;
}

/**
 * Takes /play_audio messages as they come and hands them on one per event-loop turn, holding at most
 * `budgetBytes` of audio in between; a message past the budget is dropped (the newest, so a sentence
 * already held is never cut out of the middle) and reported. Taking is cheap, so the ROS subscription's
 * queue is emptied while kiosks are still being written to, and what a burst brings waits here, in a
 * bound the operator sets, rather than in the RMW's queue, where only a count of messages bounds it.
 */
export const playAudioBuffer = ({
  budgetBytes,
  onDropped,
  schedule = setImmediate,
}: PlayAudioBufferOptions): MonoTypeOperatorFunction<PlayAudioMsg> => {
  // Audio bytes held now, by every subscription together.
  let held = 0;
  return (source: Observable<PlayAudioMsg>) =>
    new Observable<PlayAudioMsg>((subscriber) => {
      const queue: PlayAudioMsg[] = [];
      let scheduled = false;
      let done = false;
      // How the source ended, once it has: delivered after the messages still held.
      let ended: { readonly error?: unknown; readonly failed: boolean } | undefined;
      const end = () => {
        if (ended?.failed === true) subscriber.error(ended.error);
        else subscriber.complete();
      };
      const release = (message: PlayAudioMsg) => {
        held -= message.audio.byteLength;
      };
      const turn = () => {
        scheduled = false;
        if (done) return;
        const next = queue.shift();
        if (next !== undefined) {
          release(next);
          subscriber.next(next);
        }
        if (queue.length > 0) {
          scheduled = true;
          schedule(turn);
        } else if (ended !== undefined) {
          end();
        }
      };
      const wake = () => {
        if (scheduled) return;
        scheduled = true;
        schedule(turn);
      };
      const subscription = source.subscribe({
        next: (message) => {
          const bytes = message.audio.byteLength;
          if (held + bytes > budgetBytes) {
            onDropped(message);
            return;
          }
          held += bytes;
          queue.push(message);
          wake();
        },
        error: (error: unknown) => {
          ended = { error, failed: true };
          if (queue.length === 0) end();
          else wake();
        },
        complete: () => {
          ended = { failed: false };
          if (queue.length === 0) end();
          else wake();
        },
      });
      return () => {
        done = true;
        subscription.unsubscribe();
        for (const message of queue.splice(0)) release(message);
      };
    });
};
