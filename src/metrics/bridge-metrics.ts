import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What an operator watches, in Prometheus form (`GET /metrics`). One registry per service instance, so
 * tests can run several services in one process without sharing counters.
 */
export interface BridgeMetrics {
  readonly registry: Registry;
  readonly wsFrames: Counter<'direction' | 'kind'>;
  readonly wsBytes: Counter<'direction' | 'kind'>;
  /** Client frames not carried out, by the error code the session was told (busy, microphone_disabled, …). */
  readonly wsRefusedFrames: Counter<'reason'>;
  readonly wsSessionsClosed: Counter<'code'>;
  /** Counts one answered HTTP request (a plain map on the hot path; labels are applied at scrape time). */
  countHttpRequest(method: string, route: string, status: number): void;
  readonly rosCalls: Counter<'service' | 'outcome'>;
  readonly rosCallSeconds: Histogram<'service'>;
  readonly rosStreamRestarts: Counter<'stream'>;
}

export interface LiveGauges {
  readonly liveSessions: number;
  readonly openSubscriptions: number;
  readonly inFlightRosCalls: number;
  readonly queuedAudioBytes: number;
}

const PREFIX = 'tour_bridge_';

export const createBridgeMetrics = (readGauges: () => LiveGauges): BridgeMetrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const gauge = (name: string, help: string, read: (gauges: LiveGauges) => number) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(read(readGauges()));
      },
    });
  gauge('ws_sessions', 'WebSocket sessions open now', (gauges) => gauges.liveSessions);
  gauge(
    'stream_subscriptions',
    'Stream subscriptions held by sessions (3 per session)',
    (g) => g.openSubscriptions,
  );
  gauge(
    'ros_calls_in_flight',
    'ROS service calls sent and not yet answered or abandoned',
    (g) => g.inFlightRosCalls,
  );
  gauge(
    'ws_queued_audio_bytes',
    'Kiosk audio bytes held by the /chat calls of all sessions, running or waiting (capped by --queued_audio_bytes)',
    (g) => g.queuedAudioBytes,
  );

  // prom-client's labelled inc() looked up and hashed the labels on every request: ~15% of a GET's CPU
  // in the benchmark profile. Requests are counted in a map by one string key and handed over at scrape.
  const httpCounts = new Map<string, { method: string; route: string; status: string; count: number }>();
  new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status (499: client went away)',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { method, route, status, count } of httpCounts.values())
        this.inc({ method, route, status }, count);
    },
  });

  return {
    registry,
    countHttpRequest: (method, route, status) => {
      const key = `${method} ${route} ${status}`;
      const entry = httpCounts.get(key);
      if (entry === undefined) httpCounts.set(key, { method, route, status: String(status), count: 1 });
      else entry.count += 1;
    },
    wsFrames: new Counter({
      name: `${PREFIX}ws_frames_total`,
      help: 'WebSocket frames, by direction (in: from kiosks) and kind (text, binary)',
      labelNames: ['direction', 'kind'],
      registers: [registry],
    }),
    wsBytes: new Counter({
      name: `${PREFIX}ws_bytes_total`,
      help: 'WebSocket payload bytes, by direction and kind',
      labelNames: ['direction', 'kind'],
      registers: [registry],
    }),
    wsRefusedFrames: new Counter({
      name: `${PREFIX}ws_refused_frames_total`,
      help: 'Kiosk frames not carried out, by the error code sent back (busy, microphone_disabled, invalid_json, …)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    wsSessionsClosed: new Counter({
      name: `${PREFIX}ws_sessions_closed_total`,
      help: 'WebSocket sessions ended, by close code (1008 slow reader, 1009 frame too large, 1013 too many, …)',
      labelNames: ['code'],
      registers: [registry],
    }),
    rosCalls: new Counter({
      name: `${PREFIX}ros_calls_total`,
      help: 'ROS service calls, by service and outcome (ok, unavailable, failed, abandoned: timed out or caller gone)',
      labelNames: ['service', 'outcome'],
      registers: [registry],
    }),
    rosCallSeconds: new Histogram({
      name: `${PREFIX}ros_call_seconds`,
      help: 'Time from sending a ROS service call to its answer, for answered calls',
      labelNames: ['service'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    rosStreamRestarts: new Counter({
      name: `${PREFIX}ros_stream_restarts_total`,
      help: 'ROS streams (play_audio, microphone_requests) that failed and were subscribed again',
      labelNames: ['stream'],
      registers: [registry],
    }),
  };
};
