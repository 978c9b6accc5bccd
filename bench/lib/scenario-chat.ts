import type { BenchProfile } from './profiles.js';
import { log } from './log.js';
import type { ChatFigures, ChatRow, SessionShare } from './results.js';
import { inOrder, runsByServer, type ServerName, type Servers } from './servers.js';
import { median, ratio, round } from './stats.js';
import { joinChatOutcomes, openChatLoad, type ChatLoad, type ChatOutcome } from './ws-load.js';

/**
 * Scenario 3: chat round trips, closed loop, for each frame size and session count. Every server is
 * measured `repeats` times; a figure is the median of its runs. In a run every server's sessions connect
 * and warm up, then are measured in `slices` slices, the servers taking turns slice by slice, so that one
 * run reads every server over the same stretch of the machine's time and a slow moment falls on all of
 * them; a run's figures are its slices' round trips and CPU together. The bridge's overhead is read
 * against the bare peers, and split by the bridge less its session actor
 * (bench/peers/bridge-no-session.ts): the session actor's share is the difference of the bridge and that
 * peer in the same run, so each share is a pair measured side by side.
 *
 * The warm-up is `serverWarmupRoundTrips` round trips shared by a run's sessions: the bridge's call graph
 * (XState, RxJS) reaches its optimised code later than the peers' (docs/performance.md, "Warm-up and
 * history"), and a round trip's cost is read in the steady state.
 */
export const measureChat = async (servers: Servers, profile: BenchProfile): Promise<ChatRow[]> => {
  const rows: ChatRow[] = [];
  const { chat } = profile;
  for (const frameBytes of chat.frameBytes) {
    for (const sessions of chat.sessions) {
      const runs = runsByServer<ChatOutcome>();
      for (let repeat = 0; repeat < chat.repeats; repeat += 1) {
        const loads: [ServerName, ChatLoad][] = [];
        const slices = new Map<ServerName, ChatOutcome[]>();
        try {
          for (const [name, server] of inOrder(servers)) {
            loads.push([
              name,
              await openChatLoad({
                serverPid: server.pid,
                url: server.wsUrl,
                sessions,
                frameBytes,
                expectGreeting: server.kind === 'bridge' || server.kind === 'bridge-no-session',
                warmupRoundTrips: Math.ceil(chat.serverWarmupRoundTrips(frameBytes) / sessions),
                roundTrips: chat.roundTrips,
                maxMs: chat.maxMs,
                processes: sessions === 1 ? 1 : chat.processes,
              }),
            ]);
          }
          for (let slice = 0; slice < chat.slices; slice += 1) {
            for (const [name, load] of loads) {
              const result = await load.measure(chat.maxMs / chat.slices);
              if (result.errors.length > 0)
                throw new Error(`chat on ${name}: ${result.errors.slice(0, 3).join('; ')}`);
              slices.set(name, [...(slices.get(name) ?? []), result]);
            }
          }
        } finally {
          for (const [, load] of loads) load.close();
        }
        for (const [name, measured] of slices) {
          const result = joinChatOutcomes(measured);
          runs[name].push(result);
          log(
            `chat ${frameBytes} B × ${sessions} on ${name}, run ${repeat + 1}/${chat.repeats}: p50 ${result.latency.p50.toFixed(3)} ms, p99 ${result.latency.p99.toFixed(3)} ms, ${result.serverCpuUsPerRoundTrip.toFixed(1)} µs CPU (${result.latency.samples} round trips in ${measured.length} slices)`,
          );
        }
      }
      const bridge = chatFigures(runs.bridge);
      const bareUws = chatFigures(runs.bareUws);
      const nodeHttpWs = chatFigures(runs.nodeHttpWs);
      rows.push({
        frameBytes,
        sessions,
        bridge,
        bareUws,
        nodeHttpWs,
        ...(servers.baseline === undefined ? {} : { baseline: chatFigures(runs.baseline) }),
        ...(servers.noSession === undefined
          ? {}
          : {
              noSession: chatFigures(runs.noSession),
              sessionShare: sessionShare(runs.bridge, runs.noSession),
            }),
        ...(servers.noSession === undefined || servers.xstateFloor === undefined
          ? {}
          : {
              xstateFloor: chatFigures(runs.xstateFloor),
              xstateShare: sessionShare(runs.xstateFloor, runs.noSession),
            }),
        ...(servers.noSession === undefined || servers.xstateInvokeFloor === undefined
          ? {}
          : {
              xstateInvokeFloor: chatFigures(runs.xstateInvokeFloor),
              xstateInvokeShare: sessionShare(runs.xstateInvokeFloor, runs.noSession),
            }),
        overhead: {
          p50VsBareUws: round(bridge.p50 - bareUws.p50),
          p99VsBareUws: round(bridge.p99 - bareUws.p99),
          p50VsNodeHttpWs: round(bridge.p50 - nodeHttpWs.p50),
          p99VsNodeHttpWs: round(bridge.p99 - nodeHttpWs.p99),
        },
        p99Ratio: {
          toBareUws: ratio(bridge.p99, bareUws.p99),
          toNodeHttpWs: ratio(bridge.p99, nodeHttpWs.p99),
        },
      });
    }
  }
  return rows;
};

/** One server's runs as its figures: each the median of the runs, every run kept. */
const chatFigures = (runs: readonly ChatOutcome[]): ChatFigures => {
  const of = (read: (run: ChatOutcome) => number) => median(runs.map(read));
  return {
    samples: runs.reduce((sum, run) => sum + run.latency.samples, 0),
    p50: round(of((run) => run.latency.p50)),
    p99: round(of((run) => run.latency.p99)),
    max: round(Math.max(...runs.map((run) => run.latency.max))),
    mean: round(of((run) => run.latency.mean)),
    roundTripsPerS: round(
      of((run) => run.roundTripsPerS),
      0,
    ),
    serverCpuPercent: round(
      of((run) => run.serverCpuPercent),
      1,
    ),
    serverCpuUsPerRoundTrip: round(
      of((run) => run.serverCpuUsPerRoundTrip),
      1,
    ),
    serverUserUsPerRoundTrip: round(
      of((run) => run.serverUserUsPerRoundTrip),
      1,
    ),
    clientCpuPercent:
      runs[0]?.clientCpuPercent.map((_, index) =>
        round(median(runs.map((run) => run.clientCpuPercent[index] ?? Number.NaN)), 1),
      ) ?? [],
    runs: runs.map((run) => ({
      p50: round(run.latency.p50),
      p99: round(run.latency.p99),
      serverCpuUsPerRoundTrip: round(run.serverCpuUsPerRoundTrip, 1),
      serverUserUsPerRoundTrip: round(run.serverUserUsPerRoundTrip, 1),
    })),
    errors: runs.flatMap((run) => run.errors),
  };
};

/** A chart's share in each repeat: its server's CPU per round trip less the plain peer's, same repeat. */
const sessionShare = (bridge: readonly ChatOutcome[], less: readonly ChatOutcome[]): SessionShare => {
  const difference = (read: (run: ChatOutcome) => number) =>
    bridge.map((run, index) => {
      const pair = less[index];
      return round(read(run) - (pair === undefined ? Number.NaN : read(pair)), 1);
    });
  const runs = difference((run) => run.serverCpuUsPerRoundTrip);
  return {
    median: median(runs),
    best: Math.min(...runs),
    worst: Math.max(...runs),
    runs,
    userRuns: difference((run) => run.serverUserUsPerRoundTrip),
  };
};
