import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** A child process whose last output lines are kept (bounded) for the failure report. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last lines of stdout and stderr, interleaved. */
  recentOutput(): string;
  /** How much output there was so far: pass it to waitFor to look only at what comes later. */
  mark(): number;
  /**
   * Resolves with the first match of `pattern` in the output (from the `since` mark on, if given),
   * or rejects after `timeoutMs` or on exit.
   */
  waitFor(pattern: RegExp, what: string, timeoutMs: number, since?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves with the exit code (null when ended by a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
}

const KEPT_LINES = 200;

export const startChild = (
  name: string,
  argv: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    /** Every line of output is also appended here (for the report of a failed run). */
    logFile?: string;
  },
): Child => {
  const [command, ...args] = argv;
  if (command === undefined) throw new Error(`${name}: empty command`);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let all = '';
  /** Characters received in all; `all` holds the last ones. */
  let total = 0;
  const listeners = new Set<() => void>();
  const log = options.logFile === undefined ? undefined : createWriteStream(options.logFile, { flags: 'a' });
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    log?.write(text);
    // Only a bounded tail is searched and kept.
    total += text.length;
    all = (all + text).slice(-256 * 1024);
    for (const line of text.split('\n')) if (line !== '') lines.push(line);
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // 'close': the process is gone and its output streams are drained, so nothing is written after end().
  const exited = once(child, 'close').then(([code]) => {
    log?.end();
    return code as number | null;
  });
  let stopping: Promise<void> | undefined;

  return {
    name,
    process: child,
    exited,
    recentOutput: () => lines.map((line) => `[${name}] ${line}`).join('\n'),
    mark: () => total,
    waitFor: (pattern, what, timeoutMs, since = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(all.slice(Math.max(0, since - (total - all.length))));
          if (match !== null)
            finish(() => {
              resolve(match);
            });
        };
        const onExit = () => {
          finish(() => {
            reject(new Error(`${name} exited while waiting for ${what}`));
          });
        };
        const timer = setTimeout(() => {
          finish(() => {
            reject(new Error(`${name}: no ${what} within ${timeoutMs} ms`));
          });
        }, timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
          settle();
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
        if (child.exitCode !== null || child.signalCode !== null) onExit();
      }),
    stop: (graceMs = 5_000) =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })()),
  };
};
