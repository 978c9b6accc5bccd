import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';
import { CALL_SECONDS_BUCKETS, RosCallTally } from '../ros/port/ros-calls.js';
import { CounterFamily, histogramValues, ReadFamily, type ScrapedFamily } from './plain-metrics.js';
import { startProcessMetrics } from './process-metrics.js';

/**
 * What an operator watches, in Prometheus form (`GET /metrics`). One registry per service instance, so
 * tests can run several services in one process without sharing counters. Counting is plain arithmetic
 * (./plain-metrics.ts); prom-client renders the text at scrape time, and is loaded then: a bridge nobody
 * scrapes never holds it (about 5 MiB of RSS with what it loads).
 */
export interface BridgeMetrics {
  /**
   * The registry of every family below and of the process metrics, built on the first call (which loads
   * prom-client); what was counted before is in it.
   */
  registry(): Registry;
  /** Adds a family rendered at scrape time, after those already added. */
  add(family: ScrapedFamily): void;
  /** HTTP requests answered, by method, route (the route table's path template) and status. */
  readonly httpRequests: CounterFamily;
  /** HTTP answers that ended before their client took them, by reason (send_timeout, connection_closed). */
  readonly httpAnswersUnsent: CounterFamily;
  /** HTTP answers waiting now for their client to take the rest; the transport keeps `value`. */
  readonly httpAnswersWaiting: { value: number };
  readonly wsFrames: CounterFamily;
  readonly wsBytes: CounterFamily;
  /** Client frames not carried out, by the error code the session was told (busy, microphone_disabled, …). */
  readonly wsRefusedFrames: CounterFamily;
  readonly wsSessionsClosed: CounterFamily;
  readonly wsSessionsRefused: CounterFamily;
  /** Sessions the endpoint closed on its own, by reason (send_timeout, address_share). */
  readonly wsSessionsCut: CounterFamily;
  readonly wsTurns: CounterFamily;
  readonly rosStreamRestarts: CounterFamily;
  /** /play_audio messages lost on the way to kiosks, by reason (buffer_full, slow_kiosk, middleware_lost). */
  readonly playAudioDropped: CounterFamily;
  /** Counts and times every ROS call; handed to the call wrapper (src/ros/port/ros-calls.ts). */
  readonly rosCalls: RosCallTally;
}

/** Values read at scrape time from whoever holds them. */
export interface LiveGauges {
  readonly liveSessions: number;
  readonly openSubscriptions: number;
  readonly inFlightRosCalls: number;
  readonly queuedAudioBytes: number;
}

const PREFIX = 'tour_bridge_';

const requireFromHere = createRequire(import.meta.url);

/**
 * prom-client's registry module by itself: its index also loads the push gateway (http, https), the
 * cluster aggregator, the summary's t-digest and, with the default metrics, @opentelemetry/api.
 */
const loadRegistry = (): typeof Registry => requireFromHere('prom-client/lib/registry.js') as typeof Registry;

/** The call wrapper's tally, rendered: only the services and outcomes that happened. */
const rosCallFamilies = (tally: RosCallTally): ScrapedFamily[] => {
  const secondsName = `${PREFIX}ros_call_seconds`;
  return [
    new ReadFamily(
      `${PREFIX}ros_calls_total`,
      'ROS service calls, by service and outcome (ok, unavailable, failed, abandoned: timed out or caller gone)',
      'counter',
      () =>
        [...tally.byService].flatMap(([service, { outcomes }]) =>
          [...outcomes].map(([outcome, value]) => ({ value, labels: { service, outcome } })),
        ),
    ),
    new ReadFamily(
      secondsName,
      'Time from sending a ROS service call to its answer, for answered calls',
      'histogram',
      () =>
        [...tally.byService]
          .filter(([, { answered }]) => answered.count > 0)
          .flatMap(([service, { answered }]) =>
            histogramValues(secondsName, CALL_SECONDS_BUCKETS, { service }, answered),
          ),
    ),
  ];
};

