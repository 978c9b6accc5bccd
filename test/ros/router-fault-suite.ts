import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it, type TestContext } from 'node:test';
import { request, sendJson } from '../support/http.js';
import { KioskClient } from '../support/ws-client.js';
import { ALL_SERVERS, pollUntil, readyDetail, type RosGraph } from './graph.js';
import { startProbeNode, type ProbeNode } from './probe-node.js';
import { startChild, type Child } from './processes.js';
import { freeLoopbackPort } from '../support/free-port.js';
import { clientOverride, startRouter, ZENOH_RMW, type RunningRouter } from './zenoh-router.js';

/**
 * The Zenoh router's faults as the container meets them, on a real `rmw_zenohd` of their own: a graph
 * of its own (router, tour store, demo chat, a bridge with a state directory, a probe node in the test
 * process) beside the contract graph, so stopping this router disturbs nothing else. Only on
 * rmw_zenoh_cpp; every wait is a bounded poll, and the measured bounds are reported as diagnostics.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSX = [process.execPath, '--import', 'tsx'];

export const ROUTER_FAULT_LIMITS = {
  /** A bridge that waits for its router: how long the test lets it wait before the router comes. */
  waitBeforeRouterMs: 4_000,
  /** From the router's (re)start until the bridge serves again. Measured: see docs/ros-testing.md. */
  recoverMs: 30_000,
  /** How long the router stays down, and the calls made meanwhile (spread over it). */
  outageMs: 6_000,
  outageCalls: 6,
  /** From the router's crash until /ready says so (the bridge checks once a second). */
  detectMs: 5_000,
  /** An HTTP call while the router is down: answered (503) at once, not after its time-out. */
  downAnswerMs: 500,
  /** With ZENOH_ROUTER_CHECK_ATTEMPTS=N and no router: the bridge exits within N s plus this. */
  giveUpSlackMs: 20_000,
} as const;

const GIVE_UP_ATTEMPTS = 2;

interface FaultGraph {
  router: RunningRouter;
  readonly port: number;
  readonly env: NodeJS.ProcessEnv;
  readonly bridge: Child;
  readonly baseUrl: string;
  readonly wsUrl: string;
  readonly children: Child[];
  probe?: ProbeNode;
  readonly logDir: string;
}

const startBridgeChild = async (
  name: string,
  env: NodeJS.ProcessEnv,
  logDir: string,
  extra: readonly string[],
): Promise<{ child: Child; baseUrl: string; wsUrl: string }> => {
  const child = startChild(
    name,
    [...TSX, 'src/server.ts', '--backend', 'ros', '--host', '127.0.0.1', '--port', '0', ...extra],
    { cwd: REPO, env, logFile: join(logDir, `${name}.log`) },
  );
  const listening = await child.waitFor(/"port":(\d+)/, 'listening line', 120_000);
  const baseUrl = `http://127.0.0.1:${listening[1] ?? ''}`;
  return { child, baseUrl, wsUrl: `${baseUrl.replace(/^http/, 'ws')}/ws` };
};

/** The probe node of this graph: a second rcl context in the test process, on this graph's router. */
const startProbeOn = async (port: number): Promise<ProbeNode> => {
  const saved = process.env['ZENOH_CONFIG_OVERRIDE'];
  // rmw_zenoh reads the override with getenv at rmw_init; assignments to process.env reach it.
  process.env['ZENOH_CONFIG_OVERRIDE'] = clientOverride(port);
  try {
    return await startProbeNode(`/router_fault_${randomUUID().slice(0, 8)}`);
  } finally {
    if (saved === undefined) delete process.env['ZENOH_CONFIG_OVERRIDE'];
    else process.env['ZENOH_CONFIG_OVERRIDE'] = saved;
  }
};

const microphoneFrames = (kiosk: KioskClient): boolean[] =>
  kiosk.texts().flatMap((frame) => {
    if (frame['type'] === 'microphone') return [frame['enabled'] === true];
    const state = frame['microphone'];
    if (frame['type'] === 'state' && typeof state === 'object' && state !== null && 'enabled' in state) {
      return [state.enabled === true];
    }
    return [];
  });

const tourBody = (name: string) => ({
  tour_name: name,
  map_name: 'router-fault-map',
  steps: [
    { description: 'The hall, kept across a router restart.', destination: 'hall', dialogue: 'Welcome' },
    { description: 'The garden.', destination: 'garden', dialogue: 'Look around' },
  ],
});

