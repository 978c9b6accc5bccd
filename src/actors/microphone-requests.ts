import { Observable, distinctUntilChanged, map, type Subscription } from 'rxjs';
import type { MicrophoneRequest } from '../ros/ros-port.js';
import { isMicrophoneEnabled, type MicrophoneActor, type MicrophoneSetEvent } from './microphone-machine.js';

/**
 * A ROS request to /microphone/set_enabled as an event of the microphone machine. A failing answer is
 * reported, not thrown: it would stop the one microphone actor of the process.
 */
export const toMicrophoneSetEvent = (
  request: MicrophoneRequest,
  onRespondError?: (error: unknown) => void,
): MicrophoneSetEvent => ({
  type: 'microphone.set',
  enabled: request.enabled,
  respond: (response) => {
    try {
      request.respond(response);
    } catch (error) {
      onRespondError?.(error);
    }
  },
});

/** Feeds every request into the microphone actor, in arrival order. */
export const driveMicrophone = (
  requests$: Observable<MicrophoneRequest>,
  actor: MicrophoneActor,
  onRespondError?: (error: unknown) => void,
): Subscription =>
  requests$.pipe(map((request) => toMicrophoneSetEvent(request, onRespondError))).subscribe((event) => {
    actor.send(event);
  });

/** What a session needs of the microphone: the state now, and its changes. */
export interface MicrophoneView {
  isEnabled(): boolean;
  /** Emits the current state on subscribe, then each change. */
  readonly enabled$: Observable<boolean>;
}

export const microphoneView = (actor: MicrophoneActor): MicrophoneView => ({
  isEnabled: () => isMicrophoneEnabled(actor.getSnapshot()),
  enabled$: new Observable<boolean>((subscriber) => {
    // An actor subscription does not replay the current snapshot, so it is read first.
    subscriber.next(isMicrophoneEnabled(actor.getSnapshot()));
    const subscription = actor.subscribe({
      next: (snapshot) => {
        subscriber.next(isMicrophoneEnabled(snapshot));
      },
      complete: () => {
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
    };
  }).pipe(distinctUntilChanged()),
});
