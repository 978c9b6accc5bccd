import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBenchArgs } from '../../bench/lib/profiles.js';
import { mergeResults } from '../../bench/lib/results-merge.js';
import type { BenchResults, MemoryFigures, TtfsRow } from '../../bench/lib/results.js';

/** `--merge`: a later run of some scenarios put into a results file, which still says where figures come from. */

const quiet = (loadAverage1m: number) => ({
  before: { loadAverage1m, heavyProcesses: [], quiet: loadAverage1m < 1 },
  after: { loadAverage1m, heavyProcesses: [], quiet: loadAverage1m < 1 },
});

const memory = (idleRssBytes: number): MemoryFigures => ({
  idleRssBytes,
  sessions: 1000,
  withSessionsRssBytes: idleRssBytes * 2,
  perSessionBytes: 1,
});

const ttfsRows = (p50: number): TtfsRow[] => [
  {
    chatInterface: 'action',
    upload: 'streamed',
    utteranceMs: 1000,
    utteranceBytes: 32_000,
    streamPartMs: 100,
    recognitionRt: 0.3,
    parts: 3,
    partMs: 400,
    turns: 1,
    samples: 1,
    p50,
    p99: p50,
    max: p50,
    mean: p50,
    addedPerPart: { samples: 3, p50: 1, p99: 1, max: 1, mean: 1 },
    problems: [],
  },
];

const run = (
  startedAt: string,
  scenarios: BenchResults['scenarios'],
  mode: BenchResults['mode'] = 'full',
): Omit<BenchResults, 'targets' | 'merged'> => ({
  version: 1,
  mode,
  startedAt,
  durationS: 10,
  machine: {} as BenchResults['machine'],
  quiet: quiet(startedAt.includes('T2') ? 3 : 0.5),
  settings: { startedAt },
  scenarios,
});

describe('bench --merge', () => {
  const base: BenchResults = {
    ...run('2026-11-27T04:47:00Z', { memory: memory(60), ttfs: { rows: ttfsRows(400) } }),
    targets: [{ target: 'an old verdict', value: '1', met: true }],
  };

  it('replaces the scenarios run, keeps every other figure and the file’s own run, and records the later run', () => {
    const later = run('2026-11-27T23:37:00Z', { ttfs: { rows: ttfsRows(433) } });
    const merged = mergeResults(base, later);
    assert.deepEqual(merged.scenarios.memory, memory(60));
    assert.deepEqual(merged.scenarios.ttfs, { rows: ttfsRows(433) });
    assert.equal(merged.startedAt, base.startedAt);
    assert.deepEqual(merged.settings, base.settings);
    assert.deepEqual(merged.merged, [
      {
        scenarios: ['ttfs'],
        startedAt: later.startedAt,
        durationS: 10,
        quiet: later.quiet,
        settings: later.settings,
      },
    ]);
    assert.ok(!('targets' in merged), 'the targets are judged again by the caller');
  });

  it('keeps of an earlier merge only the scenarios not replaced again', () => {
    const first = mergeResults(
      base,
      run('2026-11-27T20:00:00Z', { memory: memory(61), ttfs: { rows: ttfsRows(420) } }),
    );
    const second = mergeResults(
      { ...first, targets: [] },
      run('2026-11-27T23:00:00Z', { ttfs: { rows: ttfsRows(433) } }),
    );
    assert.deepEqual(
      second.merged?.map((each) => [each.startedAt, each.scenarios]),
      [
        ['2026-11-27T20:00:00Z', ['memory']],
        ['2026-11-27T23:00:00Z', ['ttfs']],
      ],
    );
    const third = mergeResults(
      { ...second, targets: [] },
      run('2026-11-28T01:00:00Z', { memory: memory(62) }),
    );
    assert.deepEqual(
      third.merged?.map((each) => each.startedAt),
      ['2026-11-27T23:00:00Z', '2026-11-28T01:00:00Z'],
    );
  });

  it('refuses another mode, and a run that measured nothing', () => {
    assert.throws(
      () => mergeResults(base, run('2026-11-27T23:37:00Z', { ttfs: { rows: ttfsRows(1) } }, 'quick')),
      /the results file is a full run, this one is quick/,
    );
    assert.throws(() => mergeResults(base, run('2026-11-27T23:37:00Z', {})), /measured no scenario/);
  });

  it('gives Node.js flags to the measured bridge only when asked, one flag an option', () => {
    const plain = parseBenchArgs(['--only', 'chat'], {});
    const flagged = parseBenchArgs(
      ['--only', 'chat', '--node-flag', '--initial-old-space-size=40', '--node-flag', '--expose-gc'],
      {},
    );
    assert.ok(typeof plain !== 'string' && typeof flagged !== 'string');
    assert.deepEqual(plain.serviceNodeFlags, []);
    assert.deepEqual(flagged.serviceNodeFlags, ['--initial-old-space-size=40', '--expose-gc']);
    const refused = parseBenchArgs(['--node-flag', '--a --b'], {});
    assert.ok(typeof refused === 'string' && refused.startsWith('--node-flag needs one'));
  });

  it('sizes the fan-out message when asked, within what /sim/play_audio takes', () => {
    const plain = parseBenchArgs(['--quick', '--only', 'fanout'], {});
    const sized = parseBenchArgs(['--quick', '--only', 'fanout', '--fanout-bytes', '524288'], {});
    assert.ok(typeof plain !== 'string' && typeof sized !== 'string');
    assert.equal(plain.profile.fanout.audioBytes, 32 * 1024);
    assert.equal(sized.profile.fanout.audioBytes, 524288);
    assert.deepEqual(sized.profile.fanout.sessions, plain.profile.fanout.sessions);
    for (const bad of ['0', '1.5', String(8 * 1024 * 1024 + 1), 'lots']) {
      const refused = parseBenchArgs(['--fanout-bytes', bad], {});
      assert.ok(typeof refused === 'string' && refused.startsWith('--fanout-bytes needs'), bad);
    }
  });

  it('is off unless asked for', () => {
    const plain = parseBenchArgs(['--only', 'ttfs'], {});
    const merging = parseBenchArgs(['--only', 'ttfs', '--merge'], {});
    assert.ok(typeof plain !== 'string' && typeof merging !== 'string');
    assert.equal(plain.merge, false);
    assert.equal(merging.merge, true);
  });
});
