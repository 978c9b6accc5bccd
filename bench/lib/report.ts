import type { BenchResults, Skipped, TargetCheck, TtfsRow } from './results.js';
import { median } from './stats.js';

const KiB = 1024;
const MiB = 1024 * KiB;

export const formatBytes = (bytes: number): string => {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (Math.abs(bytes) >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (Math.abs(bytes) >= KiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${Math.round(bytes)} B`;
};

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : 'n/a');
const num = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
const x = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');
const pct = (value: number): string => (Number.isFinite(value) ? `${Math.round(value)}%` : 'n/a');
const pcts = (values: readonly number[]): string => values.map(pct).join('/');
const signed = (value: number): string =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${ms(value)}` : 'n/a';

/** A plain-text table; also valid Markdown (so docs/performance.md can take it as it is). */
export const table = (headers: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
};

const isSkipped = (value: object): value is Skipped => 'skipped' in value;

/** The whole report as Markdown: machine, then one table per scenario, then the targets. */
export const renderReport = (results: BenchResults): string => {
  const { machine, scenarios } = results;
  const out: string[] = [];
  out.push(
    `tour-bridge bench, ${results.mode} run, ${results.startedAt} (${Math.round(results.durationS)} s)`,
    '',
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${formatBytes(machine.memoryBytes)} RAM, ${machine.kernel} (${machine.os}); ` +
      `Node ${machine.node}; ${machine.uws}; wrk ${machine.wrk ?? 'absent'}`,
    `Quiet: load ${results.quiet.before.loadAverage1m.toFixed(2)} before, ${results.quiet.after.loadAverage1m.toFixed(2)} after; ` +
      `other heavy processes: ${[...new Set([...results.quiet.before.heavyProcesses, ...results.quiet.after.heavyProcesses])].join(', ') || 'none'}`,
    ...(results.merged ?? []).map(
      (run) =>
        `Merged in (--merge): ${run.scenarios.join(', ')} from the run of ${run.startedAt} (${Math.round(run.durationS)} s, ` +
        `load ${run.quiet.before.loadAverage1m.toFixed(2)} before, ${run.quiet.after.loadAverage1m.toFixed(2)} after)`,
    ),
    '',
  );

  const get = scenarios.httpGet;
  if (get !== undefined) {
    out.push('1. GET /tour/welcome (wrk, keep-alive; latency in ms)', '');
    if (isSkipped(get)) out.push(`skipped: ${get.skipped}`, '');
    else {
      out.push(
        table(
          [
            'conns',
            'bridge req/s',
            'p50',
            'p99',
            'bare uWS req/s',
            'p50',
            'p99',
            'node:http req/s',
            'p50',
            'p99',
            'bridge÷bare',
            'bridge÷node',
            'CPU bridge/wrk',
            'CPU µs/req bridge/bare/node',
          ],
          get.rows.map((row) => [
            String(row.connections),
            num(row.bridge.rps),
            ms(row.bridge.p50),
            ms(row.bridge.p99),
            num(row.bareUws.rps),
            ms(row.bareUws.p50),
            ms(row.bareUws.p99),
            num(row.nodeHttpWs.rps),
            ms(row.nodeHttpWs.p50),
            ms(row.nodeHttpWs.p99),
            x(row.rpsRatio.toBareUws),
            x(row.rpsRatio.toNodeHttpWs),
            `${pct(row.bridge.serverCpuPercent)}/${pct(row.bridge.wrkCpuPercent)}`,
            [row.bridge, row.bareUws, row.nodeHttpWs]
              .map((f) => f.serverCpuUsPerRequest.toFixed(1))
              .join('/'),
          ]),
        ),
        '',
      );
    }
  }

  const write = scenarios.httpWrite;
  if (write !== undefined) {
    out.push('2. POST /tour then DELETE /tour/{name} (wrk; each DELETE follows its POST’s 201)', '');
    if (isSkipped(write)) out.push(`skipped: ${write.skipped}`, '');
    else {
      out.push(
        table(
          ['conns', 'req/s', 'p50', 'p99', 'POST', 'DELETE', 'non-2xx', 'CPU bridge/wrk', 'CPU µs/req'],
          write.rows.map((row) => [
            String(row.connections),
            num(row.bridge.rps),
            ms(row.bridge.p50),
            ms(row.bridge.p99),
            num(row.bridge.posts),
            num(row.bridge.deletes),
            num(row.bridge.errors),
            `${pct(row.bridge.serverCpuPercent)}/${pct(row.bridge.wrkCpuPercent)}`,
            row.bridge.serverCpuUsPerRequest.toFixed(1),
          ]),
        ),
        '',
      );
    }
  }

  const chat = scenarios.chat;
  if (chat !== undefined) {
    out.push('3. Chat round trip over /ws: binary frame out → metadata + binary answer in (ms)', '');
    out.push(
      table(
        [
          'frame',
          'sessions',
          'bridge p50',
          'p99',
          'bare uWS p50',
          'p99',
          'node ws p50',
          'p99',
          'overhead p99 vs bare',
          'p99 ÷bare',
          'p99 ÷node',
          'CPU bridge/client',
        ],
        chat.rows.map((row) => [
          formatBytes(row.frameBytes),
          String(row.sessions),
          ms(row.bridge.p50),
          ms(row.bridge.p99),
          ms(row.bareUws.p50),
          ms(row.bareUws.p99),
          ms(row.nodeHttpWs.p50),
          ms(row.nodeHttpWs.p99),
          signed(row.overhead.p99VsBareUws),
          x(row.p99Ratio.toBareUws),
          x(row.p99Ratio.toNodeHttpWs),
          `${pct(row.bridge.serverCpuPercent)}/${pcts(row.bridge.clientCpuPercent)}`,
        ]),
      ),
      '',
    );
    const split = chat.rows.flatMap((row) =>
      row.noSession === undefined ? [] : [{ row, less: row.noSession }],
    );
    if (split.length > 0) {
      out.push(
        "Where a round trip's server CPU goes (µs per round trip, medians of the runs): bare uWS, the bridge less",
        'its session actor (bench/peers/bridge-no-session.ts: the same build, its /ws transport, call wrapper and',
        'simulation), the bridge. The session actor costs the difference of the last two, taken run by run (each',
        "run's pair measured side by side); its median, then every run's; `user`: the same in user time alone,",
        "the server's own code without the kernel's. `XState least chart`: the same peer with XState's least chart",
        'for a turn in place of the plain function (bench/lib/least-chart.ts), read the same way: what XState',
        'itself costs a round trip in this server; `XState, invoke`: its shape with an invoke per turn (the',
        "session's `calling`).",
        '',
      );
      out.push(
        table(
          [
            'frame',
            'sessions',
            'bare uWS',
            'less session',
            '÷bare',
            'bridge',
            '÷bare',
            'session actor',
            'runs',
            'user',
            'runs',
            'XState least chart',
            'runs',
            'XState, invoke',
            'runs',
            'less session p50',
            'p99',
          ],
          split.map(({ row, less }) => [
            formatBytes(row.frameBytes),
            String(row.sessions),
            row.bareUws.serverCpuUsPerRoundTrip.toFixed(1),
            less.serverCpuUsPerRoundTrip.toFixed(1),
            x(less.serverCpuUsPerRoundTrip / row.bareUws.serverCpuUsPerRoundTrip),
            row.bridge.serverCpuUsPerRoundTrip.toFixed(1),
            x(row.bridge.serverCpuUsPerRoundTrip / row.bareUws.serverCpuUsPerRoundTrip),
            signed(
              row.sessionShare?.median ?? row.bridge.serverCpuUsPerRoundTrip - less.serverCpuUsPerRoundTrip,
            ),
            (row.sessionShare?.runs ?? []).map((share) => share.toFixed(1)).join(', '),
            row.sessionShare?.userRuns === undefined ? '–' : signed(median(row.sessionShare.userRuns)),
            (row.sessionShare?.userRuns ?? []).map((share) => share.toFixed(1)).join(', '),
            row.xstateShare === undefined ? '–' : signed(row.xstateShare.median),
            (row.xstateShare?.runs ?? []).map((share) => share.toFixed(1)).join(', '),
            row.xstateInvokeShare === undefined ? '–' : signed(row.xstateInvokeShare.median),
            (row.xstateInvokeShare?.runs ?? []).map((share) => share.toFixed(1)).join(', '),
            ms(less.p50),
            ms(less.p99),
          ]),
        ),
        '',
      );
    }
  }

  const fanout = scenarios.fanout;
  if (fanout !== undefined) {
    out.push('4. Fan-out of one /play_audio message (POST /sim/play_audio) to every session (ms)', '');
    out.push(
      table(
        [
          'sessions',
          'audio',
          'rounds',
          'last p50',
          'last p99',
          'first p50',
          'POST answered p50',
          'p99',
          'incomplete',
          'CPU bridge/clients',
        ],
        fanout.rows.map((row) => [
          String(row.sessions),
          formatBytes(row.audioBytes),
          String(row.rounds),
          ms(row.last.p50),
          ms(row.last.p99),
          ms(row.first.p50),
          ms(row.postResponse.p50),
          ms(row.postResponse.p99),
          String(row.incompleteRounds),
          `${pct(row.serverCpuPercent)}/${pcts(row.clientCpuPercent)}`,
        ]),
      ),
      '',
    );
  }

  const memory = scenarios.memory;
  if (memory !== undefined) {
    out.push('5. Memory of the bridge (VmRSS)', '');
    out.push(
      table(
        [
          'idle',
          `${memory.sessions} idle sessions`,
          'per session',
          `${memory.sessions} more`,
          'per session of those',
          'after fan-out',
          'after scenarios 1–2',
        ],
        [
          [
            formatBytes(memory.idleRssBytes),
            formatBytes(memory.withSessionsRssBytes),
            formatBytes(memory.perSessionBytes),
            memory.nextSessionsRssBytes === undefined ? 'n/a' : formatBytes(memory.nextSessionsRssBytes),
            memory.nextPerSessionBytes === undefined ? 'n/a' : formatBytes(memory.nextPerSessionBytes),
            memory.afterFanoutRssBytes === undefined ? 'n/a' : formatBytes(memory.afterFanoutRssBytes),
            memory.afterAllRssBytes === undefined ? 'n/a' : formatBytes(memory.afterAllRssBytes),
          ],
        ],
      ),
      '',
    );
  }

  const ttfs = scenarios.ttfs;
  if (ttfs !== undefined) {
    const first = ttfs.rows[0];
    out.push(
      `6. Time to first sound, from the end of speech (the whole frame or the last part handed to the socket) to the first answer byte (ms): the simulation's answer in ${String(first?.parts)} parts ${String(first?.partMs)} ms apart, after its recogniser stand-in's rt × the speech still to recognise (rt 0: none)`,
      '',
    );
    out.push(
      table(
        [
          'interface',
          'upload',
          'speech',
          'rt',
          'turns',
          'end of speech → first answer byte p50',
          'p99',
          'max',
          'bridge adds per part p50',
          'p99',
        ],
        ttfs.rows.map((row) => [
          row.chatInterface,
          row.upload === 'streamed' ? `streamed, ${row.streamPartMs} ms parts` : 'whole',
          `${(row.utteranceMs / 1000).toFixed(1)} s`,
          String(row.recognitionRt),
          String(row.samples),
          ms(row.p50),
          ms(row.p99),
          ms(row.max),
          ms(row.addedPerPart.p50),
          ms(row.addedPerPart.p99),
        ]),
      ),
      '',
    );
  }

  const comparison = renderComparison(results);
  if (comparison !== '') out.push(comparison, '');

  if (results.targets.length > 0) {
    out.push('Targets', '');
    out.push(
      table(
        ['target', 'measured', 'met'],
        results.targets.map((check) => [check.target, check.value, check.met ? 'yes' : 'NO']),
      ),
      '',
    );
  }
  return out.join('\n');
};

const change = (after: number, before: number): string =>
  Number.isFinite(after) && Number.isFinite(before) && before !== 0
    ? `${after >= before ? '+' : ''}${Math.round(((after - before) / before) * 100)}%`
    : 'n/a';

/** With `--compare`: the baseline build next to this one, figure by figure (same run, interleaved). */
const renderComparison = (results: BenchResults): string => {
  const { scenarios } = results;
  const rows: string[][] = [];
  const get = scenarios.httpGet;
  if (get !== undefined && !isSkipped(get)) {
    for (const row of get.rows) {
      if (row.baseline === undefined) continue;
      const before = row.baseline;
      rows.push(
        [
          `GET c=${row.connections} req/s`,
          num(before.rps),
          num(row.bridge.rps),
          change(row.bridge.rps, before.rps),
        ],
        [
          `GET c=${row.connections} p99 ms`,
          ms(before.p99),
          ms(row.bridge.p99),
          change(row.bridge.p99, before.p99),
        ],
        [
          `GET c=${row.connections} CPU µs/req`,
          before.serverCpuUsPerRequest.toFixed(1),
          row.bridge.serverCpuUsPerRequest.toFixed(1),
          change(row.bridge.serverCpuUsPerRequest, before.serverCpuUsPerRequest),
        ],
      );
    }
  }
  const write = scenarios.httpWrite;
  if (write !== undefined && !isSkipped(write)) {
    for (const row of write.rows) {
      if (row.baseline === undefined) continue;
      const before = row.baseline;
      rows.push(
        [
          `POST/DELETE c=${row.connections} req/s`,
          num(before.rps),
          num(row.bridge.rps),
          change(row.bridge.rps, before.rps),
        ],
        [
          `POST/DELETE c=${row.connections} CPU µs/req`,
          before.serverCpuUsPerRequest.toFixed(1),
          row.bridge.serverCpuUsPerRequest.toFixed(1),
          change(row.bridge.serverCpuUsPerRequest, before.serverCpuUsPerRequest),
        ],
      );
    }
  }
  for (const row of scenarios.chat?.rows ?? []) {
    if (row.baseline === undefined) continue;
    const label = `chat ${formatBytes(row.frameBytes)} × ${row.sessions}`;
    rows.push(
      [`${label} p50 ms`, ms(row.baseline.p50), ms(row.bridge.p50), change(row.bridge.p50, row.baseline.p50)],
      [`${label} p99 ms`, ms(row.baseline.p99), ms(row.bridge.p99), change(row.bridge.p99, row.baseline.p99)],
      [
        `${label} CPU µs/round trip`,
        row.baseline.serverCpuUsPerRoundTrip.toFixed(1),
        row.bridge.serverCpuUsPerRoundTrip.toFixed(1),
        change(row.bridge.serverCpuUsPerRoundTrip, row.baseline.serverCpuUsPerRoundTrip),
      ],
    );
  }
  for (const row of scenarios.fanout?.rows ?? []) {
    const before = scenarios.baseline?.fanout?.rows.find((other) => other.sessions === row.sessions);
    if (before === undefined) continue;
    rows.push(
      [
        `fan-out ${row.sessions} last p50 ms`,
        ms(before.last.p50),
        ms(row.last.p50),
        change(row.last.p50, before.last.p50),
      ],
      [
        `fan-out ${row.sessions} last p99 ms`,
        ms(before.last.p99),
        ms(row.last.p99),
        change(row.last.p99, before.last.p99),
      ],
    );
  }
  const memory = scenarios.memory;
  const memoryBefore = scenarios.baseline?.memory;
  if (memory !== undefined && memoryBefore !== undefined) {
    rows.push(
      [
        'idle RSS',
        formatBytes(memoryBefore.idleRssBytes),
        formatBytes(memory.idleRssBytes),
        change(memory.idleRssBytes, memoryBefore.idleRssBytes),
      ],
      [
        'RSS per idle session',
        formatBytes(memoryBefore.perSessionBytes),
        formatBytes(memory.perSessionBytes),
        change(memory.perSessionBytes, memoryBefore.perSessionBytes),
      ],
    );
    if (memory.nextPerSessionBytes !== undefined && memoryBefore.nextPerSessionBytes !== undefined) {
      rows.push([
        'RSS per idle session, the next ones',
        formatBytes(memoryBefore.nextPerSessionBytes),
        formatBytes(memory.nextPerSessionBytes),
        change(memory.nextPerSessionBytes, memoryBefore.nextPerSessionBytes),
      ]);
    }
  }
  if (rows.length === 0) return '';
  const env = Object.entries((results.settings['serviceEnv'] ?? {}) as Record<string, string>);
  const flags = (results.settings['serviceNodeFlags'] ?? []) as readonly string[];
  const settings = [...flags, ...env.map(([name, value]) => `${name}=${value}`)];
  const withEnv = settings.length === 0 ? '' : ` (this one with ${settings.join(' ')})`;
  return [
    `Before → after: the --compare build (${String(results.settings['compare'])}) and this one${withEnv}, same run, interleaved`,
    '',
    table(['figure', 'before', 'after', 'change'], rows),
  ].join('\n');
};

/** The targets (issues 11, 22 and 38), checked against this run's numbers (only those this run measured). */
export const checkTargets = (results: Omit<BenchResults, 'targets'>): TargetCheck[] => {
  const checks: TargetCheck[] = [];
  const get = results.scenarios.httpGet;
  const at16 =
    get !== undefined && !isSkipped(get) ? get.rows.find((row) => row.connections === 16) : undefined;
  if (at16 !== undefined) {
    const vsNode = `${x(at16.rpsRatio.toNodeHttpWs)} (${num(at16.bridge.rps)} vs ${num(at16.nodeHttpWs.rps)} req/s)`;
    checks.push({
      target: 'GET at 16 connections ≥ node:http',
      value: vsNode,
      met: at16.rpsRatio.toNodeHttpWs >= 1,
    });
    const vsBare = `${x(at16.rpsRatio.toBareUws)} (${num(at16.bridge.rps)} vs ${num(at16.bareUws.rps)} req/s)`;
    checks.push({
      target: 'GET at 16 connections ≥ 0.5× bare uWS',
      value: vsBare,
      met: at16.rpsRatio.toBareUws >= 0.5,
    });
    checks.push({
      target: 'GET at 16 connections ≥ 0.7× bare uWS',
      value: vsBare,
      met: at16.rpsRatio.toBareUws >= 0.7,
    });
    checks.push({
      target: 'goal: GET at 16 connections ≥ 1.5× node:http',
      value: vsNode,
      met: at16.rpsRatio.toNodeHttpWs >= 1.5,
    });
  }
  const chat1 = results.scenarios.chat?.rows.find((row) => row.frameBytes === 32 * KiB && row.sessions === 1);
  if (chat1 !== undefined) {
    // Issue #38's: the session actor's own share, and the tail at one session against bare uWebSockets.js.
    const share = chat1.sessionShare;
    if (share !== undefined) {
      const runs = `(runs ${share.runs.map((run) => run.toFixed(1)).join(', ')} µs)`;
      checks.push(
        {
          target: 'chat 32 KiB, 1 session: session actor ≤ 40 µs CPU per round trip, best run',
          value: `${share.best.toFixed(1)} µs ${runs}`,
          met: share.best <= 40,
        },
        {
          target: 'chat 32 KiB, 1 session: session actor ≤ 60 µs CPU per round trip, worst run',
          value: `${share.worst.toFixed(1)} µs ${runs}`,
          met: share.worst <= 60,
        },
      );
    }
    const invoke = chat1.xstateInvokeShare;
    if (share !== undefined && invoke !== undefined) {
      const over = share.median - invoke.median;
      checks.push({
        target:
          "chat 32 KiB, 1 session: session actor within 15 µs of XState's chart with an invoke per turn",
        value: `${signed(over)} µs (${share.median.toFixed(1)} vs ${invoke.median.toFixed(1)} µs, medians)`,
        met: over <= 15,
      });
    }
    checks.push({
      target: 'chat 32 KiB, 1 session: p99 within 1.0 ms of bare uWS',
      value: `${signed(chat1.overhead.p99VsBareUws)} ms (p99 ${ms(chat1.bridge.p99)} vs ${ms(chat1.bareUws.p99)})`,
      met: chat1.overhead.p99VsBareUws <= 1,
    });
  }
  const chat32 = results.scenarios.chat?.rows.find(
    (row) => row.frameBytes === 32 * KiB && row.sessions === 32,
  );
  if (chat32 !== undefined) {
    checks.push({
      target: 'chat 32 KiB, 32 sessions: p99 ≤ 2× bare uWS',
      value: `${x(chat32.p99Ratio.toBareUws)} (p99 ${ms(chat32.bridge.p99)} vs ${ms(chat32.bareUws.p99)})`,
      met: chat32.p99Ratio.toBareUws <= 2,
    });
  }
  // The target is for 32 KiB messages; a run with `--fanout-bytes` reports its rows, judged against none.
  const fanout1000 = results.scenarios.fanout?.rows.find(
    (row) => row.sessions === 1000 && row.audioBytes === 32 * KiB,
  );
  if (fanout1000 !== undefined) {
    checks.push({
      target: 'fan-out 32 KiB to 1,000 sessions: p99 < 40 ms',
      value: `${ms(fanout1000.last.p99)} ms (p50 ${ms(fanout1000.last.p50)}, ${fanout1000.rounds} rounds)`,
      met: fanout1000.last.p99 < 40 && fanout1000.incompleteRounds === 0,
    });
  }
  checks.push(...streamingTargets(results.scenarios.ttfs?.rows ?? []));
  const memory = results.scenarios.memory;
  if (memory !== undefined && memory.sessions >= 1000) {
    checks.push({
      target: 'memory per idle session < 30 KiB',
      value: formatBytes(memory.perSessionBytes),
      met: memory.perSessionBytes < 30 * KiB,
    });
    if (memory.nextPerSessionBytes !== undefined) {
      checks.push({
        target: 'memory per idle session, 1,000 more on a grown process < 20 KiB',
        value: formatBytes(memory.nextPerSessionBytes),
        met: memory.nextPerSessionBytes < 20 * KiB,
      });
    }
  }
  return checks;
};

/**
 * Issue #39's targets, from the streamed and whole rows of one run on the recogniser stand-in: streamed time
 * to first sound does not grow with the utterance (15 s within 50 ms of 1 s at p50), and at 5 s it is at
 * least 1 s below whole's. Judged only when the run measured those lengths.
 */
const streamingTargets = (rows: readonly TtfsRow[]): TargetCheck[] => {
  const checks: TargetCheck[] = [];
  const find = (upload: TtfsRow['upload'], utteranceMs: number) =>
    rows.find(
      (row) =>
        row.chatInterface === 'action' &&
        row.recognitionRt > 0 &&
        row.upload === upload &&
        row.utteranceMs === utteranceMs,
    );
  const streamed1 = find('streamed', 1000);
  const streamed15 = find('streamed', 15_000);
  if (streamed1 !== undefined && streamed15 !== undefined) {
    const growth = streamed15.p50 - streamed1.p50;
    checks.push({
      target: 'time to first sound, streamed: 15 s within 50 ms of 1 s at p50',
      value: `${signed(growth)} ms (p50 ${ms(streamed15.p50)} vs ${ms(streamed1.p50)})`,
      met: Math.abs(growth) <= 50,
    });
  }
  const streamed5 = find('streamed', 5000);
  const whole5 = find('whole', 5000);
  if (streamed5 !== undefined && whole5 !== undefined) {
    const gain = whole5.p50 - streamed5.p50;
    checks.push({
      target: 'time to first sound at 5 s: streamed ≥ 1 s below whole at p50',
      value: `${ms(gain)} ms below (p50 ${ms(streamed5.p50)} vs ${ms(whole5.p50)})`,
      met: gain >= 1000,
    });
  }
  return checks;
};
