import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinChatOutcomes, type ChatOutcome } from '../../bench/lib/ws-load.js';
import { summarize } from '../../bench/lib/stats.js';

/** A chat run measured in slices: its figures are the slices' round trips and CPU together. */

const slice = (
  rtts: number[],
  serverCpuMs: number,
  wallMs: number,
  clientCpuPercent: number,
  serverUserCpuMs = serverCpuMs / 2,
): ChatOutcome => ({
  latency: summarize(rtts),
  roundTripsPerS: (rtts.length / wallMs) * 1000,
  clientCpuPercent: [clientCpuPercent],
  errors: [],
  serverCpuPercent: (serverCpuMs / wallMs) * 100,
  serverCpuUsPerRoundTrip: (serverCpuMs * 1000) / rtts.length,
  serverUserUsPerRoundTrip: (serverUserCpuMs * 1000) / rtts.length,
  measured: { rtts, serverCpuMs, serverUserCpuMs, measuredMs: wallMs, wallMs },
});

describe('joinChatOutcomes', () => {
  it('takes CPU per round trip over all round trips, not the mean of the slices, and user time alike', () => {
    // 100 round trips on 10 ms of CPU, 300 on 60 ms: 175 µs each, not the mean of 100 and 200 µs. Of it,
    // user time 8 and 12 ms: 50 µs a round trip.
    const joined = joinChatOutcomes([
      slice(
        Array.from({ length: 100 }, () => 1),
        10,
        100,
        40,
        8,
      ),
      slice(
        Array.from({ length: 300 }, () => 2),
        60,
        300,
        60,
        12,
      ),
    ]);
    assert.equal(joined.serverCpuUsPerRoundTrip, 175);
    assert.equal(joined.serverUserUsPerRoundTrip, 50);
    assert.equal(joined.serverCpuPercent, 17.5);
    assert.equal(joined.roundTripsPerS, 1000);
    assert.deepEqual(joined.clientCpuPercent, [55]);
    assert.equal(joined.latency.samples, 400);
  });

  it('reads percentiles over the round trips of every slice', () => {
    const fast = Array.from({ length: 99 }, () => 1);
    const slow = [50, ...Array.from({ length: 99 }, () => 1)];
    const joined = joinChatOutcomes([slice(fast, 1, 100, 10), slice(slow, 1, 100, 10)]);
    assert.equal(joined.latency.max, 50);
    assert.deepEqual(joined.latency, summarize([...fast, ...slow]));
  });

  it('keeps every slice’s errors', () => {
    const failed = { ...slice([1], 1, 1, 1), errors: ['closed 1006'] };
    assert.deepEqual(joinChatOutcomes([failed, slice([1], 1, 1, 1), failed]).errors, [
      'closed 1006',
      'closed 1006',
    ]);
  });
});
