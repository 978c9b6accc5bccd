import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { sendJson } from '../support/http.js';
import { metric } from '../support/metric.js';
import { openRawConnection } from '../support/raw-http.js';
import { GRAPH_LIMITS, pollUntil, readyDetail, type RosGraph } from './graph.js';
import { latencyTour, summarise } from './latency.js';
import { busiestThreads, cpuSecondsBetween, threadCpuNs } from '../support/proc-usage.js';
import { memoryFields, memoryOf } from './process-memory.js';
import { describeNodeRuntime } from './shipped-bridge.js';

/**
 * What the bridge costs the robot's computer, on the real graph, as the image runs it (compiled, through
 * the image's launcher, docker/node-runtime.sh): CPU while idle with no kiosk and with five idle kiosks;
 * RSS and its anonymous and file-backed parts idle, at the peak of /play_audio fan-out rounds and a minute
 * after them; and `GET /tour/{name}` beside a plain rclnodejs client calling the same /tour_get. Printed as
 * one `footprint:` line per run with the Node.js release (docs/performance.md, "Footprint on the robot");
 * asserted only where a figure says something is broken, the targets are read from the line.
 */

const FOOTPRINT = {
  /** Start-up's last work (V8's compilation and GC tasks, the middleware's discovery) dies down. */
  settleMs: 15_000,
  windowMs: 10_000,
  idleKiosks: 5,
  burstKiosks: 20,
  rounds: 3,
  /** Each round: 20 messages of 512 KiB, one every 20 ms, to every kiosk (the fan-out figure). */
  messagesPerRound: 20,
  messageBytes: 512 * 1024,
  intervalMs: 20,
  afterBurstMs: 60_000,
  calls: 200,
  warmupCalls: 10,
  callTimeoutMs: 10_000,
} as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The sum and count of the bridge's `tour_bridge_ros_call_seconds` for one service (0 before its first call). */
const rosCallTotals = async (
  baseUrl: string,
  service: string,
): Promise<{ seconds: number; count: number }> => {
  const read = async (suffix: string) =>
    (await metric(baseUrl, `tour_bridge_ros_call_seconds_${suffix}{service="${service}"}`)) || 0;
  return { seconds: await read('sum'), count: await read('count') };
};

/** CPU seconds the process spends over the window, and the threads that spent most of it. */
const cpuOver = async (pid: number, windowMs: number): Promise<{ seconds: number; busiest: string }> => {
  const before = threadCpuNs(pid);
  await sleep(windowMs);
  const after = threadCpuNs(pid);
  return { seconds: cpuSecondsBetween(before, after), busiest: busiestThreads(pid, before, after) };
};

