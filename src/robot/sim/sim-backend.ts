import { asyncScheduler, defer, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import {
  type ConverseGoalMsg,
  type HeardMsg,
  type PlayAudioMsg,
  type SetBoolResponseMsg,
  type TranscriptMsg,
  type UtteranceAudioMsg,
} from '../../ros/port/ros-messages.js';
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
  type RosResponse,
  type RosServiceKey,
} from '../../ros/port/ros-port.js';
import type { SimControl } from '../../ros/port/sim-control.js';
import { refusalBeyondMaxTours, TOUR_STORE_LIMITS } from '../tours/durable-tour-store.js';
import { foldTourEvents, SAMPLE_TOUR, type TourServiceKey, type TourState } from '../tours/tour-rules.js';
import type { Tour } from '../../protocol/tour-schema.js';
import { decideSimulatedService } from './sim-services.js';
import { HeardHistory } from './heard-history.js';
import { checkRecognitionRt, recognitionMs, utteranceSeconds } from '../speech/recognition-cost.js';
import { SchedulerClock } from '../speech/stand-in-clock.js';
import { UtteranceRecogniser } from '../speech/streaming-recogniser.js';
import { RECOGNISER_LIMITS, type RecogniserLimits } from '../speech/recogniser-limits.js';
import type { RecognitionStats } from '../speech/recognition-stats.js';
import { simConverseAnswers } from './sim-converse.js';

export interface SimBackendOptions {
  /** Artificial latency of every simulated call; 0 answers on the next microtask. */
  readonly latencyMs?: number;
  /**
   * The modelled answer pipeline (`--sim_chat_parts`, `--sim_part_ms`): the echo answer comes in `chatParts`
   * parts (default 1), each `partMs` (default 0) after the previous. `/chat` answers once, whole, after
   * latency + parts × partMs; a Converse goal gets part k at latency + k × partMs, then its result.
   */
  readonly chatParts?: number;
  readonly partMs?: number;
  /**
   * The recogniser stand-in's cost (`--sim_recognition_rt`): recognising speech takes rt × its duration.
   * Streamed, each part as it arrives; whole (a goal with audio, `/chat`), after the whole utterance,
   * before the answer's schedule. 0 (the default): no recognition time.
   */
  readonly recognitionRt?: number;
  /** What the recogniser may hold (RECOGNISER_LIMITS by default). */
  readonly recogniserLimits?: Partial<RecogniserLimits>;
  readonly initialTours?: readonly Tour[];
  readonly scheduler?: SchedulerLike;
  /** Most tours held, as the reference store (`TOUR_STORE_LIMITS.maxTours` by default). */
  readonly maxTours?: number;
}

/** Faults a test can inject, as a misbehaving ROS graph would cause them. */
export interface SimFaults {
  /** The service (or the Converse action) has no server (calls fail as unavailable) until set back. */
  setUnavailable(service: RosCallKey, unavailable: boolean): void;
  /** The service takes requests (the action accepts goals) and never answers until set back. */
  setUnresponsive(service: RosCallKey, unresponsive: boolean): void;
  /**
   * The service carries out and answers each request `delayMs` after it is made, instead of after the
   * latency, until set back with 0: a robot slower than the bridge's time-out.
   */
  setSlow(service: RosServiceKey, delayMs: number): void;
  /** The /play_audio subscription fails, as a broken subscription would; a new subscription works. */
  failPlayAudio(error: Error): void;
  /** The /play_audio stream ends; a new subscription works. */
  endPlayAudio(): void;
}

export interface SimBackend extends RosPort {
  readonly backend: 'sim';
  readonly sim: SimControl;
  readonly faults: SimFaults;
  /** The streaming recogniser's gauges (utterances and bytes held, goals waiting) and counters. */
  recognitionStats(): RecognitionStats;
  /** The `/conversation/heard` reports received, the latest 16, oldest first. */
  heardHistory(): readonly HeardMsg[];
}

/** How the simulation's requests to /microphone/set_enabled appear in the microphone's event log. */
export const SIM_MICROPHONE_SOURCE = 'simulation (POST /sim/microphone)';

export const SIM_DESCRIPTION = 'SIMULATION: in-process simulated robot, no ROS 2 graph';

const NOT_LISTENING: SetBoolResponseMsg = {
  success: false,
  message: 'tour-bridge is not ready to switch the microphone',
};

