import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type {
  ChatGo,
  ChatReady,
  ChatResult,
  ChatRunCommand,
  FanoutCommand,
  FanoutReply,
} from '../clients/protocol.js';
import { readCpuTimesMs } from './machine.js';
import { ROOT, trackChild } from './processes.js';
import { summarize, type LatencySummary } from './stats.js';

const forkClient = (script: string): ChildProcess => {
  const child = fork(join(ROOT, 'bench', 'clients', script), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  trackChild(child);
  return child;
};

/** The next IPC message of `child` that `accept` takes, bounded by `timeoutMs`. */
const nextMessage = <T>(
  child: ChildProcess,
  accept: (message: unknown) => message is T,
  timeoutMs: number,
  what: string,
): Promise<T> =>
  new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (accept(message)) {
        cleanup();
        resolve(message);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`load client exited (${code}) while waiting for ${what}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`load client: no ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });

const hasType =
  <T extends { type: string }>(type: T['type']) =>
  (message: unknown): message is T =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** Splits `total` into `parts` near-equal positive counts. */
export const split = (total: number, parts: number): number[] => {
  const count = Math.max(1, Math.min(parts, total));
  return Array.from(
    { length: count },
    (_, index) => Math.floor(total / count) + (index < total % count ? 1 : 0),
  );
};

export interface ChatOutcome {
  readonly latency: LatencySummary;
  readonly roundTripsPerS: number;
  /** Per client process, share of one core (100 = saturated). */
  readonly clientCpuPercent: number[];
  readonly errors: string[];
  /**
   * The server's CPU while the measured round trips ran (from `go` to the last result), share of one core;
   * the warm-up and the clients' start and end are left out.
   */
  readonly serverCpuPercent: number;
  /** The same, µs per measured round trip. */
  readonly serverCpuUsPerRoundTrip: number;
  /**
   * Of it, the server's own code (user time), µs per measured round trip; the rest is the kernel's (the
   * socket writes and reads, page faults), which varies more from run to run on a shared VM.
   */
  readonly serverUserUsPerRoundTrip: number;
  /** What the figures above are made of, so that runs can be put together (joinChatOutcomes). */
  readonly measured: {
    readonly rtts: readonly number[];
    readonly serverCpuMs: number;
    readonly serverUserCpuMs: number;
    readonly measuredMs: number;
    readonly wallMs: number;
  };
}

/** The figures of one server's round trips and CPU over several measured runs, as one run's. */
export const joinChatOutcomes = (outcomes: readonly ChatOutcome[]): ChatOutcome => {
  const rtts = outcomes.flatMap((outcome) => outcome.measured.rtts);
  const total = (read: (outcome: ChatOutcome) => number) =>
    outcomes.reduce((sum, outcome) => sum + read(outcome), 0);
  const serverCpuMs = total((outcome) => outcome.measured.serverCpuMs);
  const serverUserCpuMs = total((outcome) => outcome.measured.serverUserCpuMs);
  const measuredMs = total((outcome) => outcome.measured.measuredMs);
  const wallMs = total((outcome) => outcome.measured.wallMs);
  const clients = outcomes[0]?.clientCpuPercent.length ?? 0;
  return chatOutcome(
    { rtts, serverCpuMs, serverUserCpuMs, measuredMs, wallMs },
    // Each client process's share of a core over the runs, weighted by their lengths.
    Array.from({ length: clients }, (_, index) =>
      wallMs > 0
        ? total((outcome) => (outcome.clientCpuPercent[index] ?? 0) * outcome.measured.wallMs) / wallMs
        : 0,
    ),
    outcomes.flatMap((outcome) => outcome.errors),
  );
};

/** A run's figures from what was measured. */
const chatOutcome = (
  measured: ChatOutcome['measured'],
  clientCpuPercent: number[],
  errors: string[],
): ChatOutcome => {
  const { rtts, serverCpuMs, serverUserCpuMs, measuredMs, wallMs } = measured;
  return {
    serverCpuPercent: measuredMs > 0 ? (serverCpuMs / measuredMs) * 100 : 0,
    serverCpuUsPerRoundTrip: rtts.length > 0 ? (serverCpuMs * 1000) / rtts.length : 0,
    serverUserUsPerRoundTrip: rtts.length > 0 ? (serverUserCpuMs * 1000) / rtts.length : 0,
    latency: summarize(rtts),
    roundTripsPerS: wallMs > 0 ? (rtts.length / wallMs) * 1000 : 0,
    clientCpuPercent,
    errors,
    measured,
  };
};

