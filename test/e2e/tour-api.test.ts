import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tourApiContract } from '../contract/tour-api-contract.js';
import { observeAnswers, request, type ObservedAnswer } from '../support/http.js';
import { undocumentedAnswers, type OpenApiStatuses } from '../support/openapi-statuses.js';
import { startSimService, type TestService } from '../support/test-service.js';

let running: TestService | undefined;
// Every answer the contract gets: each status must be one the OpenAPI document gives for that operation.
const answers: ObservedAnswer[] = [];
const stopObserving = observeAnswers((answer) => answers.push(answer));
before(async () => {
  running = await startSimService();
});
after(async () => {
  stopObserving();
  await running?.stop();
});

tourApiContract(() => {
  if (running === undefined) throw new Error('service not started');
  return running;
});

describe('the OpenAPI document and the contract', () => {
  it('documents every status the contract saw, for the operation that answered it', async () => {
    if (running === undefined) throw new Error('service not started');
    const document = (await request(running.baseUrl, 'GET', '/openapi.json')).json as OpenApiStatuses;
    assert.ok(answers.length > 50, `the contract ran (${answers.length} answers)`);
    assert.deepEqual(undocumentedAnswers(document, answers), []);
  });
});
