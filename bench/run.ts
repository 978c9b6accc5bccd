/**
 * `npm run bench [-- --quick | --smoke]`: starts the bridge (sim backend, no artificial latency) and its two
 * reference servers on loopback, drives each scenario from separate load processes (wrk for HTTP, `ws`
 * clients for /ws), prints the tables and writes the results file. See docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { log } from './lib/log.js';
import { checkQuiet, describeMachine, readRssBytes, type QuietCheck } from './lib/machine.js';
import {
  bridgeCommand,
  freePort,
  ownChildPids,
  peerCommand,
  ROOT,
  startServer,
  type ServerKind,
  type ServerProcess,
} from './lib/processes.js';
import { parseBenchArgs, USAGE } from './lib/profiles.js';
import { uwsChoice } from '../src/transport/uws-build.js';
import { checkTargets, renderReport } from './lib/report.js';
import type { BenchResults, Skipped } from './lib/results.js';
import { mergeResults } from './lib/results-merge.js';
import { measureChat } from './lib/scenario-chat.js';
import { measureMemoryAndFanout } from './lib/scenario-fleet.js';
import { measureGet, measureWrite } from './lib/scenario-http.js';
import { round } from './lib/stats.js';
import { checkWrkScripts, ensureWrk, type WrkAvailability } from './lib/wrk.js';
import { measureTtfs } from './lib/ttfs.js';
import { measureStreamedTtfs } from './lib/ttfs-streaming.js';

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

/**
 * The scenarios send as fast as the bridge answers, far past a kiosk's inbound budget, and open up to
 * 2,000 sessions from one address: measured without those limits. As environment variables, which a build
 * from before the limits ignores, so --compare takes any build.
 */
const UNBUDGETED = {
  TOUR_BRIDGE_WS_FRAMES_PER_SECOND: '100000',
  TOUR_BRIDGE_WS_BYTES_PER_SECOND: String(1024 * 1024 * 1024),
  TOUR_BRIDGE_WS_SESSIONS_PER_ADDRESS: '0',
  TOUR_BRIDGE_WS_TOTAL_FRAME_RATE: '10000000',
  TOUR_BRIDGE_WS_TOTAL_BYTE_RATE: String(64 * 1024 * 1024 * 1024),
};

