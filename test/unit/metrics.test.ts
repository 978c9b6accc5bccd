import assert from 'node:assert/strict';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { NEVER, of, throwError } from 'rxjs';
import { createBridgeMetrics, registerLiveGauges } from '../../src/metrics/bridge-metrics.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { RosCallFailedError, RosServiceUnavailableError } from '../../src/ros/port/ros-port.js';
import { callTimeouts, callOnce } from '../support/port-calls.js';
import { ScriptedPort } from '../support/scripted-port.js';

const gauges = { liveSessions: 3, openSubscriptions: 9, inFlightRosCalls: 1, queuedAudioBytes: 4096 };
const TIMEOUTS = callTimeouts(1_000);

describe('metrics', () => {
  it('renders live gauges and counters in the Prometheus text format', async () => {
    const metrics = createBridgeMetrics();
    registerLiveGauges(metrics, () => gauges);
    metrics.wsFrames.child('in', 'binary').value += 2;
    metrics.wsRefusedFrames.child('busy').value += 1;
    metrics.httpRequests.child('GET', '/tour/{tour_name}', '200').value += 1;
    const text = await metrics.registry().metrics();
    assert.match(text, /^tour_bridge_ws_sessions 3$/m);
    assert.match(text, /^tour_bridge_stream_subscriptions 9$/m);
    assert.match(text, /^tour_bridge_ros_calls_in_flight 1$/m);
    assert.match(text, /^tour_bridge_ws_queued_audio_bytes 4096$/m);
    assert.match(text, /^# TYPE tour_bridge_ws_frames_total counter$/m);
    assert.match(text, /^tour_bridge_ws_frames_total\{direction="in",kind="binary"\} 2$/m);
    assert.match(text, /^tour_bridge_ws_refused_frames_total\{reason="busy"\} 1$/m);
    assert.match(
      text,
      /^tour_bridge_http_requests_total\{method="GET",route="\/tour\/\{tour_name\}",status="200"\} 1$/m,
    );
    assert.match(text, /^# TYPE tour_bridge_ros_call_seconds histogram$/m);
    assert.match(text, /^tour_bridge_process_resident_memory_bytes \d+/m);
  });

  it('reads the process metrics at scrape time, with no event-loop-delay sampler', async () => {
    const metrics = createBridgeMetrics();
    await metrics.registry().metrics();
    await new Promise((resolve) => setImmediate(resolve));
    const text = await metrics.registry().metrics();
    for (const family of [
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ]) {
      assert.match(text, new RegExp(`^# TYPE tour_bridge_${family} `, 'm'));
    }
    const utilization = Number(/^tour_bridge_nodejs_eventloop_utilization_ratio (\S+)$/m.exec(text)?.[1]);
    assert.ok(utilization >= 0 && utilization <= 1, `utilization ${utilization}`);
    const lag = Number(/^tour_bridge_nodejs_eventloop_lag_seconds (\S+)$/m.exec(text)?.[1]);
    assert.ok(lag > 0 && lag < 1, `lag ${lag}`);
    // The histogram's timer woke an idle process 100 times a second (test/e2e/idle-wakeups.test.ts).
    assert.doesNotMatch(text, /eventloop_lag_(min|max|mean|stddev|p50|p90|p99)_seconds/);
  });

  it('counts from its creation what the first scrape shows, though prom-client is loaded only then: CPU, GC, counters', async () => {
    const metrics = createBridgeMetrics();
    metrics.httpRequests.child('GET', '/health', '200').value += 1;
    // About 50 ms of CPU, and garbage until V8 collects some (bounded: 2 s at most).
    const started = process.cpuUsage();
    const seen = { collections: 0 };
    const observer = new PerformanceObserver((list) => {
      seen.collections += list.getEntries().length;
    });
    observer.observe({ entryTypes: ['gc'] });
    const deadline = performance.now() + 2_000;
    let kept: number[][] = [];
    while (
      (process.cpuUsage(started).user < 50_000 || seen.collections === 0) &&
      performance.now() < deadline
    ) {
      kept = [new Array<number>(10_000).fill(kept.length)];
      await new Promise((resolve) => setImmediate(resolve));
    }
    observer.disconnect();
    assert.ok(seen.collections > 0, 'V8 collected at least once before the scrape');
    const burnt = process.cpuUsage(started);

    const text = await metrics.registry().metrics();
    const sample = (name: string) => Number(new RegExp(`^tour_bridge_${name} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(sample('process_cpu_user_seconds_total') >= burnt.user / 1e6, text);
    assert.ok(sample('process_cpu_seconds_total') >= (burnt.user + burnt.system) / 1e6);
    // In seconds of microsecond counts: the sum may differ in the last bit of a double, not by a microsecond.
    assert.ok(
      Math.abs(
        sample('process_cpu_seconds_total') -
          (sample('process_cpu_user_seconds_total') + sample('process_cpu_system_seconds_total')),
      ) < 1e-7,
      text,
    );
    const collections = [
      ...text.matchAll(/^tour_bridge_nodejs_gc_duration_seconds_count\{kind="\w+"\} (\d+)$/gm),
    ];
    assert.ok(
      collections.reduce((sum, match) => sum + Number(match[1]), 0) >= 1,
      'the collections before the first scrape are counted',
    );
    assert.match(text, /^tour_bridge_http_requests_total\{method="GET",route="\/health",status="200"\} 1$/m);
  });

  it('refuses a second family of the same name when it is added, as prom-client would at the scrape', () => {
    const metrics = createBridgeMetrics();
    registerLiveGauges(metrics, () => gauges);
    assert.throws(() => {
      registerLiveGauges(metrics, () => gauges);
    }, /tour_bridge_ws_sessions has already been registered/);
  });

  it('counts every call of the call wrapper once by outcome and times the answered ones', async () => {
    const metrics = createBridgeMetrics();
    const calls = createRosCalls({
      port: new ScriptedPort({
        tour_list: () => of({ success: true, outcome: 0, message: '', tour_names: [] }),
        tour_get: () => throwError(() => new RosServiceUnavailableError('tour_get')),
        tour_delete: () => throwError(() => new RosCallFailedError('tour_delete', 'boom')),
        chat: () => NEVER,
      }),
      timeoutsMs: TIMEOUTS,
      observer: metrics.rosCalls,
    });
    await callOnce(calls, 'tour_list', {});
    await assert.rejects(callOnce(calls, 'tour_get', { tour_name: 'x' }), RosServiceUnavailableError);
    await assert.rejects(callOnce(calls, 'tour_delete', { tour_name: 'x' }), RosCallFailedError);
    calls
      .call(
        'chat',
        { audio: new Uint8Array() },
        { answered: () => assert.fail(), failed: () => assert.fail() },
      )
      .cancel();
    assert.equal(calls.inFlight, 0);
    const text = await metrics.registry().metrics();
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_list",outcome="ok"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_get",outcome="unavailable"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_delete",outcome="failed"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="chat",outcome="abandoned"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_count\{service="tour_list"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="tour_list",le="\+Inf"\} 1$/m);
    assert.doesNotMatch(text, /ros_call_seconds_count\{service="tour_get"\}/);
  });

  it('exports histogram buckets cumulatively, with the sum and the count', async () => {
    const metrics = createBridgeMetrics();
    metrics.rosCalls.settled('chat', 'ok', 0.003);
    metrics.rosCalls.settled('chat', 'ok', 0.2);
    metrics.rosCalls.settled('chat', 'ok', 99);
    const text = await metrics.registry().metrics();
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="chat",le="0.001"\} 0$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="chat",le="0.005"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="chat",le="0.25"\} 2$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="chat",le="60"\} 2$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_bucket\{service="chat",le="\+Inf"\} 3$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_sum\{service="chat"\} 99.203$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_count\{service="chat"\} 3$/m);
  });
});
