import { concatMap, distinctUntilChanged, Observable, type Subscription } from 'rxjs';
import { assign, createActor, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { SetBoolResponseMsg } from '../ros/port/ros-messages.js';
import type { MicrophoneRequest } from '../ros/port/ros-port.js';

/**
 * The microphone of the kiosks, switched by ROS callers of /microphone/set_enabled. One actor per process.
 * Requests are events processed one after the other, so a burst leaves the state of the last request and every
 * caller is answered with what its own request did. Below the machine: how ROS requests become its events
 * (`driveMicrophone`), and how sessions follow its state (`microphoneView`).
 */

export interface MicrophoneSetEvent {
  readonly type: 'microphone.set';
  readonly enabled: boolean;
  /** Who asked, as far as the way in can tell (`MicrophoneRequest.source`). */
  readonly source: string;
  /** Answers the ROS caller; injected so the machine stays free of ROS. */
  readonly respond: (response: SetBoolResponseMsg) => void;
}

export type MicrophoneEvent = MicrophoneSetEvent;

export const MICROPHONE_MESSAGES = {
  enabled: 'microphone enabled',
  disabled: 'microphone disabled',
  alreadyEnabled: 'microphone already enabled',
  alreadyDisabled: 'microphone already disabled',
  busy: 'microphone change in progress; try again',
} as const;

/** The answer when a change could not be kept: the state stays as it was. */
export const notKeptMessage = (enabled: boolean, error: unknown): string =>
  `microphone not ${enabled ? 'enabled' : 'disabled'}: the state could not be kept (${
    error instanceof Error ? error.message : String(error)
  })`;

/** A change of the microphone's state: who asked for it, the new state, and what the caller is told. */
export interface MicrophoneChange {
  readonly enabled: boolean;
  readonly source: string;
  readonly answer: string;
}

/**
 * Records a change before it is answered (in the event log; on disk with `--state_dir`, where a restart
 * finds it); rejects when it could not, and the change is then refused.
 */
export type KeepMicrophoneState = (change: MicrophoneChange) => Promise<void>;

interface MicrophoneContext {
  /** The request being kept, answered once it is. */
  readonly pending: MicrophoneSetEvent | undefined;
}

export const microphoneMachine = setup({
  types: {
    context: {} as MicrophoneContext,
    events: {} as MicrophoneEvent,
  },
  actors: {
    // Replaced by the process's own keeper (`startMicrophoneActor`: the event log, on disk with
    // `--state_dir`); this one keeps nothing, through the same states.
    keep: fromPromise<unknown, MicrophoneChange>(() => Promise.resolve()),
  },
  actions: {
    answer: ({ event }, message: string) => {
      event.respond({ success: true, message });
    },
    answerPending: ({ context }, message: string) => {
      context.pending?.respond({ success: true, message });
    },
    answerNotKept: ({ context, event }) => {
      const pending = context.pending;
      if (pending === undefined) return;
      const error = 'error' in event ? event.error : undefined;
      pending.respond({ success: false, message: notKeptMessage(pending.enabled, error) });
    },
    answerBusy: ({ event }) => {
      event.respond({ success: false, message: MICROPHONE_MESSAGES.busy });
    },
    remember: assign({ pending: ({ event }) => event }),
    forget: assign({ pending: undefined }),
  },
  guards: {
    asksEnabled: ({ event }) => event.enabled,
    asksDisabled: ({ event }) => !event.enabled,
  },
}).createMachine({
  id: 'microphone',
  context: { pending: undefined },
  initial: 'enabled',
  states: {
    enabled: {
      on: {
        'microphone.set': [
          {
            guard: 'asksEnabled',
            actions: { type: 'answer', params: MICROPHONE_MESSAGES.alreadyEnabled },
          },
          { target: 'disabling', actions: 'remember' },
        ],
      },
    },
    // The change is kept before it is answered or shown: a caller told "disabled" finds it so after a
    // crash. Kiosks still see the microphone enabled meanwhile (isMicrophoneEnabled).
    disabling: {
      invoke: {
        src: 'keep',
        input: ({ context }) => ({
          enabled: false,
          source: context.pending?.source ?? '',
          answer: MICROPHONE_MESSAGES.disabled,
        }),
        onDone: {
          target: 'disabled',
          actions: [{ type: 'answerPending', params: MICROPHONE_MESSAGES.disabled }, 'forget'],
        },
        onError: { target: 'enabled', actions: ['answerNotKept', 'forget'] },
      },
      on: { 'microphone.set': { actions: 'answerBusy' } },
    },
    disabled: {
      on: {
        'microphone.set': [
          {
            guard: 'asksDisabled',
            actions: { type: 'answer', params: MICROPHONE_MESSAGES.alreadyDisabled },
          },
          { target: 'enabling', actions: 'remember' },
        ],
      },
    },
    enabling: {
      invoke: {
        src: 'keep',
        input: ({ context }) => ({
          enabled: true,
          source: context.pending?.source ?? '',
          answer: MICROPHONE_MESSAGES.enabled,
        }),
        onDone: {
          target: 'enabled',
          actions: [{ type: 'answerPending', params: MICROPHONE_MESSAGES.enabled }, 'forget'],
        },
        onError: { target: 'disabled', actions: ['answerNotKept', 'forget'] },
      },
      on: { 'microphone.set': { actions: 'answerBusy' } },
    },
  },
});

export type MicrophoneActor = ActorRefFrom<typeof microphoneMachine>;
export type MicrophoneSnapshot = SnapshotFrom<typeof microphoneMachine>;

/** Enabled, or on its way to disabled but not yet kept (a change shows once it is kept). */
export const isMicrophoneEnabled = (snapshot: MicrophoneSnapshot): boolean =>
  snapshot.matches('enabled') || snapshot.matches('disabling');

/**
 * Starts the microphone in the state kept from the previous run (`--state_dir`), enabled by default as
 * the spec says. Every change is kept by `keep` before its caller is answered (the process passes its
 * event log; without one, the machine's own keeper keeps nothing, through the same states).
 */
export const startMicrophoneActor = (enabled = true, keep?: KeepMicrophoneState): MicrophoneActor => {
  const machine =
    keep === undefined
      ? microphoneMachine
      : microphoneMachine.provide({
          actors: { keep: fromPromise<unknown, MicrophoneChange>(({ input }) => keep(input)) },
        });
  return createActor(
    machine,
    enabled ? {} : { snapshot: machine.resolveState({ value: 'disabled', context: { pending: undefined } }) },
  ).start();
};

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
  source: request.source,
  respond: (response) => {
    try {
      request.respond(response);
    } catch (error) {
      onRespondError?.(error);
    }
  },
});

/**
 * Feeds every request into the microphone actor in arrival order, each once the one before it was answered
 * (a change is answered after it is kept), so no request meets a change in progress.
 */
export const driveMicrophone = (
  requests$: Observable<MicrophoneRequest>,
  actor: MicrophoneActor,
  onRespondError?: (error: unknown) => void,
): Subscription =>
  requests$
    .pipe(
      concatMap(
        (request) =>
          new Observable<never>((subscriber) => {
            const event = toMicrophoneSetEvent(request, onRespondError);
            actor.send({
              ...event,
              respond: (response) => {
                event.respond(response);
                subscriber.complete();
              },
            });
          }),
      ),
    )
    .subscribe();

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
