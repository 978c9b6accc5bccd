import { createActor, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { SetBoolResponseMsg } from '../ros/ros-messages.js';

/**
 * The microphone of the kiosks, switched by ROS callers of /microphone/set_enabled. One actor per process.
 * Requests are events processed one after the other, so a burst leaves the state of the last request and every
 * caller is answered with what its own request did.
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

export const startMicrophoneActor = (): MicrophoneActor => createActor(microphoneMachine).start();
