import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every child we start, so an early exit of the harness never leaves one behind. */
const children = new Set<ChildProcess>();
let cleanupInstalled = false;

const installCleanup = (): void => {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) child.kill('SIGKILL');
      process.exit(130);
    });
  }
};

export const trackChild = (child: ChildProcess): void => {
  installCleanup();
  children.add(child);
  child.once('exit', () => children.delete(child));
};

export const ownChildPids = (): Set<number> =>
  new Set([...children].flatMap((child) => (child.pid === undefined ? [] : [child.pid])));

/** A TCP port free on loopback right now (the OS picks it). */
export const freePort = async (): Promise<number> => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export type ServerKind = 'bridge' | 'bridge-no-session' | 'bare-uws' | 'node-http-ws';

export interface ServerProcess {
  readonly kind: ServerKind;
  readonly pid: number;
  readonly port: number;
  readonly baseUrl: string;
  readonly wsUrl: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Polls `url` until it answers 200, bounded; fails early when the process exits. */
const waitForHttp = async (url: string, child: ChildProcess, output: () => string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${url}: the server exited (${child.exitCode ?? child.signalCode}): ${output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${output()}`);
};

export interface StartOptions {
  readonly kind: ServerKind;
  readonly command: readonly string[];
  readonly port: number;
  /** A path answering 200 once the server is up. */
  readonly readyPath: string;
  readonly env?: Readonly<Record<string, string>>;
}

export const startServer = async ({
  kind,
  command,
  port,
  readyPath,
  env,
}: StartOptions): Promise<ServerProcess> => {
  const [executable, ...args] = command;
  if (executable === undefined) throw new Error('empty command');
  const child = spawn(executable, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${kind}: ${command.join(' ')}`);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}${readyPath}`, child, () => output, 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    kind,
    pid,
    port,
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    stop: async (graceMs = 5_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
};

/** The service under test: the built entry point (or the sources through tsx), sim backend, no latency. */
export const bridgeCommand = (
  port: number,
  options: {
    fromSource: boolean;
    maxSessions: number;
    nodeFlags?: readonly string[];
    service?: string | undefined;
    /** More bridge options, e.g. the chat interface and the simulated answer pipeline. */
    extraArgs?: readonly string[];
  },
): string[] => [
  process.execPath,
  ...(options.nodeFlags ?? []),
  ...(options.service !== undefined
    ? [options.service]
    : options.fromSource
      ? ['--import', 'tsx', 'src/server.ts']
      : ['dist/src/server.js']),
  '--backend',
  'sim',
  '--log_level',
  'error',
  '--host',
  '127.0.0.1',
  '--port',
  String(port),
  '--max_sessions',
  String(options.maxSessions),
  '--sim_latency_ms',
  '0',
  ...(options.extraArgs ?? []),
];

export const peerCommand = (
  kind: Exclude<ServerKind, 'bridge'>,
  port: number,
  bodyBase64: string,
  extraArgs: readonly string[] = [],
): string[] => [
  process.execPath,
  '--import',
  'tsx',
  `bench/peers/${kind}.ts`,
  '--port',
  String(port),
  '--body',
  bodyBase64,
  ...extraArgs,
];
