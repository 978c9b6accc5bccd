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

export interface ChatFigures extends LatencySummary {
  readonly roundTripsPerS: number;
  readonly serverCpuPercent: number;
  /** Server CPU time per round trip (µs). */
  readonly serverCpuUsPerRoundTrip: number;
  readonly clientCpuPercent: readonly number[];
  readonly errors: readonly string[];
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
  /** The (other, fresh) process that ran scenarios 1 to 3, at their end. */
  readonly afterAllRssBytes?: number;
}

/** Time to first sound with one chat interface (scenario 6). */
export interface TtfsRow {
  readonly chatInterface: 'service' | 'action';
  readonly utteranceBytes: number;
  readonly parts: number;
  readonly partMs: number;
  readonly turns: number;
  /** From the utterance's last byte handed to the socket to the first byte of the answer (its first pair). */
  readonly firstByte: LatencySummary;
  /**
   * What the bridge adds per part: a part's arrival (its complete pair) minus the time the simulation
   * scheduled it (last byte sent + k × partMs; for `service` the one answer at parts × partMs).
   */
  readonly addedPerPart: LatencySummary;
  /** Turns that did not end as `answered` with every part whole, in order. */
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
}
