import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { tourToMsg } from '../../src/ros/tour-message.js';
import { openDurableTourStore, TOUR_STORE_LIMITS } from '../../src/robot/tours/durable-tour-store.js';
import type { Tour } from '../../src/protocol/tour-schema.js';
import { assertProblem } from '../contract/tour-api-contract.js';
import { sendJson } from '../support/http.js';
import { startSimService } from '../support/test-service.js';
import { callOnce } from '../support/port-calls.js';

const tour = (name: string): Tour => ({ tour_name: name, map_name: 'm', steps: [] });

const createIn = (sim: ReturnType<typeof createSimBackend>, name: string) =>
  callOnce(sim, 'tour_create', { tour: tourToMsg(tour(name)) });

describe('the simulation holds at most as many tours as the reference store', () => {
  it('refuses the create past TOUR_STORE_LIMITS.maxTours by default; updates and deletes go on', async () => {
    const sim = createSimBackend({ initialTours: [] });
    try {
      for (let index = 0; index < TOUR_STORE_LIMITS.maxTours; index += 1) {
        assert.equal((await createIn(sim, `t${index}`)).outcome, TourOutcome.OK);
      }
      const beyond = await createIn(sim, 'one-too-many');
      assert.equal(beyond.outcome, TourOutcome.FULL);
      assert.equal(beyond.success, false);
      assert.match(beyond.message, new RegExp(`maximum of ${TOUR_STORE_LIMITS.maxTours} tours`));
      assert.equal((await callOnce(sim, 'tour_list', {})).tour_names.length, TOUR_STORE_LIMITS.maxTours);
      const update = await callOnce(sim, 'tour_update', { tour: tourToMsg(tour('t0')) });
      assert.equal(update.outcome, TourOutcome.OK);
      assert.equal((await callOnce(sim, 'tour_delete', { tour_name: 't0' })).outcome, TourOutcome.OK);
      assert.equal((await createIn(sim, 'one-too-many')).outcome, TourOutcome.OK);
    } finally {
      await sim.close();
    }
  });

  it('answers exactly what the reference store answers at its limit', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tour-limit-'));
    const sim = createSimBackend({ initialTours: [], maxTours: 2 });
    const { store } = await openDurableTourStore({
      file: join(directory, 'tours.json'),
      initialTours: [],
      maxTours: 2,
    });
    try {
      for (const name of ['a', 'b', 'c']) {
        const request = { tour: tourToMsg(tour(name)) };
        assert.deepEqual(await createIn(sim, name), await store.handle('tour_create', request), name);
      }
      assert.equal((await createIn(sim, 'c')).outcome, TourOutcome.FULL);
    } finally {
      await store.close();
      await sim.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('answers HTTP 507 past the limit, as the reference store behind the ros backend does', async () => {
    const running = await startSimService({ initialTours: [], maxTours: 2 });
    try {
      for (const name of ['a', 'b']) {
        assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tour(name))).status, 201);
      }
      const full = await sendJson(running.baseUrl, 'POST', '/tour', tour('c'));
      assert.match(String(assertProblem(full, 507, 'tour-store-full')['detail']), /maximum of 2 tours/);
    } finally {
      await running.stop();
    }
  });
});