export const createBridgeMetrics = (): BridgeMetrics => {
  const processMetrics = startProcessMetrics(PREFIX);
  const families: ScrapedFamily[] = [];
  let registry: Registry | undefined;
  const add = (family: ScrapedFamily): void => {
    // prom-client would refuse it at the first scrape; said here, where it is added.
    if (families.some((each) => each.name === family.name)) {
      throw new Error(`A metric with the name ${family.name} has already been registered.`);
    }
    families.push(family);
    registry?.registerMetric(family as never);
  };
  const counter = (name: string, help: string, labelNames: readonly string[]): CounterFamily => {
    const family = new CounterFamily(`${PREFIX}${name}`, help, labelNames);
    add(family);
    return family;
  };
  // The order of the text: the process's metrics, then the bridge's in the order they are added here.
  const rosCalls = new RosCallTally();
  const httpAnswersWaiting = { value: 0 };
  add(
    new ReadFamily(
      `${PREFIX}http_answers_waiting`,
      'HTTP answers waiting now for their client to take the rest (at most one per connection)',
      'gauge',
      () => [{ value: httpAnswersWaiting.value }],
    ),
  );
  const metrics: BridgeMetrics = {
    registry: () => {
      if (registry === undefined) {
        const built = new (loadRegistry())();
        processMetrics.register(built);
        for (const family of families) built.registerMetric(family as never);
        registry = built;
      }
      return registry;
    },
    add,
    httpRequests: counter(
      'http_requests_total',
      'HTTP requests answered, by method, route (path template) and status (499: client went away)',
      ['method', 'route', 'status'],
    ),
    httpAnswersUnsent: counter(
      'http_answers_unsent_total',
      'HTTP answers whose connection closed before the client took them all, by reason (send_timeout: the client took none of it for 8 s, and was closed; connection_closed: the client left, or sent another request first, which closes the connection: one answer owed per connection)',
      ['reason'],
    ),
    httpAnswersWaiting,
    wsFrames: counter(
      'ws_frames_total',
      'WebSocket frames, by direction (in: from kiosks) and kind (text, binary)',
      ['direction', 'kind'],
    ),
    wsBytes: counter('ws_bytes_total', 'WebSocket payload bytes, by direction and kind', [
      'direction',
      'kind',
    ]),
    wsRefusedFrames: counter(
      'ws_refused_frames_total',
      'Kiosk frames not carried out, by the error code sent back (busy, microphone_disabled, invalid_json, …), or rate_limited (past the inbound budget: the session is closed with 1008)',
      ['reason'],
    ),
    wsSessionsClosed: counter(
      'ws_sessions_closed_total',
      'WebSocket sessions ended, by close code (1008 slow reader, 1009 frame too large, 1013 too many, …)',
      ['code'],
    ),
    wsSessionsCut: counter(
      'ws_sessions_cut_total',
      'WebSocket sessions the endpoint closed itself, by reason (send_timeout: the client answered no ping for --send_timeout_seconds, whatever it sent; address_share: all sessions together sent past --ws_total_frame_rate or --ws_total_byte_rate and its address sent the most)',
      ['reason'],
    ),
    wsSessionsRefused: counter(
      'ws_sessions_refused_total',
      'WebSocket sessions closed with 1013 as they opened, by reason (max_sessions: --max_sessions held; per_address: the address holds --ws_sessions_per_address; reserved: only the last tenth of --max_sessions is left, kept for addresses holding fewer than 2)',
      ['reason'],
    ),
    wsTurns: counter(
      'ws_turns_total',
      'Turns (kiosk audio frames) ended, by outcome (answered, failed, refused, cancelled): every refused frame, a busy said once for several included',
      ['outcome'],
    ),
    rosStreamRestarts: counter(
      'ros_stream_restarts_total',
      'ROS streams (play_audio, microphone_requests) that failed and were subscribed again',
      ['stream'],
    ),
    playAudioDropped: counter(
      'play_audio_dropped_total',
      "/play_audio messages lost on the way to the kiosks, by reason (buffer_full: past --play_audio_buffer_bytes; slow_kiosk: past a kiosk's --send_buffer_bytes, oldest first; outbound_full: past --outbound_buffer_bytes for all kiosks, the furthest behind first; middleware_lost: lost by the ROS middleware before the bridge took them, as its MESSAGE_LOST event reports)",
      ['reason'],
    ),
    rosCalls,
  };
  for (const family of rosCallFamilies(rosCalls)) add(family);
  return metrics;
};

/** Adds the gauges read from the live state at scrape time. Once per metrics. */
export const registerLiveGauges = (metrics: BridgeMetrics, read: () => LiveGauges): void => {
  const gauge = (name: string, help: string, pick: (gauges: LiveGauges) => number) => {
    metrics.add(new ReadFamily(`${PREFIX}${name}`, help, 'gauge', () => [{ value: pick(read()) }]));
  };
  gauge('ws_sessions', 'WebSocket sessions open now', (gauges) => gauges.liveSessions);
  gauge(
    'stream_subscriptions',
    'Stream subscriptions held by sessions (play_audio and microphone: 2 per session)',
    (gauges) => gauges.openSubscriptions,
  );
  gauge(
    'ros_calls_in_flight',
    'ROS service calls sent and not yet answered or abandoned',
    (gauges) => gauges.inFlightRosCalls,
  );
  gauge(
    'ws_queued_audio_bytes',
    'Kiosk audio bytes held by the /chat calls of all sessions, running or waiting (capped by --queued_audio_bytes)',
    (gauges) => gauges.queuedAudioBytes,
  );
};

/** `tour_bridge_uws_build_info{uws, native} 1`: which uWebSockets.js build serves, and whether natively. */
export const registerBuildInfo = (
  metrics: BridgeMetrics,
  build: { uws: string; line: string; reason: string },
): void => {
  const labels = { uws: build.uws, line: build.line, reason: build.reason };
  metrics.add(
    new ReadFamily(
      `${PREFIX}uws_build_info`,
      'The uWebSockets.js build serving HTTP and /ws: package@version, its line (official, or node20 where glibc < 2.38) and why it was chosen',
      'gauge',
      () => [{ value: 1, labels }],
    ),
  );
};
