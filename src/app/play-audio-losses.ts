import type { Logger } from '../log/logger.js';
import { createLossReporter, type LossReporter } from '../log/loss-reporter.js';
import type { BridgeMetrics } from '../metrics/bridge-metrics.js';
import type { PlayAudioDropReason, PlayAudioDropped } from '../streams/play-audio/fan-out.js';

/**
 * How `/play_audio` messages lost on the way to the kiosks are reported: each loss counts in
 * `play_audio_dropped_total` by reason, and the first of a burst is a `warn` line at once, the rest at most
 * one line per 10 s with the count (docs/operations.md lists these lines).
 */
export interface PlayAudioLosses {
  /**
   * `count` messages lost, by reason: `buffer_full` (past `--play_audio_buffer_bytes`, before any kiosk got
   * it; with its bytes), `slow_kiosk` (past a kiosk's `--send_buffer_bytes`, oldest first), `outbound_full`
   * (past `--outbound_buffer_bytes`, the kiosks furthest behind, oldest first), `middleware_lost` (lost by
   * the middleware before the bridge took them, MESSAGE_LOST).
   */
  readonly playAudioDropped: PlayAudioDropped;
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
  const lines: Record<PlayAudioDropReason, LossReporter> = {
    buffer_full: createLossReporter({
      log,
      message: '/play_audio messages dropped: more audio arrived than --play_audio_buffer_bytes holds',
      fields: { playAudioBufferBytes },
    }),
    slow_kiosk: createLossReporter({
      log,
      message: '/play_audio messages dropped for kiosks slower than the burst (oldest first)',
      fields: { sendBufferBytes },
      withBytes: false,
    }),
    outbound_full: createLossReporter({
      log,
      message:
        '/play_audio messages dropped: more waited for all kiosks than --outbound_buffer_bytes (furthest behind, oldest first)',
      withBytes: false,
    }),
    middleware_lost: createLossReporter({
      log,
      message: '/play_audio messages the ROS middleware lost before the bridge saw them (MESSAGE_LOST)',
      withBytes: false,
    }),
  };
  const counts = {
    buffer_full: metrics.playAudioDropped.child('buffer_full'),
    slow_kiosk: metrics.playAudioDropped.child('slow_kiosk'),
    outbound_full: metrics.playAudioDropped.child('outbound_full'),
    middleware_lost: metrics.playAudioDropped.child('middleware_lost'),
  };
  return {
    playAudioDropped: (reason, count, bytes) => {
      counts[reason].value += count;
      // One message whose size is known (a whole message past the buffer), or a count of them.
      if (count === 1 && bytes !== undefined) lines[reason].lost(bytes);
      else lines[reason].lostMany(count);
    },
    close: () => {
      for (const reporter of Object.values(lines)) reporter.close();
    },
  };
};
