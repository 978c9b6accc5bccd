/**
 * `npm run bench [-- --quick | --smoke]`: starts the bridge (sim backend, no artificial latency) and its two
 * reference servers on loopback, drives each scenario from separate load processes (wrk for HTTP, `ws`
 * clients for /ws), prints the tables and writes the results file. See docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { checkQuiet, describeMachine, measureCpu, readRssBytes, type QuietCheck } from './lib/machine.js';
import {
  bridgeCommand,
  freePort,
  ownChildPids,
  peerCommand,
  ROOT,
  sleep,
  startServer,
  type ServerKind,
  type ServerProcess,
} from './lib/processes.js';
import { parseBenchArgs, USAGE, type BenchArgs, type BenchProfile } from './lib/profiles.js';
import { RawHttpConnection } from './lib/raw-http.js';
import { checkTargets, renderReport } from './lib/report.js';
import type {
  BenchResults,
  ChatFigures,
  ChatRow,
  FanoutRow,
  HttpFigures,
  HttpGetRow,
  HttpWriteFigures,
  HttpWriteRow,
  MemoryFigures,
  Skipped,
} from './lib/results.js';
import { ratio, round, summarize } from './lib/stats.js';
import {
  checkWrkScripts,
  ensureWrk,
  runWrk,
  type WrkAvailability,
  type WrkResult,
  type WrkRun,
} from './lib/wrk.js';
import { measureTtfs } from './lib/ttfs.js';
import { KioskFleet, runChat } from './lib/ws-load.js';

const log = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

const build = (): void => {
  log('building dist/ (tsc -p tsconfig.build.json)');
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      timeout: 300_000,
    },
  );
  if (result.status !== 0) throw new Error('the build failed');
};

const uwsVersion = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/uWebSockets.js/package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    return `${pkg.name ?? 'uWebSockets.js'}@${pkg.version ?? '?'}`;
  } catch {
    return 'uWebSockets.js (version unknown)';
  }
};

// ---------------------------------------------------------------------------------------------------------
// Scenario 5 (memory) and 4 (fan-out): one fresh bridge, sessions held by a few client processes.

const measureMemoryAndFanout = async (
  bridge: ServerProcess,
  profile: BenchProfile,
  args: BenchArgs,
): Promise<{ memory?: MemoryFigures; fanout?: { rows: FanoutRow[] } }> => {
  const fleet = new KioskFleet(profile.fanout.processes);
  try {
    let memory: MemoryFigures | undefined;
    if (args.only.has('memory')) {
      await sleep(profile.memory.settleMs);
      const idleRssBytes = readRssBytes(bridge.pid);
      await fleet.resize(bridge.wsUrl, profile.memory.sessions);
      await sleep(profile.memory.settleMs);
      const withSessionsRssBytes = readRssBytes(bridge.pid);
      await fleet.resize(bridge.wsUrl, 2 * profile.memory.sessions);
      await sleep(profile.memory.settleMs);
      const nextSessionsRssBytes = readRssBytes(bridge.pid);
      memory = {
        idleRssBytes,
        sessions: profile.memory.sessions,
        withSessionsRssBytes,
        perSessionBytes: Math.round((withSessionsRssBytes - idleRssBytes) / profile.memory.sessions),
        nextSessionsRssBytes,
        nextPerSessionBytes: Math.round(
          (nextSessionsRssBytes - withSessionsRssBytes) / profile.memory.sessions,
        ),
      };
      log(
        `memory: idle ${idleRssBytes} B, ${profile.memory.sessions} sessions ${withSessionsRssBytes} B, ` +
          `${2 * profile.memory.sessions} sessions ${nextSessionsRssBytes} B`,
      );
    }
    if (!args.only.has('fanout')) return memory === undefined ? {} : { memory };

    const { audioBytes } = profile.fanout;
    const connection = await RawHttpConnection.open(bridge.port);
    const audio = Buffer.alloc(audioBytes);
    for (let index = 0; index < audioBytes; index += 1) audio[index] = (index * 31) & 0xff;
    const request = RawHttpConnection.prepare(
      'POST',
      '/sim/play_audio',
      JSON.stringify({ emotion: 'happy', text: 'Fan-out benchmark', audio: audio.toString('base64') }),
    );
    let roundNumber = 0;
    const playRound = async () => {
      roundNumber += 1;
      let sent = 0n;
      let answered = 0n;
      const result = await fleet.round(roundNumber, audioBytes, 10_000, async () => {
        sent = process.hrtime.bigint();
        const response = await connection.send(request);
        answered = process.hrtime.bigint();
        if (response.status !== 200) throw new Error(`POST /sim/play_audio answered ${response.status}`);
      });
      const toMs = (at: bigint) => Number(at - sent) / 1e6;
      return { ...result, lastMs: toMs(result.last), firstMs: toMs(result.first), postMs: toMs(answered) };
    };

    const rows: FanoutRow[] = [];
    for (const sessions of profile.fanout.sessions) {
      await fleet.resize(bridge.wsUrl, sessions);
      await sleep(profile.fanout.gapMs);
      for (let warm = 0; warm < profile.fanout.warmupRounds; warm += 1) {
        await playRound();
        await sleep(profile.fanout.gapMs);
      }
      await fleet.cpuStart();
      const rounds: Awaited<ReturnType<typeof playRound>>[] = [];
      const { cpuPercent } = await measureCpu(bridge.pid, async () => {
        for (let repeat = 0; repeat < profile.fanout.repeats; repeat += 1) {
          rounds.push(await playRound());
          await sleep(profile.fanout.gapMs);
        }
      });
      const clientCpuPercent = await fleet.cpuStop();
      const complete = rounds.filter(
        (result) => result.complete === result.expected && result.expected === sessions,
      );
      const row: FanoutRow = {
        sessions,
        audioBytes,
        rounds: rounds.length,
        last: summarize(complete.map((result) => result.lastMs)),
        first: summarize(complete.map((result) => result.firstMs)),
        postResponse: summarize(rounds.map((result) => result.postMs)),
        incompleteRounds: rounds.length - complete.length,
        problems: rounds.flatMap((result) => result.problems).slice(0, 10),
        // Busy share of the measured rounds, gaps included: read it against gapMs.
        serverCpuPercent: round(cpuPercent, 1),
        clientCpuPercent: clientCpuPercent.map((value) => round(value, 1)),
      };
      rows.push(row);
      log(
        `fan-out ${sessions} sessions: last p50 ${row.last.p50.toFixed(2)} ms, p99 ${row.last.p99.toFixed(2)} ms`,
      );
    }
    connection.close();
    if (memory !== undefined) memory = { ...memory, afterFanoutRssBytes: readRssBytes(bridge.pid) };
    return { ...(memory === undefined ? {} : { memory }), fanout: { rows } };
  } finally {
    fleet.close();
  }
};

// ---------------------------------------------------------------------------------------------------------
// Scenarios 1 and 2: wrk.

interface Servers {
  readonly bridge: ServerProcess;
  readonly bareUws: ServerProcess;
  readonly nodeHttpWs: ServerProcess;
  /** With `--compare`: the other build of the bridge. */
  readonly baseline?: ServerProcess | undefined;
}

