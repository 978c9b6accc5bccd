import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { imageLaunch } from '../support/image-launch.js';

/**
 * The bridge as the image runs it, for the checks whose figure depends on how the process runs (memory):
 * the compiled `dist/src/server.js` (tsx's loader thread and its compiled sources cost about 30 MiB of
 * RSS, docs/performance.md), started through docker/node-runtime.sh, the one place that names the
 * image's Node.js flags and environment, so the test runs exactly what ships.
 */

export const SHIPPED_SERVER = 'dist/src/server.js';

/**
 * The command and environment that start the shipped bridge with the Node.js binary `node`, `nodeFlags`
 * after the launcher's own; the bridge's options follow. Run it in `repo`.
 */
export const shippedBridgeLaunch = (
  repo: string,
  node: string,
  nodeFlags: readonly string[],
  env: NodeJS.ProcessEnv,
): { argv: string[]; env: NodeJS.ProcessEnv } => imageLaunch(repo, node, [...nodeFlags, SHIPPED_SERVER], env);

/** The environment variables that change how Node.js, V8, libuv or glibc's allocator run a process. */
export const RUNTIME_VARIABLE = /^(?:MALLOC_\w+|NODE_OPTIONS|UV_THREADPOOL_SIZE)$/;

/** How a running Node.js process was started: its flags before the entry script, and its runtime variables. */
export interface NodeRuntime {
  readonly nodeFlags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Reads a NodeRuntime from the NUL-separated texts of /proc/<pid>/cmdline and /proc/<pid>/environ; the
 * flags are the arguments between the binary and the first that ends with `entry`.
 */
export const parseNodeRuntime = (cmdline: string, environ: string, entry: string): NodeRuntime => {
  const [, ...args] = cmdline.split('\0').filter((part) => part !== '');
  const entryAt = args.findIndex((arg) => arg.endsWith(entry));
  return {
    nodeFlags: entryAt < 0 ? [] : args.slice(0, entryAt),
    env: Object.fromEntries(
      environ
        .split('\0')
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const)
        .filter(([name]) => RUNTIME_VARIABLE.test(name))
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
  };
};

/** What process `pid`, running the script `entry`, was started with. */
export const nodeRuntimeOf = (pid: number, entry: string): NodeRuntime =>
  parseNodeRuntime(
    readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8'),
    readFileSync(`/proc/${String(pid)}/environ`, 'utf8'),
    entry,
  );

/** A NodeRuntime in one word each, for a report line: `node_flags=--expose-gc env=MALLOC_MMAP_THRESHOLD_=131072`. */
export const describeNodeRuntime = ({ nodeFlags, env }: NodeRuntime): string =>
  `node_flags=${nodeFlags.join(',') || 'none'} env=${
    Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join(',') || 'none'
  }`;

const newestUnder = (directory: string): number =>
  readdirSync(directory, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(directory, entry.name);
    const time = entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs;
    return Math.max(newest, time);
  }, 0);

/**
 * Makes sure `dist/` holds the service compiled from this `src/` (`tsc -p tsconfig.build.json` when it is
 * missing or older than a source file). Returns what went wrong, or undefined.
 */
export const ensureShippedBuild = (repo: string, timeoutMs: number): string | undefined => {
  const server = join(repo, SHIPPED_SERVER);
  if (existsSync(server) && statSync(server).mtimeMs >= newestUnder(join(repo, 'src'))) return undefined;
  const build = spawnSync(
    process.execPath,
    [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: repo, encoding: 'utf8', timeout: timeoutMs },
  );
  if (build.status === 0) return undefined;
  return `compiling the service (tsc -p tsconfig.build.json) failed: ${
    (build.stdout + build.stderr).trim().split('\n').slice(0, 5).join(' | ') ||
    (build.error?.message ?? `status ${String(build.status)}`)
  }`;
};
