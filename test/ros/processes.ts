import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A child process whose last output lines are kept (bounded) for the failure report. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last lines of stdout and stderr, interleaved. */
  recentOutput(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects after `timeoutMs` or on exit. */
  waitFor(pattern: RegExp, what: string, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const KEPT_LINES = 200;

export const startChild = (
  name: string,
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
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
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    // Only a bounded tail is searched and kept.
    all = (all + text).slice(-256 * 1024);
    for (const line of text.split('\n')) if (line !== '') lines.push(line);
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = once(child, 'exit').then(() => undefined);
  let stopping: Promise<void> | undefined;

  return {
    name,
    process: child,
    recentOutput: () => lines.map((line) => `[${name}] ${line}`).join('\n'),
    waitFor: (pattern, what, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(all);
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