/** What each client process is told, plus how many processes share the sessions and the server's pid. */
export type ChatOptions = Omit<ChatRunCommand, 'cmd'> & {
  readonly processes: number;
  readonly serverPid: number;
};

/** A chat load whose sessions stay connected and warm between its measured slices. */
export interface ChatLoad {
  /** One measured slice of at most `maxMs`, every client process starting together. */
  measure(maxMs: number): Promise<ChatOutcome>;
  close(): void;
}

/**
 * Starts the chat round-trip load in `processes` client processes: their sessions connect and warm up
 * (`warmupRoundTrips` each, within `maxMs`), then wait for each `measure`.
 */
export const openChatLoad = async (options: ChatOptions): Promise<ChatLoad> => {
  const shares = split(options.sessions, options.processes);
  const clients = shares.map(() => forkClient('chat-client.ts'));
  const close = (): void => {
    for (const client of clients) if (client.connected) client.kill();
  };
  try {
    const ready = clients.map((client) => nextMessage(client, hasType<ChatReady>('ready'), 60_000, 'ready'));
    clients.forEach((client, index) => {
      const command: ChatRunCommand = {
        cmd: 'chat',
        url: options.url,
        sessions: shares[index] ?? 1,
        frameBytes: options.frameBytes,
        expectGreeting: options.expectGreeting,
        warmupRoundTrips: options.warmupRoundTrips,
        roundTrips: options.roundTrips,
        maxMs: options.maxMs,
      };
      client.send(command);
    });
    await Promise.all(ready);
  } catch (error) {
    close();
    throw error;
  }
  const measure = async (maxMs: number): Promise<ChatOutcome> => {
    const results = clients.map((client) =>
      nextMessage(client, hasType<ChatResult>('result'), maxMs + 60_000, 'result'),
    );
    const go: ChatGo = { cmd: 'go', maxMs };
    const serverCpuBefore = readCpuTimesMs(options.serverPid);
    const measuringSince = performance.now();
    for (const client of clients) client.send(go);
    const outcomes = await Promise.all(results);
    const serverCpuAfter = readCpuTimesMs(options.serverPid);
    const serverUserCpuMs = serverCpuAfter.userMs - serverCpuBefore.userMs;
    const serverCpuMs = serverUserCpuMs + serverCpuAfter.systemMs - serverCpuBefore.systemMs;
    const measuredMs = performance.now() - measuringSince;
    const rtts = outcomes.flatMap((outcome) => outcome.rtts);
    const wallMs = Math.max(...outcomes.map((outcome) => outcome.wallMs));
    return chatOutcome(
      { rtts, serverCpuMs, serverUserCpuMs, measuredMs, wallMs },
      outcomes.map((outcome) => outcome.cpuPercent),
      outcomes.flatMap((outcome) => outcome.errors),
    );
  };
  return { measure, close };
};

export interface RoundResult {
  /** Sessions that got the complete pair, of those open. */
  readonly complete: number;
  readonly expected: number;
  /** ns (CLOCK_MONOTONIC) when the first and the last session had the complete pair. */
  readonly first: bigint;
  readonly last: bigint;
  readonly problems: string[];
}

/** Idle kiosk sessions held by a few client processes, for the fan-out and memory scenarios. */
export class KioskFleet {
  private readonly clients: ChildProcess[];
  private open: number[];

  constructor(processes: number) {
    this.clients = Array.from({ length: processes }, () => forkClient('fanout-client.ts'));
    this.open = this.clients.map(() => 0);
  }

  get sessions(): number {
    return this.open.reduce((sum, count) => sum + count, 0);
  }

