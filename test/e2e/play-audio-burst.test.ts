import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { request } from '../support/http.js';
import { ScriptedPort } from '../support/scripted-port.js';
import { startTestService } from '../support/test-service.js';
import { KioskClient } from '../support/ws-client.js';

const droppedMetric = async (baseUrl: string): Promise<string | undefined> =>
  /^tour_bridge_play_audio_dropped_total\{reason="buffer_full"\} (\d+)$/m.exec(
    (await request(baseUrl, 'GET', '/metrics')).text,
  )?.[1];

// Issue #15: /play_audio lost without a trace. A message past --play_audio_buffer_bytes is dropped, and
// the drop shows in the metric and the log.
describe('/play_audio past --play_audio_buffer_bytes', () => {
  it('drops what does not fit, counts it in tour_bridge_play_audio_dropped_total and logs a warning', async () => {
    const port = new ScriptedPort({});
    const service = await startTestService(port, {
      overrides: { play_audio_buffer_bytes: '4', log_level: 'warn' },
      captureLogs: true,
    });
    const kiosk = await KioskClient.connect(service.wsUrl);
    try {
      await kiosk.frameCount(1, 5_000);
      assert.equal(await droppedMetric(service.baseUrl), '0', 'shown before the first drop');
      // Taken in one turn: the buffer holds 4 bytes, so the third 2-byte message does not fit.
      for (const text of ['one', 'two', 'three']) {
        port.playAudio.next({ emotion: 'neutral', text, audio: new Uint8Array(2) });
      }
      await kiosk.until(
        (frames) => frames.filter((frame) => frame.kind === 'binary').length >= 2,
        'two audio pairs',
        5_000,
      );
      assert.deepEqual(
        kiosk.texts().flatMap((frame) => (frame['type'] === 'audio' ? [frame['text']] : [])),
        ['one', 'two'],
      );
      assert.equal(await droppedMetric(service.baseUrl), '1');
      const warnings = service.logs.filter((line) =>
        String(line['msg']).startsWith('/play_audio messages dropped'),
      );
      assert.equal(warnings.length, 1);
      const [warning] = warnings;
      assert.ok(warning);
      assert.equal(warning['dropped'], 1);
      assert.equal(warning['playAudioBufferBytes'], 4);
    } finally {
      kiosk.close();
      await service.stop();
    }
  });
});
