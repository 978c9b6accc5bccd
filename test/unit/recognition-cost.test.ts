import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wavSeconds } from '../../src/robot/echo-chat.js';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';
import {
  checkRecognitionRt,
  MAX_RECOGNITION_RT,
  recognitionMs,
  transcriptText,
  utteranceSeconds,
} from '../../src/robot/speech/recognition-cost.js';
import { pcm } from '../support/sim-speech.js';

describe('the recogniser stand-in’s cost (simulation and reference nodes)', () => {
  it('is rt × the speech’s duration: raw PCM by its bytes, a WAV file by its data chunk', () => {
    assert.equal(utteranceSeconds(pcm(1500)), 1.5);
    const wav = wavOfPcmParts([pcm(250), pcm(750)]);
    assert.equal(wav.byteLength, WAV_HEADER_BYTES + 32_000);
    assert.equal(wavSeconds(wav), 1);
    assert.equal(utteranceSeconds(wav), 1, 'the header is not speech');
    assert.equal(recognitionMs(0.3, 5), 1500);
    assert.equal(recognitionMs(0, 15), 0);
  });

  it('takes rt from 0 to MAX_RECOGNITION_RT only', () => {
    assert.equal(checkRecognitionRt(MAX_RECOGNITION_RT), MAX_RECOGNITION_RT);
    assert.equal(checkRecognitionRt(0), 0);
    assert.throws(() => checkRecognitionRt(-0.1), /from 0 to 10, got -0.1/);
    assert.throws(() => checkRecognitionRt(Number.NaN), RangeError);
  });

  it('states the speech heard, to a tenth of a second, and no words', () => {
    assert.equal(transcriptText(1.23), '[1.2 s of speech]');
    assert.equal(transcriptText(0), '[0.0 s of speech]');
  });
});