export const createSimBackend = (options: SimBackendOptions = {}): SimBackend => {
  const latencyMs = options.latencyMs ?? 0;
  const chatParts = options.chatParts ?? 1;
  const partMs = options.partMs ?? 0;
  const maxTours = options.maxTours ?? TOUR_STORE_LIMITS.maxTours;
  const scheduler = options.scheduler;
  const recognitionRt = checkRecognitionRt(options.recognitionRt ?? 0);
  let tours: TourState = foldTourEvents(
    (options.initialTours ?? [SAMPLE_TOUR]).map((tour) => ({ type: 'tour.created', tour }) as const),
  );
  // Replaced after a fault, so the failed stream stays failed and a new subscription gets a working one.
  let playAudio = new Subject<PlayAudioMsg>();
  const microphoneRequests = new Subject<MicrophoneRequest>();
  const unavailable = new Set<RosCallKey>();
  const unresponsive = new Set<RosCallKey>();
  const slow = new Map<RosServiceKey, number>();
  // Calls still to be carried out (answered or not): closing the simulation drops them.
  const callTimers = new Set<Subscription>();
  let closed = false;
  const clock = new SchedulerClock(scheduler);
  const transcripts = new Subject<TranscriptMsg>();
  const recogniser = new UtteranceRecogniser(
    recognitionRt,
    clock,
    { ...RECOGNISER_LIMITS, ...options.recogniserLimits },
    (transcript) => {
      transcripts.next(transcript);
    },
    'the simulated recogniser',
  );
  const heard = new HeardHistory();
  /** The whole-utterance path's recognition: rt × its duration, after it has all arrived. */
  const wholeRecognitionMs = (audio: Uint8Array): number =>
    recognitionRt === 0 ? 0 : recognitionMs(recognitionRt, utteranceSeconds(audio));
  const answerGoal = simConverseAnswers({
    latencyMs,
    chatParts,
    partMs,
    scheduler,
    recogniser,
    wholeRecognitionMs,
  });

  // The simulated server decides when the request "arrives", after the latency, like a remote node.
  const serve = <K extends RosServiceKey>(service: K, request: RosRequest<K>): RosResponse<K> => {
    const decision = decideSimulatedService(tours, service, request, chatParts);
    if (decision.events.length === 0) return decision.response;
    // Only the tour services cause events. Beyond the store's limit, the store's own refusal.
    const next = foldTourEvents(decision.events, tours);
    const refused = refusalBeyondMaxTours(service as TourServiceKey, tours, next, maxTours);
    if (refused !== undefined) return refused;
    tours = next;
    return decision.response;
  };

  // A call answered on the next microtask (no latency, no test scheduler: the default) or after the
  // latency on the scheduler. A SimCall is both the port's ticket and the pending answer.
  // Cancelling drops the answer only: as on a ROS graph, the request has reached the robot, which still
  // carries it out (a tour created after the bridge stopped waiting is there).
  class SimCall<K extends RosServiceKey> implements RosCallTicket {
    cancelled = false;
    constructor(
      readonly service: K,
      readonly request: RosRequest<K>,
      readonly handler: RosCallHandler<K>,
    ) {}
    cancel(): void {
      this.cancelled = true;
    }
    run(): void {
      let response: RosResponse<K>;
      try {
        response = serve(this.service, this.request);
      } catch (error) {
        if (!this.cancelled) this.handler.failed(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (!this.cancelled) this.handler.answered(response);
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
    // The modelled pipeline makes the whole answer of /chat wait for its recognition and its last part.
    const delayMs =
      slow.get(service) ??
      (service === 'chat'
        ? latencyMs + wholeRecognitionMs((request as RosRequest<'chat'>).audio) + chatParts * partMs
        : latencyMs);
    if (delayMs > 0 || scheduler !== undefined) {
      const timer = (scheduler ?? asyncScheduler).schedule(() => {
        pending.run();
        callTimers.delete(timer);
      }, delayMs);
      callTimers.add(timer);
    } else {
      // A promise reaction rather than queueMicrotask, which wraps each callback in an AsyncResource.
      void Promise.resolve(pending).then(runCall);
    }
    return pending;
  };

  const converse = (goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket => {
    if (unavailable.has('converse')) {
      handler.failed(new RosServiceUnavailableError('converse'));
      return SETTLED_CALL;
    }
    // Accepts the goal and never sends anything; the caller's time-out decides.
    if (unresponsive.has('converse')) return SETTLED_CALL;
    return answerGoal(goal, handler);
  };

  const setMicrophone = (enabled: boolean): Promise<SetBoolResponseMsg> => {
    if (closed || !microphoneRequests.observed) return Promise.resolve(NOT_LISTENING);
    return new Promise((resolve) => {
      let answered = false;
      microphoneRequests.next({
        enabled,
        source: SIM_MICROPHONE_SOURCE,
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
    converse,
    playAudio$: defer(() => playAudio),
    microphoneRequests$: microphoneRequests.asObservable(),
    publishUtteranceAudio: (message: UtteranceAudioMsg) => {
      if (closed) throw new Error(`${SIM_DESCRIPTION}: closed, /utterance/audio not published`);
      recogniser.receive(message);
    },
    transcripts$: transcripts.asObservable(),
    publishHeard: (message: HeardMsg) => {
      // As the other topics: nothing is received once the simulation closed.
      if (!closed) heard.add(message);
    },
    recognitionStats: () => recogniser.stats(),
    heardHistory: () => heard.list(),
    readiness: (): BackendReadiness =>
      closed ? { ready: false, detail: 'simulation closed' } : { ready: true, detail: SIM_DESCRIPTION },
    close: () => {
      if (!closed) {
        closed = true;
        for (const timer of callTimers) timer.unsubscribe();
        callTimers.clear();
        recogniser.close();
        clock.cancelAll();
        transcripts.complete();
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
      setSlow: (service, delayMs) => {
        if (delayMs > 0) slow.set(service, delayMs);
        else slow.delete(service);
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
