import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tourToMsg } from '../../src/ros/tour-message.js';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import type { Tour } from '../../src/protocol/tour-schema.js';
import { openDurableTourStore } from '../../src/robot/tours/durable-tour-store.js';
import { assertProblem } from '../contract/tour-api-contract.js';
import { sendJson } from '../support/http.js';
import { startSimService, type TestService } from '../support/test-service.js';

/**
 * Tour names that look the same are one name: a new tour's name must be in the one form names are
 * compared in (docs/api.md, "Tour names"), and a name whose form is a stored tour's is that tour's, in the
 * simulation and the reference store alike. Real server on the simulation.
 */

const tour = (name: string): Tour => ({ tour_name: name, map_name: 'm', steps: [] });
const DECOMPOSED = 'cafe\u0301';
const COMPOSED = 'caf\u00e9';

describe('tour names compared in one form', () => {
  let running: TestService;
  before(async () => {
    // A tour stored before the rules, under a decomposed name (the store loads it as it is).
    running = await startSimService({ initialTours: [tour(`old-${DECOMPOSED}`)] });
  });
  after(async () => {
    await running.stop();
  });

  const refused = async (name: string, says: RegExp) => {
    const answer = await sendJson(running.baseUrl, 'POST', '/tour', tour(name));
    const detail = String(assertProblem(answer, 422, 'validation-failed')['detail']);
    assert.match(detail, says, JSON.stringify(name));
  };

  it('creates a composed name and refuses the decomposed one, saying which to send', async () => {
    assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tour(COMPOSED))).status, 201);
    await refused(DECOMPOSED, new RegExp(`tour_name: .*NFC.*send "${COMPOSED}"`));
  });

  it('refuses fullwidth forms, naming the plain name', async () => {
    await refused('\uff21', /tour_name: .*fullwidth or halfwidth forms: write "A"/);
    await refused('tour\uff11', /write "tour1"/);
  });

  it('refuses invisible formatting characters and white space at either end', async () => {
    for (const name of ['\ufeffwelcome', 'tour\u202eexe.txt', 'we\u200blcome', 'wel\u00adcome']) {
      await refused(name, /tour_name: .*invisible formatting characters/);
    }
    for (const name of ['welcome ', ' welcome', '\u3000welcome']) {
      await refused(name, /tour_name: .*white space/);
    }
  });

  it('refuses as existing a new name whose form is a stored tour’s', async () => {
    const answer = await sendJson(running.baseUrl, 'POST', '/tour', tour(`old-${COMPOSED}`));
    const detail = String(assertProblem(answer, 409, 'tour-exists')['detail']);
    assert.match(detail, /the same name in another Unicode form/);
  });

  it('the reference store answers the same', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tour-names-'));
    const { store } = await openDurableTourStore({
      file: join(directory, 'tours.json'),
      initialTours: [tour(`old-${DECOMPOSED}`)],
    });
    try {
      const create = (name: string) => store.handle('tour_create', { tour: tourToMsg(tour(name)) });
      const same = await create(`old-${COMPOSED}`);
      assert.equal(same.outcome, TourOutcome.ALREADY_EXISTS);
      assert.match(same.message, /another Unicode form/);
      const fullwidth = await create('\uff21');
      assert.equal(fullwidth.outcome, TourOutcome.INVALID);
      assert.match(fullwidth.message, /fullwidth/);
      assert.equal((await create(DECOMPOSED)).outcome, TourOutcome.INVALID);
      assert.equal((await create(COMPOSED)).outcome, TourOutcome.OK);
    } finally {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
