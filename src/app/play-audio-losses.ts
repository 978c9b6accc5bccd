import type { Logger } from '../log/logger.js';
import { createLossReporter } from '../log/loss-reporter.js';
import type { BridgeMetrics } from '../metrics/bridge-metrics.js';
import type { PlayAudioMsg } from '../ros/port/ros-messages.js';

/**
 * How `/play_audio` messages lost on the way to the kiosks are reported: each loss counts in
 * `play_audio_dropped_total` by reason, and the first of a burst is a `warn` line at once, the rest at most
 * one line per 10 s with the count (docs/operations.md lists these lines).
 */
export interface PlayAudioLosses {
  /** A message past `--play_audio_buffer_bytes`, dropped before any kiosk got it. */
  readonly bufferFull: (message: PlayAudioMsg) => void;
  /** `count` messages dropped for kiosks slower than the burst (oldest first). */
  readonly slowKiosk: (count: number) => void;
  /** `count` messages dropped past `--outbound_buffer_bytes`, for the kiosks furthest behind (oldest first). */
  readonly outboundFull: (count: number) => void;
  /** `count` messages the middleware reported lost before the bridge took them (MESSAGE_LOST). */
  readonly middlewareLost: (count: number) => void;
  /** Logs what is still unreported and stops the reporters' timers. */
  readonly close: () => void;
}

export interface PlayAudioLossesOptions {
  readonly metrics: BridgeMetrics;
  readonly log: Logger;
  readonly playAudioBufferBytes: number;
  readonly sendBufferBytes: number;
}

export const createPlayAudioLosses = ({
  metrics,
  log,
  playAudioBufferBytes,
  sendBufferBytes,
}: PlayAudioLossesOptions): PlayAudioLosses => {
  const bufferFullCount = metrics.playAudioDropped.child('buffer_full');
  const slowKioskCount = metrics.playAudioDropped.child('slow_kiosk');
  const outboundFullCount = metrics.playAudioDropped.child('outbound_full');
  const middlewareLostCount = metrics.playAudioDropped.child('middleware_lost');
  const bufferFullLines = createLossReporter({
    log,
    message: '/play_audio messages dropped: more audio arrived than --play_audio_buffer_bytes holds',
    fields: { playAudioBufferBytes },
  });
  const slowKioskLines = createLossReporter({
    log,
    message: '/play_audio messages dropped for kiosks slower than the burst (oldest first)',
    fields: { sendBufferBytes },
    withBytes: false,
  });
  const outboundFullLines = createLossReporter({
    log,
    message:
      '/play_audio messages dropped: more waited for all kiosks than --outbound_buffer_bytes (furthest behind, oldest first)',
    withBytes: false,
  });
  const middlewareLostLines = createLossReporter({
    log,
    message: '/play_audio messages the ROS middleware lost before the bridge saw them (MESSAGE_LOST)',
    withBytes: false,
  });
  return {
    bufferFull: (message) => {
      bufferFullCount.inc();
      bufferFullLines.lost(message.audio.byteLength);
    },
    slowKiosk: (count) => {
      slowKioskCount.inc(count);
      slowKioskLines.lostMany(count);
    },
    outboundFull: (count) => {
      outboundFullCount.inc(count);
      outboundFullLines.lostMany(count);
    },
    middlewareLost: (count) => {
      middlewareLostCount.inc(count);
      middlewareLostLines.lostMany(count);
    },
    close: () => {
      bufferFullLines.close();
      slowKioskLines.close();
      outboundFullLines.close();
      middlewareLostLines.close();
    },
  };
};
