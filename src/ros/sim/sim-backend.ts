import {
  asapScheduler,
  defer,
  map,
  of,
  Subject,
  subscribeOn,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { PlayAudioMsg, SetBoolResponseMsg } from '../ros-messages.js';
import type {
  BackendReadiness,
  MicrophoneRequest,
  RosPort,
  RosRequest,
  RosResponse,
  RosServiceKey,
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

export interface SimBackend extends RosPort {
  readonly backend: 'sim';
  readonly sim: SimControl;
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
  const playAudio = new Subject<PlayAudioMsg>();
  const microphoneRequests = new Subject<MicrophoneRequest>();
  let closed = false;

  // The simulated server decides when the request "arrives", after the latency, like a remote node.
  const serve = <K extends RosServiceKey>(service: K, request: RosRequest<K>): RosResponse<K> => {
    const decision = decideSimulatedService(tours, service, request);
    for (const event of decision.events) tours = applyTourEvent(tours, event);
    return decision.response;
  };

  const call = <K extends RosServiceKey>(service: K, request: RosRequest<K>): Observable<RosResponse<K>> =>
    latencyMs > 0
      ? timer(latencyMs, scheduler).pipe(map(() => serve(service, request)))
      : defer(() => of(serve(service, request))).pipe(subscribeOn(scheduler ?? asapScheduler));

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
    playAudio$: playAudio.asObservable(),
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
  };
};
