import type { BenchProfile } from './profiles.js';
import { log } from './log.js';
import type { ChatFigures, ChatRow, SessionShare } from './results.js';
import { inOrder, type ServerName, type Servers } from './servers.js';
import { median, ratio, round } from './stats.js';
import { runChat, type ChatOutcome } from './ws-load.js';

/**
 * Scenario 3: chat round trips, closed loop, for each frame size and session count. Every server is
 * measured `repeats` times, the servers interleaved within each repeat, so a slow moment of the machine
 * falls on all of them; a figure is the median of its runs. The bridge's overhead is read against the bare
 * peers, and split by the bridge less its session actor (bench/peers/bridge-no-session.ts): the session
 * actor's share is the difference of the bridge and that peer in the same repeat, so each share is a pair
 * measured side by side.
 *
 * Each run first warms the server up with `serverWarmupRoundTrips` round trips shared by its sessions: the
 * bridge's call graph (XState, RxJS) reaches its optimised code later than the peers' (docs/performance.md,
 * "Warm-up and history"), and a round trip's cost is read in the steady state.
 */
export const measureChat = async (servers: Servers, profile: BenchProfile): Promise<ChatRow[]> => {
  const rows: ChatRow[] = [];
  for (const frameBytes of profile.chat.frameBytes) {
    for (const sessions of profile.chat.sessions) {
      const runs: Record<ServerName, ChatOutcome[]> = {
        bridge: [],
        baseline: [],
        noSession: [],
        bareUws: [],
        nodeHttpWs: [],
      };
      for (let repeat = 0; repeat < profile.chat.repeats; repeat += 1) {
        for (const [name, server] of inOrder(servers)) {
          const result = await runChat({
            serverPid: server.pid,
            url: server.wsUrl,
            sessions,
            frameBytes,
            expectGreeting: server.kind === 'bridge' || server.kind === 'bridge-no-session',
            warmupRoundTrips: Math.ceil(profile.chat.serverWarmupRoundTrips(frameBytes) / sessions),
            roundTrips: profile.chat.roundTrips,
            maxMs: profile.chat.maxMs,
            processes: sessions === 1 ? 1 : profile.chat.processes,
          });
          if (result.errors.length > 0)
            throw new Error(`chat on ${name}: ${result.errors.slice(0, 3).join('; ')}`);
          runs[name].push(result);
          log(
            `chat ${frameBytes} B × ${sessions} on ${name}, run ${repeat + 1}/${profile.chat.repeats}: p50 ${result.latency.p50.toFixed(3)} ms, p99 ${result.latency.p99.toFixed(3)} ms, ${result.serverCpuUsPerRoundTrip.toFixed(1)} µs CPU (${result.latency.samples} round trips)`,
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
    clientCpuPercent:
      runs[0]?.clientCpuPercent.map((_, index) =>
        round(median(runs.map((run) => run.clientCpuPercent[index] ?? Number.NaN)), 1),
      ) ?? [],
    runs: runs.map((run) => ({
      p50: round(run.latency.p50),
      p99: round(run.latency.p99),
      serverCpuUsPerRoundTrip: round(run.serverCpuUsPerRoundTrip, 1),
    })),
    errors: runs.flatMap((run) => run.errors),
  };
};

/** The session actor's share in each repeat: the bridge's CPU per round trip less its peer's, same repeat. */
const sessionShare = (bridge: readonly ChatOutcome[], less: readonly ChatOutcome[]): SessionShare => {
  const runs = bridge.map((run, index) =>
    round(run.serverCpuUsPerRoundTrip - (less[index]?.serverCpuUsPerRoundTrip ?? Number.NaN), 1),
  );
  return { median: median(runs), best: Math.min(...runs), worst: Math.max(...runs), runs };
};
