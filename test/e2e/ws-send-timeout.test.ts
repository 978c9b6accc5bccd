import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metric } from '../support/metric.js';
import { startSimService } from '../support/test-service.js';
import { clientFrame, WireWsClient } from '../support/wire-ws-client.js';
import { KioskClient } from '../support/ws-client.js';

const cutForTimeout = 'tour_bridge_ws_sessions_cut_total{reason="send_timeout"}';

// Issue 51, item 3: a client that never reads but keeps sending was never idle-closed (uWS counts what
// it receives as activity). The send time-out closes it, whatever it sends; a kiosk that reads stays.
describe('a /ws client that never reads', () => {
  it('is closed after --send_timeout_seconds even though it sends a frame every 300 ms; a reading kiosk stays open', async () => {
    const running = await startSimService({}, { send_timeout_seconds: '2' });
    const reader = await KioskClient.connect(running.wsUrl);
    const mute = await WireWsClient.connect(running.wsUrl);
    mute.stopReading();
    try {
      // At most 40 frames over 12 s: the time-out (2 s) plus two checks (0.5 s each) is well within it.
      for (let sent = 0; sent < 40; sent += 1) {
        mute.write(clientFrame(0x1, Buffer.from('{"type":"x"}')));
        await new Promise((resolve) => setTimeout(resolve, 300));
        if ((await metric(running.baseUrl, cutForTimeout)) >= 1) break;
      }
      assert.equal(await metric(running.baseUrl, cutForTimeout), 1);
      assert.equal(await metric(running.baseUrl, 'tour_bridge_ws_sessions '), 1);
      assert.equal(reader.closeEvent, undefined, 'the kiosk that reads (and answers pings) stays open');
    } finally {
      mute.close();
      reader.close();
      await running.stop();
    }
  });
});
