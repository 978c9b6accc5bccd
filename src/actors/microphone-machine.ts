import { distinctUntilChanged, map, Observable, type Subscription } from 'rxjs';
import { createActor, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { SetBoolResponseMsg } from '../ros/ros-messages.js';
import type { MicrophoneRequest } from '../ros/ros-port.js';

/**
 * The microphone of the kiosks, switched by ROS callers of /microphone/set_enabled. One actor per process.
 * Requests are events processed one after the other, so a burst leaves the state of the last request and every
 * caller is answered with what its own request did. Below the machine: how ROS requests become its events
 * (`driveMicrophone`), and how sessions follow its state (`microphoneView`).
 */

export interface MicrophoneSetEvent {
  readonly type: 'microphone.set';
  readonly enabled: boolean;
  /** Answers the ROS caller; injected so the machine stays free of ROS. */
  readonly respond: (response: SetBoolResponseMsg) => void;
}

export type MicrophoneEvent = MicrophoneSetEvent;

export const MICROPHONE_MESSAGES = {
  enabled: 'microphone enabled',
  disabled: 'microphone disabled',
  alreadyEnabled: 'microphone already enabled',
  alreadyDisabled: 'microphone already disabled',
} as const;

export const microphoneMachine = setup({
  types: {
    events: {} as MicrophoneEvent,
  },
  actions: {
    answer: ({ event }, message: string) => {
      event.respond({ success: true, message });
    },
  },
  guards: {
    asksEnabled: ({ event }) => event.enabled,
    asksDisabled: ({ event }) => !event.enabled,
  },
}).createMachine({
  id: 'microphone',
  initial: 'enabled',
  states: {
    enabled: {
      on: {
        'microphone.set': [
          {
            guard: 'asksEnabled',
            actions: { type: 'answer', params: MICROPHONE_MESSAGES.alreadyEnabled },
          },
          { target: 'disabled', actions: { type: 'answer', params: MICROPHONE_MESSAGES.disabled } },
        ],
      },
    },
    disabled: {
      on: {
        'microphone.set': [
          {
            guard: 'asksDisabled',
            actions: { type: 'answer', params: MICROPHONE_MESSAGES.alreadyDisabled },
          },
          { target: 'enabled', actions: { type: 'answer', params: MICROPHONE_MESSAGES.enabled } },
        ],
      },
    },
  },
});

export type MicrophoneActor = ActorRefFrom<typeof microphoneMachine>;
export type MicrophoneSnapshot = SnapshotFrom<typeof microphoneMachine>;

export const isMicrophoneEnabled = (snapshot: MicrophoneSnapshot): boolean => snapshot.matches('enabled');

/**
 * Starts the microphone in the state kept from the previous run (`--state_dir`), enabled by default as
 * the spec says. The kept state is the fold of the earlier runs' events; later events fold onto it.
 */
export const startMicrophoneActor = (enabled = true): MicrophoneActor =>
  createActor(
    microphoneMachine,
    enabled ? {} : { snapshot: microphoneMachine.resolveState({ value: 'disabled' }) },
  ).start();

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
