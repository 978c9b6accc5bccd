import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KioskClient } from '../support/ws-client.js';
import { startProbeNode, type ProbeNode } from './probe-node.js';
import { startChild, type Child } from './processes.js';
import { nodeRuntimeOf, SHIPPED_SERVER, shippedBridgeLaunch, type NodeRuntime } from './shipped-bridge.js';

/**
 * The ROS 2 graph of a contract run, every part a real ROS node in its own process except the probe
 * (in the test process):
 *   - tour-store: the reference tour store node on a file of the run's own;
 *   - demo-chat: the reference demo chat node (echo /chat, /clear_history, a greeting on /play_audio,
 *     and the Converse action /converse: the echo in CONVERSE.parts parts, CONVERSE.partMs apart);
 *   - demo-chat-silent: a second demo chat node whose Converse action, under the prefix, accepts goals
 *     and never answers (`--converse_mode silent`); its other names are remapped out of the way;
 *   - demo-chat-burst: a third, whose Converse action, under the prefix, publishes its parts with no
 *     wait between them and then the result (`--converse_part_ms 0`);
 *   - bridge: tour-bridge with `--backend ros`, default time-outs: what the contract suites run against;
 *   - silent-bridge: a second tour-bridge whose /tour_get, /chat, /play_audio and
 *     /microphone/set_enabled are remapped under a prefix of the run's own (`--ros-args -r`), with
 *     short time-outs, so its /tour_get and /chat reach the probe's services that never answer;
 *   - action-bridge, action-silent-bridge: tour-bridge with `--chat_interface action`, on the demo
 *     chat's /converse and (remapped, short chat time-out) on the silent node's;
 *   - probe: publisher, microphone client and the silent services (test/ros/probe-node.ts).
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSX = [process.execPath, '--import', 'tsx'];

/** Bounds of every wait. The first start on a machine may generate rclnodejs's message bindings. */
export const GRAPH_LIMITS = {
  listeningMs: 180_000,
  graphReadyMs: 60_000,
} as const;

/** The demo chat's Converse answer: parts, and the wait before each (part k after k × partMs). */
export const CONVERSE = { parts: 3, partMs: 300 } as const;

/** The burst demo chat's Converse answer: every part at once, then the result, under the prefix. */
export const BURST_CONVERSE = { parts: 40, path: '/burst/converse' } as const;

/** The action-silent bridge's `--chat_timeout_ms`. */
export const ACTION_SILENT_TIMEOUT_MS = 1_500;

/** The silent bridge's time-outs: short, so a test waits for them, not for the defaults. */
export const SILENT_TIMEOUTS = { rosMs: 1_000, chatMs: 1_500 } as const;

export interface BridgeLaunch {
  readonly nodeFlags?: readonly string[];
  /** The compiled service through the image's launcher (its Node.js flags and environment), instead of src/ through tsx. */
  readonly shipped?: boolean;
}

export interface Bridge {
  readonly child: Child;
  /** The Node.js flags and runtime variables the bridge's process runs with, read from its /proc. */
  readonly runtime: NodeRuntime;
  readonly baseUrl: string;
  readonly wsUrl: string;
}

