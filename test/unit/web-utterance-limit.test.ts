import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_MAX_AUDIO_FRAME_BYTES,
  PCM_SAMPLE_RATE,
  utteranceAudioMs,
} from '../../src/protocol/ws/index.js';
import { limitNotice, maxUtteranceSamples } from '../../web/src/utterance-limit.js';
import { encodeWav } from '../../web/src/wav.js';

describe('the kiosk’s utterance limit, from the service’s state', () => {
  it('is a minute with the service’s default frame limit, and says so', () => {
    const ms = utteranceAudioMs(DEFAULT_MAX_AUDIO_FRAME_BYTES);
    assert.equal(ms, 65_534);
    const samples = maxUtteranceSamples(ms);
    assert.equal(samples, 60 * PCM_SAMPLE_RATE);
    assert.equal(
      limitNotice(samples),
      'One minute is the longest a message can be, so what you said was sent.',
    );
  });

  it('is what the service takes when it takes less, and the WAV of that length fits its frame limit', () => {
    for (const frameBytes of [480_044, 480_045, 1_000_000, 1_920_043]) {
      const samples = maxUtteranceSamples(utteranceAudioMs(frameBytes));
      const wav = encodeWav(new Int16Array(samples));
      assert.ok(wav.byteLength <= frameBytes, `${wav.byteLength} bytes of WAV for a limit of ${frameBytes}`);
      assert.ok(wav.byteLength > frameBytes - 2 * (PCM_SAMPLE_RATE / 1000) * 2, 'within a millisecond of it');
    }
    assert.equal(
      limitNotice(maxUtteranceSamples(utteranceAudioMs(480_044))),
      '15 seconds is the longest a message can be, so what you said was sent.',
    );
  });
});
