import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTargets } from '../../bench/lib/report.js';
import type {
  BenchResults,
  ChatFigures,
  ChatRow,
  FanoutRow,
  HttpFigures,
  HttpGetRow,
  TtfsRow,
} from '../../bench/lib/results.js';
import { median, type LatencySummary } from '../../bench/lib/stats.js';

/** The targets as `bench` judges them: each threshold on both sides, and only what a run measured. */

const KiB = 1024;

const http = (rps: number): HttpFigures => ({
  rps,
  p50: 0.1,
  p99: 1,
  runs: [{ rps, p50: 0.1, p99: 1 }],
  serverCpuPercent: 100,
  serverCpuUsPerRequest: 10,
  wrkCpuPercent: 50,
  errors: 0,
  statuses: { '200': 1 },
});

const getRow = (connections: number, bridge: number, bare: number, node: number): HttpGetRow => ({
  connections,
  bridge: http(bridge),
  bareUws: http(bare),
  nodeHttpWs: http(node),
  rpsRatio: { toBareUws: bridge / bare, toNodeHttpWs: bridge / node },
});

const latency = (p50: number, p99: number): LatencySummary => ({
  samples: 100,
  p50,
  p99,
  max: p99,
  mean: p50,
});

const chat = (p99: number, cpuUsPerRoundTrip: number): ChatFigures => ({
  ...latency(0.1, p99),
  roundTripsPerS: 1000,
  serverCpuPercent: 50,
  serverCpuUsPerRoundTrip: cpuUsPerRoundTrip,
  clientCpuPercent: [10],
  errors: [],
});

const chatRow = (
  frameBytes: number,
  sessions: number,
  bridgeP99: number,
  bareP99: number,
  cpuUs: { bridge: number; bare: number } = { bridge: 50, bare: 50 },
  sessionShareRuns?: readonly number[],
): ChatRow => ({
  frameBytes,
  sessions,
  ...(sessionShareRuns === undefined
    ? {}
    : {
        sessionShare: {
          median: median(sessionShareRuns),
          best: Math.min(...sessionShareRuns),
          worst: Math.max(...sessionShareRuns),
          runs: sessionShareRuns,
        },
      }),
  bridge: chat(bridgeP99, cpuUs.bridge),
  bareUws: chat(bareP99, cpuUs.bare),
  nodeHttpWs: chat(bareP99, cpuUs.bare),
  overhead: {
    p50VsBareUws: 0,
    p99VsBareUws: bridgeP99 - bareP99,
    p50VsNodeHttpWs: 0,
    p99VsNodeHttpWs: bridgeP99 - bareP99,
  },
  p99Ratio: { toBareUws: bridgeP99 / bareP99, toNodeHttpWs: bridgeP99 / bareP99 },
});

const fanoutRow = (sessions: number, p99: number, incompleteRounds = 0): FanoutRow => ({
  sessions,
  audioBytes: 32 * KiB,
  rounds: 200,
  last: latency(p99 / 2, p99),
  first: latency(0.5, 1),
  postResponse: latency(p99 / 2, p99),
  incompleteRounds,
  problems: [],
  serverCpuPercent: 20,
  clientCpuPercent: [5],
});

const ttfsRow = (
  upload: TtfsRow['upload'],
  utteranceMs: number,
  p50: number,
  options: { chatInterface?: TtfsRow['chatInterface']; recognitionRt?: number } = {},
): TtfsRow => ({
  chatInterface: options.chatInterface ?? 'action',
  upload,
  utteranceMs,
  utteranceBytes: utteranceMs * 32,
  streamPartMs: upload === 'streamed' ? 100 : 0,
  recognitionRt: options.recognitionRt ?? 0.3,
  parts: 3,
  partMs: 400,
  turns: 10,
  ...latency(p50, p50 + 5),
  addedPerPart: latency(1, 2),
  problems: [],
});

type Scenarios = BenchResults['scenarios'];

const resultsWith = (scenarios: Scenarios): Omit<BenchResults, 'targets'> => ({
  version: 1,
  mode: 'full',
  startedAt: '2026-11-21T00:00:00.000Z',
  durationS: 1,
  machine: {} as BenchResults['machine'],
  quiet: {} as BenchResults['quiet'],
  settings: {},
  scenarios,
});

const verdicts = (scenarios: Scenarios) =>
  Object.fromEntries(checkTargets(resultsWith(scenarios)).map((check) => [check.target, check.met]));