type ServerName = 'bridge' | 'baseline' | 'bareUws' | 'nodeHttpWs';

/** Measuring order within a repeat: the two bridge builds side by side, then the peers. */
const inOrder = (servers: Servers): [ServerName, ServerProcess][] => [
  ['bridge', servers.bridge],
  ...(servers.baseline === undefined ? [] : [['baseline', servers.baseline] as [ServerName, ServerProcess]]),
  ['bareUws', servers.bareUws],
  ['nodeHttpWs', servers.nodeHttpWs],
];

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

const measureGet = async (servers: Servers, profile: BenchProfile): Promise<HttpGetRow[]> => {
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
    const runs: Record<ServerName, Measured[]> = { bridge: [], baseline: [], bareUws: [], nodeHttpWs: [] };
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

const measureWrite = async (
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

// ---------------------------------------------------------------------------------------------------------
// Scenario 3: chat round trips.

const measureChat = async (servers: Servers, profile: BenchProfile): Promise<ChatRow[]> => {
  const rows: ChatRow[] = [];
  for (const frameBytes of profile.chat.frameBytes) {
    for (const sessions of profile.chat.sessions) {
      const figures = {} as Record<ServerName, ChatFigures>;
      for (const [name, server] of inOrder(servers)) {
        const { result, cpuPercent } = await measureCpu(server.pid, () =>
          runChat({
            url: server.wsUrl,
            sessions,
            frameBytes,
            expectGreeting: server.kind === 'bridge',
            warmupRoundTrips: profile.chat.warmupRoundTrips(frameBytes),
            roundTrips: profile.chat.roundTrips,
            maxMs: profile.chat.maxMs,
            processes: sessions === 1 ? 1 : profile.chat.processes,
          }),
        );
        if (result.errors.length > 0)
          throw new Error(`chat on ${name}: ${result.errors.slice(0, 3).join('; ')}`);
        figures[name] = {
          ...result.latency,
          roundTripsPerS: round(result.roundTripsPerS, 0),
          serverCpuPercent: round(cpuPercent, 1),
          serverCpuUsPerRoundTrip: round((cpuPercent / 100 / result.roundTripsPerS) * 1e6, 1),
          clientCpuPercent: result.clientCpuPercent.map((value) => round(value, 1)),
          errors: result.errors,
        };
        log(
          `chat ${frameBytes} B × ${sessions} on ${name}: p50 ${result.latency.p50.toFixed(3)} ms, p99 ${result.latency.p99.toFixed(3)} ms (${result.latency.samples} round trips)`,
        );
      }
      const { bridge, bareUws, nodeHttpWs, baseline } = figures;
      rows.push({
        frameBytes,
        sessions,
        bridge,
        bareUws,
        nodeHttpWs,
        ...(servers.baseline === undefined ? {} : { baseline }),
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

// ---------------------------------------------------------------------------------------------------------

const describeQuiet = (check: QuietCheck): string =>
  `load average ${check.loadAverage1m.toFixed(2)}, heavy processes: ${check.heavyProcesses.join(', ') || 'none'}`;

const main = async (): Promise<number> => {
  const parsed = parseBenchArgs(process.argv.slice(2), process.env);
  if (typeof parsed === 'string') {
    process.stderr.write(`${parsed}\n`);
    return parsed === USAGE ? 0 : 2;
  }
  const args = parsed;
  const { profile } = args;
  const startedAt = new Date().toISOString();
  const started = performance.now();

  const quietBefore = checkQuiet();
  log(`${profile.mode} run; ${describeQuiet(quietBefore)}`);
  if (!quietBefore.quiet) log('WARNING: the machine is not quiet; numbers of this run are not comparable');

  const wantsHttp = args.only.has('get') || args.only.has('write');
  let wrk: WrkAvailability = { available: false, reason: 'not needed by the chosen scenarios' };
  if (wantsHttp) {
    checkWrkScripts();
    wrk = ensureWrk({ install: args.installWrk });
    if (!wrk.available) {
      if (args.requireWrk)
        throw new Error(`wrk is required (--require-wrk / TOUR_BRIDGE_REQUIRE_WRK=1): ${wrk.reason}`);
      log(`SKIPPING the HTTP scenarios (1, 2): ${wrk.reason}`);
    }
  }
  const httpSkipped: Skipped | undefined = wrk.available ? undefined : { skipped: wrk.reason };

  if (!args.fromSource && args.service === undefined) build();

  const maxSessions =
    Math.max(2 * profile.memory.sessions, ...profile.fanout.sessions, ...profile.chat.sessions) + 100;
  const nodeFlags = args.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.cpuProfDir}`];
  const servers: ServerProcess[] = [];
  /** A fresh bridge process: this tree's build (or --service), or the --compare build as the baseline. */
  const startBridge = async (
    role: 'bridge' | 'baseline',
    extraArgs: readonly string[] = [],
  ): Promise<ServerProcess> => {
    const port = await freePort();
    const server = await startServer({
      kind: 'bridge',
      command: bridgeCommand(port, {
        fromSource: role === 'bridge' && args.fromSource,
        maxSessions,
        nodeFlags: role === 'bridge' ? nodeFlags : [],
        service: role === 'bridge' ? args.service : args.compare,
        extraArgs,
      }),
      port,
      readyPath: '/health',
      ...(role === 'bridge' ? { env: args.serviceEnv } : {}),
    });
    servers.push(server);
    log(`${role} pid ${server.pid} on ${server.baseUrl}`);
    return server;
  };

  try {
    const scenarios: {
      -readonly [K in keyof BenchResults['scenarios']]: BenchResults['scenarios'][K];
    } = {};

    // Scenarios 5 and 4 first, each build on a fresh process of its own, alone: idle memory is read before
    // any load has grown the heap.
    if (args.only.has('memory') || args.only.has('fanout')) {
      const fresh = await startBridge('bridge');
      Object.assign(scenarios, await measureMemoryAndFanout(fresh, profile, args));
      await fresh.stop();
      if (args.compare !== undefined) {
        const freshBaseline = await startBridge('baseline');
        scenarios.baseline = await measureMemoryAndFanout(freshBaseline, profile, args);
        await freshBaseline.stop();
      }
    }
    // Scenario 6: time to first sound, each chat interface on a fresh bridge of its own, one turn at a time.
    if (args.only.has('ttfs')) {
      const { ttfs } = profile;
      const rows = [];
      for (const chatInterface of ['service', 'action'] as const) {
        const bridge = await startBridge('bridge', [
          '--chat_interface',
          chatInterface,
          '--sim_chat_parts',
          String(ttfs.parts),
          '--sim_part_ms',
          String(ttfs.partMs),
        ]);
        const row = await measureTtfs({ url: bridge.wsUrl, chatInterface, ...ttfs });
        await bridge.stop();
        if (row.problems.length > 0)
          throw new Error(`ttfs on ${chatInterface}: ${row.problems.slice(0, 3).join('; ')}`);
        log(
          `ttfs ${chatInterface}: first byte p50 ${row.firstByte.p50} ms, p99 ${row.firstByte.p99} ms; added per part p50 ${row.addedPerPart.p50} ms, p99 ${row.addedPerPart.p99} ms`,
        );
        rows.push(row);
      }
      scenarios.ttfs = { rows };
    }
    const wantsRest = args.only.has('get') || args.only.has('write') || args.only.has('chat');
    if (!wantsRest) return finish(scenarios);

    // Scenarios 1 to 3 on fresh processes again, so they do not start from the heap 1,000 sessions and the
    // fan-out left behind (in one run that history made the HTTP figures of one build up to 50 % worse).
    const bridge = await startBridge('bridge');
    const baseline = args.compare === undefined ? undefined : await startBridge('baseline');

    const needsPeers = (wantsHttp && wrk.available && args.only.has('get')) || args.only.has('chat');
    let peers: { bareUws: ServerProcess; nodeHttpWs: ServerProcess } | undefined;
    if (needsPeers) {
      // The peers answer the very bytes the bridge answers.
      const body = Buffer.from(await (await fetch(`${bridge.baseUrl}/tour/welcome`)).arrayBuffer()).toString(
        'base64',
      );
      const start = async (kind: Exclude<ServerKind, 'bridge'>) => {
        const port = await freePort();
        const server = await startServer({
          kind,
          command: peerCommand(kind, port, body),
          port,
          readyPath: '/health',
        });
        servers.push(server);
        return server;
      };
      peers = { bareUws: await start('bare-uws'), nodeHttpWs: await start('node-http-ws') };
    }

    if (args.only.has('get')) {
      scenarios.httpGet = httpSkipped ?? { rows: await measureGet({ bridge, baseline, ...peers! }, profile) };
    }
    if (args.only.has('write')) {
      scenarios.httpWrite = httpSkipped ?? { rows: await measureWrite({ bridge, baseline }, profile) };
    }
    if (args.only.has('chat')) {
      scenarios.chat = { rows: await measureChat({ bridge, baseline, ...peers! }, profile) };
    }
    if (scenarios.memory !== undefined) {
      scenarios.memory = { ...scenarios.memory, afterAllRssBytes: readRssBytes(bridge.pid) };
    }
    const baselineMemory = scenarios.baseline?.memory;
    if (baseline !== undefined && baselineMemory !== undefined && scenarios.baseline !== undefined) {
      scenarios.baseline = {
        ...scenarios.baseline,
        memory: { ...baselineMemory, afterAllRssBytes: readRssBytes(baseline.pid) },
      };
    }
    return finish(scenarios);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }

  function finish(scenarios: BenchResults['scenarios']): number {
    const quietAfter = checkQuiet(ownChildPids(), true);
    const partial: Omit<BenchResults, 'targets'> = {
      version: 1,
      mode: profile.mode,
      startedAt,
      durationS: round((performance.now() - started) / 1000, 1),
      machine: describeMachine(wrk.available ? wrk.version : null, uwsVersion()),
      quiet: { before: quietBefore, after: quietAfter },
      settings: {
        ...profile,
        chat: {
          ...profile.chat,
          warmupRoundTrips: profile.chat.frameBytes.map(profile.chat.warmupRoundTrips),
        },
        only: [...args.only],
        fromSource: args.fromSource,
        service: `${args.service ?? (args.fromSource ? 'src/server.ts (tsx)' : 'dist/src/server.js')} --backend sim --log_level error --sim_latency_ms 0 --max_sessions ${maxSessions}`,
        cpuProf: args.cpuProfDir ?? null,
        compare: args.compare ?? null,
        serviceEnv: args.serviceEnv,
      },
      scenarios,
    };
    const results: BenchResults = { ...partial, targets: checkTargets(partial) };
    const out = isAbsolute(args.out) ? args.out : join(ROOT, args.out);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${renderReport(results)}\n`);
    log(`wrote ${out}`);
    if (!quietAfter.quiet) log(`WARNING: the machine was not quiet at the end: ${describeQuiet(quietAfter)}`);
    return 0;
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