/** The uWebSockets.js build this tree's bridge and the bare peer choose here, by the bridge's own rule. */
const uwsVersion = (): string =>
  uwsChoice.ok ? `${uwsChoice.build.name} (${uwsChoice.build.line})` : 'none loads';

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

  const out = isAbsolute(args.out) ? args.out : join(ROOT, args.out);
  // Read first, so a missing file or one of another mode fails before minutes of measuring.
  const mergeBase = args.merge ? (JSON.parse(readFileSync(out, 'utf8')) as BenchResults) : undefined;
  if (mergeBase !== undefined && mergeBase.mode !== profile.mode) {
    throw new Error(`--merge: ${out} is a ${mergeBase.mode} run, this one is ${profile.mode}`);
  }

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
  const nodeFlags = [
    ...args.serviceNodeFlags,
    ...(args.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.cpuProfDir}`]),
  ];
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
      env: { ...UNBUDGETED, ...(role === 'bridge' ? args.serviceEnv : {}) },
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
          `ttfs ${chatInterface}: first byte p50 ${row.p50} ms, p99 ${row.p99} ms; added per part p50 ${row.addedPerPart.p50} ms, p99 ${row.addedPerPart.p99} ms`,
        );
        rows.push(row);
      }
      // Streamed against whole on one bridge: the Converse action and the recogniser stand-in.
      const { streaming } = ttfs;
      const bridge = await startBridge('bridge', [
        '--chat_interface',
        'action',
        '--sim_chat_parts',
        String(ttfs.parts),
        '--sim_part_ms',
        String(ttfs.partMs),
        '--sim_recognition_rt',
        String(streaming.recognitionRt),
      ]);
      const streamedRows = await measureStreamedTtfs({
        url: bridge.wsUrl,
        parts: ttfs.parts,
        partMs: ttfs.partMs,
        ...streaming,
      });
      await bridge.stop();
      const streamingProblems = streamedRows.flatMap((row) => row.problems);
      if (streamingProblems.length > 0)
        throw new Error(`ttfs streamed/whole: ${streamingProblems.slice(0, 3).join('; ')}`);
      for (const row of streamedRows) {
        log(
          `ttfs ${row.upload} ${row.utteranceMs} ms: p50 ${row.p50} ms, p99 ${row.p99} ms; added per part p50 ${row.addedPerPart.p50} ms`,
        );
      }
      rows.push(...streamedRows);
      scenarios.ttfs = { rows };
    }
    const wantsRest = args.only.has('get') || args.only.has('write') || args.only.has('chat');
    if (!wantsRest) return finish(scenarios);

    // Scenarios 1 to 3 on fresh processes again, so they do not start from the heap 1,000 sessions and the
    // fan-out left behind (in one run that history made the HTTP figures of one build up to 50 % worse); the
    // chat scenario on processes of its own too, like the peers it is split against: after scenario 2's
    // 350,000 writes a bridge spent 30–40 % more CPU a chat round trip (docs/performance.md, "Warm-up
    // and history").
    const wantsHttpScenarios = args.only.has('get') || args.only.has('write');
    const startBridges = async () => ({
      bridge: await startBridge('bridge'),
      baseline: args.compare === undefined ? undefined : await startBridge('baseline'),
    });
    const http = wantsHttpScenarios ? await startBridges() : undefined;
    // The chat scenario's bridges start when it does, or now when no other bridge can give the peers' bytes.
    let chat = args.only.has('chat') && http === undefined ? await startBridges() : undefined;
    const anyBridge = (http ?? chat)!.bridge;

    const needsPeers = (wantsHttp && wrk.available && args.only.has('get')) || args.only.has('chat');
    let peers: { bareUws: ServerProcess; nodeHttpWs: ServerProcess } | undefined;
    let noSession: ServerProcess | undefined;
    let xstateFloor: ServerProcess | undefined;
    let xstateInvokeFloor: ServerProcess | undefined;
    if (needsPeers) {
      // The peers answer the very bytes the bridge answers.
      const body = Buffer.from(
        await (await fetch(`${anyBridge.baseUrl}/tour/welcome`)).arrayBuffer(),
      ).toString('base64');
      const start = async (kind: Exclude<ServerKind, 'bridge'>, extraArgs: readonly string[] = []) => {
        const port = await freePort();
        const server = await startServer({
          kind,
          command: peerCommand(kind, port, body, extraArgs),
          port,
          readyPath: '/health',
        });
        servers.push(server);
        return server;
      };
      peers = { bareUws: await start('bare-uws'), nodeHttpWs: await start('node-http-ws') };
      // The bridge less its session actor runs the measured bridge's own modules (its build, or src/).
      if (args.only.has('chat')) {
        const modules =
          args.service !== undefined
            ? dirname(args.service)
            : join(ROOT, args.fromSource ? 'src' : 'dist/src');
        noSession = await start('bridge-no-session', ['--modules', modules]);
        xstateFloor = await start('bridge-no-session', ['--modules', modules, '--session', 'xstate']);
        xstateInvokeFloor = await start('bridge-no-session', [
          ...['--modules', modules, '--session', 'xstate-invoke'],
        ]);
      }
    }

    if (http !== undefined && args.only.has('get')) {
      scenarios.httpGet = httpSkipped ?? { rows: await measureGet({ ...http, ...peers! }, profile) };
    }
    if (http !== undefined && args.only.has('write')) {
      scenarios.httpWrite = httpSkipped ?? { rows: await measureWrite(http, profile) };
    }
    if (scenarios.memory !== undefined && http !== undefined) {
      scenarios.memory = { ...scenarios.memory, afterAllRssBytes: readRssBytes(http.bridge.pid) };
    }
    const baselineMemory = scenarios.baseline?.memory;
    const httpBaseline = http?.baseline;
    if (httpBaseline !== undefined && baselineMemory !== undefined && scenarios.baseline !== undefined) {
      scenarios.baseline = {
        ...scenarios.baseline,
        memory: { ...baselineMemory, afterAllRssBytes: readRssBytes(httpBaseline.pid) },
      };
    }
    if (args.only.has('chat')) {
      chat ??= await startBridges();
      scenarios.chat = {
        rows: await measureChat({ ...chat, noSession, xstateFloor, xstateInvokeFloor, ...peers! }, profile),
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
          serverWarmupRoundTrips: profile.chat.frameBytes.map(profile.chat.serverWarmupRoundTrips),
        },
        only: [...args.only],
        fromSource: args.fromSource,
        service: `${args.service ?? (args.fromSource ? 'src/server.ts (tsx)' : 'dist/src/server.js')} --backend sim --log_level error --sim_latency_ms 0 --max_sessions ${maxSessions}`,
        cpuProf: args.cpuProfDir ?? null,
        compare: args.compare ?? null,
        serviceEnv: args.serviceEnv,
        serviceNodeFlags: args.serviceNodeFlags,
      },
      scenarios,
    };
    const whole = mergeBase === undefined ? partial : mergeResults(mergeBase, partial);
    const results: BenchResults = { ...whole, targets: checkTargets(whole) };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${renderReport(results)}\n`);
    log(`${args.merge ? `merged ${Object.keys(scenarios).join(', ')} into` : 'wrote'} ${out}`);
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
