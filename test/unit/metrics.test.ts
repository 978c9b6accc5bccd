import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, NEVER, of, throwError } from 'rxjs';
import { createBridgeMetrics } from '../../src/metrics/bridge-metrics.js';
import { instrumentPort } from '../../src/metrics/instrumented-port.js';
import { RosCallFailedError, RosServiceUnavailableError } from '../../src/ros/ros-port.js';
import { ScriptedPort } from '../support/scripted-port.js';

const gauges = { liveSessions: 3, openSubscriptions: 9, inFlightRosCalls: 1, queuedAudioBytes: 4096 };

describe('metrics', () => {
  it('renders live gauges and counters in the Prometheus text format', async () => {
    const metrics = createBridgeMetrics(() => gauges);
    metrics.wsFrames.inc({ direction: 'in', kind: 'binary' }, 2);
    metrics.wsRefusedFrames.inc({ reason: 'busy' });
    const text = await metrics.registry.metrics();
    assert.match(text, /^tour_bridge_ws_sessions 3$/m);
    assert.match(text, /^tour_bridge_stream_subscriptions 9$/m);
    assert.match(text, /^tour_bridge_ros_calls_in_flight 1$/m);
    assert.match(text, /^tour_bridge_ws_queued_audio_bytes 4096$/m);
    assert.match(text, /^tour_bridge_ws_frames_total\{direction="in",kind="binary"\} 2$/m);
    assert.match(text, /^tour_bridge_ws_refused_frames_total\{reason="busy"\} 1$/m);
    assert.match(text, /^# TYPE tour_bridge_ros_call_seconds histogram$/m);
    assert.match(text, /^tour_bridge_process_resident_memory_bytes \d+/m);
  });

  it('counts every port call once by outcome and times the answered ones', async () => {
    const metrics = createBridgeMetrics(() => gauges);
    const port = instrumentPort(
      new ScriptedPort({
        tour_list: () => of({ success: true, outcome: 0, message: '', tour_names: [] }),
        tour_get: () => throwError(() => new RosServiceUnavailableError('tour_get')),
        tour_delete: () => throwError(() => new RosCallFailedError('tour_delete', 'boom')),
        chat: () => NEVER,
      }),
      metrics,
    );
    await firstValueFrom(port.call('tour_list', {}));
    await assert.rejects(
      firstValueFrom(port.call('tour_get', { tour_name: 'x' })),
      RosServiceUnavailableError,
    );
    await assert.rejects(firstValueFrom(port.call('tour_delete', { tour_name: 'x' })), RosCallFailedError);
    port.call('chat', { audio: new Uint8Array() }).subscribe().unsubscribe();
    const text = await metrics.registry.metrics();
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_list",outcome="ok"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_get",outcome="unavailable"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="tour_delete",outcome="failed"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_calls_total\{service="chat",outcome="abandoned"\} 1$/m);
    assert.match(text, /^tour_bridge_ros_call_seconds_count\{service="tour_list"\} 1$/m);
  });
});
