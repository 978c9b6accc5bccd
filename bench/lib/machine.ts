import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** What the numbers were measured on; written into results.json next to them. */
export interface MachineDescription {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly kernel: string;
  readonly os: string;
  readonly node: string;
  readonly v8: string;
  readonly uws: string;
  readonly wrk: string | null;
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const osName = (): string => {
  const release = readText('/etc/os-release');
  const pretty = release === undefined ? undefined : /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1];
  return pretty ?? `${os.type()} ${os.release()}`;
};

export const describeMachine = (wrkVersion: string | null, uwsVersion: string): MachineDescription => ({
  cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
  cores: os.availableParallelism(),
  memoryBytes: os.totalmem(),
  kernel: `${os.type()} ${os.release()} ${os.machine()}`,
  os: osName(),
  node: process.version,
  v8: process.versions.v8,
  uws: uwsVersion,
  wrk: wrkVersion,
});

/** Processes whose presence makes numbers on a small machine meaningless (builds, browsers, other load). */
const HEAVY =
  /^(colcon|cmake|cc1plus|cc1|make|ninja|g\+\+|gcc|ld|rustc|cargo|chrom(e|ium)|wrk|autocannon|k6)$/;

export interface QuietCheck {
  readonly loadAverage1m: number;
  /** Heavy processes running when the check was made (name and pid), other than our own children. */
  readonly heavyProcesses: readonly string[];
  readonly quiet: boolean;
}

/**
 * Before a run, quiet means no heavy process and a low load average. After a run the load average is the
 * run's own (server, wrk and clients on every core), so only other heavy processes count (`afterRun`).
 */
export const checkQuiet = (ownPids: ReadonlySet<number> = new Set(), afterRun = false): QuietCheck => {
  const heavy: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    // not Linux: no process scan
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || ownPids.has(Number(entry))) continue;
    const comm = readText(`/proc/${entry}/comm`)?.trim();
    if (comm !== undefined && HEAVY.test(comm)) heavy.push(`${comm}(${entry})`);
  }
  const loadAverage1m = os.loadavg()[0] ?? 0;
  return {
    loadAverage1m,
    heavyProcesses: heavy,
    quiet: heavy.length === 0 && (afterRun || loadAverage1m < 1),
  };
};

/** Resident set size of a process, from /proc/<pid>/status (VmRSS), in bytes. */
export const readRssBytes = (pid: number): number => {
  const status = readText(`/proc/${pid}/status`);
  const kib = status === undefined ? undefined : /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`cannot read VmRSS of process ${pid}`);
  return Number(kib) * 1024;
};

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux architecture Node supports

/** CPU time a process has used so far, in milliseconds: in its own code (user) and in the kernel's. */
export interface CpuTimesMs {
  readonly userMs: number;
  readonly systemMs: number;
}

/** CPU time a process has used so far, from /proc/<pid>/stat; NaN once it is gone. */
export const readCpuTimesMs = (pid: number): CpuTimesMs => {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return { userMs: Number.NaN, systemMs: Number.NaN };
  // The command name (field 2) may contain spaces; fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    userMs: (Number(fields[11]) * 1000) / TICKS_PER_SECOND,
    systemMs: (Number(fields[12]) * 1000) / TICKS_PER_SECOND,
  };
};

/** CPU time (user + system) a process has used so far, in milliseconds. */
const readCpuMs = (pid: number): number => {
  const { userMs, systemMs } = readCpuTimesMs(pid);
  return userMs + systemMs;
};

/** Measures the share of one core a process used while `work` ran (100 = one full core). */
export const measureCpu = async <T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; cpuPercent: number }> => {
  const cpuBefore = readCpuMs(pid);
  const started = performance.now();
  const result = await work();
  const elapsed = performance.now() - started;
  return { result, cpuPercent: ((readCpuMs(pid) - cpuBefore) / elapsed) * 100 };
};