describe('bench targets', () => {
  it('judges nothing that was not measured', () => {
    assert.deepEqual(checkTargets(resultsWith({})), []);
    assert.deepEqual(checkTargets(resultsWith({ httpGet: { skipped: 'no wrk' } })), []);
    // Only 16 connections, 32 KiB frames, 1,000 sessions count.
    assert.deepEqual(
      checkTargets(
        resultsWith({
          httpGet: { rows: [getRow(128, 1, 1, 1)] },
          chat: { rows: [chatRow(1024 * KiB, 1, 5, 1)] },
          fanout: { rows: [fanoutRow(100, 10)] },
          memory: {
            idleRssBytes: 1,
            sessions: 40,
            withSessionsRssBytes: 2,
            perSessionBytes: 1,
          },
        }),
      ),
      [],
    );
  });

  it('GET at 16 connections: node:http, half and 0.7× of bare uWS (targets), 1.5× node:http (goal), each at its threshold', () => {
    assert.deepEqual(verdicts({ httpGet: { rows: [getRow(16, 84_000, 120_000, 56_000)] } }), {
      'GET at 16 connections ≥ node:http': true,
      'GET at 16 connections ≥ 0.5× bare uWS': true,
      'GET at 16 connections ≥ 0.7× bare uWS': true,
      'goal: GET at 16 connections ≥ 1.5× node:http': true,
    });
    assert.deepEqual(verdicts({ httpGet: { rows: [getRow(16, 83_999, 120_000, 56_001)] } }), {
      'GET at 16 connections ≥ node:http': true,
      'GET at 16 connections ≥ 0.5× bare uWS': true,
      'GET at 16 connections ≥ 0.7× bare uWS': false,
      'goal: GET at 16 connections ≥ 1.5× node:http': false,
    });
    assert.deepEqual(verdicts({ httpGet: { rows: [getRow(16, 59_000, 120_000, 59_001)] } }), {
      'GET at 16 connections ≥ node:http': false,
      'GET at 16 connections ≥ 0.5× bare uWS': false,
      'GET at 16 connections ≥ 0.7× bare uWS': false,
      'goal: GET at 16 connections ≥ 1.5× node:http': false,
    });
  });

  it('chat 32 KiB with 1 session: the session actor’s share at most 40 µs in the best run and 60 in the worst, p99 within 1.0 ms of bare’s', () => {
    const best = 'chat 32 KiB, 1 session: session actor ≤ 40 µs CPU per round trip, best run';
    const worst = 'chat 32 KiB, 1 session: session actor ≤ 60 µs CPU per round trip, worst run';
    const tail = 'chat 32 KiB, 1 session: p99 within 1.0 ms of bare uWS';
    assert.deepEqual(verdicts({ chat: { rows: [chatRow(32 * KiB, 1, 2, 1, undefined, [45, 40, 60])] } }), {
      [best]: true,
      [worst]: true,
      [tail]: true,
    });
    assert.deepEqual(
      verdicts({ chat: { rows: [chatRow(32 * KiB, 1, 2.01, 1, undefined, [40.1, 45, 60.1])] } }),
      { [best]: false, [worst]: false, [tail]: false },
    );
    // The share is judged only where the bridge less its session actor was measured.
    assert.deepEqual(verdicts({ chat: { rows: [chatRow(32 * KiB, 1, 1.5, 1)] } }), { [tail]: true });
  });

  it('chat 32 KiB with 1 session: the session actor’s share within 15 µs of XState’s chart with an invoke per turn, medians', () => {
    const target =
      "chat 32 KiB, 1 session: session actor within 15 µs of XState's chart with an invoke per turn";
    const withInvoke = (sessionRuns: readonly number[], invokeRuns: readonly number[]): ChatRow => ({
      ...chatRow(32 * KiB, 1, 1.5, 1, undefined, sessionRuns),
      xstateInvokeShare: {
        median: median(invokeRuns),
        best: Math.min(...invokeRuns),
        worst: Math.max(...invokeRuns),
        runs: invokeRuns,
      },
    });
    assert.equal(verdicts({ chat: { rows: [withInvoke([115, 130], [100, 130])] } })[target], true);
    assert.equal(verdicts({ chat: { rows: [withInvoke([116, 130], [100, 130])] } })[target], false);
    // Judged only where the invoke-shaped peer was measured.
    assert.equal(
      target in verdicts({ chat: { rows: [chatRow(32 * KiB, 1, 1.5, 1, undefined, [45])] } }),
      false,
    );
  });

  it('chat 32 KiB with 32 sessions: p99 at most 2× bare uWS’s; other session counts are not judged', () => {
    const target = 'chat 32 KiB, 32 sessions: p99 ≤ 2× bare uWS';
    assert.deepEqual(
      verdicts({ chat: { rows: [chatRow(32 * KiB, 32, 2, 1), chatRow(32 * KiB, 4, 9, 1)] } }),
      {
        [target]: true,
      },
    );
    assert.deepEqual(verdicts({ chat: { rows: [chatRow(32 * KiB, 32, 2.01, 1)] } }), { [target]: false });
  });

  it('fan-out to 1,000 sessions: p99 under 40 ms and every round complete', () => {
    const target = 'fan-out 32 KiB to 1,000 sessions: p99 < 40 ms';
    assert.equal(verdicts({ fanout: { rows: [fanoutRow(1000, 39.9)] } })[target], true);
    assert.equal(verdicts({ fanout: { rows: [fanoutRow(1000, 40)] } })[target], false);
    assert.equal(verdicts({ fanout: { rows: [fanoutRow(1000, 10, 1)] } })[target], false);
    // A run of other messages (`--fanout-bytes`) is reported, not judged against the 32 KiB target.
    const large = { ...fanoutRow(1000, 600), audioBytes: 512 * KiB };
    assert.equal(target in verdicts({ fanout: { rows: [large] } }), false);
  });

  it('time to first sound, streamed: 15 s within 50 ms of 1 s at p50, either way', () => {
    const target = 'time to first sound, streamed: 15 s within 50 ms of 1 s at p50';
    const rows = (p50At1: number, p50At15: number) => ({
      ttfs: { rows: [ttfsRow('streamed', 1000, p50At1), ttfsRow('streamed', 15_000, p50At15)] },
    });
    assert.deepEqual(verdicts(rows(430, 480)), { [target]: true });
    assert.deepEqual(verdicts(rows(430, 380)), { [target]: true });
    assert.deepEqual(verdicts(rows(430, 480.01)), { [target]: false });
    assert.deepEqual(verdicts(rows(430, 379.9)), { [target]: false });
  });

  it('time to first sound at 5 s: streamed at least 1 s below whole at p50', () => {
    const target = 'time to first sound at 5 s: streamed ≥ 1 s below whole at p50';
    const rows = (streamed: number, whole: number) => ({
      ttfs: { rows: [ttfsRow('streamed', 5000, streamed), ttfsRow('whole', 5000, whole)] },
    });
    assert.deepEqual(verdicts(rows(430, 1430)), { [target]: true });
    assert.deepEqual(verdicts(rows(430.5, 1430)), { [target]: false });
  });

  it('time to first sound: judges only the streamed and whole rows on the recogniser stand-in, at 1, 5 and 15 s', () => {
    assert.deepEqual(
      verdicts({
        ttfs: {
          rows: [
            // The interface comparison (no recogniser), other lengths, /chat: none of these are judged.
            ttfsRow('whole', 1000, 400, { recognitionRt: 0 }),
            ttfsRow('streamed', 300, 430),
            ttfsRow('whole', 600, 580),
            ttfsRow('streamed', 5000, 430, { chatInterface: 'service' }),
            ttfsRow('whole', 5000, 1900),
            ttfsRow('streamed', 15_000, 9000, { recognitionRt: 0 }),
          ],
        },
      }),
      {},
    );
  });

  it('memory: under 30 KiB per idle session, judged only with 1,000 sessions', () => {
    const memory = (perSessionBytes: number) => ({
      memory: { idleRssBytes: 1, sessions: 1000, withSessionsRssBytes: 2, perSessionBytes },
    });
    const target = 'memory per idle session < 30 KiB';
    assert.equal(verdicts(memory(30 * KiB - 1))[target], true);
    assert.equal(verdicts(memory(30 * KiB))[target], false);
  });

  it('memory: under 20 KiB per idle session for 1,000 more on a grown process, when the run measured them', () => {
    const memory = (nextPerSessionBytes: number | undefined) => ({
      memory: {
        idleRssBytes: 1,
        sessions: 1000,
        withSessionsRssBytes: 2,
        perSessionBytes: 40 * KiB,
        ...(nextPerSessionBytes === undefined ? {} : { nextSessionsRssBytes: 3, nextPerSessionBytes }),
      },
    });
    const target = 'memory per idle session, 1,000 more on a grown process < 20 KiB';
    assert.equal(verdicts(memory(20 * KiB - 1))[target], true);
    assert.equal(verdicts(memory(20 * KiB))[target], false);
    assert.equal(target in verdicts(memory(undefined)), false, 'a run from before 2026-11-26');
    assert.equal(
      verdicts(memory(1))['memory per idle session < 30 KiB'],
      false,
      'the first ones still judged',
    );
  });
});
