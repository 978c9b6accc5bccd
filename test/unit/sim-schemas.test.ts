import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { SIM_AUDIO_MAX_BYTES, SimPlayAudioSchema } from '../../src/transport/routes/sim-schemas.js';

const audioIssue = (audio: string): string | undefined => {
  const result = v.safeParse(SimPlayAudioSchema, { emotion: '', text: '', audio });
  return result.success ? undefined : result.issues[0].message;
};

describe('the /sim/play_audio body', () => {
  it('takes standard base64 with padding and nothing else', () => {
    for (const good of ['', 'AAAA', 'AA==', 'AAA=', 'ab+/', Buffer.from('hello').toString('base64')]) {
      assert.equal(audioIssue(good), undefined, good);
    }
    for (const bad of ['A', 'AAA', 'AAAAA', 'A===', '====', 'AA=A', 'AA-_', 'AA A', 'AAAA\n']) {
      assert.match(audioIssue(bad) ?? '', /standard base64/, JSON.stringify(bad));
    }
  });

  it('checks the largest audio it takes without overflowing the stack', () => {
    const largest = Buffer.alloc(SIM_AUDIO_MAX_BYTES, 1).toString('base64');
    assert.equal(audioIssue(largest), undefined);
    assert.match(audioIssue(`${largest.slice(0, -4)}AA!=`) ?? '', /standard base64/);
    // 8 MiB is not a whole number of base64 groups: one byte more has the same base64 length.
    const oneMore = Buffer.alloc(SIM_AUDIO_MAX_BYTES + 1, 1).toString('base64');
    assert.equal(oneMore.length, largest.length);
    assert.equal(audioIssue(oneMore), `audio must decode to at most ${SIM_AUDIO_MAX_BYTES} bytes`);
  });
});
