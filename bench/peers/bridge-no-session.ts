/**
 * A measuring peer, not a product: the bridge less its session actor. It runs the bridge's own `/ws`
 * transport (src/transport/ws/ws-endpoint.ts: the copy of each frame, the frame counters, the corked writes
 * and fragments), its one call wrapper (src/ros/port/ros-calls.ts, with the call metrics) and the simulation, from
 * the same build as the bridge it is measured beside. Each connection is answered by a plain function where
 * the bridge has its XState session: a binary frame is one `/chat` call, and its answer goes out as the
 * bridge's pair and `turn_end`. Nothing else of the protocol is served. The chat scenario runs it between
 * the bridge and bare uWebSockets.js, so a round trip's cost splits into what the session actor adds and
 * what the rest of the bridge adds over the transport itself (docs/performance.md).
 *
 *   node --import tsx bench/peers/bridge-no-session.ts --port N --body <base64> --modules <dir>
 *
 * `--modules`: the build's `dist/src` (or `src`, run through tsx, for the smoke test). `--session xstate`:
 * each connection's turns go through XState's least chart (bench/lib/least-chart.ts) instead of the plain
 * function, so the chat scenario reads XState's own cost beside the session actor's, in the same server;
 * `--session xstate-invoke`: through its shape with an invoke per turn, the session's `calling`.
 */
import type { SessionActor } from '../../src/actors/session/session.js';
import type { SessionTransportEvent } from '../../src/actors/session/session-types.js';
import type { OutboundFrame } from '../../src/protocol/ws/index.js';
import type { RosCallHandler, RosResponse } from '../../src/ros/port/ros-port.js';
import { BENCH_CALL_TIMEOUTS_MS, buildModules } from '../lib/build-modules.js';
import { startLeastChart } from '../lib/least-chart.js';
import { parsePeerArgs } from './args.js';

const { port } = parsePeerArgs(process.argv.slice(2));
const modulesIndex = process.argv.indexOf('--modules');
const modules = modulesIndex === -1 ? undefined : process.argv[modulesIndex + 1];
if (modules === undefined) throw new Error('missing --modules');

const sessionIndex = process.argv.indexOf('--session');
const sessionKind = sessionIndex === -1 ? 'plain' : process.argv[sessionIndex + 1];
if (sessionKind !== 'plain' && sessionKind !== 'xstate' && sessionKind !== 'xstate-invoke') {
  throw new Error('--session: plain, xstate or xstate-invoke');
}
const { load, loadFirst, loadMessageIds } = buildModules(modules);

const [uwsBuild, endpoint, frames, protocol, calls, sim, metricsModule, ids, logger] = await Promise.all([
  load<typeof import('../../src/transport/uws-build.js')>('transport/uws-build.js'),
  load<typeof import('../../src/transport/ws/ws-endpoint.js')>('transport/ws/ws-endpoint.js'),
  loadFirst<typeof import('../../src/protocol/ws/index.js')>('protocol/ws/index.js', 'protocol/ws-frames.js'),
  loadFirst<typeof import('../../src/protocol/ws/index.js')>(
    'protocol/ws/index.js',
    'protocol/ws-protocol.js',
  ),
  loadFirst<typeof import('../../src/ros/port/ros-calls.js')>(
    'ros/port/ros-calls.js',
    'port/ros-calls.js',
    'ros/ros-calls.js',
  ),
  load<typeof import('../../src/robot/sim/sim-backend.js')>('robot/sim/sim-backend.js'),
  load<typeof import('../../src/metrics/bridge-metrics.js')>('metrics/bridge-metrics.js'),
  loadMessageIds(),
  load<typeof import('../../src/log/logger.js')>('log/logger.js'),
]);

