import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { imageLaunch } from './image-launch.js';
import { rssOf } from './proc-usage.js';

/**
 * The real service as its own process (sim backend, loopback, ephemeral port), so a test can read the
 * server's own memory (/proc/<pid>/status) apart from the clients'.
 */
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times. */
const CLOCK_TICKS_PER_SECOND = 100;

export interface ServerProcess {
  readonly baseUrl: string;
  readonly wsUrl: string;
  /** What the server printed on stdout up to the line saying it listens (its start-up log). */
  readonly startupLog: string;
  /** All it printed on stdout so far when started with `keepLog`; otherwise the start-up log. */
  log(): string;
  /** Resident set size of the server process, in bytes. */
  rssBytes(): number;
  /** CPU time the server process has used so far (user and system), in milliseconds. */
  cpuMs(): number;
  /** Times any of the server's threads has gone to sleep so far (voluntary context switches, summed). */
  wakeups(): number;
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL: no handler runs) and waits for it to be gone. */
  crash(): Promise<void>;
}

export const startServerProcess = async (
  args: readonly string[] = [],
  {
    timeoutMs = 20_000,
    env = {},
    node = process.execPath,
    asTheImageRuns = false,
    keepLog = false,
  }: {
    timeoutMs?: number;
    env?: Record<string, string>;
    node?: string;
    /**
     * Start through the image's launcher (docker/node-runtime.sh: its Node.js flags, such as `--expose-gc`
     * for the quiet-time collection, and its environment), for checks of what memory the service gives back.
     */
    asTheImageRuns?: boolean;
    /** Keep what the server prints after start-up too, for log(). */
    keepLog?: boolean;
  } = {},
): Promise<ServerProcess> => {
  const nodeArgs = [
    '--import',
    'tsx',
    'src/server.ts',
    '--backend',
    'sim',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    ...args,
  ];
  const launch = asTheImageRuns
    ? imageLaunch('.', node, nodeArgs, process.env)
    : { argv: [node, ...nodeArgs], env: process.env };
  const [command, ...commandArgs] = launch.argv;
  const child: ChildProcessWithoutNullStreams = spawn(command!, commandArgs, {
    stdio: 'pipe',
    env: { ...launch.env, ...env },
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms: ${output}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"msg":"listening[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"listening/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1] ?? match[2]));
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited early: ${output}`));
    });
  });
  const startupLog = output;
  child.stdout.removeAllListeners('data');
  if (keepLog) {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  child.stdout.resume();
  child.stderr.resume();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    startupLog,
    log: () => output,
    rssBytes: () => rssOf(child.pid ?? 0),
    cpuMs: () => {
      // Fields 14 and 15 of /proc/<pid>/stat (after the command name): utime and stime, in clock ticks.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
    },
    wakeups: () =>
      readdirSync(`/proc/${child.pid}/task`).reduce((sum, thread) => {
        try {
          const status = readFileSync(`/proc/${child.pid}/task/${thread}/status`, 'utf8');
          return sum + Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
        } catch {
          return sum; // the thread ended between the listing and the read
        }
      }, 0),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    crash: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
};
