import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';

/**
 * The bridge as the image runs it, for the checks whose figure depends on how the process runs (memory):
 * the compiled `dist/src/server.js` (tsx's loader thread and its compiled sources cost about 30 MiB of
 * RSS, docs/performance.md) with the allocator settings of the image's runtime stage (`MALLOC_*` in the
 * Dockerfile's ENV) and the Node.js flags of its entrypoint, read from the Dockerfile and the entrypoint
 * themselves so the test cannot drift from what ships.
 */

export const SHIPPED_SERVER = 'dist/src/server.js';

/**
 * The `MALLOC_*` variables the Dockerfile's last stage sets. None inside the image, which holds no
 * Dockerfile: there the image's ENV is this process's environment already, and the bridge inherits it.
 */
export const imageAllocatorEnv = (repo: string): Record<string, string> => {
  const path = join(repo, 'Dockerfile');
  if (!existsSync(path)) return {};
  const dockerfile = DockerfileParser.parse(readFileSync(path, 'utf8'));
  const lastStage = dockerfile.getFROMs().at(-1)?.getRange().start.line ?? 0;
  return Object.fromEntries(
    dockerfile
      .getENVs()
      .filter((env) => env.getRange().start.line > lastStage)
      .flatMap((env) => env.getProperties().map((p) => [p.getName(), p.getValue() ?? ''] as const))
      .filter(([name]) => name.startsWith('MALLOC_')),
  );
};

/** Where the entrypoint is: the checkout's script, or inside the image where the Dockerfile copies it. */
const ENTRYPOINTS = ['docker/entrypoint.sh', '/usr/local/bin/tour-bridge-entrypoint'] as const;

/** The flags the image's entrypoint gives Node.js before `dist/src/server.js` (`--expose-gc`). */
export const imageNodeFlags = (repo: string): string[] => {
  const path = ENTRYPOINTS.map((entry) => (entry.startsWith('/') ? entry : join(repo, entry))).find(
    existsSync,
  );
  if (path === undefined) return [];
  const command = /^\s*exec node((?:\s+--[\w-]+(?:=\S+)?)*)\s+"[^"]*\/dist\/src\/server\.js"/m.exec(
    readFileSync(path, 'utf8'),
  );
  return command?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
};

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
