import type { BenchProfile } from './profiles.js';
import { log } from './log.js';
import { measureCpu } from './machine.js';
import type { ServerProcess } from './processes.js';
import type { HttpFigures, HttpGetRow, HttpWriteFigures, HttpWriteRow } from './results.js';
import { inOrder, runsByServer, type Servers } from './servers.js';
import { median, ratio, round } from './stats.js';
import { runWrk, type WrkResult, type WrkRun } from './wrk.js';

/** Scenarios 1 and 2 with wrk: `GET /tour/welcome` on every server, and POST/DELETE on the bridge builds. */

type Measured = WrkResult & { serverCpuPercent: number };

const wrkOn = async (
  server: ServerProcess,
  run: Omit<WrkRun, 'threads'>,
  profile: BenchProfile,
): Promise<Measured> => {
  const { result, cpuPercent } = await measureCpu(server.pid, () =>
    runWrk({ ...run, threads: Math.min(profile.http.threads, run.connections) }),
  );
  return { ...result, serverCpuPercent: cpuPercent };
};

const httpFigures = (runs: readonly Measured[]): HttpFigures => {
  const statuses: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  }
  const errors = runs.reduce(
    (sum, run) => sum + Object.values(run.errors).reduce((total, count) => total + count, 0),
    0,
  );
  return {
    rps: round(median(runs.map((run) => run.rps)), 0),
    p50: round(median(runs.map((run) => run.p50))),
    p99: round(median(runs.map((run) => run.p99))),
    runs: runs.map((run) => ({ rps: round(run.rps, 0), p50: run.p50, p99: run.p99 })),
    serverCpuPercent: round(median(runs.map((run) => run.serverCpuPercent)), 1),
    serverCpuUsPerRequest: round(median(runs.map((run) => (run.serverCpuPercent / 100 / run.rps) * 1e6)), 1),
    wrkCpuPercent: round(median(runs.map((run) => run.wrkCpuPercent)), 1),
    errors,
    statuses,
  };
};

export const measureGet = async (servers: Servers, profile: BenchProfile): Promise<HttpGetRow[]> => {
  const order = inOrder(servers);
  const target = (server: ServerProcess) => ({
    url: `${server.baseUrl}/tour/welcome`,
    script: 'get.lua' as const,
  });
  if (profile.http.warmupSeconds > 0) {
    for (const [name, server] of order) {
      log(`GET warm-up on ${name}`);
      await wrkOn(
        server,
        { ...target(server), connections: 16, seconds: profile.http.warmupSeconds },
        profile,
      );
    }
  }
  const rows: HttpGetRow[] = [];
  for (const connections of profile.http.getConnections) {
    const runs = runsByServer<Measured>();
    // Servers interleaved, so a disturbance of the machine hits all of them alike.
    for (let repeat = 0; repeat < profile.http.repeats; repeat += 1) {
      for (const [name, server] of order) {
        const measured = await wrkOn(
          server,
          { ...target(server), connections, seconds: profile.http.seconds },
          profile,
        );
        runs[name].push(measured);
        log(
          `GET ${name} c=${connections} #${repeat + 1}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99} ms`,
        );
      }
    }
    const bridge = httpFigures(runs.bridge);
    const bareUws = httpFigures(runs.bareUws);
    const nodeHttpWs = httpFigures(runs.nodeHttpWs);
    rows.push({
      connections,
      bridge,
      bareUws,
      nodeHttpWs,
      ...(servers.baseline === undefined ? {} : { baseline: httpFigures(runs.baseline) }),
      rpsRatio: {
        toBareUws: ratio(bridge.rps, bareUws.rps),
        toNodeHttpWs: ratio(bridge.rps, nodeHttpWs.rps),
      },
    });
  }
  return rows;
};

const writeFigures = (runs: readonly Measured[]): HttpWriteFigures => ({
  ...httpFigures(runs),
  posts: runs.reduce((sum, run) => sum + (run.extra['posts'] ?? 0), 0),
  deletes: runs.reduce((sum, run) => sum + (run.extra['deletes'] ?? 0), 0),
});

export const measureWrite = async (
  bridges: { bridge: ServerProcess; baseline?: ServerProcess | undefined },
  profile: BenchProfile,
): Promise<HttpWriteRow[]> => {
  const order = Object.entries(bridges).filter(
    (entry): entry is ['bridge' | 'baseline', ServerProcess] => entry[1] !== undefined,
  );
  const target = (server: ServerProcess) => ({
    url: `${server.baseUrl}/tour`,
    script: 'post-delete.lua' as const,
  });
  if (profile.http.warmupSeconds > 0) {
    for (const [name, server] of order) {
      log(`POST/DELETE warm-up on ${name}`);
      await wrkOn(
        server,
        { ...target(server), connections: 16, seconds: profile.http.warmupSeconds, scriptArgs: ['warm'] },
        profile,
      );
    }
  }
  const rows: HttpWriteRow[] = [];
  for (const connections of profile.http.writeConnections) {
    const runs: Record<'bridge' | 'baseline', Measured[]> = { bridge: [], baseline: [] };
    for (let repeat = 0; repeat < profile.http.repeats; repeat += 1) {
      for (const [name, server] of order) {
        const measured = await wrkOn(
          server,
          {
            ...target(server),
            connections,
            seconds: profile.http.seconds,
            scriptArgs: [`c${connections}r${repeat}`],
          },
          profile,
        );
        runs[name].push(measured);
        log(
          `POST/DELETE ${name} c=${connections} #${repeat + 1}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99} ms`,
        );
      }
    }
    rows.push({
      connections,
      bridge: writeFigures(runs.bridge),
      ...(bridges.baseline === undefined ? {} : { baseline: writeFigures(runs.baseline) }),
    });
  }
  return rows;
};
