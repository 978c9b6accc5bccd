import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { issuePath } from '../../src/protocol/json-issues.js';
import {
  SIM_AUDIO_MAX_BYTES,
  SimMicrophoneSchema,
  SimPlayAudioSchema,
} from '../../src/transport/routes/sim-schemas.js';

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

/** The 422's field/message pairs for `input`, as the router words them. */
const problems = (schema: typeof SimMicrophoneSchema | typeof SimPlayAudioSchema, input: unknown) => {
  const result = v.safeParse(schema, input);
  return result.success
    ? []
    : result.issues.map((issue) => `${issuePath(issue) || '(body)'}: ${issue.message}`);
};

describe('the /sim bodies name what is wrong as the tour bodies do', () => {
  it('refuses an array, another JSON type, a missing and an unknown field, each in one message', () => {
    assert.deepEqual(problems(SimMicrophoneSchema, [true]), ['(body): expected request object, got array']);
    assert.deepEqual(problems(SimMicrophoneSchema, 'on'), ['(body): expected request object, got string']);
    assert.deepEqual(problems(SimMicrophoneSchema, null), ['(body): expected request object, got null']);
    assert.deepEqual(problems(SimMicrophoneSchema, {}), ['enabled: missing field']);
    assert.deepEqual(problems(SimMicrophoneSchema, { enabled: true, on: 1 }), [
      'on: unknown field in request',
    ]);
    assert.deepEqual(problems(SimMicrophoneSchema, { enabled: 'yes' }), [
      'enabled: enabled must be a boolean',
    ]);
    assert.deepEqual(problems(SimPlayAudioSchema, [1, 2]), ['(body): expected request object, got array']);
    assert.deepEqual(problems(SimPlayAudioSchema, { emotion: 'happy', text: '' }), ['audio: missing field']);
  });
});