const metrics = metricsModule.createBridgeMetrics();
// Each call arms its deadline as in the bridge; the simulation answers long before any of them.
const rosCalls = calls.createRosCalls({
  port: sim.createSimBackend(),
  timeoutsMs: BENCH_CALL_TIMEOUTS_MS,
  observer: metrics.rosCalls,
});
const messageIds = ids.createMessageIdAllocator();

/** The simulation answers every call: a failure is a broken peer, which must not pass for a slow one. */
const callFailed = (error: Error): void => {
  process.stderr.write(`bridge-no-session: a /chat call failed: ${error.message}\n`);
  process.exit(1);
};

/** One connection's turns: what the session actor does for a `/chat` round trip, as plain calls. */
class PlainSession {
  #turns = 0;
  constructor(
    private readonly write: (frame: OutboundFrame) => void,
    private readonly batch: (writes: () => void) => void,
  ) {
    write(
      frames.textFrame({
        type: 'state',
        emotion: protocol.INITIAL_EMOTION,
        text: protocol.INITIAL_TEXT,
        microphone: { enabled: true },
        limits: { utteranceMs: protocol.utteranceAudioMs(protocol.DEFAULT_MAX_AUDIO_FRAME_BYTES) },
      }),
    );
  }

  /** With `--session xstate`, the chart each turn goes through. */
  readonly #chart =
    sessionKind === 'plain'
      ? undefined
      : startLeastChart<RosResponse<'chat'>>(
          {
            call: (audio, answered) => {
              rosCalls.call('chat', { audio }, { answered, failed: callFailed });
            },
            deliver: (turn, response) => {
              this.answer(turn, response);
            },
          },
          sessionKind === 'xstate' ? 'least' : 'invoke',
        );
  send(event: SessionTransportEvent): void {
    if (event.type !== 'ws.binary') return;
    if (this.#chart !== undefined) {
      this.#chart.send({ type: 'request', audio: event.data });
      return;
    }
    this.#turns += 1;
    rosCalls.call('chat', { audio: event.data }, new TurnAnswer(this, this.#turns));
  }

  answer(turn: number, response: RosResponse<'chat'>): void {
    this.batch(() => {
      this.write(frames.encodeAudioPair(messageIds.next(), response, turn));
      this.write(frames.turnEndFrame(turn, 'answered'));
    });
  }
}

class TurnAnswer implements RosCallHandler<'chat'> {
  constructor(
    private readonly session: PlainSession,
    private readonly turn: number,
  ) {}
  answered(response: RosResponse<'chat'>): void {
    this.session.answer(this.turn, response);
  }
  failed(error: Error): void {
    callFailed(error);
  }
}

const app = uwsBuild.uWS.App();
app.get('/health', (res) => {
  res.end('{"ok":true}');
});
type Hub = Parameters<typeof endpoint.installConversationEndpoint>[1]['hub'];
// The endpoint only sends a session its events and reads the limits; a PlainSession takes the events.
const hub: Pick<Hub, 'limits' | 'openSession'> = {
  // Measured without the inbound budgets and the per-address limit, like the bridge (bench/run.ts): the
  // scenarios send as fast as it answers, from up to 1,000 sessions on loopback.
  limits: {
    ...protocol.DEFAULT_LIMITS,
    maxInboundFramesPerSecond: 100_000,
    maxInboundBytesPerSecond: 2 ** 30,
    maxProcessInboundFramesPerSecond: 10_000_000,
    maxProcessInboundBytesPerSecond: 2 ** 36,
    maxSessionsPerAddress: 0,
  },
  openSession: (send, hooks) =>
    new PlainSession(
      send,
      hooks?.batch ??
        ((writes) => {
          writes();
        }),
    ) as unknown as SessionActor,
};
endpoint.installConversationEndpoint(app, {
  hub: hub as Hub,
  log: logger.createLogger('error'),
  metrics,
});
app.listen('127.0.0.1', port, (socket) => {
  if (socket === false) {
    process.stderr.write(`cannot listen on ${port}\n`);
    process.exit(1);
  }
});
