import { BehaviorSubject, EMPTY, NEVER, switchMap, type Observable } from 'rxjs';
import type { ConverseGoalMsg, PlayAudioMsg, TranscriptMsg } from './ros-messages.js';
import {
  defaultServiceName,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type BackendReadiness,
  type RosCallHandler,
  type RosCallKey,
  type RosConverseHandler,
  type RosCallTicket,
  type MicrophoneRequest,
  type RosPort,
  type RosRequest,
  type RosServiceKey,
} from './ros-port.js';

/**
 * A RosPort the server can start on before the ROS backend exists.
 *
 * Creating the rclnodejs backend can take long (waiting for the Zenoh router, then rcl_init, which
 * blocks the event loop), and an orchestrator must still see the process alive meanwhile. So the
 * server listens on this port first: until a backend is attached, calls fail with
 * RosServiceUnavailableError (HTTP 503) and readiness names what start-up waits for. Once attached,
 * calls, readiness, service names and both streams go to the backend. Subscriptions taken before attach
 * switch over. A call is routed when it is made: one made before attach fails at once. While attached,
 * `call`, `converse`, the two publishers and the transcripts are the backend's own (bound), so none passes
 * through here (the transcripts are taken for each streamed utterance; the backend completes them on close).
 */
export interface DeferredRosPort extends RosPort {
  /** What start-up waits for now; /ready shows it until a backend is attached. */
  setPending(detail: string): void;
  /** Hands everything to `port`. Once only; after close() the late port is closed instead. */
  attach(port: RosPort): void;
  /** Start-up failed for good: /ready says why until the process exits. */
  fail(detail: string): void;
  /** Aborted by close(): start-up work stops waiting when it fires. */
  readonly closing: AbortSignal;
  /** The attached backend, if any. */
  readonly attached: RosPort | undefined;
}

type State =
  | { readonly kind: 'pending'; readonly detail: string }
  | { readonly kind: 'failed'; readonly detail: string }
  | { readonly kind: 'attached'; readonly port: RosPort }
  | { readonly kind: 'closed' };

export interface DeferredPortOptions {
  readonly backend: RosPort['backend'];
  /** Shown by /ready and in the description until the backend is attached. */
  readonly pendingDetail: string;
}

export const createDeferredPort = ({ backend, pendingDetail }: DeferredPortOptions): DeferredRosPort => {
  const state$ = new BehaviorSubject<State>({ kind: 'pending', detail: pendingDetail });
  const lifetime = new AbortController();
  let closing: Promise<void> | undefined;
  // Kept past close(): a call refused after the backend closed still names the service as it called it.
  let attachedNames: RosPort['serviceName'] | undefined;
  let microphoneEnabled: boolean | undefined;
  // The attached backend's names; the default names before.
  const serviceName = (service: RosCallKey): string =>
    attachedNames?.(service) ?? defaultServiceName(service);

  // Streams follow the state: nothing while pending, the backend's once attached, complete when closed.
  const follow = <T>(pick: (port: RosPort) => Observable<T>): Observable<T> =>
    state$.pipe(
      switchMap((state) => {
        if (state.kind === 'attached') return pick(state.port);
        return state.kind === 'closed' ? EMPTY : NEVER;
      }),
    );

  // Before attach and after close: refused at once.
  const refuseCall = <K extends RosServiceKey>(
    service: K,
    _request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket => {
    handler.failed(new RosServiceUnavailableError(service, serviceName(service)));
    return SETTLED_CALL;
  };
  const refuseConverse = (_goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket => {
    handler.failed(new RosServiceUnavailableError('converse', serviceName('converse')));
    return SETTLED_CALL;
  };

  // Before a backend is attached and after it closed there is no graph to publish on: nobody could hear it.
  const unheard = (): void => undefined;

  const close = async (): Promise<void> => {
    const state = state$.value;
    lifetime.abort(new Error('the ROS port closed before the backend started'));
    deferred.call = refuseCall;
    deferred.converse = refuseConverse;
    deferred.publishUtteranceAudio = unheard;
    deferred.publishHeard = unheard;
    deferred.transcripts$ = EMPTY;
    state$.next({ kind: 'closed' });
    state$.complete();
    if (state.kind === 'attached') await state.port.close();
  };

  // The transcripts are reassigned on attach and close, as the calls and publishers are.
  const deferred: DeferredRosPort & { transcripts$: Observable<TranscriptMsg> } = {
    backend,
    get description() {
      const state = state$.value;
      if (state.kind === 'attached') return state.port.description;
      return state.kind === 'closed' ? `${backend} backend (closed)` : `${backend} backend (${state.detail})`;
    },
    get attached() {
      const state = state$.value;
      return state.kind === 'attached' ? state.port : undefined;
    },
    closing: lifetime.signal,
    serverAvailable(service: RosCallKey): boolean {
      const state = state$.value;
      return state.kind === 'attached' && (state.port.serverAvailable?.(service) ?? true);
    },
    call: refuseCall,
    converse: refuseConverse,
    serviceName,
    playAudio$: follow<PlayAudioMsg>((port) => port.playAudio$),
    playAudioLost$: follow<number>((port) => port.playAudioLost$ ?? EMPTY),
    microphoneRequests$: follow<MicrophoneRequest>((port) => port.microphoneRequests$),
    transcripts$: follow<TranscriptMsg>((port) => port.transcripts$),
    publishUtteranceAudio: unheard,
    publishHeard: unheard,
    publishMicrophoneEnabled: (enabled) => {
      // Kept for a backend attached later: the state is published at start, before ROS is up.
      microphoneEnabled = enabled;
      const state = state$.value;
      if (state.kind === 'attached') state.port.publishMicrophoneEnabled?.(enabled);
    },
    readiness: (): BackendReadiness => {
      const state = state$.value;
      switch (state.kind) {
        case 'attached':
          return state.port.readiness();
        case 'pending':
          return { ready: false, detail: state.detail };
        case 'failed':
          return { ready: false, detail: `the ${backend} backend failed to start: ${state.detail}` };
        case 'closed':
          return { ready: false, detail: `the ${backend} backend is closed` };
      }
    },
    setPending: (detail) => {
      if (state$.value.kind === 'pending') state$.next({ kind: 'pending', detail });
    },
    attach: (attached) => {
      const state = state$.value;
      if (state.kind === 'closed') {
        // Started while the process was shutting down: nobody will use it.
        attached.close().catch(() => undefined);
        return;
      }
      if (state.kind === 'attached') throw new Error('a backend is already attached to this port');
      attachedNames = attached.serviceName.bind(attached);
      deferred.call = attached.call.bind(attached);
      deferred.converse = attached.converse.bind(attached);
      deferred.publishUtteranceAudio = attached.publishUtteranceAudio.bind(attached);
      deferred.publishHeard = attached.publishHeard.bind(attached);
      deferred.transcripts$ = attached.transcripts$;
      state$.next({ kind: 'attached', port: attached });
      if (microphoneEnabled !== undefined) attached.publishMicrophoneEnabled?.(microphoneEnabled);
    },
    fail: (detail) => {
      if (state$.value.kind === 'pending') state$.next({ kind: 'failed', detail });
    },
    close: () => (closing ??= close()),
  };
  return deferred;
};
