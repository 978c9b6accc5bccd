import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { tourToMsg } from '../../src/ros/tour-message.js';
import { writeFileAtomically, type AtomicWriteStep } from '../../src/files/atomic-file.js';
import {
  openDurableTourStore,
  TourStoreOpenError,
  type DurableTourStore,
} from '../../src/robot/tours/durable-tour-store.js';
import { SAMPLE_TOUR } from '../../src/robot/tours/tour-rules.js';
import { mountSmallFilesystem, smallFilesystemUnavailable } from '../support/small-filesystem.js';
import type { Tour } from '../../src/protocol/tour-schema.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/robot/tours/tour-snapshot.js';

const tour = (name: string, map = 'floor-1'): Tour => ({
  tour_name: name,
  map_name: map,
  steps: [{ description: 'Start', destination: 'dock', dialogue: null }],
});
const create = (store: DurableTourStore, name: string, map?: string) =>
  store.handle('tour_create', { tour: tourToMsg(tour(name, map)) });
const names = async (store: DurableTourStore) => (await store.handle('tour_list', {})).tour_names;
const stateOf = async (file: string) => [...decodeSnapshot(await readFile(file, 'utf8')).keys()];

let root: string;
let counter = 0;
/** A fresh directory per test, with the store file's path in it. */
const freshFile = async (): Promise<string> => {
  counter += 1;
  const directory = join(root, `case-${counter}`);
  await mkdir(directory);
  return join(directory, 'tours.json');
};

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'tour-store-test-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the durable tour store', () => {
  it('starts from the sample tour when there is no file, and writes nothing until a change', async () => {
    const file = await freshFile();
    const { store, recovery } = await openDurableTourStore({ file });
    assert.deepEqual(recovery, { source: 'initial', tours: 1, removedTemporaries: [] });
    assert.deepEqual(await names(store), [SAMPLE_TOUR.tour_name]);
    assert.deepEqual(await readdir(join(file, '..')), []);
  });

  it('stores each change in the file and recovers it on the next start, in creation order', async () => {
    const file = await freshFile();
    const first = (await openDurableTourStore({ file, initialTours: [] })).store;
    assert.equal((await create(first, 'b')).outcome, TourOutcome.OK);
    assert.equal((await create(first, 'a')).outcome, TourOutcome.OK);
    assert.equal(
      (await first.handle('tour_update', { tour: tourToMsg(tour('b', 'roof')) })).outcome,
      TourOutcome.OK,
    );
    assert.equal((await first.handle('tour_delete', { tour_name: 'a' })).outcome, TourOutcome.OK);
    await create(first, 'c');
    await first.close();

    const { store, recovery } = await openDurableTourStore({ file });
    assert.deepEqual(recovery, { source: 'file', tours: 2, removedTemporaries: [] });
    assert.deepEqual(await names(store), ['b', 'c']);
    const got = await store.handle('tour_get', { tour_name: 'b' });
    assert.equal(got.tour.map_name, 'roof');
  });

  it('answers a change only after the directory holding the renamed file is synced', async () => {
    const file = await freshFile();
    const events: string[] = [];
    const { store } = await openDurableTourStore({
      file,
      write: { afterStep: (step) => void events.push(step) },
    });
    await create(store, 'durable').then(() => events.push('answered'));
    assert.deepEqual(events, ['temp-opened', 'temp-written', 'renamed', 'directory-synced', 'answered']);
    // Reads and refused changes write nothing.
    events.length = 0;
    await create(store, 'durable');
    await store.handle('tour_get', { tour_name: 'durable' });
    assert.deepEqual(events, []);
  });

  it('handles requests one at a time: of many concurrent creates of one name exactly one succeeds', async () => {
    const file = await freshFile();
    const { store } = await openDurableTourStore({ file, initialTours: [] });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => create(store, 'race')));
    assert.deepEqual(outcomes.map((answer) => answer.outcome).sort(), [
      TourOutcome.OK,
      ...Array.from({ length: 11 }, () => TourOutcome.ALREADY_EXISTS),
    ]);
    assert.deepEqual(await stateOf(file), ['race']);
  });

  it('answers ERROR and keeps state and file when a write fails; the next write works', async () => {
    const file = await freshFile();
    let failNext = false;
    const { store } = await openDurableTourStore({
      file,
      initialTours: [],
      write: {
        afterStep: (step) => {
          if (step === 'temp-written' && failNext) {
            failNext = false;
            throw new Error('ENOSPC: no space left on device');
          }
        },
      },
    });
    await create(store, 'kept');
    failNext = true;
    const failed = await create(store, 'lost');
    assert.equal(failed.outcome, TourOutcome.ERROR);
    assert.equal(failed.success, false);
    assert.match(failed.message, /could not store the change: ENOSPC/);
    assert.deepEqual(await names(store), ['kept']);
    assert.deepEqual(await stateOf(file), ['kept']);
    assert.deepEqual(await readdir(join(file, '..')), ['tours.json'], 'the temporary file is removed');
    assert.equal((await create(store, 'next')).outcome, TourOutcome.OK);
  });

  it(
    'on a file system that fills up, answers OK only for what is on it whole, and starts again from that',
    { skip: smallFilesystemUnavailable() ?? false },
    async () => {
      // Two pages: the whole file is written again on every change, next to the old one, so it fills fast.
      const small = await mountSmallFilesystem(8192);
      try {
        const file = join(small.directory, 'tours.json');
        const { store } = await openDurableTourStore({ file, initialTours: [] });
        const answeredOk: string[] = [];
        for (let index = 0; index < 100; index += 1) {
          const name = `tour-${index}-${'x'.repeat(100)}`;
          const answer = await create(store, name);
          if (answer.outcome !== TourOutcome.OK) {
            assert.equal(answer.success, false);
            assert.match(answer.message, /could not store the change: ENOSPC/);
            break;
          }
          answeredOk.push(name);
        }
        assert.ok(
          answeredOk.length > 3 && answeredOk.length < 100,
          `${answeredOk.length} creates answered OK`,
        );
        assert.deepEqual(await stateOf(file), answeredOk, 'the file holds exactly the changes answered OK');
        assert.deepEqual(await readdir(small.directory), ['tours.json'], 'no temporary file is left');
        await store.close();
        const restarted = await openDurableTourStore({ file });
        assert.deepEqual(await names(restarted.store), answeredOk);
        await restarted.store.close();
      } finally {
        await small.unmount();
      }
    },
  );

  it('refuses a create beyond --max_tours and a change beyond the file size limit, with a clear message', async () => {
    const file = await freshFile();
    const { store } = await openDurableTourStore({ file, initialTours: [], maxTours: 2 });
    await create(store, 'one');
    await create(store, 'two');
    const third = await create(store, 'three');
    assert.equal(third.outcome, TourOutcome.FULL);
    assert.match(third.message, /maximum of 2 tours; delete one first/);
    assert.equal(
      (await store.handle('tour_update', { tour: tourToMsg(tour('two', 'x')) })).outcome,
      TourOutcome.OK,
    );

    const small = await freshFile();
    const limited = (await openDurableTourStore({ file: small, initialTours: [], maxFileBytes: 400 })).store;
    assert.equal((await create(limited, 'fits')).outcome, TourOutcome.OK);
    const big = await limited.handle('tour_create', {
      tour: tourToMsg({ tour_name: 'big', map_name: 'm', steps: [{ description: 'x'.repeat(500) }] }),
    });
    assert.equal(big.outcome, TourOutcome.FULL);
    assert.match(big.message, /exceed its limit of 400 bytes/);
  });

  it('answers busy beyond the queue bound and refuses new requests once closing', async () => {
    const file = await freshFile();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { store } = await openDurableTourStore({
      file,
      initialTours: [],
      maxPending: 1,
      write: { afterStep: (step) => (step === 'temp-written' ? gate : undefined) },
    });
    const running = create(store, 'a'); // being written, held at the gate
    const waiting = create(store, 'b'); // the one allowed to wait
    const refused = await create(store, 'c');
    assert.equal(refused.outcome, TourOutcome.ERROR);
    assert.match(refused.message, /busy \(1 requests waiting\)/);
    const closing = store.close();
    assert.match((await create(store, 'd')).message, /shutting down/);
    release();
    assert.equal((await running).outcome, TourOutcome.OK);
    assert.equal((await waiting).outcome, TourOutcome.OK);
    await closing;
    assert.deepEqual(await stateOf(file), ['a', 'b']);
  });

  it('refuses to start on a file that is not a tour store, leaving it untouched', async () => {
    const cases: [string, RegExp][] = [
      ['{"format":"tour-bridge/tour-store","version":1,"tours":[{"tour_name":"x"', /not JSON/],
      ['{"format":"other","version":1,"tours":[]}', /format must be "tour-bridge\/tour-store"/],
      [
        JSON.stringify({
          format: 'tour-bridge/tour-store',
          version: 1,
          tours: [{ tour_name: '', map_name: 'm', steps: [] }],
        }),
        /tours\.0\.tour_name: tour_name must not be empty/,
      ],
      [
        encodeSnapshot(new Map([['a', tour('a')]])).replace(
          '"tours": [',
          `"tours": [${JSON.stringify(tour('a'))},`,
        ),
        /appears twice/,
      ],
    ];
    for (const [content, reason] of cases) {
      const file = await freshFile();
      await writeFile(file, content);
      await assert.rejects(openDurableTourStore({ file }), (error: unknown) => {
        assert.ok(error instanceof TourStoreOpenError);
        assert.ok(error.message.includes(file), error.message);
        assert.match(error.message, reason);
        assert.match(error.message, /move it away/);
        return true;
      });
      assert.equal(await readFile(file, 'utf8'), content);
    }
  });

  it('refuses a file over the size limit and a directory it cannot write', async () => {
    const file = await freshFile();
    await writeFile(file, encodeSnapshot(new Map([['a', tour('a')]])));
    await assert.rejects(openDurableTourStore({ file, maxFileBytes: 10 }), /more than the limit of 10/);
    await assert.rejects(
      openDurableTourStore({ file: join(root, 'missing-dir', 'tours.json') }),
      /directory of the tour store file .* is not writable/,
    );
  });

  it('removes temporary files a crashed write left behind, keeping the committed file', async () => {
    const file = await freshFile();
    await writeFileAtomically(file, encodeSnapshot(new Map([['kept', tour('kept')]])));
    await writeFile(join(file, '..', '.tours.json.tmp-999-1'), '{"format":"tour-bridge/tour-st');
    await writeFile(join(file, '..', 'unrelated.tmp'), 'keep me');
    const { store, recovery } = await openDurableTourStore({ file });
    assert.deepEqual(recovery.removedTemporaries, ['.tours.json.tmp-999-1']);
    assert.deepEqual(await names(store), ['kept']);
    assert.deepEqual((await readdir(join(file, '..'))).sort(), ['tours.json', 'unrelated.tmp']);
  });
});

