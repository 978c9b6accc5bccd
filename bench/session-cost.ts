/**
 * The session actor's own cost per chat round trip, in one process: the same turns through the bridge's
 * session (`startSessionActor`) and through a plain function over the same call wrapper and simulation
 * (what bench/peers/bridge-no-session.ts does over a socket). The difference is the session's share:
 * server CPU and JavaScript heap allocated per round trip. No socket: what the transport adds is the same
 * on both sides and left out.
 *
 *   node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 --import tsx \
 *     bench/session-cost.ts [--modules <dist/src or src>] [--compare <another build's dist/src>] \
 *     [--turns N] [--rounds R]
 *
 * `--compare` adds that build's session as one more side, over this build's call wrapper and simulation:
 * before and after a change, side by side in one process.
 *
 * Allocation is read as the growth of the heap in use between two forced collections with a young
 * generation large enough to hold a whole round of turns; a round during which the collector ran anyway is
 * reported as such and not counted.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { Subject } from 'rxjs';
import { BENCH_CALL_TIMEOUTS_MS, buildModules } from './lib/build-modules.js';
import { startLeastChart, type LeastChartShape } from './lib/least-chart.js';

const argument = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
};
const modules = resolve(argument('--modules', 'src'));
const compareModules = process.argv.includes('--compare') ? resolve(argument('--compare', '')) : undefined;
const turnsPerRound = Number(argument('--turns', '1000'));
const rounds = Number(argument('--rounds', '7'));
const warmupTurns = Number(argument('--warmup', '20000'));
if (!Number.isInteger(turnsPerRound) || turnsPerRound < 1 || turnsPerRound > 100_000) {
  throw new Error('--turns: an integer from 1 to 100000');
}
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw new Error('--rounds: 1 to 100');
const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const { load, loadFirst, loadMessageIds } = buildModules(modules);
const [sessionModule, frames, protocol, calls, sim, ids, gauges, budgets] = await Promise.all([
  loadFirst<typeof import('../src/actors/session/session.js')>(
    'actors/session/session.js',
    'actors/session/session-machine.js',
  ),
  loadFirst<typeof import('../src/protocol/ws/index.js')>('protocol/ws/index.js', 'protocol/ws-frames.js'),
  loadFirst<typeof import('../src/protocol/ws/index.js')>('protocol/ws/index.js', 'protocol/ws-protocol.js'),
  loadFirst<typeof import('../src/ros/port/ros-calls.js')>(
    'ros/port/ros-calls.js',
    'port/ros-calls.js',
    'ros/ros-calls.js',
  ),
  load<typeof import('../src/robot/sim/sim-backend.js')>('robot/sim/sim-backend.js'),
  loadMessageIds(),
  loadFirst<typeof import('../src/actors/conversation-gauges.js')>(
    'actors/conversation-gauges.js',
    'streams/resource-gauges.js',
  ),
  loadFirst<typeof import('../src/actors/budgets.js')>('actors/budgets.js', 'actors/conversation-gauges.js'),
]);
const compareSessionModule =
  compareModules === undefined
    ? undefined
    : await buildModules(compareModules).loadFirst<typeof sessionModule>(
        'actors/session/session.js',
        'actors/session/session-machine.js',
      );
type OutboundFrame = import('../src/protocol/ws/index.js').OutboundFrame;
type AudioContent = import('../src/protocol/ws/index.js').AudioContent;

const rosCalls = calls.createRosCalls({
  port: sim.createSimBackend(),
  timeoutsMs: BENCH_CALL_TIMEOUTS_MS,
});
const messageIds = ids.createMessageIdAllocator();
const audio = new Uint8Array(32 * 1024);

/** A side of the comparison: sends one utterance; `answered` is called at each turn_end. */
interface Side {
  readonly name: string;
  utter(): void;
}

let onTurnEnd: () => void = () => undefined;
const sink = (frame: OutboundFrame): void => {
  if (frame.kind === 'text' && frame.text.startsWith('{"type":"turn_end"')) onTurnEnd();
};

const sessionSide = (name: string, module: typeof sessionModule): Side => {
  const conversationGauges = gauges.createConversationGauges();
  const limits = protocol.DEFAULT_LIMITS;
  const session = module.startSessionActor({
    calls: rosCalls,
    // This bench streams nothing: a speech uplink that goes nowhere.
    speech: { publish: () => true, heard: () => true, followTranscripts: () => () => undefined, followed: 0 },
    utterancePrefix: 'bench-1',
    messageIds,
    playAudioPairs$: new Subject(),
    microphone: { isEnabled: () => true, enabled$: new Subject<boolean>() },
    limits,
    gauges: conversationGauges,
    audioBudget: budgets.byteBudget(conversationGauges.queuedAudioBytes, limits.maxQueuedAudioBytes),
    send: sink,
    batch: (writes) => {
      writes();
    },
  });
  return {
    name,
    utter: () => {
      session.send({ type: 'ws.binary', data: audio.slice() });
    },
  };
};

const plainSide = (): Side => {
  let turns = 0;
  return {
    name: 'plain function',
    utter: () => {
      turns += 1;
      const turn = turns;
      const data = audio.slice();
      rosCalls.call(
        'chat',
        { audio: data },
        {
          answered: (response) => {
            sink(frames.encodeAudioPair(messageIds.next(), response, turn));
            sink(frames.turnEndFrame(turn, 'answered'));
          },
          failed: (error) => {
            throw error;
          },
        },
      );
    },
  };
};

