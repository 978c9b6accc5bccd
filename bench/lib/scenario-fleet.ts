import type { BenchArgs, BenchProfile } from './profiles.js';
import { log } from './log.js';
import { measureCpu, readRssBytes } from './machine.js';
import { sleep, type ServerProcess } from './processes.js';
import { RawHttpConnection } from './raw-http.js';
import type { FanoutRow, MemoryFigures } from './results.js';
import { round, summarize } from './stats.js';
import { KioskFleet } from './ws-load.js';

/**
 * Scenario 5 (memory) and 4 (fan-out): one fresh bridge, sessions held by a few client processes. Memory is
 * the bridge's RSS idle, with the profile's sessions and with as many more; fan-out times each
 * `/sim/play_audio` publication until every session has its pair.
 */
export const measureMemoryAndFanout = async (
  bridge: ServerProcess,
  profile: BenchProfile,
  args: BenchArgs,
): Promise<{ memory?: MemoryFigures; fanout?: { rows: FanoutRow[] } }> => {
  const fleet = new KioskFleet(profile.fanout.processes);
  try {
    let memory: MemoryFigures | undefined;
    if (args.only.has('memory')) {
      await sleep(profile.memory.settleMs);
      const idleRssBytes = readRssBytes(bridge.pid);
      await fleet.resize(bridge.wsUrl, profile.memory.sessions);
      await sleep(profile.memory.settleMs);
      const withSessionsRssBytes = readRssBytes(bridge.pid);
      await fleet.resize(bridge.wsUrl, 2 * profile.memory.sessions);
      await sleep(profile.memory.settleMs);
      const nextSessionsRssBytes = readRssBytes(bridge.pid);
      memory = {
        idleRssBytes,
        sessions: profile.memory.sessions,
        withSessionsRssBytes,
        perSessionBytes: Math.round((withSessionsRssBytes - idleRssBytes) / profile.memory.sessions),
        nextSessionsRssBytes,
        nextPerSessionBytes: Math.round(
          (nextSessionsRssBytes - withSessionsRssBytes) / profile.memory.sessions,
        ),
      };
      log(
        `memory: idle ${idleRssBytes} B, ${profile.memory.sessions} sessions ${withSessionsRssBytes} B, ` +
          `${2 * profile.memory.sessions} sessions ${nextSessionsRssBytes} B`,
      );
    }
    if (!args.only.has('fanout')) return memory === undefined ? {} : { memory };

    const { audioBytes } = profile.fanout;
    const connection = await RawHttpConnection.open(bridge.port);
    const audio = Buffer.alloc(audioBytes);
    for (let index = 0; index < audioBytes; index += 1) audio[index] = (index * 31) & 0xff;
    const request = RawHttpConnection.prepare(
      'POST',
      '/sim/play_audio',
      JSON.stringify({ emotion: 'happy', text: 'Fan-out benchmark', audio: audio.toString('base64') }),
    );
    let roundNumber = 0;
    const playRound = async () => {
      roundNumber += 1;
      let sent = 0n;
      let answered = 0n;
      const result = await fleet.round(roundNumber, audioBytes, 10_000, async () => {
        sent = process.hrtime.bigint();
        const response = await connection.send(request);
        answered = process.hrtime.bigint();
        if (response.status !== 200) throw new Error(`POST /sim/play_audio answered ${response.status}`);
      });
      const toMs = (at: bigint) => Number(at - sent) / 1e6;
      return { ...result, lastMs: toMs(result.last), firstMs: toMs(result.first), postMs: toMs(answered) };
    };

    const rows: FanoutRow[] = [];
    for (const sessions of profile.fanout.sessions) {
      await fleet.resize(bridge.wsUrl, sessions);
      await sleep(profile.fanout.gapMs);
      for (let warm = 0; warm < profile.fanout.warmupRounds; warm += 1) {
        await playRound();
        await sleep(profile.fanout.gapMs);
      }
      await fleet.cpuStart();
      const rounds: Awaited<ReturnType<typeof playRound>>[] = [];
      const { cpuPercent } = await measureCpu(bridge.pid, async () => {
        for (let repeat = 0; repeat < profile.fanout.repeats; repeat += 1) {
          rounds.push(await playRound());
          await sleep(profile.fanout.gapMs);
        }
      });
      const clientCpuPercent = await fleet.cpuStop();
      const complete = rounds.filter(
        (result) => result.complete === result.expected && result.expected === sessions,
      );
      const row: FanoutRow = {
        sessions,
        audioBytes,
        rounds: rounds.length,
        last: summarize(complete.map((result) => result.lastMs)),
        first: summarize(complete.map((result) => result.firstMs)),
        postResponse: summarize(rounds.map((result) => result.postMs)),
        incompleteRounds: rounds.length - complete.length,
        problems: rounds.flatMap((result) => result.problems).slice(0, 10),
        // Busy share of the measured rounds, gaps included: read it against gapMs.
        serverCpuPercent: round(cpuPercent, 1),
        clientCpuPercent: clientCpuPercent.map((value) => round(value, 1)),
      };
      rows.push(row);
      log(
        `fan-out ${sessions} sessions: last p50 ${row.last.p50.toFixed(2)} ms, p99 ${row.last.p99.toFixed(2)} ms`,
      );
    }
    connection.close();
    if (memory !== undefined) memory = { ...memory, afterFanoutRssBytes: readRssBytes(bridge.pid) };
    return { ...(memory === undefined ? {} : { memory }), fanout: { rows } };
  } finally {
    fleet.close();
  }
};
