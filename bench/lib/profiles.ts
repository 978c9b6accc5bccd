/** How long and how hard each mode measures. `full` is what docs/performance.md reports. */
export interface BenchProfile {
  readonly mode: 'full' | 'quick' | 'smoke';
  readonly http: {
    readonly getConnections: readonly number[];
    readonly writeConnections: readonly number[];
    /** Whole seconds: wrk takes no fractions. */
    readonly seconds: number;
    /** One unmeasured wrk run per server and scenario, at 16 connections, before the measured ones. */
    readonly warmupSeconds: number;
    /** Measured runs per configuration, servers interleaved; the median is reported. */
    readonly repeats: number;
    readonly threads: number;
  };
  readonly chat: {
    readonly frameBytes: readonly number[];
    readonly sessions: readonly number[];
    /**
     * Unmeasured round trips before each measured run (per frame size), shared by its sessions: enough for
     * the bridge to reach its steady state (docs/performance.md, "Warm-up and history").
     */
    readonly serverWarmupRoundTrips: (frameBytes: number) => number;
    /** Measured runs per server and configuration, servers interleaved; figures are their medians. */
    readonly repeats: number;
    /**
     * Each run is measured in this many slices on the same warm sessions, the servers taking turns slice
     * by slice, so one run reads every server over the same stretch of the machine's time; a run's
     * figures are its slices' round trips together.
     */
    readonly slices: number;
    /** Measured round trips per session and slice at most. */
    readonly roundTrips: number;
    /** A run's measuring time at most, shared by its slices; it bounds the warm-up too. */
    readonly maxMs: number;
    /** Client processes for the largest session count (1 session always uses 1). */
    readonly processes: number;
  };
  readonly fanout: {
    readonly sessions: readonly number[];
    readonly audioBytes: number;
    readonly warmupRounds: number;
    readonly repeats: number;
    /** Pause between rounds so each one starts on an idle server. */
    readonly gapMs: number;
    readonly processes: number;
  };
  readonly memory: {
    readonly sessions: number;
    readonly settleMs: number;
  };
  /**
   * Time to first sound (issue #12): one kiosk sends a 1 s utterance, the simulation models an answer
   * pipeline of `parts` parts `partMs` apart (--sim_chat_parts, --sim_part_ms); measured with
   * `--chat_interface service` and `action`, one turn at a time.
   */
  readonly ttfs: {
    readonly utteranceBytes: number;
    readonly parts: number;
    readonly partMs: number;
    /** Unmeasured turns per interface first (JIT, socket buffers). */
    readonly warmupTurns: number;
    readonly turns: number;
    /**
     * Streamed against whole (issue #39), `--chat_interface action` on the simulation with a recogniser
     * stand-in of cost `recognitionRt` × the speech, the same answer pipeline as above: per length, one
     * kiosk streams `streamPartMs` parts in real time, another sends the whole WAV once the speech is over;
     * their turns alternate.
     */
    readonly streaming: {
      readonly utteranceMs: readonly number[];
      readonly streamPartMs: number;
      readonly recognitionRt: number;
      /** Unmeasured 1 s turns per way up first. */
      readonly warmupTurns: number;
      /** Measured turns per way up and length: streamed turns take their speech's time, so few. */
      readonly turns: number;
    };
  };
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const PROFILES: Readonly<Record<BenchProfile['mode'], BenchProfile>> = {
  full: {
    mode: 'full',
    http: {
      getConnections: [1, 16, 128],
      writeConnections: [1, 16, 128],
      seconds: 5,
      warmupSeconds: 3,
      repeats: 3,
      threads: 1,
    },
    chat: {
      frameBytes: [32 * KiB, MiB],
      sessions: [1, 32],
      serverWarmupRoundTrips: (bytes) => (bytes >= MiB ? 640 : 4_000),
      repeats: 3,
      slices: 5,
      roundTrips: 100_000,
      maxMs: 2_500,
      processes: 2,
    },
    fanout: {
      sessions: [100, 1000],
      audioBytes: 32 * KiB,
      warmupRounds: 3,
      // p99 of 200 rounds is the 2nd-worst round, not the single worst one.
      repeats: 200,
      gapMs: 50,
      processes: 4,
    },
    memory: { sessions: 1000, settleMs: 1_500 },
    // 32,000 B is 1 s of the kiosk's 16 kHz 16-bit mono audio (docs/protocol.md, "Audio format").
    ttfs: {
      utteranceBytes: 32_000,
      parts: 3,
      partMs: 400,
      warmupTurns: 2,
      turns: 40,
      // 10 turns each: 21 s of speech per round of streamed turns, about 6 minutes in all.
      streaming: {
        utteranceMs: [1000, 5000, 15_000],
        streamPartMs: 100,
        recognitionRt: 0.3,
        warmupTurns: 1,
        turns: 10,
      },
    },
  },
  quick: {
    mode: 'quick',
    http: {
      getConnections: [1, 16, 128],
      writeConnections: [1, 16, 128],
      seconds: 1,
      warmupSeconds: 1,
      repeats: 1,
      threads: 1,
    },
    chat: {
      frameBytes: [32 * KiB, MiB],
      sessions: [1, 32],
      serverWarmupRoundTrips: (bytes) => (bytes >= MiB ? 40 : 1_000),
      repeats: 2,
      slices: 2,
      roundTrips: 100_000,
      maxMs: 800,
      processes: 2,
    },
    fanout: {
      sessions: [100, 1000],
      audioBytes: 32 * KiB,
      warmupRounds: 2,
      repeats: 20,
      gapMs: 30,
      processes: 4,
    },
    memory: { sessions: 1000, settleMs: 800 },
    ttfs: {
      utteranceBytes: 32_000,
      parts: 3,
      partMs: 400,
      warmupTurns: 1,
      turns: 10,
      streaming: {
        utteranceMs: [1000, 5000],
        streamPartMs: 100,
        recognitionRt: 0.3,
        warmupTurns: 1,
        turns: 3,
      },
    },
  },
  smoke: {
    mode: 'smoke',
    http: {
      getConnections: [16],
      writeConnections: [16],
      seconds: 1,
      warmupSeconds: 0,
      repeats: 1,
      threads: 1,
    },
    chat: {
      frameBytes: [32 * KiB, MiB],
      sessions: [1, 4],
      serverWarmupRoundTrips: () => 2,
      repeats: 2,
      slices: 2,
      roundTrips: 10,
      maxMs: 2_000,
      processes: 2,
    },
    fanout: {
      sessions: [10, 40],
      audioBytes: 32 * KiB,
      warmupRounds: 1,
      repeats: 3,
      gapMs: 10,
      processes: 2,
    },
    memory: { sessions: 40, settleMs: 100 },
    ttfs: {
      utteranceBytes: 32_000,
      parts: 3,
      partMs: 20,
      warmupTurns: 1,
      turns: 3,
      streaming: {
        utteranceMs: [300, 600],
        streamPartMs: 100,
        recognitionRt: 0.3,
        warmupTurns: 0,
        turns: 2,
      },
    },
  },
};

export type ScenarioName = 'get' | 'write' | 'chat' | 'fanout' | 'memory' | 'ttfs';
export const SCENARIOS: readonly ScenarioName[] = ['memory', 'fanout', 'get', 'write', 'chat', 'ttfs'];

export interface BenchArgs {
  readonly profile: BenchProfile;
  readonly out: string;
  /** Run the service from src/ through tsx instead of building dist/ (smoke test). */
  readonly fromSource: boolean;
  readonly only: ReadonlySet<ScenarioName>;
  /** Install wrk with apt-get when missing (root on Debian). */
  readonly installWrk: boolean;
  /** Fail instead of skipping the HTTP scenarios when wrk is missing. */
  readonly requireWrk: boolean;
  /** Start the bridge under `node --cpu-prof`, writing the profile into this directory. */
  readonly cpuProfDir: string | undefined;
  /** Another build of the service to measure (its server.js), e.g. an older one for a before/after. */
  readonly service: string | undefined;
  /** A second build measured alongside (interleaved) as the baseline of a before/after comparison. */
  readonly compare: string | undefined;
  /**
   * Environment given to the measured bridge only (`--env NAME=VALUE`, repeatable), e.g. an allocator
   * setting: with `--compare` naming the same build, its cost side by side.
   */
  readonly serviceEnv: Readonly<Record<string, string>>;
  /**
   * Node.js flags given to the measured bridge only (`--node-flag FLAG`, repeatable), e.g. a V8 heap
   * setting: with `--compare` naming the same build, its cost side by side.
   */
  readonly serviceNodeFlags: readonly string[];
  /**
   * Put this run's scenarios into the existing results file (`--out`), replacing those scenarios there and
   * recording the run beside them, rather than writing a file of these scenarios alone.
   */
  readonly merge: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick | --smoke] [--out <file>] [--only get,write,chat,fanout,memory,ttfs]
                      [--from-source] [--no-install] [--require-wrk] [--cpu-prof <dir>] [--service <file>]
                      [--compare <file>] [--env NAME=VALUE]... [--node-flag FLAG]... [--fanout-bytes N] [--merge]
  (default)       full run, about 14 minutes (17 with --compare; ttfs's streamed turns take 6 of them);
                  writes bench/results.json
  --quick         short run, about 2.5 minutes; writes bench/results-quick.json
  --smoke         seconds; proves the harness works (the smoke test runs it); writes bench/results-smoke.json
  --only          run only these scenarios
  --from-source   run the service from src/ through tsx instead of building dist/
  --no-install    never apt-get install wrk (the HTTP scenarios are skipped without it)
  --require-wrk   fail when wrk is missing instead of skipping the HTTP scenarios
  --cpu-prof DIR  run the bridge under node --cpu-prof, profile written to DIR when it stops
  --service FILE  measure this build of the service (its dist/src/server.js) instead of building this tree
  --compare FILE  also measure this other build (e.g. before a change), interleaved, as a baseline
  --env NAME=VALUE  set this variable for the measured bridge only (not the --compare baseline)
  --node-flag FLAG  give Node.js this flag (e.g. --initial-old-space-size=40) for the measured bridge only
  --fanout-bytes N  the fan-out's /play_audio message holds N bytes of audio (32768 by default; at most 8 MiB)
  --merge         put the scenarios run into the existing results file (same mode), replacing those there,
                  the run recorded beside them and every target judged again`;

export const parseBenchArgs = (argv: readonly string[], env: NodeJS.ProcessEnv): BenchArgs | string => {
  let mode: BenchProfile['mode'] = 'full';
  let out: string | undefined;
  let fromSource = false;
  let only = new Set<ScenarioName>(SCENARIOS);
  let installWrk = true;
  let requireWrk = env['TOUR_BRIDGE_REQUIRE_WRK'] === '1';
  let cpuProfDir: string | undefined;
  let service: string | undefined;
  let compare: string | undefined;
  const serviceEnv: Record<string, string> = {};
  const serviceNodeFlags: string[] = [];
  let merge = false;
  let fanoutBytes: number | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const value = () => {
      const next = argv[index + 1];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      index += 1;
      return next;
    };
    try {
      switch (arg) {
        case '--quick':
          mode = 'quick';
          break;
        case '--smoke':
          mode = 'smoke';
          break;
        case '--full':
          mode = 'full';
          break;
        case '--out':
          out = value();
          break;
        case '--from-source':
          fromSource = true;
          break;
        case '--no-install':
          installWrk = false;
          break;
        case '--require-wrk':
          requireWrk = true;
          break;
        case '--cpu-prof':
          cpuProfDir = value();
          break;
        case '--service':
          service = value();
          break;
        case '--compare':
          compare = value();
          break;
        case '--env': {
          const setting = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value());
          if (setting === null) return `--env needs NAME=VALUE\n${USAGE}`;
          serviceEnv[setting[1] ?? ''] = setting[2] ?? '';
          break;
        }
        case '--node-flag': {
          const flag = value();
          if (!/^--[a-z0-9][a-z0-9-]*(=\S+)?$/.test(flag)) {
            return `--node-flag needs one Node.js or V8 flag, as --name or --name=value\n${USAGE}`;
          }
          serviceNodeFlags.push(flag);
          break;
        }
        case '--only': {
          const names = value().split(',');
          const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
          if (unknown.length > 0)
            return `unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`;
          only = new Set(names as ScenarioName[]);
          break;
        }
        case '--fanout-bytes': {
          const bytes = Number(value());
          if (!Number.isInteger(bytes) || bytes < 1 || bytes > 8 * MiB) {
            return `--fanout-bytes needs a whole number of bytes from 1 to ${8 * MiB}\n${USAGE}`;
          }
          fanoutBytes = bytes;
          break;
        }
        case '--merge':
          merge = true;
          break;
        case '--help':
        case '-h':
          return USAGE;
        default:
          return `unknown option ${arg}\n${USAGE}`;
      }
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  const defaultOut = {
    full: 'bench/results.json',
    quick: 'bench/results-quick.json',
    smoke: 'bench/results-smoke.json',
  };
  return {
    profile:
      fanoutBytes === undefined
        ? PROFILES[mode]
        : { ...PROFILES[mode], fanout: { ...PROFILES[mode].fanout, audioBytes: fanoutBytes } },
    out: out ?? defaultOut[mode],
    fromSource,
    only,
    installWrk,
    requireWrk,
    cpuProfDir,
    service,
    compare,
    serviceEnv,
    serviceNodeFlags,
    merge,
  };
};
