import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualTimeScheduler } from 'rxjs';
import { tourToMsg } from '../../src/ros/tour-message.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import type { RosCallHandler, RosServiceKey } from '../../src/ros/port/ros-port.js';

/**
 * A call the bridge stops waiting for (time-out, caller gone) has still reached the simulated robot,
 * which carries it out when its time comes, as a node on a graph does; only the answer is dropped.
 */

const GARDEN = tourToMsg({ tour_name: 'garden', map_name: 'park', steps: [] });

/** A handler that records what reached it. */
const recorder = <K extends RosServiceKey>(heard: string[]): RosCallHandler<K> => ({
  answered: () => heard.push('answered'),
  failed: (error) => heard.push(`failed: ${error.message}`),
});

const listedNames = (sim: ReturnType<typeof createSimBackend>, scheduler: VirtualTimeScheduler) => {
  let names: string[] | undefined;
  sim.call(
    'tour_list',
    {},
    { answered: (response) => (names = response.tour_names), failed: () => undefined },
  );
  scheduler.flush();
  return names;
};

describe('the simulation carries out calls whose answer nobody waits for', () => {
  it('a create cancelled before its answer is made at its time, and its answer reaches nobody', async () => {
    const scheduler = new VirtualTimeScheduler();
    const sim = createSimBackend({ initialTours: [], latencyMs: 100, scheduler });
    try {
      const heard: string[] = [];
      const ticket = sim.call('tour_create', { tour: GARDEN }, recorder(heard));
      ticket.cancel();
      scheduler.flush();
      assert.deepEqual(heard, []);
      assert.deepEqual(listedNames(sim, scheduler), ['garden']);
    } finally {
      await sim.close();
    }
  });

  it('setSlow: one service answers after its own delay; 0 sets it back', async () => {
    const scheduler = new VirtualTimeScheduler();
    const sim = createSimBackend({ initialTours: [], latencyMs: 10, scheduler });
    try {
      sim.faults.setSlow('tour_create', 7_000);
      const heard: string[] = [];
      sim.call('tour_create', { tour: GARDEN }, recorder(heard));
      scheduler.maxFrames = 6_999;
      scheduler.flush();
      assert.deepEqual(heard, []);
      scheduler.maxFrames = Number.POSITIVE_INFINITY;
      scheduler.flush();
      assert.deepEqual(heard, ['answered']);
      sim.faults.setSlow('tour_create', 0);
      const start = scheduler.now();
      let answeredAt = 0;
      sim.call(
        'tour_create',
        { tour: tourToMsg({ tour_name: 'pond', map_name: 'park', steps: [] }) },
        { answered: () => (answeredAt = scheduler.now()), failed: () => undefined },
      );
      scheduler.flush();
      assert.equal(answeredAt - start, 10);
    } finally {
      await sim.close();
    }
  });

  it('closing the simulation drops the calls not yet carried out', async () => {
    const scheduler = new VirtualTimeScheduler();
    const sim = createSimBackend({ initialTours: [], latencyMs: 100, scheduler });
    const heard: string[] = [];
    sim.call('tour_create', { tour: GARDEN }, recorder(heard));
    await sim.close();
    scheduler.flush();
    assert.deepEqual(heard, []);
    assert.deepEqual(listedNames(sim, scheduler), []);
  });
});
