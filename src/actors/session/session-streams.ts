import { catchError, endWith, map, of, Subscription, type Observable } from 'rxjs';
import { fromCallback } from 'xstate';
import { textFrame, type AudioPairFrame } from '../../protocol/ws-frames.js';
import type { RosCalls } from '../../ros/ros-calls.js';
import { PlayAudioBacklog } from '../../streams/play-audio-backlog.js';
import type { ChatInterface } from '../../cli/options.js';
import { rosCall$, turn$ } from '../../streams/ros-call.js';
import { BudgetHoldings, trackSubscription } from '../../streams/resource-gauges.js';
import { Outbox } from './session-outbox.js';
import {
  type ConversationRequest,
  type SessionInput,
  type CallOutcome,
  type SessionInternalEvent,
} from './session-types.js';

/** The session's child: the running call's stream and /play_audio, turned into machine events and frames. */

/**
 * The running call's stream, turned into the events the machine hears: with the Converse action one
 * `call.part` per part as it arrives, then `call.settled`; with `/chat` (and clear_history) only the one
 * `call.settled`, carrying the answer, so the service's round trip costs the machine one event as before.
 */
const callEvents$ = (
  calls: Pick<RosCalls, 'call' | 'converse'>,
  chatInterface: ChatInterface,
  request: ConversationRequest,
): Observable<SessionInternalEvent> => {
  const settled = (outcome: CallOutcome): SessionInternalEvent => ({ type: 'call.settled', outcome });
  const failed = (error: unknown) => of(settled({ kind: 'failed', request, error }));
  if (request.service === 'clear_history') {
    return rosCall$(calls, 'clear_history', {}).pipe(
      map(() => settled({ kind: 'answered', request })),
      catchError(failed),
    );
  }
  if (chatInterface === 'service') {
    return turn$(calls, 'service', request.audio).pipe(
      map((part) => settled({ kind: 'answered', request, part })),
      catchError(failed),
    );
  }
  return turn$(calls, 'action', request.audio).pipe(
    map((part): SessionInternalEvent => ({ type: 'call.part', request, part })),
    endWith(settled({ kind: 'answered', request, part: undefined })),
    catchError(failed),
  );
};

export interface StreamsInput {
  readonly session: SessionInput;
  readonly outbox: Outbox;
  readonly holdings: BudgetHoldings<ConversationRequest>;
}

/**
 * What the machine tells its streams child: run this request's call (`calling` is entered), or stop the
 * running one (a cancelled turn: abandoned, its goal cancelled, nothing of it heard again).
 */
export type StreamsEvent =
  | { readonly type: 'call.start'; readonly request: ConversationRequest }
  | { readonly type: 'call.stop' }
  /** The socket took what it held (drain): write the `/play_audio` pairs that waited, while they fit. */
  | { readonly type: 'play_audio.flush' };

/**
 * How a session writes `/play_audio` pairs: at once while the socket's send buffer can take them under
 * `maxSendBufferBytes`, so a burst never closes a slow kiosk with 1008; otherwise they wait in a backlog
 * of the same size, which drops the oldest whole messages. A kiosk that lost some is told how many
 * (`audio_dropped`) before the next message it gets, and every loss is counted.
 */
export const playAudioWriter = (input: SessionInput, outbox: Outbox, sendFailed: () => void) => {
  const limit = input.limits.maxSendBufferBytes;
  const buffered = input.bufferedBytes;
  const backlog = new PlayAudioBacklog(limit);
  const write = (pair: AudioPairFrame): boolean => {
    const dropped = backlog.takeDropped();
    if (dropped > 0) {
      input.onPlayAudioDropped?.(dropped);
      if (!outbox.send(textFrame({ type: 'audio_dropped', count: dropped }))) return false;
    }
    return outbox.send(pair);
  };
  const flush = (): void => {
    if (buffered === undefined) return;
    for (;;) {
      const pair = backlog.takeIf((bytes) => buffered() + bytes <= limit);
      if (pair === undefined) return;
      if (!write(pair)) {
        sendFailed();
        return;
      }
    }
  };
  return {
    offer: (pair: AudioPairFrame): void => {
      if (buffered === undefined) {
        if (!outbox.send(pair)) sendFailed();
        return;
      }
      backlog.push(pair);
      flush();
    },
    flush,
    clear: (): void => {
      backlog.clear();
    },
  };
};

/**
 * Every stream of an open session in one child actor: the running call (started when the machine enters
 * `calling`), the /play_audio pairs and the microphone changes. One long-lived child rather than one per
 * stream or per call: each XState actor costs memory in every idle session, and spawning one per call was
 * most of a chat round trip's machine time (docs/performance.md). A pair needs no decision of the machine:
 * it goes straight to the transport. The session counts as live while this child runs, and its end gives
 * back the session's audio budget and abandons a running call: a stopped actor runs no exit actions, only
 * its children's teardowns, so this is where a session's end is certain to be seen.
 */
export const streamsLogic = fromCallback<StreamsEvent, StreamsInput>(
  ({ input: streams, sendBack, receive }) => {
    const { session: input, outbox, holdings } = streams;
    const { gauges } = input;
    gauges.liveSessions.increment();
    const fail = (error: unknown) => {
      sendBack({ type: 'session.streamFailed', error } satisfies SessionInternalEvent);
    };
    const subscription = new Subscription();
    const playAudio = playAudioWriter(input, outbox, () => {
      sendBack({ type: 'session.sendFailed' } satisfies SessionInternalEvent);
    });
    subscription.add(
      input.playAudioPairs$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
        next: playAudio.offer,
        error: fail,
      }),
    );
    subscription.add(
      input.microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
        next: (enabled) => {
          sendBack({ type: 'microphone.changed', enabled } satisfies SessionInternalEvent);
        },
        error: fail,
      }),
    );
    const chatInterface = input.chatInterface ?? 'service';
    let call: Subscription | undefined;
    // The request whose call runs and has not settled: told to onCallAbandoned if the session ends first.
    let unsettled: ConversationRequest | undefined;
    receive((event) => {
      if (event.type === 'play_audio.flush') {
        playAudio.flush();
        return;
      }
      call?.unsubscribe();
      call = undefined;
      unsettled = undefined;
      if (event.type === 'call.stop') return;
      const { request } = event;
      unsettled = request;
      call = callEvents$(input.calls, chatInterface, request).subscribe((callEvent) => {
        if (callEvent.type === 'call.settled') unsettled = undefined;
        sendBack(callEvent);
      });
    });
    return () => {
      call?.unsubscribe();
      if (unsettled !== undefined) {
        const { service } = unsettled;
        input.onCallAbandoned?.(service === 'chat' && chatInterface === 'action' ? 'converse' : service);
      }
      subscription.unsubscribe();
      playAudio.clear();
      holdings.releaseAll();
      gauges.liveSessions.decrement();
    };
  },
);
