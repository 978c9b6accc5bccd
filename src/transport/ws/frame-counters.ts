import type { BridgeMetrics } from '../../metrics/bridge-metrics.js';
import { type OutboundFrame, TURN_OUTCOME_NAMES, type TurnOutcome } from '../../protocol/ws/index.js';

/**
 * Counters of the frame path, with their labels bound once: a fan-out to 1,000 sessions counts 4,000
 * times, and a bound child skips the label lookup. Text sizes are counted in characters (JSON is ASCII
 * but for the text a robot says).
 */
export const frameCounters = (metrics: BridgeMetrics) => {
  const counters = (direction: 'in' | 'out', kind: 'text' | 'binary') => ({
    frames: metrics.wsFrames.child(direction, kind),
    bytes: metrics.wsBytes.child(direction, kind),
  });
  const outText = counters('out', 'text');
  const outBinary = counters('out', 'binary');
  const turnsEnded = Object.fromEntries(
    TURN_OUTCOME_NAMES.map((outcome) => [outcome, metrics.wsTurns.child(outcome)]),
  ) as Record<TurnOutcome, ReturnType<BridgeMetrics['wsTurns']['child']>>;
  return {
    inText: counters('in', 'text'),
    inBinary: counters('in', 'binary'),
    outbound: (frame: Exclude<OutboundFrame, { kind: 'close' }>): void => {
      if (frame.kind === 'text') {
        outText.frames.inc();
        outText.bytes.inc(frame.text.length);
        // An error frame answers a client frame that was not carried out.
        if (frame.message.type === 'error') metrics.wsRefusedFrames.child(frame.message.code).inc();
        else if (frame.message.type === 'turn_end') turnsEnded[frame.message.outcome].inc();
        return;
      }
      outText.frames.inc();
      outText.bytes.inc(frame.meta.length);
      outBinary.frames.inc();
      outBinary.bytes.inc(frame.binary.reduce((bytes, part) => bytes + part.byteLength, 0));
    },
  };
};