export interface RosGraph {
  readonly bridge: Bridge;
  readonly silentBridge: Bridge;
  /** A bridge with `--chat_interface action`, on the demo chat's /converse. */
  readonly actionBridge: Bridge;
  /** A bridge with `--chat_interface action` and a short chat time-out, on the silent `<prefix>/converse`. */
  readonly actionSilentBridge: Bridge;
  /** The prefix the silent bridge's remapped names are under, e.g. /tour_bridge_contract_123. */
  readonly silentPrefix: string;
  /** The silent bridge's /ready detail before the probe served its remapped /tour_get and /chat. */
  readonly silentReadyBeforeProbe: string;
  readonly probe: ProbeNode;
  /** Connected before the demo chat started, so they are there for its greeting. */
  readonly earlyKiosks: readonly [KioskClient, KioskClient];
  readonly demoChat: Child;
  /** The demo chat node serving `<silentPrefix>/converse` that never answers. */
  readonly demoChatSilent: Child;
  /** The demo chat node serving `<silentPrefix>${BURST_CONVERSE.path}`: many parts, no wait between them. */
  readonly demoChatBurst: Child;
  /** The running tour store (replaced by restartStore). */
  store(): Child;
  /** Starts a new tour store process on the same file. */
  restartStore(): Child;
  readonly storeFile: string;
  /**
   * Starts one more bridge (`--backend ros`, default options plus `extra`), stopped with the graph. From
   * src/ through tsx, or with `shipped` as the image runs it (test/ros/shipped-bridge.ts); `nodeFlags` go
   * to Node.js.
   */
  startBridge(name: string, extra: readonly string[], how?: BridgeLaunch): Promise<Bridge>;
  /**
   * Starts one more reference demo chat node (`src/robot/nodes/main.ts demo-chat` with `options`, then
   * `--ros-args` and `rosArgs`), stopped with the graph.
   */
  startDemoChat(name: string, options: readonly string[], rosArgs: readonly string[]): Child;
  /** A scratch directory of the run's own, removed with the graph. */
  readonly scratch: string;
  /**
   * Stops everything (SIGTERM, SIGKILL after a grace period) and removes the scratch directory.
   * Resolves with the exit code of each process that was still running (null: ended by a signal).
   * Idempotent.
   */
  stop(): Promise<Record<string, number | null>>;
}

export const fetchJson = async (url: string): Promise<{ status: number; json: unknown }> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) };
  } catch {
    return { status: response.status, json: text };
  }
};

/** Polls until `check` holds, every 200 ms, for at most `timeoutMs`. */
export const pollUntil = async (
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `${what} did not happen within ${timeoutMs} ms${lastError === '' ? '' : ` (${lastError})`}`,
  );
};

/** /ready's detail once the bridge sees a server for every service it calls. */
export const ALL_SERVERS = /every called service has a server/;

export const readyDetail = async (baseUrl: string): Promise<{ status: number; detail: string }> => {
  const ready = await fetchJson(`${baseUrl}/ready`);
  const detail = (ready.json as { detail?: unknown }).detail;
  return { status: ready.status, detail: typeof detail === 'string' ? detail : JSON.stringify(ready.json) };
};