/** The Node.js release the bridge runs on, as its /metrics says (prom-client's nodejs_version_info). */
const bridgeNodeVersion = async (baseUrl: string): Promise<string> => {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return /^\w*nodejs_version_info\{version="(v[\d.]+)"/m.exec(text)?.[1] ?? 'unknown';
};

const openKiosk = async (wsUrl: string, onBinary: () => void): Promise<WebSocket> => {
  const kiosk = new WebSocket(wsUrl);
  kiosk.on('message', (_data, isBinary) => {
    if (isBinary) onBinary();
  });
  await new Promise((resolve, reject) => {
    kiosk.once('open', resolve);
    kiosk.once('error', reject);
  });
  return kiosk;
};

export const footprintSuite = (graph: () => RosGraph): void => {
  describe('footprint of the shipped bridge on the graph', () => {
    it('reports idle CPU, RSS idle, at the fan-out peak and after it, and GET /tour/{name} beside a raw rclnodejs client', async (context) => {
      const current = graph();
      const { probe } = current;
      const bridge = await current.startBridge(`footprint-bridge-${randomUUID().slice(0, 8)}`, [], {
        shipped: true,
      });
      const kiosks: WebSocket[] = [];
      try {
        const pid = bridge.child.process.pid;
        assert.ok(pid !== undefined);
        await pollUntil('the footprint bridge spinning its ROS node', GRAPH_LIMITS.graphReadyMs, async () => {
          return (await readyDetail(bridge.baseUrl)).status === 200;
        });
        await sleep(FOOTPRINT.settleMs);
        const idle = memoryOf(pid);
        // Reported in the detail line: V8 still compiles and collects start-up's garbage (its memory reducer)
        // for a while, on its worker threads; the idle figure is the steady one, at the end of the run.
        const startupIdleCpu = await cpuOver(pid, FOOTPRINT.windowMs);

        let received = 0;
        const countBinary = () => {
          received += 1;
        };
        for (let index = 0; index < FOOTPRINT.idleKiosks; index += 1) {
          kiosks.push(await openKiosk(bridge.wsUrl, countBinary));
        }
        await sleep(FOOTPRINT.settleMs);
        const idleKiosksCpu = await cpuOver(pid, FOOTPRINT.windowMs);

        // GET /tour/{name} through the bridge and /tour_get from a plain rclnodejs client, alternated call
        // by call so that both meet the same machine; HTTP over one raw keep-alive connection, so the
        // client's own cost stays small.
        const tourName = `footprint-${randomUUID().slice(0, 8)}`;
        const created = await sendJson(bridge.baseUrl, 'POST', '/tour', latencyTour(tourName));
        assert.equal(created.status, 201, created.text);
        const callsBefore = await rosCallTotals(bridge.baseUrl, 'tour_get');
        const connection = await openRawConnection(Number(new URL(bridge.baseUrl).port));
        const get = `GET /tour/${encodeURIComponent(tourName)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
        const health = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
        const viaBridge: number[] = [];
        const viaRclnodejs: number[] = [];
        // The same hop with no ROS call: what HTTP over loopback and waking the bridge cost by themselves.
        const healthOnly: number[] = [];
        try {
          for (let index = 0; index < FOOTPRINT.warmupCalls + FOOTPRINT.calls; index += 1) {
            let started = performance.now();
            assert.equal(await probe.getTour(tourName, FOOTPRINT.callTimeoutMs), true);
            const rawMs = performance.now() - started;
            started = performance.now();
            connection.send(get);
            const answer = await connection.next({ timeoutMs: FOOTPRINT.callTimeoutMs });
            const bridgeMs = performance.now() - started;
            assert.ok(answer !== 'closed' && answer.status === 200, 'GET /tour/{name} answered 200');
            started = performance.now();
            connection.send(health);
            const healthAnswer = await connection.next({ timeoutMs: FOOTPRINT.callTimeoutMs });
            const healthMs = performance.now() - started;
            assert.ok(healthAnswer !== 'closed' && healthAnswer.status === 200, 'GET /health answered 200');
            if (index >= FOOTPRINT.warmupCalls) {
              viaRclnodejs.push(rawMs);
              viaBridge.push(bridgeMs);
              healthOnly.push(healthMs);
            }
          }
        } finally {
          connection.destroy();
        }
        // The bridge's own time per /tour_get call (its ros_call_seconds: from the call to the answer,
        // through the rclnodejs client); the rest of a GET is HTTP, JSON, the ETag and the process hop.
        const callsAfter = await rosCallTotals(bridge.baseUrl, 'tour_get');
        const bridgeCallMeanMs =
          ((callsAfter.seconds - callsBefore.seconds) / Math.max(1, callsAfter.count - callsBefore.count)) *
          1000;

        for (let index = kiosks.length; index < FOOTPRINT.burstKiosks; index += 1) {
          kiosks.push(await openKiosk(bridge.wsUrl, countBinary));
        }
        await pollUntil("the probe's markers reaching every kiosk", 30_000, () => {
          if (received >= FOOTPRINT.burstKiosks) return Promise.resolve(true);
          probe.publishSpeech({ emotion: 'neutral', text: 'marker', audio: new Uint8Array(1) });
          return Promise.resolve(false);
        });
        await pollUntil('every marker delivered', 10_000, () =>
          Promise.resolve(received % FOOTPRINT.burstKiosks === 0),
        );
        // The parts at the sample of highest RSS.
        let peak = memoryOf(pid);
        const sampler = setInterval(() => {
          const now = memoryOf(pid);
          if (now.rss > peak.rss) peak = now;
        }, 25);
        try {
          const audio = new Uint8Array(FOOTPRINT.messageBytes).fill(7);
          for (let round = 0; round < FOOTPRINT.rounds; round += 1) {
            const expected = received + FOOTPRINT.burstKiosks * FOOTPRINT.messagesPerRound;
            for (let index = 0; index < FOOTPRINT.messagesPerRound; index += 1) {
              probe.publishSpeech({ emotion: 'neutral', text: `round ${String(round)}`, audio });
              await sleep(FOOTPRINT.intervalMs);
            }
            await pollUntil(`fan-out round ${String(round)} delivered to every kiosk`, 60_000, () =>
              Promise.resolve(received >= expected),
            );
          }
        } finally {
          clearInterval(sampler);
        }
        for (const kiosk of kiosks.splice(0)) kiosk.close();
        // The last 10 s of the minute after the burst: no kiosk, nothing published, long after start-up.
        await sleep(FOOTPRINT.afterBurstMs - FOOTPRINT.windowMs);
        const idleCpu = await cpuOver(pid, FOOTPRINT.windowMs);
        const afterBurst = memoryOf(pid);
        const nodeVersion = await bridgeNodeVersion(bridge.baseUrl);

        const seconds = (value: number) => value.toFixed(3);
        const bridgeCalls = summarise(viaBridge);
        const rawCalls = summarise(viaRclnodejs);
        context.diagnostic(
          `footprint: node=${nodeVersion} RMW_IMPLEMENTATION=${process.env['RMW_IMPLEMENTATION'] ?? 'default'} ` +
            `idle_cpu_s_per_10s=${seconds((idleCpu.seconds * 10_000) / FOOTPRINT.windowMs)} ` +
            `idle_cpu_5_kiosks_s_per_10s=${seconds((idleKiosksCpu.seconds * 10_000) / FOOTPRINT.windowMs)} ` +
            `${memoryFields('idle', idle)} ${memoryFields('peak', peak)} ${memoryFields('after_burst', afterBurst)} ` +
            `tour_get_p50_ms=${bridgeCalls.p50.toFixed(2)} raw_rclnodejs_p50_ms=${rawCalls.p50.toFixed(2)}`,
        );
        context.diagnostic(
          `footprint detail: tour_get_p99_ms=${bridgeCalls.p99.toFixed(2)} raw_rclnodejs_p99_ms=${rawCalls.p99.toFixed(2)} ` +
            `tour_get_mean_ms=${bridgeCalls.mean.toFixed(2)} raw_rclnodejs_mean_ms=${rawCalls.mean.toFixed(2)} ` +
            `bridge_ros_call_mean_ms=${bridgeCallMeanMs.toFixed(2)} ` +
            `health_p50_ms=${summarise(healthOnly).p50.toFixed(2)} health_mean_ms=${summarise(healthOnly).mean.toFixed(2)} ` +
            `threads=${String(threadCpuNs(pid).size)} busiest_idle_ms=${idleCpu.busiest} ` +
            `startup_idle_cpu_s_per_10s=${seconds((startupIdleCpu.seconds * 10_000) / FOOTPRINT.windowMs)} ` +
            `busiest_startup_idle_ms=${startupIdleCpu.busiest} ` +
            `busiest_5_kiosks_ms=${idleKiosksCpu.busiest} ${describeNodeRuntime(bridge.runtime)}`,
        );
      } finally {
        for (const kiosk of kiosks) kiosk.close();
        await bridge.child.stop();
      }
    });
  });
};
