import { Gauge, Registry } from 'prom-client';
import type { RosCallObserver } from '../port/ros-calls.js';
import type { RosCallKey } from '../port/ros-port.js';
import { CounterFamily, HistogramFamily, type PlainCounter, type PlainHistogram } from './plain-metrics.js';
import { registerProcessMetrics } from './process-metrics.js';

/**
 * What an operator watches, in Prometheus form (`GET /metrics`). One registry per service instance, so
 * tests can run several services in one process without sharing counters. Counting is plain arithmetic
 * (./plain-metrics.ts); prom-client renders the text at scrape time.
 */
export interface BridgeMetrics {
  readonly registry: Registry;
  /** HTTP requests answered, by method, route (the route table's path template) and status. */
  readonly httpRequests: CounterFamily;
  readonly wsFrames: CounterFamily;
  readonly wsBytes: CounterFamily;
  /** Client frames not carried out, by the error code the session was told (busy, microphone_disabled, …). */
  readonly wsRefusedFrames: CounterFamily;
  readonly wsSessionsClosed: CounterFamily;
  readonly wsSessionsRefused: CounterFamily;
  readonly wsTurns: CounterFamily;
  readonly rosStreamRestarts: CounterFamily;
  /** /play_audio messages lost on the way to kiosks, by reason (buffer_full, slow_kiosk, middleware_lost). */
  readonly playAudioDropped: CounterFamily;
  /** Counts and times every ROS call; handed to the call wrapper (src/port/ros-calls.ts). */
  readonly rosCalls: RosCallObserver;
}

/** Values read at scrape time from whoever holds them. */
export interface LiveGauges {
  readonly liveSessions: number;
  readonly openSubscriptions: number;
  readonly inFlightRosCalls: number;
  readonly queuedAudioBytes: number;
}

const PREFIX = 'tour_bridge_';
const CALL_SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const rosCallObserver = (registry: Registry): RosCallObserver => {
  const calls = new CounterFamily(
    registry,
    `${PREFIX}ros_calls_total`,
    'ROS service calls, by service and outcome (ok, unavailable, failed, abandoned: timed out or caller gone)',
    ['service', 'outcome'],
  );
  const seconds = new HistogramFamily(
    registry,
    `${PREFIX}ros_call_seconds`,
    'Time from sending a ROS service call to its answer, for answered calls',
    ['service'],
    CALL_SECONDS_BUCKETS,
  );
  // Children are bound on first use, so the text shows only services and outcomes that happened.
  const bound = new Map<string, PlainCounter>();
  const timers = new Map<RosCallKey, PlainHistogram>();
  return {
    settled: (service, outcome, callSeconds) => {
      const key = `${service} ${outcome}`;
      let counter = bound.get(key);
      if (counter === undefined) {
        counter = calls.child(service, outcome);
        bound.set(key, counter);
      }
      counter.inc();
      if (outcome !== 'ok') return;
      let timer = timers.get(service);
      if (timer === undefined) {
        timer = seconds.child(service);
        timers.set(service, timer);
      }
      timer.observe(callSeconds);
    },
  };
};

export const createBridgeMetrics = (): BridgeMetrics => {
  const registry = new Registry();
  registerProcessMetrics(registry, PREFIX);
  return {
    registry,
    httpRequests: new CounterFamily(
      registry,
      `${PREFIX}http_requests_total`,
      'HTTP requests answered, by method, route (path template) and status (499: client went away)',
      ['method', 'route', 'status'],
    ),
    wsFrames: new CounterFamily(
      registry,
      `${PREFIX}ws_frames_total`,
      'WebSocket frames, by direction (in: from kiosks) and kind (text, binary)',
      ['direction', 'kind'],
    ),
    wsBytes: new CounterFamily(
      registry,
      `${PREFIX}ws_bytes_total`,
      'WebSocket payload bytes, by direction and kind',
      ['direction', 'kind'],
    ),
    wsRefusedFrames: new CounterFamily(
      registry,
      `${PREFIX}ws_refused_frames_total`,
      'Kiosk frames not carried out, by the error code sent back (busy, microphone_disabled, invalid_json, …), or rate_limited (past the inbound budget: the session is closed with 1008)',
      ['reason'],
    ),
    wsSessionsClosed: new CounterFamily(
      registry,
      `${PREFIX}ws_sessions_closed_total`,
      'WebSocket sessions ended, by close code (1008 slow reader, 1009 frame too large, 1013 too many, …)',
      ['code'],
    ),
    wsSessionsRefused: new CounterFamily(
      registry,
      `${PREFIX}ws_sessions_refused_total`,
      'WebSocket sessions closed with 1013 as they opened, by reason (max_sessions: --max_sessions held; per_address: the address holds --ws_sessions_per_address)',
      ['reason'],
    ),
    wsTurns: new CounterFamily(
      registry,
      `${PREFIX}ws_turns_total`,
      'Turns (kiosk audio frames) ended, by outcome (answered, failed, refused, cancelled): every refused frame, a busy said once for several included',
      ['outcome'],
    ),
    rosStreamRestarts: new CounterFamily(
      registry,
      `${PREFIX}ros_stream_restarts_total`,
      'ROS streams (play_audio, microphone_requests) that failed and were subscribed again',
      ['stream'],
    ),
    playAudioDropped: new CounterFamily(
      registry,
      `${PREFIX}play_audio_dropped_total`,
      "/play_audio messages lost on the way to the kiosks, by reason (buffer_full: past --play_audio_buffer_bytes; slow_kiosk: past a kiosk's --send_buffer_bytes, oldest first; middleware_lost: lost by the ROS middleware before the bridge took them, as its MESSAGE_LOST event reports)",
      ['reason'],
    ),
    rosCalls: rosCallObserver(registry),
  };
};

/** Registers the gauges read from the live state at scrape time. Once per registry. */
export const registerLiveGauges = (registry: Registry, read: () => LiveGauges): void => {
  const gauge = (name: string, help: string, pick: (gauges: LiveGauges) => number) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(pick(read()));
      },
    });
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
  registry: Registry,
  build: { uws: string; line: string; reason: string },
): void => {
  const info = new Gauge({
    name: `${PREFIX}uws_build_info`,
    help: 'The uWebSockets.js build serving HTTP and /ws: package@version, its line (official, or node20 where glibc < 2.38) and why it was chosen',
    labelNames: ['uws', 'line', 'reason'],
    registers: [registry],
  });
  info.set({ uws: build.uws, line: build.line, reason: build.reason }, 1);
};
