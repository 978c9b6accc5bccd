import { delimiter, dirname, join } from 'node:path';

/** The launcher that names the image's Node.js flags and environment, at this path in the checkout and in the image's /app alike. */
export const NODE_RUNTIME_SCRIPT = 'docker/node-runtime.sh';

/**
 * The command and environment that run `nodeArgs` (Node.js flags, then the entry script and its
 * arguments) as the image runs the bridge: through the launcher in `repo`, which adds its own flags and
 * environment and runs the `node` first on PATH, so `node` goes first on PATH. The launcher execs it: the
 * child's pid is the service's.
 */
export const imageLaunch = (
  repo: string,
  node: string,
  nodeArgs: readonly string[],
  env: NodeJS.ProcessEnv,
): { argv: string[]; env: NodeJS.ProcessEnv } => ({
  argv: ['sh', join(repo, NODE_RUNTIME_SCRIPT), ...nodeArgs],
  env: { ...env, PATH: [dirname(node), env['PATH']].filter(Boolean).join(delimiter) },
});
