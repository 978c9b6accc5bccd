import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from './log.js';
import { ROOT, trackChild } from './processes.js';

export const WRK_DIR = join(ROOT, 'bench', 'wrk');

const wrkVersion = (): string | null => {
  const result = spawnSync('wrk', ['-v'], { encoding: 'utf8', timeout: 5_000 });
  if (result.error !== undefined) return null;
  // `wrk -v` prints "wrk 4.1.0 [epoll] Copyright ..." and exits 1.
  const match = /wrk (\S+)/.exec(`${result.stdout}${result.stderr}`);
  return match?.[1] ?? 'unknown';
};

const isDebian = (): boolean => existsSync('/etc/debian_version');

const run = (command: string, args: string[], timeoutMs: number): boolean => {
  log(`${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: timeoutMs,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
};

export type WrkAvailability =
  | { readonly available: true; readonly version: string }
  | { readonly available: false; readonly reason: string };

/**
 * wrk (C, one event loop per thread) generates HTTP load without becoming the bottleneck on a small
 * machine, which a Node generator does. Installed from the distribution when missing and allowed.
 */
export const ensureWrk = (options: { install: boolean }): WrkAvailability => {
  const found = wrkVersion();
  if (found !== null) return { available: true, version: found };
  const howTo =
    'install wrk (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk) or run as root on Debian, where the bench installs it';
  if (!options.install) return { available: false, reason: `wrk is not installed; ${howTo}` };
  const root = process.getuid?.() === 0;
  if (!root || !isDebian()) {
    return {
      available: false,
      reason: `wrk is not installed and this is not root on Debian, so the bench cannot install it; ${howTo}`,
    };
  }
  if (!run('apt-get', ['update'], 300_000) || !run('apt-get', ['install', '-y', 'wrk'], 300_000)) {
    return { available: false, reason: 'apt-get install -y wrk failed (see its output above)' };
  }
  const installed = wrkVersion();
  return installed === null
    ? { available: false, reason: 'wrk still not found after apt-get install' }
    : { available: true, version: installed };
};

/** What one wrk run measured (latencies in milliseconds). */
export interface WrkResult {
  readonly requests: number;
  readonly durationS: number;
  readonly rps: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly statuses: Readonly<Record<string, number>>;
  /** Share of one core wrk itself used (user + system over wall time): 100 × threads means saturated. */
  readonly wrkCpuPercent: number;
  readonly extra: Readonly<Record<string, number>>;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p90_us: number;
  p99_us: number;
  p999_us: number;
  max_us: number;
  mean_us: number;
  errors: Record<string, number>;
  statuses: Record<string, number>;
  [key: string]: unknown;
}

export interface WrkRun {
  readonly url: string;
  readonly script: 'get.lua' | 'post-delete.lua';
  readonly connections: number;
  readonly threads: number;
  readonly seconds: number;
  readonly scriptArgs?: readonly string[];
}

/**
 * Runs wrk under bash's `time`, so its own CPU use is known: a generator near 100 % of its threads
 * would be measuring itself, not the server.
 */
export const runWrk = (options: WrkRun): Promise<WrkResult> => {
  const args = [
    '-t',
    String(options.threads),
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--timeout',
    '5s',
    '-s',
    join(WRK_DIR, options.script),
    options.url,
    ...(options.scriptArgs === undefined ? [] : ['--', ...options.scriptArgs]),
  ];
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const script = `TIMEFORMAT='BENCH_TIME %R %U %S'; time wrk ${quoted}`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      env: { ...process.env, BENCH_WRK_DIR: WRK_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), (options.seconds + 30) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const json = /^BENCH_JSON (.*)$/m.exec(stdout)?.[1];
      const time = /BENCH_TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || json === undefined || time === null) {
        reject(new Error(`wrk failed (exit ${code}): ${stderr.trim()} ${stdout.trim()}`.slice(0, 2_000)));
        return;
      }
      const parsed = JSON.parse(json) as WrkJson;
      const [, real, user, system] = time.map(Number) as [number, number, number, number];
      const durationS = parsed.duration_us / 1e6;
      const known = new Set([
        'requests',
        'duration_us',
        'bytes',
        'p50_us',
        'p90_us',
        'p99_us',
        'p999_us',
        'max_us',
        'mean_us',
        'errors',
        'statuses',
      ]);
      const extra = Object.fromEntries(
        Object.entries(parsed).filter(
          (entry): entry is [string, number] => !known.has(entry[0]) && typeof entry[1] === 'number',
        ),
      );
      resolve({
        requests: parsed.requests,
        durationS,
        rps: parsed.requests / durationS,
        p50: parsed.p50_us / 1000,
        p90: parsed.p90_us / 1000,
        p99: parsed.p99_us / 1000,
        p999: parsed.p999_us / 1000,
        max: parsed.max_us / 1000,
        mean: parsed.mean_us / 1000,
        errors: parsed.errors,
        statuses: parsed.statuses,
        wrkCpuPercent: real > 0 ? ((user + system) / real) * 100 : Number.NaN,
        extra,
      });
    });
  });
};

/** The Lua scripts are part of the harness: fail early with a clear message when one is missing. */
export const checkWrkScripts = (): void => {
  for (const script of ['get.lua', 'post-delete.lua', 'report.lua']) {
    readFileSync(join(WRK_DIR, script));
  }
};
