import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startSimService, type TestService } from '../support/test-service.js';
import { clientFrame, WireWsClient } from '../support/wire-ws-client.js';
import { metric } from '../support/metric.js';

describe('a ping flood from a client that never reads', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService({}, { send_buffer_bytes: String(64 * 1024) });
  });
  after(async () => {
    await running.stop();
  });

  it('is closed with 1008 once the pongs it leaves unread pass --send_buffer_bytes', async () => {
    const socket = await WireWsClient.connect(running.wsUrl);
    // Never read again: the pongs the server owes pile up on its side.
    socket.stopReading();
    try {
      const closedCode = 'tour_bridge_ws_sessions_closed_total{code="1008"}';
      // 2,000 pings per write, at most 100 writes (25 MB of pongs owed without the limit).
      // A ping's payload is at most 125 bytes (the largest a control frame holds).
      const burst = Buffer.concat(Array.from({ length: 2_000 }, () => clientFrame(0x9, randomBytes(125))));
      for (let round = 0; round < 100; round += 1) {
        if (!socket.write(burst)) break;
        await new Promise((resolve) => setImmediate(resolve));
        if ((await metric(running.baseUrl, closedCode)) >= 1) break;
      }
      const deadline = Date.now() + 5_000;
      while ((await metric(running.baseUrl, closedCode)) < 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await metric(running.baseUrl, closedCode), 1);
      assert.equal(await metric(running.baseUrl, 'tour_bridge_ws_sessions '), 0);
    } finally {
      socket.close();
    }
  });
});
