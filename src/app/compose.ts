import type { Options } from '../cli/options.js';
import { createConversationHub, type ConversationHub } from '../actors/conversation-hub.js';
import { microphoneView } from '../actors/microphone-machine.js';
import type { Logger } from '../log/logger.js';
import {
  createBridgeMetrics,
  registerBuildInfo,
  registerLiveGauges,
  type BridgeMetrics,
} from '../metrics/bridge-metrics.js';
import {
  defaultAudioBytesPerAddress,
  defaultMaxUtteranceMs,
  type ConversationLimits,
} from '../protocol/ws/index.js';
import { SIM_SCHEMAS, simRoutes } from '../transport/routes/sim-routes.js';
import type { SimControl } from '../ros/port/sim-control.js';
import { createRosCalls, type RosCalls } from '../ros/port/ros-calls.js';
import type { RosPort, RosServiceKey } from '../ros/port/ros-port.js';
import { parseAllowedOrigins, type AccessPolicy } from '../transport/http/access-policy.js';
import { openApiRoute, type DocumentedAccess } from '../transport/http/openapi.js';
import type { AnyRoute } from '../transport/http/route.js';
import { defaultWebRoot, loadStaticSite, type StaticSite } from '../transport/http/static-site.js';
import {
  MICROPHONE_SCHEMAS,
  microphoneEventsRoute,
  type MicrophoneAudit,
} from '../transport/routes/microphone-routes.js';
import { HEALTH_SCHEMAS, operationsRoutes } from '../transport/routes/operations-routes.js';
import { staticRoutes } from '../transport/routes/static-routes.js';
import { TOUR_SCHEMAS, tourRoutes } from '../transport/routes/tour-routes.js';
import { startUwsApp } from '../transport/uws-app.js';
import type { UwsBuild } from '../transport/uws-build.js';
import { openMicrophoneLog } from '../state/microphone-log.js';
import { SERVICE_VERSION } from '../version.js';
import { createPlayAudioLosses } from './play-audio-losses.js';
import { createQuietGc } from './quiet-gc.js';

/**
 * The composition root: builds the bridge from the options and a ROS port, and nothing else. Every piece
 * is made once here and handed down: the metrics, the one ROS call wrapper, the conversation hub, the
 * route table, the uWebSockets.js app.
 */

export interface BridgeDependencies {
  readonly options: Options;
  readonly log: Logger;
  /** The port; `closing` (the deferred port's) aborts when it closes, failing the calls still outstanding. */
  readonly port: RosPort & { readonly closing?: AbortSignal };
  /** The uWebSockets.js build this process runs on, named by /ready and the metrics. */
  readonly uws: UwsBuild;
  /** Present only with the sim backend: adds the /sim/* routes. */
  readonly sim?: SimControl;
  /** Directory of the built kiosk pages (`npm run build` writes dist/web); read once at start. */
  readonly webRoot?: string;
}

export interface RunningBridge {
  /** The TCP port actually bound (differs from options.port when that was 0). */
  readonly listeningPort: number;
  /** The conversation endpoint's shared state (gauges, microphone), for metrics and tests. */
  readonly hub: ConversationHub;
  readonly calls: RosCalls;
  readonly metrics: BridgeMetrics;
  /** Start-up is over (the backend attached): its garbage is collected once the bridge is quiet. */
  startedUp(): void;
  /**
   * Graceful stop (see RunningUwsApp.stop); resolves to whether in-flight work finished within the drain
   * (false: some was cut with 503). Does not close the ROS port, which belongs to the caller.
   */
  stop(drainMs?: number): Promise<boolean>;
}