/**
 * XState's own floor for a session (bench/lib/least-chart.ts) with the plain side's effects: what this side
 * costs over the plain function is what XState v5 itself costs; with `regions`, what a region no turn
 * enters costs besides.
 */
const floorSide = (shape: LeastChartShape): Side => {
  const chart = startLeastChart<AudioContent>(
    {
      call: (data, answered) => {
        rosCalls.call(
          'chat',
          { audio: data },
          {
            answered,
            failed: (error) => {
              throw error;
            },
          },
        );
      },
      deliver: (turn, response) => {
        sink(frames.encodeAudioPair(messageIds.next(), response, turn));
        sink(frames.turnEndFrame(turn, 'answered'));
      },
    },
    shape,
  );
  return {
    name: { least: 'XState floor', invoke: 'XState, invoke', regions: 'XState, 2 regions' }[shape],
    utter: () => {
      chart.send({ type: 'request', audio: audio.slice() });
    },
  };
};

/** Runs `count` turns one after the other (each sent when the previous one's turn_end came). */
const runTurns = (side: Side, count: number): Promise<void> =>
  new Promise((done) => {
    let left = count;
    onTurnEnd = () => {
      left -= 1;
      if (left === 0) done();
      else side.utter();
    };
    side.utter();
  });

let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

interface Round {
  readonly cpuUs: number;
  readonly allocatedBytes: number | undefined;
}

const measure = async (side: Side): Promise<Round> => {
  // A scavenge, not a full collection: a full one frees the hidden classes that short-lived objects
  // left behind and V8 then deoptimises the code that embedded them ("weak objects"), so each round would
  // first pay for recompiling, most of all the side with more optimised code (XState's).
  gc({ type: 'minor' });
  await new Promise((next) => setImmediate(next));
  const collectionsBefore = collections;
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore = process.cpuUsage();
  await runTurns(side, turnsPerRound);
  const cpu = process.cpuUsage(cpuBefore);
  const heapAfter = process.memoryUsage().heapUsed;
  const clean = collections === collectionsBefore;
  return {
    cpuUs: (cpu.user + cpu.system) / turnsPerRound,
    allocatedBytes: clean ? (heapAfter - heapBefore) / turnsPerRound : undefined,
  };
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const sides = [
  sessionSide('session actor', sessionModule),
  ...(compareSessionModule === undefined ? [] : [sessionSide('compared session', compareSessionModule)]),
  floorSide('least'),
  floorSide('invoke'),
  floorSide('regions'),
  plainSide(),
];
// Warm-up: V8 optimises XState's many functions only after some thousands of turns.
for (const side of sides) await runTurns(side, warmupTurns);
const results = new Map<string, Round[]>(sides.map((side) => [side.name, []]));
for (let round = 0; round < rounds; round += 1) {
  // Alternated, so a slow moment of the machine falls on both sides.
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
    results.get(side.name)?.push(await measure(side));
  }
}

const summary = (name: string) => {
  const list = results.get(name) ?? [];
  const cpu = list.map((round) => round.cpuUs);
  const allocated = list.flatMap((round) =>
    round.allocatedBytes === undefined ? [] : [round.allocatedBytes],
  );
  return {
    cpuMedianUs: median(cpu),
    cpuMinUs: Math.min(...cpu),
    allocatedMedianKiB: allocated.length === 0 ? Number.NaN : median(allocated) / 1024,
    cleanRounds: allocated.length,
  };
};
const plain = summary('plain function');
const line = (name: string, figures: ReturnType<typeof summary>) =>
  `${name.padEnd(18)} cpu/turn median ${figures.cpuMedianUs.toFixed(1)} µs (min ${figures.cpuMinUs.toFixed(1)})` +
  `  heap/turn ${figures.allocatedMedianKiB.toFixed(1)} KiB (${figures.cleanRounds}/${rounds} rounds without a GC)`;
const share = (name: string, figures: ReturnType<typeof summary>) =>
  `${name.padEnd(18)} share cpu ${(figures.cpuMedianUs - plain.cpuMedianUs).toFixed(1)} µs` +
  ` (min ${(figures.cpuMinUs - plain.cpuMinUs).toFixed(1)})  heap ${(
    figures.allocatedMedianKiB - plain.allocatedMedianKiB
  ).toFixed(1)} KiB per round trip`;
/** The session actor's share beside XState's own least chart with an invoke per turn (target: 15 µs). */
const sessionOverInvoke = (): string => {
  const session = summary('session actor');
  const invoke = summary('XState, invoke');
  return `session actor over 'XState, invoke': cpu ${(session.cpuMedianUs - invoke.cpuMedianUs).toFixed(1)} µs per turn (median)`;
};
const measured = sides.map((side) => ({ name: side.name, figures: summary(side.name) }));
process.stdout.write(
  [
    `${modules}${compareModules === undefined ? '' : ` (compared: ${compareModules})`}: ${rounds} rounds of ${turnsPerRound} turns of 32 KiB, Node.js ${process.version}`,
    ...measured.map(({ name, figures }) => line(name, figures)),
    'Over the plain function (the share of each):',
    ...measured
      .filter(({ name }) => name !== 'plain function')
      .map(({ name, figures }) => share(name, figures)),
    sessionOverInvoke(),
    '',
  ].join('\n'),
);
process.exit(0);
