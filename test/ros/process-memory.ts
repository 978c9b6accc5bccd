import { readFileSync } from 'node:fs';

/**
 * What a process's resident memory is, in bytes, from /proc/<pid>/status: VmRSS and the kernel's split of
 * it. `anon` is the heap, stacks and malloc arenas, what the bridge's own work changes; `file` is mapped
 * files (the `node` binary and shared libraries: clean pages, shared with other processes and reclaimable);
 * `shmem` is shared memory. The kernel counts VmRSS as their sum.
 */
export interface ProcessMemory {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly shmem: number;
}

const KIB = 1024;

/** Reads the four fields from the text of a /proc/<pid>/status file. */
export const parseStatusMemory = (status: string): ProcessMemory => {
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (match === null) throw new Error(`no ${name} in /proc/<pid>/status`);
    return Number(match[1]) * KIB;
  };
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
};

/** The resident memory of process `pid` (or of this process: 'self') now. */
export const memoryOf = (pid: number | 'self'): ProcessMemory =>
  parseStatusMemory(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/**
 * The `footprint:` line's fields for one reading, e.g. `rss_idle_mib=91.4 anon_idle_mib=40.2
 * file_idle_mib=51.2` (shmem only when there is any: the bridge maps none).
 */
export const memoryFields = (when: string, memory: ProcessMemory): string =>
  [
    `rss_${when}_mib=${mib(memory.rss)}`,
    `anon_${when}_mib=${mib(memory.anon)}`,
    `file_${when}_mib=${mib(memory.file)}`,
    ...(memory.shmem > 0 ? [`shmem_${when}_mib=${mib(memory.shmem)}`] : []),
  ].join(' ');