export const conversationLimits = (options: Options): ConversationLimits => ({
  maxTextFrameBytes: options.max_text_frame_bytes,
  maxBinaryFrameBytes: options.max_audio_frame_bytes,
  minBinaryFrameBytes: options.min_audio_frame_bytes,
  maxWaitingCalls: options.chat_queue,
  chatTimeoutMs: options.chat_timeout_ms,
  clearHistoryTimeoutMs: options.ros_timeout_ms,
  maxSessions: options.max_sessions,
  maxSendBufferBytes: options.send_buffer_bytes,
  maxOutboundBytes: options.outbound_buffer_bytes,
  sendTimeoutMs: options.send_timeout_seconds * 1000,
  maxQueuedAudioBytes: options.queued_audio_bytes,
  maxInboundFramesPerSecond: options.ws_frames_per_second,
  maxSessionsPerAddress: options.ws_sessions_per_address,
  maxInboundBytesPerSecond: options.ws_bytes_per_second,
  maxProcessInboundFramesPerSecond: options.ws_total_frame_rate,
  maxProcessInboundBytesPerSecond: options.ws_total_byte_rate,
  maxPartBytes: options.max_part_bytes,
  maxStreamLeadMs: options.max_stream_lead_ms,
  utteranceStallMs: options.utterance_stall_ms,
  maxStreamLagMs: options.max_stream_lag_ms,
  // The whole frame's audio at real time, plus the lag a stream may fall behind by.
  maxUtteranceMs: defaultMaxUtteranceMs(options.max_audio_frame_bytes, options.max_stream_lag_ms),
  // 0: derived from the budget it shares.
  maxQueuedAudioBytesPerAddress:
    options.audio_bytes_per_address ||
    defaultAudioBytesPerAddress(options.queued_audio_bytes, options.max_audio_frame_bytes),
});

/** What the HTTP route table is made of: the parts of the running service its routes read. */
export interface RouteTableParts {
  readonly port: Pick<RosPort, 'backend' | 'readiness'>;
  /** The metrics' registry, built at the first scrape (../metrics/bridge-metrics.ts). */
  readonly metrics: Pick<BridgeMetrics, 'registry'>;
  readonly uws: UwsBuild;
  readonly microphone: MicrophoneAudit;
  /** The simulation's control, whose routes exist only with `--backend sim`. */
  readonly sim: SimControl | undefined;
  readonly site: StaticSite | undefined;
  /** What the service checks, so that its OpenAPI document says it. */
  readonly access: DocumentedAccess;
}

/** Every HTTP route the service serves, the OpenAPI document of the API among them. */
export const routeTable = ({
  port,
  metrics,
  uws,
  microphone,
  sim,
  site,
  access,
}: RouteTableParts): AnyRoute[] => {
  const api = [
    ...operationsRoutes(port, metrics, uws),
    ...tourRoutes(),
    microphoneEventsRoute(microphone),
    ...(sim === undefined ? [] : simRoutes(sim)),
  ];
  return [
    ...api,
    openApiRoute(api, {
      version: SERVICE_VERSION,
      access,
      schemas: {
        ...TOUR_SCHEMAS,
        ...HEALTH_SCHEMAS,
        ...MICROPHONE_SCHEMAS,
        ...(sim === undefined ? {} : SIM_SCHEMAS),
      },
    }),
    ...staticRoutes(site),
  ];
};

/** Each service's time-out: /chat its own, everything else `--ros_timeout_ms`. */
const rosTimeouts = (options: Options): Record<RosServiceKey, number> => ({
  chat: options.chat_timeout_ms,
  clear_history: options.ros_timeout_ms,
  tour_list: options.ros_timeout_ms,
  tour_get: options.ros_timeout_ms,
  tour_create: options.ros_timeout_ms,
  tour_update: options.ros_timeout_ms,
  tour_delete: options.ros_timeout_ms,
});

const accessPolicy = (options: Options): AccessPolicy => ({
  token: options.auth_token === '' ? undefined : options.auth_token,
  allowedOrigins: parseAllowedOrigins(options.allowed_origins),
});

/**
 * How long in-flight work may run when the service stops: `--shutdown_timeout_ms` less what closing the
 * ROS side and the files needs (a quarter of it, at most 1 s), so cut requests still get their 503.
 */