  private async each<T extends FanoutReply>(
    commands: (index: number) => FanoutCommand | undefined,
    type: T['type'],
    timeoutMs: number,
  ): Promise<(T | undefined)[]> {
    return Promise.all(
      this.clients.map((client, index) => {
        const command = commands(index);
        if (command === undefined) return Promise.resolve(undefined);
        const isError = hasType<Extract<FanoutReply, { type: 'error' }>>('error');
        const answer = nextMessage(
          client,
          (message: unknown): message is T | Extract<FanoutReply, { type: 'error' }> =>
            hasType<T>(type)(message) || isError(message),
          timeoutMs,
          type,
        ).then((message) => {
          if (isError(message)) throw new Error(`load client: ${message.message}`);
          return message;
        });
        client.send(command);
        return answer;
      }),
    );
  }

  /** Grows the fleet to `total` open sessions, spread evenly over the processes. */
  async resize(url: string, total: number): Promise<void> {
    const target = split(total, this.clients.length);
    while (target.length < this.clients.length) target.push(0);
    const shrink = await this.each<Extract<FanoutReply, { type: 'closed' }>>(
      (index) => {
        const surplus = (this.open[index] ?? 0) - (target[index] ?? 0);
        return surplus > 0 ? { cmd: 'close', count: surplus } : undefined;
      },
      'closed',
      30_000,
    );
    const grow = await this.each<Extract<FanoutReply, { type: 'connected' }>>(
      (index) => {
        const missing = (target[index] ?? 0) - (this.open[index] ?? 0);
        return missing > 0 ? { cmd: 'connect', url, count: missing, expectGreeting: true } : undefined;
      },
      'connected',
      60_000,
    );
    this.open = this.open.map((count, index) => grow[index]?.open ?? shrink[index]?.open ?? count);
    if (this.sessions !== total) throw new Error(`wanted ${total} sessions, have ${this.sessions}`);
  }

  /** Arms every process, runs `publish`, and waits until every session had the pair (or the time-out). */
  async round(
    round: number,
    audioBytes: number,
    timeoutMs: number,
    publish: () => Promise<void>,
  ): Promise<RoundResult> {
    const active = (index: number) => (this.open[index] ?? 0) > 0;
    await this.each(
      (index) => (active(index) ? { cmd: 'expect', round, audioBytes, timeoutMs } : undefined),
      'armed',
      10_000,
    );
    const answers = Promise.all(
      this.clients.map((client, index) =>
        active(index)
          ? nextMessage(
              client,
              (message: unknown): message is Extract<FanoutReply, { type: 'received' }> =>
                hasType<Extract<FanoutReply, { type: 'received' }>>('received')(message) &&
                (message as { round: number }).round === round,
              timeoutMs + 10_000,
              'received',
            )
          : Promise.resolve(undefined),
      ),
    );
    await publish();
    const replies = (await answers).filter((reply) => reply !== undefined);
    const firsts = replies.filter((reply) => reply.complete > 0).map((reply) => BigInt(reply.first));
    const lasts = replies.filter((reply) => reply.complete > 0).map((reply) => BigInt(reply.last));
    return {
      complete: replies.reduce((sum, reply) => sum + reply.complete, 0),
      expected: replies.reduce((sum, reply) => sum + reply.expected, 0),
      first: firsts.reduce((min, value) => (value < min ? value : min), firsts[0] ?? 0n),
      last: lasts.reduce((max, value) => (value > max ? value : max), 0n),
      problems: replies.flatMap((reply) => reply.problems),
    };
  }

  /** Share of one core each client process used between `cpuStart` and `cpuStop`. */
  async cpuStart(): Promise<void> {
    await this.each(
      (index) => ((this.open[index] ?? 0) > 0 ? { cmd: 'cpu-start' } : undefined),
      'cpu',
      10_000,
    );
  }

  async cpuStop(): Promise<number[]> {
    const replies = await this.each<Extract<FanoutReply, { type: 'cpu' }>>(
      (index) => ((this.open[index] ?? 0) > 0 ? { cmd: 'cpu-stop' } : undefined),
      'cpu',
      10_000,
    );
    return replies.flatMap((reply) => (reply === undefined ? [] : [reply.cpuPercent]));
  }

  close(): void {
    for (const client of this.clients) {
      if (client.connected) client.send({ cmd: 'exit' } satisfies FanoutCommand);
      setTimeout(() => client.kill('SIGKILL'), 5_000).unref();
    }
  }
}
