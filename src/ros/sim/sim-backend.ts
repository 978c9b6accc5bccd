import {
  asapScheduler,
  defer,
  map,
  NEVER,
  of,
  Subject,
  subscribeOn,
  throwError,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { PlayAudioMsg, SetBoolResponseMsg } from '../ros-messages.js';
import {
  RosServiceUnavailableError,
  type BackendReadiness,
  type MicrophoneRequest,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../ros-port.js';
import { applyTourEvent, foldTourEvents, SAMPLE_TOUR, type TourState } from '../../tours/tour-rules.js';
import type { Tour } from '../../tours/tour-schema.js';
import { decideSimulatedService } from './sim-services.js';

export interface SimBackendOptions {
  /** Artificial latency of every simulated call; 0 answers on the next microtask. */
  readonly latencyMs?: number;
  readonly initialTours?: readonly Tour[];
  readonly scheduler?: SchedulerLike;
}

/** What only a simulation can do: play the robot's part for demos and tests (`/sim/*` routes). */
export interface SimControl {
  /** Publishes a message on the simulated `/play_audio` topic. */
  publishPlayAudio(message: PlayAudioMsg): void;
  /** Calls our `/microphone/set_enabled` service as a ROS client would. */
  setMicrophone(enabled: boolean): Promise<SetBoolResponseMsg>;
}

/** Faults a test can inject, as a misbehaving ROS graph would cause them. */
export interface SimFaults {
  /** The service has no server (calls fail as unavailable) until set back. */
  setUnavailable(service: RosServiceKey, unavailable: boolean): void;
  /** The service takes requests and never answers until set back. */
  setUnresponsive(service: RosServiceKey, unresponsive: boolean): void;
  /** The /play_audio subscription fails, as a broken subscription would; a new subscription works. */
  failPlayAudio(error: Error): void;
  /** The /play_audio stream ends; a new subscription works. */
  endPlayAudio(): void;
}

export interface SimBackend extends RosPort {
  readonly backend: 'sim';
  readonly sim: SimControl;
  readonly faults: SimFaults;
}

export const SIM_DESCRIPTION = 'SIMULATION: in-process simulated robot, no ROS 2 graph';

const NOT_LISTENING: SetBoolResponseMsg = {
  success: false,
  message: 'tour-bridge is not ready to switch the microphone',
};

export const createSimBackend = (options: SimBackendOptions = {}): SimBackend => {
  const latencyMs = options.latencyMs ?? 0;
  const scheduler = options.scheduler;
  let tours: TourState = foldTourEvents(
    (options.initialTours ?? [SAMPLE_TOUR]).map((tour) => ({ type: 'tour.created', tour }) as const),
  );
  // Replaced after a fault, so the failed stream stays failed and a new subscription gets a working one.
  let playAudio = new Subject<PlayAudioMsg>();
  const microphoneRequests = new Subject<MicrophoneRequest>();
  const unavailable = new Set<RosServiceKey>();
  const unresponsive = new Set<RosServiceKey>();
  let closed = false;

  // The simulated server decides when the request "arrives", after the latency, like a remote node.
  const serve = <K extends RosServiceKey>(service: K, request: RosRequest<K>): RosResponse<K> => {
    const decision = decideSimulatedService(tours, service, request);
    for (const event of decision.events) tours = applyTourEvent(tours, event);
    return decision.response;
  };

  const answer = <K extends RosServiceKey>(service: K, request: RosRequest<K>): Observable<RosResponse<K>> =>
    latencyMs > 0
      ? timer(latencyMs, scheduler).pipe(map(() => serve(service, request)))
      : defer(() => of(serve(service, request))).pipe(subscribeOn(scheduler ?? asapScheduler));

  const call = <K extends RosServiceKey>(service: K, request: RosRequest<K>): Observable<RosResponse<K>> =>
    defer(() => {
      if (unavailable.has(service)) return throwError(() => new RosServiceUnavailableError(service));
      if (unresponsive.has(service)) return NEVER;
      return answer(service, request);
    });

  const setMicrophone = (enabled: boolean): Promise<SetBoolResponseMsg> => {
    if (closed || !microphoneRequests.observed) return Promise.resolve(NOT_LISTENING);
    return new Promise((resolve) => {
      let answered = false;
      microphoneRequests.next({
        enabled,
        respond: (response) => {
          if (answered) return;
          answered = true;
          resolve(response);
        },
      });
    });
  };

  return {
    backend: 'sim',
    description: SIM_DESCRIPTION,
    call,
    playAudio$: defer(() => playAudio),
    microphoneRequests$: microphoneRequests.asObservable(),
    readiness: (): BackendReadiness =>
      closed ? { ready: false, detail: 'simulation closed' } : { ready: true, detail: SIM_DESCRIPTION },
    close: () => {
      if (!closed) {
        closed = true;
        playAudio.complete();
        microphoneRequests.complete();
      }
      return Promise.resolve();
    },
    sim: {
      publishPlayAudio: (message) => {
        if (!closed) playAudio.next(message);
      },
      setMicrophone,
    },
    faults: {
      setUnavailable: (service, isUnavailable) => {
        if (isUnavailable) unavailable.add(service);
        else unavailable.delete(service);
      },
      setUnresponsive: (service, isUnresponsive) => {
        if (isUnresponsive) unresponsive.add(service);
        else unresponsive.delete(service);
      },
      failPlayAudio: (error) => {
        const failed = playAudio;
        playAudio = new Subject<PlayAudioMsg>();
        failed.error(error);
      },
      endPlayAudio: () => {
        const ended = playAudio;
        playAudio = new Subject<PlayAudioMsg>();
        ended.complete();
      },
    },
  };
};
