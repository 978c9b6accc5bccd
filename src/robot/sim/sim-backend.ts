import { asyncScheduler, defer, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import type { PlayAudioMsg, SetBoolResponseMsg } from '../../ros/ros-messages.js';
import {
  defaultServiceName,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type BackendReadiness,
  type RosCallHandler,
  type RosCallTicket,
  type MicrophoneRequest,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../ros/ros-port.js';
import { refusalBeyondMaxTours, TOUR_STORE_LIMITS } from '../tours/durable-tour-store.js';
import { foldTourEvents, SAMPLE_TOUR, type TourServiceKey, type TourState } from '../tours/tour-rules.js';
import type { Tour } from '../../protocol/tour-schema.js';
import { decideSimulatedService } from './sim-services.js';

export interface SimBackendOptions {
  /** Artificial latency of every simulated call; 0 answers on the next microtask. */
  readonly latencyMs?: number;
  readonly initialTours?: readonly Tour[];
  readonly scheduler?: SchedulerLike;
  /** Most tours held, as the reference store (`TOUR_STORE_LIMITS.maxTours` by default). */
  readonly maxTours?: number;
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
  const maxTours = options.maxTours ?? TOUR_STORE_LIMITS.maxTours;
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
    if (decision.events.length === 0) return decision.response;
    // Only the tour services cause events. Beyond the store's limit, the store's own refusal.
    const next = foldTourEvents(decision.events, tours);
    const refused = refusalBeyondMaxTours(service as TourServiceKey, tours, next, maxTours);
    if (refused !== undefined) return refused;
    tours = next;
    return decision.response;
  };

  // A call answered on the next microtask (no latency, no test scheduler: the default) or after the
  // latency on the scheduler. One object per call is the port's ticket and the pending answer.
  class SimCall<K extends RosServiceKey> implements RosCallTicket {
    cancelled = false;
    timer: Subscription | undefined = undefined;
    constructor(
      readonly service: K,
      readonly request: RosRequest<K>,
      readonly handler: RosCallHandler<K>,
    ) {}
    cancel(): void {
      this.cancelled = true;
      this.timer?.unsubscribe();
    }
    run(): void {
      // Cancelled before the answer: the request never "arrives", as with a remote node that is too late.
      if (this.cancelled) return;
      let response: RosResponse<K>;
      try {
        response = serve(this.service, this.request);
      } catch (error) {
        this.handler.failed(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.handler.answered(response);
    }
  }
  const runCall = (call: SimCall<RosServiceKey>): void => {
    call.run();
  };

  const call = <K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket => {
    if (unavailable.has(service)) {
      handler.failed(new RosServiceUnavailableError(service));
      return SETTLED_CALL;
    }
    // Takes the request and never answers; the caller's time-out decides.
    if (unresponsive.has(service)) return SETTLED_CALL;
    const pending = new SimCall(service, request, handler);
    if (latencyMs > 0 || scheduler !== undefined) {
      pending.timer = (scheduler ?? asyncScheduler).schedule(() => {
        pending.run();
      }, latencyMs);
    } else {
      // A promise reaction rather than queueMicrotask, which wraps each callback in an AsyncResource.
      void Promise.resolve(pending).then(runCall);
    }
    return pending;
  };

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
    serviceName: defaultServiceName,
    call,
    // Placeholder until the simulated Converse action lands (issue #12).
    converse: (_goal, handler) => {
      handler.failed(new RosServiceUnavailableError('converse'));
      return SETTLED_CALL;
    },
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
