import type { ServerProcess } from './processes.js';

/** The servers one run measures side by side. */
export interface Servers {
  readonly bridge: ServerProcess;
  readonly bareUws: ServerProcess;
  readonly nodeHttpWs: ServerProcess;
  /** With `--compare`: the other build of the bridge. */
  readonly baseline?: ServerProcess | undefined;
  /** The chat scenario's: the bridge less its session actor (bench/peers/bridge-no-session.ts). */
  readonly noSession?: ServerProcess | undefined;
  /** The chat scenario's: the same peer with XState's least chart in place of the session actor. */
  readonly xstateFloor?: ServerProcess | undefined;
  /** The chat scenario's: the same peer with that chart's shape with an invoke per turn (the session's). */
  readonly xstateInvokeFloor?: ServerProcess | undefined;
}

export type ServerName =
  | 'bridge'
  | 'baseline'
  | 'noSession'
  | 'xstateFloor'
  | 'xstateInvokeFloor'
  | 'bareUws'
  | 'nodeHttpWs';

/** An empty list of runs for every server a run can measure. */
export const runsByServer = <Run>(): Record<ServerName, Run[]> => ({
  bridge: [],
  baseline: [],
  noSession: [],
  xstateFloor: [],
  xstateInvokeFloor: [],
  bareUws: [],
  nodeHttpWs: [],
});

/** Measuring order within a repeat: the two bridge builds side by side, then the peers. */
export const inOrder = (servers: Servers): [ServerName, ServerProcess][] => [
  ['bridge', servers.bridge],
  ...(servers.baseline === undefined ? [] : [['baseline', servers.baseline] as [ServerName, ServerProcess]]),
  ...(servers.noSession === undefined
    ? []
    : [['noSession', servers.noSession] as [ServerName, ServerProcess]]),
  ...(servers.xstateFloor === undefined
    ? []
    : [['xstateFloor', servers.xstateFloor] as [ServerName, ServerProcess]]),
  ...(servers.xstateInvokeFloor === undefined
    ? []
    : [['xstateInvokeFloor', servers.xstateInvokeFloor] as [ServerName, ServerProcess]]),
  ['bareUws', servers.bareUws],
  ['nodeHttpWs', servers.nodeHttpWs],
];
