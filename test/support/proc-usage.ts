import { readdirSync, readFileSync } from 'node:fs';

/** A process's resident set size (VmRSS), in bytes. */
export const rssOf = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for ${String(pid)}`);
  return Number(match[1]) * 1024;
};

/**
 * CPU time each thread of a process has run so far, in nanoseconds, by thread id (the first field of
 * /proc/<pid>/task/<tid>/schedstat). Nanoseconds, not /proc/<pid>/stat's 10 ms clock ticks: an idle
 * bridge's budget is 20 ms per 10 s.
 */
export const threadCpuNs = (pid: number): Map<string, number> => {
  const times = new Map<string, number>();
  for (const thread of readdirSync(`/proc/${String(pid)}/task`)) {
    try {
      const fields = readFileSync(`/proc/${String(pid)}/task/${thread}/schedstat`, 'utf8').split(' ');
      times.set(thread, Number(fields[0]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
};

/** CPU time the process spent between two readings of threadCpuNs (threads started since count from 0). */
export const cpuSecondsBetween = (before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>) =>
  [...after].reduce((sum, [thread, ns]) => sum + ns - (before.get(thread) ?? 0), 0) / 1e9;

/** The threads that ran longest between two readings, as `name:ms` (the kernel's thread names). */
export const busiestThreads = (
  pid: number,
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  count = 4,
): string =>
  [...after]
    .map(([thread, ns]) => {
      let name = thread;
      try {
        name = readFileSync(`/proc/${String(pid)}/task/${thread}/comm`, 'utf8').trim();
      } catch {
        // ended meanwhile: its id stands for it
      }
      return { name, ms: (ns - (before.get(thread) ?? 0)) / 1e6 };
    })
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map(({ name, ms }) => `${name}:${ms.toFixed(1)}`)
    .join(',');