export const routerFaultSuite = (graph: () => RosGraph): void => {
  const rmw = process.env['RMW_IMPLEMENTATION'];
  // Another middleware has no router to stop: the suite is reported skipped, with the reason.
  const skip =
    rmw === ZENOH_RMW ? false : `runs on ${ZENOH_RMW} only; RMW_IMPLEMENTATION is ${rmw ?? 'unset'}`;
  describe(`Zenoh router faults (${ZENOH_RMW}, a router and graph of their own)`, { skip }, () => {
    let faultGraph: FaultGraph | undefined;
    const current = (): FaultGraph => {
      if (faultGraph === undefined) throw new Error('the router-fault graph did not start');
      return faultGraph;
    };
    after(async () => {
      const state = faultGraph;
      if (state === undefined) return;
      state.probe?.close();
      await Promise.all(state.children.map((child) => child.stop()));
      await state.router.stop();
    });

    it('a bridge started before its router (ZENOH_ROUTER_CHECK_ATTEMPTS=0) waits, then serves once the router comes', async (context) => {
      const logDir = join(graph().scratch, 'router-fault');
      await mkdir(logDir, { recursive: true });
      const port = await freeLoopbackPort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ZENOH_CONFIG_OVERRIDE: clientOverride(port),
        ZENOH_ROUTER_CHECK_ATTEMPTS: '0',
      };
      const stateDir = join(graph().scratch, 'router-fault-state');
      const bridge = await startBridgeChild('fault-bridge', env, logDir, ['--state_dir', stateDir]);
      const children: Child[] = [bridge.child];
      // No router yet: the bridge answers /health, says on /ready what it waits for, and stays up.
      const waitingSince = Date.now();
      await pollUntil('/ready naming the router it waits for', 10_000, async () => {
        const ready = await readyDetail(bridge.baseUrl);
        return ready.status === 503 && ready.detail.includes(`tcp/127.0.0.1:${port}`);
      });
      const health = await request(bridge.baseUrl, 'GET', '/health');
      assert.equal(health.status, 200);
      await new Promise((resolve) => setTimeout(resolve, ROUTER_FAULT_LIMITS.waitBeforeRouterMs));
      assert.equal(bridge.child.process.exitCode, null, 'the bridge waits for its router, it does not exit');
      assert.equal((await readyDetail(bridge.baseUrl)).status, 503);

      const router = await startRouter(process.env, port, join(logDir, 'fault-router.log'));
      faultGraph = { router, port, env, bridge: bridge.child, ...bridge, children, logDir };
      const routerUp = Date.now();
      await pollUntil('the bridge ready once the router came', ROUTER_FAULT_LIMITS.recoverMs, async () => {
        return (await readyDetail(bridge.baseUrl)).status === 200;
      });
      context.diagnostic(
        `router wait: the bridge waited ${((routerUp - waitingSince) / 1000).toFixed(1)} s for its router, ` +
          `then was ready ${Date.now() - routerUp} ms after the router listened`,
      );
      for (const [name, args] of [
        ['fault-tour-store', ['tour-store', '--file', join(graph().scratch, 'router-fault-tours.json')]],
        ['fault-demo-chat', ['demo-chat']],
      ] as const) {
        children.push(
          startChild(name, [...TSX, 'src/robot/nodes/main.ts', ...args, '--log_level', 'info'], {
            cwd: REPO,
            env,
            logFile: join(logDir, `${name}.log`),
          }),
        );
      }
      faultGraph.probe = await startProbeOn(port);
      await pollUntil('the bridge seeing every server', 60_000, async () => {
        const ready = await readyDetail(bridge.baseUrl);
        return ready.status === 200 && ALL_SERVERS.test(ready.detail);
      });
      const created = await sendJson(bridge.baseUrl, 'POST', '/tour', tourBody('first-tour'));
      assert.equal(created.status, 201, created.text);
    });

    it(`with ZENOH_ROUTER_CHECK_ATTEMPTS=${GIVE_UP_ATTEMPTS} and no router, the bridge exits non-zero with one clear line`, async () => {
      const port = await freeLoopbackPort();
      const logDir = join(graph().scratch, 'router-fault');
      await mkdir(logDir, { recursive: true });
      const child = startChild(
        'no-router-bridge',
        [...TSX, 'src/server.ts', '--backend', 'ros', '--host', '127.0.0.1', '--port', '0'],
        {
          cwd: REPO,
          env: {
            ...process.env,
            ZENOH_CONFIG_OVERRIDE: clientOverride(port),
            ZENOH_ROUTER_CHECK_ATTEMPTS: String(GIVE_UP_ATTEMPTS),
          },
          logFile: join(logDir, 'no-router-bridge.log'),
        },
      );
      const timer = setTimeout(
        () => void child.stop(),
        GIVE_UP_ATTEMPTS * 1_000 + ROUTER_FAULT_LIMITS.giveUpSlackMs,
      );
      const code = await child.exited;
      clearTimeout(timer);
      assert.notEqual(code, 0, child.recentOutput());
      assert.notEqual(code, null, `killed after the bound instead of exiting:\n${child.recentOutput()}`);
      const lines = child.recentOutput().split('\n');
      const fatal = lines.filter((line) => /"level":"(error|fatal)"/.test(line));
      assert.equal(fatal.length, 1, `one error line in the log, got:\n${fatal.join('\n')}`);
      // The line on stderr says what is missing, where, and what to do; no Zenoh or rcl internals.
      const told = lines.filter((line) => line.startsWith('[no-router-bridge] tour-bridge: '));
      assert.equal(told.length, 1, child.recentOutput());
      assert.match(
        told[0] ?? '',
        new RegExp(
          `no Zenoh router at tcp/127\\.0\\.0\\.1:${port} after ${GIVE_UP_ATTEMPTS} check\\(s\\).*rmw_zenohd`,
        ),
      );
      assert.ok(!lines.some((line) => /ERROR.*zenoh|rmw_context_impl/.test(line)), child.recentOutput());
    });

    it('the router killed and restarted with two kiosks: 503 at once meanwhile, kiosks stay, everything back within the bound, no state lost', async (context: TestContext) => {
      const state = current();
      const probe = state.probe;
      assert.ok(probe !== undefined);
      const turned = await probe.setMicrophone(false, 20_000);
      assert.equal(turned.success, true, turned.message);
      const kiosks = [await KioskClient.connect(state.wsUrl), await KioskClient.connect(state.wsUrl)];
      try {
        for (const kiosk of kiosks) {
          await kiosk.until(() => microphoneFrames(kiosk).at(-1) === false, 'microphone disabled', 10_000);
        }
        const before = await request(state.baseUrl, 'GET', '/tour/first-tour');
        assert.equal(before.status, 200, before.text);

        // The router dies as a crashed process does.
        await state.router.crash();
        const downSince = Date.now();
        // The bridge sees the router gone (its own check, once a second) and says so on /ready.
        await pollUntil('/ready naming the lost router', ROUTER_FAULT_LIMITS.detectMs, async () => {
          const ready = await readyDetail(state.baseUrl);
          return ready.status === 503 && /Zenoh router .* does not answer/.test(ready.detail);
        });
        const detected = Date.now() - downSince;
        // An outage of some seconds, as a router restarted by its supervisor has: every call meanwhile
        // is answered at once, and the kiosks stay.
        const answers: number[] = [];
        for (let index = 0; index < ROUTER_FAULT_LIMITS.outageCalls; index += 1) {
          await new Promise((resolve) =>
            setTimeout(resolve, ROUTER_FAULT_LIMITS.outageMs / ROUTER_FAULT_LIMITS.outageCalls),
          );
          const started = Date.now();
          const during = await request(state.baseUrl, 'GET', '/tour/first-tour');
          answers.push(Date.now() - started);
          assert.equal(during.status, 503, `while the router is down: ${during.status} ${during.text}`);
          assert.match(during.text, /Zenoh router at tcp\/127\.0\.0\.1:\d+ does not answer/);
          assert.ok(during.headers.get('retry-after') !== null, 'a 503 says when to retry');
        }
        assert.ok(
          Math.max(...answers) <= ROUTER_FAULT_LIMITS.downAnswerMs,
          `503 within ${ROUTER_FAULT_LIMITS.downAnswerMs} ms, took ${answers.join(', ')} ms`,
        );
        for (const kiosk of kiosks) assert.equal(kiosk.closeEvent, undefined, 'kiosks stay connected');

        state.router = await startRouter(process.env, state.port, join(state.logDir, 'fault-router-2.log'));
        const restarted = Date.now();
        let after: { status: number; text: string } = { status: 0, text: '' };
        await pollUntil(
          'GET /tour/first-tour answering 200 again',
          ROUTER_FAULT_LIMITS.recoverMs,
          async () => {
            after = await request(state.baseUrl, 'GET', '/tour/first-tour');
            return after.status === 200;
          },
        );
        const toursBack = Date.now() - restarted;
        assert.deepEqual(JSON.parse(after.text), JSON.parse(before.text), 'the tour survives');
        for (const kiosk of kiosks) assert.equal(kiosk.closeEvent, undefined, 'kiosks still connected');
        // The microphone state: the same on the kiosks, for a new kiosk, and for a late ROS subscriber.
        for (const kiosk of kiosks) assert.equal(microphoneFrames(kiosk).at(-1), false);
        const late = await KioskClient.connect(state.wsUrl);
        try {
          await late.frameCount(1, 10_000);
          assert.deepEqual(microphoneFrames(late), [false]);
        } finally {
          late.close();
        }
        assert.equal(await probe.latchedBool('/microphone/enabled', 20_000), false);
        // The bridge's own service and a turn through /chat work again.
        const enabled = await probe.setMicrophone(true, 20_000);
        assert.equal(enabled.success, true, enabled.message);
        const [first] = kiosks;
        assert.ok(first !== undefined);
        await first.until(() => microphoneFrames(first).at(-1) === true, 'microphone enabled', 10_000);
        const seen = first.frames.length;
        first.socket.send(Buffer.from('router back?'));
        await first.until(
          (frames) =>
            frames.slice(seen).some((frame) => frame.kind === 'text' && frame.json['type'] === 'turn_end'),
          'the turn to end',
          20_000,
        );
        assert.deepEqual(
          first
            .texts()
            .filter((frame) => frame['type'] === 'turn_end')
            .at(-1),
          { type: 'turn_end', turn: 1, outcome: 'answered' },
        );
        const chatBack = Date.now() - restarted;
        context.diagnostic(
          `router restart: seen down after ${detected} ms; 503 in ${Math.max(...answers)} ms at most while down (${restarted - downSince} ms); ` +
            `tours back ${toursBack} ms, microphone and a turn by ${chatBack} ms after the router listened again`,
        );
      } finally {
        for (const kiosk of kiosks) kiosk.close();
      }
    });
  });
};
