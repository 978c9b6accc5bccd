import type { MachineDescription, QuietCheck } from './machine.js';
import type { LatencySummary } from './stats.js';

/** The shape of bench/results.json. Latencies in milliseconds, sizes in bytes, CPU in % of one core. */

export interface HttpFigures {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Every measured run: rps, p50, p99 — the figures above are their medians. */
  readonly runs: readonly { rps: number; p50: number; p99: number }[];
  readonly serverCpuPercent: number;
  /** Server CPU time per request (µs): the efficiency figure, steadier than req/s on a shared VM. */
  readonly serverCpuUsPerRequest: number;
  readonly wrkCpuPercent: number;
  readonly errors: number;
  readonly statuses: Readonly<Record<string, number>>;
}

export interface HttpGetRow {
  readonly connections: number;
  readonly bridge: HttpFigures;
  readonly bareUws: HttpFigures;
  readonly nodeHttpWs: HttpFigures;
  /** With `--compare`: another build of the bridge, measured interleaved with this one. */
  readonly baseline?: HttpFigures;
  /** bridge rps ÷ peer rps */
  readonly rpsRatio: { readonly toBareUws: number; readonly toNodeHttpWs: number };
}

export interface HttpWriteRow {
  readonly connections: number;
  readonly bridge: HttpWriteFigures;
  readonly baseline?: HttpWriteFigures;
}

export type HttpWriteFigures = HttpFigures & { readonly posts: number; readonly deletes: number };

/** One server's chat figures: each the median of its runs (`samples` their sum, `max` their largest). */
export interface ChatFigures extends LatencySummary {
  readonly roundTripsPerS: number;
  readonly serverCpuPercent: number;
  /** Server CPU time per round trip (µs). */
  readonly serverCpuUsPerRoundTrip: number;
  /** Of it, user time: the server's own code, without the kernel's. Absent from runs before 2026-11-28 17:28. */
  readonly serverUserUsPerRoundTrip?: number;
  readonly clientCpuPercent: readonly number[];
  /** Every measured run, in order. Absent from runs before 2026-11-28 (one run per server then). */
  readonly runs?: readonly {
    p50: number;
    p99: number;
    serverCpuUsPerRoundTrip: number;
    serverUserUsPerRoundTrip?: number;
  }[];
  readonly errors: readonly string[];
}

/** The session actor's share of server CPU per round trip (µs): the bridge less its peer, per repeat. */
export interface SessionShare {
  readonly median: number;
  readonly best: number;
  readonly worst: number;
  readonly runs: readonly number[];
  /** The same difference in user time alone, run by run (the kernel's time left out). */
  readonly userRuns?: readonly number[];
}

export interface ChatRow {
  readonly frameBytes: number;
  readonly sessions: number;
  readonly bridge: ChatFigures;
  readonly bareUws: ChatFigures;
  readonly nodeHttpWs: ChatFigures;
  readonly baseline?: ChatFigures;
  /** The bridge less its session actor, from the same build (bench/peers/bridge-no-session.ts). */
  readonly noSession?: ChatFigures;
  /** With `noSession`: what the session actor adds, repeat by repeat. */
  readonly sessionShare?: SessionShare;
  /** The same peer with XState's least chart in place of the session actor (`--session xstate`). */
  readonly xstateFloor?: ChatFigures;
  /** With `xstateFloor`: what XState's least chart adds over the plain peer, repeat by repeat. */
  readonly xstateShare?: SessionShare;
  /** Its shape with an invoke per turn, as the session's `calling` (`--session xstate-invoke`). */
  readonly xstateInvokeFloor?: ChatFigures;
  /** With `xstateInvokeFloor`: what that chart adds over the plain peer, repeat by repeat. */
  readonly xstateInvokeShare?: SessionShare;
  /** bridge minus peer, p50 and p99 */
  readonly overhead: {
    readonly p50VsBareUws: number;
    readonly p99VsBareUws: number;
    readonly p50VsNodeHttpWs: number;
    readonly p99VsNodeHttpWs: number;
  };
  /** bridge p99 ÷ peer p99 */
  readonly p99Ratio: { readonly toBareUws: number; readonly toNodeHttpWs: number };
}

export interface FanoutRow {
  readonly sessions: number;
  readonly audioBytes: number;
  readonly rounds: number;
  /** From writing the POST /sim/play_audio request to the last session holding the complete pair. */
  readonly last: LatencySummary;
  /** ... to the first session holding it. */
  readonly first: LatencySummary;
  /** ... to the POST's own response. */
  readonly postResponse: LatencySummary;
  readonly incompleteRounds: number;
  readonly problems: readonly string[];
  readonly serverCpuPercent: number;
  readonly clientCpuPercent: readonly number[];
}