export const startRosGraph = async (env: NodeJS.ProcessEnv): Promise<RosGraph> => {
  const scratch = await mkdtemp(join(tmpdir(), 'tour-bridge-test-ros-'));
  const logDir = env['TOUR_BRIDGE_ROS_LOG_DIR'] ?? join(scratch, 'logs');
  await mkdir(logDir, { recursive: true });
  const storeFile = join(scratch, 'tours.json');
  const silentPrefix = `/tour_bridge_contract_${randomInt(1_000_000)}`;
  const children: Child[] = [];
  const kiosks: KioskClient[] = [];
  let probe: ProbeNode | undefined;
  let storeRuns = 0;

  const start = (name: string, argv: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Child => {
    const child = startChild(name, argv, {
      cwd: REPO,
      env: { ...env, ...extraEnv },
      logFile: join(logDir, `${name}.log`),
    });
    children.push(child);
    return child;
  };
  const startStore = () => {
    storeRuns += 1;
    return start(`tour-store-${storeRuns}`, [
      ...TSX,
      'src/robot/nodes/main.ts',
      'tour-store',
      '--file',
      storeFile,
      '--log_level',
      'info',
    ]);
  };
  const startBridge = async (
    name: string,
    extra: readonly string[],
    { nodeFlags = [], shipped = false }: BridgeLaunch = {},
  ): Promise<Bridge> => {
    const bridgeOptions = [
      '--backend',
      'ros',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log_level',
      'info',
      // Every kiosk of the suites comes from 127.0.0.1, up to 30 at once: past the default 16 sessions
      // per address. The latency test sends each utterance as soon as the last is answered, hundreds a
      // second: past a kiosk's inbound budget. The e2e suite covers both limits
      // (test/e2e/ws-unfinished-messages.test.ts, test/e2e/ws-flood.test.ts).
      '--ws_sessions_per_address',
      '0',
      '--ws_frames_per_second',
      '100000',
      '--ws_bytes_per_second',
      String(1024 * 2 ** 20),
      '--ws_total_frame_rate',
      '10000000',
      '--ws_total_byte_rate',
      String(64 * 1024 * 2 ** 20),
      ...extra,
    ];
    const launch = shipped
      ? shippedBridgeLaunch(REPO, process.execPath, nodeFlags, env)
      : { argv: [...TSX.slice(0, 1), ...nodeFlags, ...TSX.slice(1), 'src/server.ts'], env };
    const child = start(name, [...launch.argv, ...bridgeOptions], launch.env);
    const listening = await child.waitFor(/"port":(\d+)/, 'listening line', GRAPH_LIMITS.listeningMs);
    const pid = child.process.pid;
    if (pid === undefined) throw new Error(`${name} has no process id`);
    const runtime = nodeRuntimeOf(pid, shipped ? SHIPPED_SERVER : 'src/server.ts');
    const baseUrl = `http://127.0.0.1:${listening[1] ?? ''}`;
    return { child, runtime, baseUrl, wsUrl: `${baseUrl.replace(/^http/, 'ws')}/ws` };
  };

  let stopping: Promise<Record<string, number | null>> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const kiosk of kiosks) kiosk.close();
      probe?.close();
      const running = children.filter(
        (child) => child.process.exitCode === null && child.process.signalCode === null,
      );
      const codes = await Promise.all(
        running.map(async (child) => {
          await child.stop();
          return [child.name, await child.exited] as const;
        }),
      );
      await rm(scratch, { recursive: true, force: true });
      return Object.fromEntries(codes);
    })());

  try {
    let store = startStore();
    // The speech suite's bursts put 32 MiB (16 × 2 MiB, 8 × 4 MiB) in each kiosk's queue at middleware
    // speed to measure the middleware: past the default per-kiosk cap of 16 MiB, which drops a kiosk's
    // oldest pairs when it reads slower (counted slow_kiosk; test/unit/outbound-queue.test.ts covers it).
    const bridge = await startBridge('bridge', ['--send_buffer_bytes', String(64 * 2 ** 20)]);
    await pollUntil('the bridge spinning its ROS node', GRAPH_LIMITS.graphReadyMs, async () => {
      return (await readyDetail(bridge.baseUrl)).status === 200;
    });
    // Two kiosks before the demo chat starts: its greeting goes out once it sees the bridge's subscription.
    const early: KioskClient[] = [];
    for (let index = 0; index < 2; index += 1) {
      const kiosk = await KioskClient.connect(bridge.wsUrl);
      kiosks.push(kiosk);
      early.push(kiosk);
      await kiosk.frameCount(1, 10_000);
    }
    const demoChat = start('demo-chat', [
      ...TSX,
      'src/robot/nodes/main.ts',
      'demo-chat',
      '--log_level',
      'info',
      '--converse_parts',
      String(CONVERSE.parts),
      '--converse_part_ms',
      String(CONVERSE.partMs),
    ]);
    const remap = (name: string) => ['-r', `${name}:=${silentPrefix}${name}`];
    /**
     * A second demo chat node for the action only: `/converse` under the prefix (at `actionPath`), its
     * /chat, /clear_history and /play_audio where nothing else is, so only its action is met.
     */
    const startActionOnlyDemoChat = (name: string, actionPath: string, options: readonly string[]) => {
      // ROS names take no '-'.
      const rosName = name.replaceAll('-', '_');
      const away = (topic: string) => ['-r', `${topic}:=${silentPrefix}/${rosName}${topic}`];
      return start(name, [
        ...TSX,
        'src/robot/nodes/main.ts',
        'demo-chat',
        '--log_level',
        'info',
        ...options,
        '--ros-args',
        '-r',
        `__node:=${rosName}`,
        '-r',
        `/converse:=${silentPrefix}${actionPath}`,
        ...away('/chat'),
        ...away('/clear_history'),
        ...away('/play_audio'),
      ]);
    };
    const demoChatSilent = startActionOnlyDemoChat('demo-chat-silent', '/converse', [
      '--converse_mode',
      'silent',
    ]);
    const demoChatBurst = startActionOnlyDemoChat('demo-chat-burst', BURST_CONVERSE.path, [
      '--converse_parts',
      String(BURST_CONVERSE.parts),
      '--converse_part_ms',
      '0',
    ]);
    const silentBridge = await startBridge('silent-bridge', [
      '--ros_timeout_ms',
      String(SILENT_TIMEOUTS.rosMs),
      '--chat_timeout_ms',
      String(SILENT_TIMEOUTS.chatMs),
      '--ros-args',
      '-r',
      '__node:=tour_bridge_silent',
      ...remap('/tour_get'),
      ...remap('/chat'),
      ...remap('/play_audio'),
      ...remap('/microphone/set_enabled'),
    ]);
    let silentReadyBeforeProbe = '';
    await pollUntil('the silent bridge spinning its ROS node', GRAPH_LIMITS.graphReadyMs, async () => {
      const ready = await readyDetail(silentBridge.baseUrl);
      silentReadyBeforeProbe = ready.detail;
      return ready.status === 200;
    });
    // Two bridges with --chat_interface action: one on the demo chat's /converse, one on the silent
    // node's; their own service (/microphone/set_enabled) out of the way of the main bridge's.
    const startActionBridge = (name: string, extra: readonly string[], remaps: readonly string[]) => {
      const rosName = name.replaceAll('-', '_');
      return startBridge(name, [
        '--chat_interface',
        'action',
        ...extra,
        '--ros-args',
        '-r',
        `__node:=tour_bridge_${rosName}`,
        '-r',
        `/microphone/set_enabled:=${silentPrefix}/${rosName}/microphone/set_enabled`,
        ...remaps,
      ]);
    };
    const actionBridge = await startActionBridge('action-bridge', [], []);
    const actionSilentBridge = await startActionBridge(
      'action-silent-bridge',
      ['--chat_timeout_ms', String(ACTION_SILENT_TIMEOUT_MS)],
      remap('/converse'),
    );
    probe = await startProbeNode(silentPrefix);
    for (const each of [bridge, silentBridge, actionBridge, actionSilentBridge]) {
      await pollUntil(
        `${each.child.name} seeing a server for every service it calls`,
        GRAPH_LIMITS.graphReadyMs,
        async () => {
          const ready = await readyDetail(each.baseUrl);
          return ready.status === 200 && ALL_SERVERS.test(ready.detail);
        },
      );
    }
    const [first, second] = early;
    if (first === undefined || second === undefined) throw new Error('early kiosks missing');
    const ready = probe;
    return {
      bridge,
      silentBridge,
      actionBridge,
      actionSilentBridge,
      silentPrefix,
      silentReadyBeforeProbe,
      probe: ready,
      earlyKiosks: [first, second],
      demoChat,
      demoChatSilent,
      demoChatBurst,
      store: () => store,
      restartStore: () => (store = startStore()),
      startDemoChat: (name, options, rosArgs) =>
        start(name, [
          ...TSX,
          'src/robot/nodes/main.ts',
          'demo-chat',
          '--log_level',
          'info',
          ...options,
          '--ros-args',
          ...rosArgs,
        ]),
      storeFile,
      startBridge,
      scratch,
      stop,
    };
  } catch (error) {
    const output = children.map((child) => child.recentOutput()).join('\n');
    await stop();
    throw new Error(
      `the ROS graph did not come up: ${error instanceof Error ? error.message : String(error)}\n${output}`,
    );
  }
};
