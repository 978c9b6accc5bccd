import type { ServerProcess } from './processes.js';

/** The servers one run measures side by side. */
export interface Servers {
  readonly bridge: ServerProcess;
  readonly bareUws: ServerProcess;
  readonly nodeHttpWs: ServerProcess;
  /** With `--compare`: the other build of the bridge. */
  readonly baseline?: ServerProcess | undefined;
}

export type ServerName = 'bridge' | 'baseline' | 'bareUws' | 'nodeHttpWs';

/** Measuring order within a repeat: the two bridge builds side by side, then the peers. */
export const inOrder = (servers: Servers): [ServerName, ServerProcess][] => [
  ['bridge', servers.bridge],
  ...(servers.baseline === undefined ? [] : [['baseline', servers.baseline] as [ServerName, ServerProcess]]),
  ['bareUws', servers.bareUws],
  ['nodeHttpWs', servers.nodeHttpWs],
];