interface ChildRun {
  readonly output: string;
  readonly killedAtPause: boolean;
}

/** Runs the crash fixture; SIGKILLs it as soon as it pauses. Bounded. */
const runUntilPause = (file: string, step: AtomicWriteStep | 'none', name: string): Promise<ChildRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/store-crash-child.ts', file, step, name],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let killedAtPause = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the crash fixture did not pause or finish within 20 s: ${output}`));
    }, 20_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (!killedAtPause && output.includes('paused:')) {
        killedAtPause = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve({ output, killedAtPause });
    });
  });

describe('the durable tour store across a crash (a child process killed mid-write)', () => {
  const oldState = () => encodeSnapshot(new Map([['before', tour('before')]]));

  for (const step of ['temp-opened', 'temp-written'] as const) {
    it(`killed at ${step} (before the rename): the old file, byte for byte; the change was never acknowledged`, async () => {
      const file = await freshFile();
      await writeFileAtomically(file, oldState());
      const run = await runUntilPause(file, step, 'crash-me');
      assert.ok(run.killedAtPause, run.output);
      assert.doesNotMatch(run.output, /acked/);
      assert.equal(await readFile(file, 'utf8'), oldState());
      const leftovers = (await readdir(join(file, '..'))).filter((name) => name !== 'tours.json');
      assert.equal(leftovers.length, 1, 'the interrupted temporary file is there');

      const { store, recovery } = await openDurableTourStore({ file });
      assert.deepEqual(recovery.removedTemporaries, leftovers);
      assert.deepEqual(await names(store), ['before']);
    });
  }

  it('killed after the rename, before the directory sync: the whole new file, not yet acknowledged', async () => {
    const file = await freshFile();
    await writeFileAtomically(file, oldState());
    const run = await runUntilPause(file, 'renamed', 'crash-me');
    assert.ok(run.killedAtPause, run.output);
    assert.doesNotMatch(run.output, /acked/, 'no answer before the rename is durable');
    assert.deepEqual(await stateOf(file), ['before', 'crash-me']);
    const { store } = await openDurableTourStore({ file });
    assert.deepEqual(await names(store), ['before', 'crash-me']);
  });

  it('not killed: acknowledged, and the change is there on the next start', async () => {
    const file = await freshFile();
    await writeFileAtomically(file, oldState());
    const run = await runUntilPause(file, 'none', 'kept-change');
    assert.equal(run.killedAtPause, false);
    assert.match(run.output, /acked:0/);
    const { store } = await openDurableTourStore({ file });
    assert.deepEqual(await names(store), ['before', 'kept-change']);
  });
});