export const drainWithin = (shutdownTimeoutMs: number): number =>
  shutdownTimeoutMs - Math.min(1_000, Math.floor(shutdownTimeoutMs / 4));

export const startBridge = async ({
  options,
  log,
  port,
  uws,
  sim,
  webRoot = defaultWebRoot(),
}: BridgeDependencies): Promise<RunningBridge> => {
  const site = await loadStaticSite(webRoot);
  if (site === undefined) {
    log.warn({ webRoot }, 'no kiosk pages to serve (run `npm run build`); the API works without them');
  }
  const metrics = createBridgeMetrics();
  const calls = createRosCalls({
    port,
    timeoutsMs: rosTimeouts(options),
    observer: metrics.rosCalls,
    // The bound protects the RMW's service queues; the simulation has none.
    ...(port.backend === 'ros' ? { callsInFlight: options.ros_calls_in_flight } : {}),
    ...(port.closing === undefined ? {} : { closing: port.closing }),
  });
  const losses = createPlayAudioLosses({
    metrics,
    log,
    playAudioBufferBytes: options.play_audio_buffer_bytes,
    sendBufferBytes: options.send_buffer_bytes,
  });
  const microphoneLog = await openMicrophoneLog(options.state_dir, log);
  const quietGc = createQuietGc({ log });
  const hub = createConversationHub({
    microphoneEnabled: microphoneLog.enabled,
    keepMicrophone: microphoneLog.keep,
    playAudioBufferBytes: options.play_audio_buffer_bytes,
    playAudioDropped: losses.playAudioDropped,
    onPlayAudioPair: quietGc.traffic,
    onSessionEnded: quietGc.traffic,
    calls,
    chatInterface: options.chat_interface,
    port,
    limits: conversationLimits(options),
    onStreamError: (source, error) => {
      metrics.rosStreamRestarts.child(source).value += 1;
      log.warn({ err: error, source }, `ROS stream ${source} failed or ended; subscribing again in 1 s`);
    },
    onSpeechPublishFailed: (error) => {
      log.warn({ err: error }, 'publishing a streamed utterance or a heard report failed');
    },
  });
  // Published at start and on each change (ROS nodes joining later get the last one).
  const microphone = microphoneView(hub.microphone);
  const microphoneEnabled$ = microphone.enabled$;
  const microphonePublishing = microphoneEnabled$.subscribe((enabled) => {
    port.publishMicrophoneEnabled?.(enabled);
  });
  const lossCounting = port.playAudioLost$?.subscribe((count) => {
    losses.playAudioDropped('middleware_lost', count);
  });
  registerLiveGauges(metrics, () => hub.readGauges());
  registerBuildInfo(metrics, { uws: uws.name, line: uws.line, reason: uws.reason });

  const routes = routeTable({
    port,
    metrics,
    uws,
    microphone: {
      isEnabled: () => microphone.isEnabled(),
      kept: microphoneLog.file !== undefined,
      entries: () => microphoneLog.entries(),
    },
    sim,
    site,
    access: { token: options.auth_token !== '', origins: options.allowed_origins !== '' },
  });
  const app = await startUwsApp({
    host: options.host,
    port: options.port,
    routes,
    hub,
    calls,
    metrics,
    policy: accessPolicy(options),
    maxBodyBytes: options.max_body_bytes,
    log,
  });
  return {
    listeningPort: app.listeningPort,
    hub,
    calls,
    metrics,
    startedUp: quietGc.traffic,
    stop: async (drainMs = drainWithin(options.shutdown_timeout_ms)) => {
      const drained = await app.stop(drainMs);
      losses.close();
      quietGc.close();
      microphonePublishing.unsubscribe();
      lossCounting?.unsubscribe();
      // A change just made is on disk before the process exits.
      await microphoneLog.settled();
      return drained;
    },
  };
};
