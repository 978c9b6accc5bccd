import { after, before } from 'node:test';
import { tourApiContract } from '../contract/tour-api-contract.js';
import { startSimService, type TestService } from '../support/test-service.js';

let running: TestService | undefined;
before(async () => {
  running = await startSimService();
});
after(async () => {
  await running?.stop();
});

tourApiContract(() => {
  if (running === undefined) throw new Error('service not started');
  return running;
});
