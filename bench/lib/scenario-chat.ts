import type { BenchProfile } from './profiles.js';
import { log } from './log.js';
import type { ChatFigures, ChatRow } from './results.js';
import { inOrder, type ServerName, type Servers } from './servers.js';
import { ratio, round } from './stats.js';
import { runChat } from './ws-load.js';

/**
 * Scenario 3: chat round trips, closed loop, for each frame size and session count, on every server in
 * turn; the bridge's overhead is read against the bare peers, and split by the bridge less its session
 * actor (bench/peers/bridge-no-session.ts).
 */
export const measureChat = async (servers: Servers, profile: BenchProfile): Promise<ChatRow[]> => {
  const rows: ChatRow[] = [];
  for (const frameBytes of profile.chat.frameBytes) {
    for (const sessions of profile.chat.sessions) {
      const figures = {} as Record<ServerName, ChatFigures>;
      for (const [name, server] of inOrder(servers)) {
        const result = await runChat({
          serverPid: server.pid,
          url: server.wsUrl,
          sessions,
          frameBytes,
          expectGreeting: server.kind === 'bridge' || server.kind === 'bridge-no-session',
          warmupRoundTrips: profile.chat.warmupRoundTrips(frameBytes),
          roundTrips: profile.chat.roundTrips,
          maxMs: profile.chat.maxMs,
          processes: sessions === 1 ? 1 : profile.chat.processes,
        });
        if (result.errors.length > 0)
          throw new Error(`chat on ${name}: ${result.errors.slice(0, 3).join('; ')}`);
        figures[name] = {
          ...result.latency,
          roundTripsPerS: round(result.roundTripsPerS, 0),
          serverCpuPercent: round(result.serverCpuPercent, 1),
          serverCpuUsPerRoundTrip: round(result.serverCpuUsPerRoundTrip, 1),
          clientCpuPercent: result.clientCpuPercent.map((value) => round(value, 1)),
          errors: result.errors,
        };
        log(
          `chat ${frameBytes} B × ${sessions} on ${name}: p50 ${result.latency.p50.toFixed(3)} ms, p99 ${result.latency.p99.toFixed(3)} ms (${result.latency.samples} round trips)`,
        );
      }
      const { bridge, bareUws, nodeHttpWs, baseline, noSession } = figures;
      rows.push({
        frameBytes,
        sessions,
        bridge,
        bareUws,
        nodeHttpWs,
        ...(servers.baseline === undefined ? {} : { baseline }),
        ...(servers.noSession === undefined ? {} : { noSession }),
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