export interface MemoryFigures {
  readonly idleRssBytes: number;
  readonly sessions: number;
  readonly withSessionsRssBytes: number;
  /** (withSessions − idle) / sessions: the first sessions, with the one-time growth they cause. */
  readonly perSessionBytes: number;
  /**
   * With as many sessions again on top: (RSS then − withSessions) / sessions, what each further idle
   * session costs once the process has grown to its working size (V8's young generation grows from 8 to
   * 32 MiB during the first ones, docs/performance.md). Absent from runs before 2026-11-26.
   */
  readonly nextSessionsRssBytes?: number;
  readonly nextPerSessionBytes?: number;
  /** The same process after the fan-out rounds, its 1,000 sessions still open. */
  readonly afterFanoutRssBytes?: number;
  /** The (other, fresh) process that ran scenarios 1 and 2, at their end (3 runs on processes of its own). */
  readonly afterAllRssBytes?: number;
}

/**
 * Time to first sound (scenario 6): one row per chat interface, way up and utterance length. Its latency
 * figures (samples, p50, p99, max, mean; ms) run from the end of speech, the moment the whole frame or the
 * last part was handed to the socket, to the first byte of the answer (its first pair's metadata).
 */
export interface TtfsRow extends LatencySummary {
  readonly chatInterface: 'service' | 'action';
  /** One binary frame once the visitor stopped (`whole`), or parts while they spoke (`streamed`). */
  readonly upload: 'whole' | 'streamed';
  /** The utterance's speech, at 16 kHz 16-bit mono (32 bytes a millisecond). */
  readonly utteranceMs: number;
  /** Bytes sent: the whole frame (a WAV file, or raw bytes), or the PCM of all parts. */
  readonly utteranceBytes: number;
  /** `streamed`: the audio in each part, and the time between parts (real time); 0 for `whole`. */
  readonly streamPartMs: number;
  /** The simulated recogniser's cost, `--sim_recognition_rt`: rt × the speech's duration. */
  readonly recognitionRt: number;
  /** The simulation's answer: `parts` parts `partMs` apart (--sim_chat_parts, --sim_part_ms). */
  readonly parts: number;
  readonly partMs: number;
  readonly turns: number;
  /**
   * What the bridge adds per part: a part's arrival (its complete pair) minus the simulation's model of it,
   * from the end of speech: the recognition still due (`whole`: rt × the utterance; `streamed`: rt × the
   * last part, the earlier ones done while it was spoken), then k × partMs (for `service` the one answer at
   * parts × partMs).
   */
  readonly addedPerPart: LatencySummary;
  /** Turns that did not end as `answered` with every part whole, in order (and, streamed, a final transcript). */
  readonly problems: readonly string[];
}

export interface TargetCheck {
  readonly target: string;
  readonly value: string;
  readonly met: boolean;
}

export interface Skipped {
  readonly skipped: string;
}

export interface BenchResults {
  readonly version: 1;
  readonly mode: 'full' | 'quick' | 'smoke';
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: MachineDescription;
  readonly quiet: { readonly before: QuietCheck; readonly after: QuietCheck };
  readonly settings: Readonly<Record<string, unknown>>;
  readonly scenarios: {
    readonly httpGet?: { readonly rows: readonly HttpGetRow[] } | Skipped;
    readonly httpWrite?: { readonly rows: readonly HttpWriteRow[] } | Skipped;
    readonly chat?: { readonly rows: readonly ChatRow[] };
    readonly fanout?: { readonly rows: readonly FanoutRow[] };
    readonly memory?: MemoryFigures;
    readonly ttfs?: { readonly rows: readonly TtfsRow[] };
    /** With `--compare`: fan-out and memory of the other build, on its own fresh process. */
    readonly baseline?: {
      readonly fanout?: { readonly rows: readonly FanoutRow[] };
      readonly memory?: MemoryFigures;
    };
  };
  readonly targets: readonly TargetCheck[];
  /** Later runs of some scenarios put into this file (`--merge`): the figures of those scenarios are theirs. */
  readonly merged?: readonly MergedRun[];
}

/** A run of some scenarios merged into a results file: which, when, on what machine load, with what settings. */
export interface MergedRun {
  readonly scenarios: readonly string[];
  readonly startedAt: string;
  readonly durationS: number;
  readonly quiet: { readonly before: QuietCheck; readonly after: QuietCheck };
  readonly settings: Readonly<Record<string, unknown>>;
}
