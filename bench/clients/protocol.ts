/**
 * Messages between the harness and its WebSocket load clients (child processes, IPC channel).
 * Times that cross processes are `process.hrtime.bigint()` values sent as strings: CLOCK_MONOTONIC,
 * one clock for every process on the machine, in nanoseconds.
 */

export interface ChatRunCommand {
  readonly cmd: 'chat';
  readonly url: string;
  readonly sessions: number;
  readonly frameBytes: number;
  /** The bridge greets each session with a `state` frame; the peers do not. */
  readonly expectGreeting: boolean;
  readonly warmupRoundTrips: number;
  /** Measured round trips per session and slice at most. */
  readonly roundTrips: number;
  /** The warm-up stops at this bound even when `warmupRoundTrips` were not all done. */
  readonly maxMs: number;
}

/**
 * One measured slice, sent to every client process at once so all sessions start together; a client
 * answers each with a result and keeps its sessions open for the next (at most MAX_CHAT_SLICES).
 */
export interface ChatGo {
  readonly cmd: 'go';
  /** Measuring stops at this bound even when `roundTrips` were not all done. */
  readonly maxMs: number;
}

export const MAX_CHAT_SLICES = 100;

export interface ChatReady {
  readonly type: 'ready';
}

export interface ChatResult {
  readonly type: 'result';
  /** Round-trip times of the measured round trips, in milliseconds. */
  readonly rtts: number[];
  readonly errors: string[];
  /** Share of one core this client process used while measuring (100 = one full core). */
  readonly cpuPercent: number;
  readonly wallMs: number;
}

export type FanoutCommand =
  | {
      readonly cmd: 'connect';
      readonly url: string;
      readonly count: number;
      readonly expectGreeting: boolean;
    }
  | { readonly cmd: 'close'; readonly count: number }
  /** Arms the next round: every open session must get one audio pair of `audioBytes`; answered `armed`. */
  | {
      readonly cmd: 'expect';
      readonly round: number;
      readonly audioBytes: number;
      readonly timeoutMs: number;
    }
  | { readonly cmd: 'cpu-start' }
  | { readonly cmd: 'cpu-stop' }
  | { readonly cmd: 'exit' };

export type FanoutReply =
  | { readonly type: 'connected'; readonly open: number }
  | { readonly type: 'closed'; readonly open: number }
  | { readonly type: 'armed'; readonly round: number }
  | {
      readonly type: 'received';
      readonly round: number;
      /** Sessions of this process that got the whole pair (metadata, then its binary frame). */
      readonly complete: number;
      readonly expected: number;
      /** hrtime (ns, as a string) when the first and the last of them had the binary frame. */
      readonly first: string;
      readonly last: string;
      readonly problems: string[];
    }
  | { readonly type: 'cpu'; readonly cpuPercent: number }
  | { readonly type: 'error'; readonly message: string };

/** A mask of zeros: ws then skips the XOR, so the load client spends its CPU on the socket, not masking. */
export const zeroMask = (mask: Buffer): void => {
  mask.fill(0);
};
