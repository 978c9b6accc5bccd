import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { decodeParams } from '../../src/transport/http/installed-route.js';
import type { HttpReply } from '../../src/transport/http/reply.js';

const NAME = {
  schema: v.object({ name: v.pipe(v.string(), v.maxLength(5, 'at most 5 characters')) }),
  problem: 'invalid-tour-name',
} as const;

const refusalOf = (result: ReturnType<typeof decodeParams>): HttpReply => {
  assert.ok('refusal' in result, 'refused');
  return result.refusal;
};

describe('path parameters: decoded, then validated by the route’s schema', () => {
  it('gives the handler each parameter percent-decoded, by name', () => {
    assert.deepEqual(decodeParams(NAME, { name: 'a%2Fb' }), { params: { name: 'a/b' } });
    assert.deepEqual(decodeParams(NAME, { name: 'plain' }), { params: { name: 'plain' } });
  });

  it('answers 400 with the route’s problem when a parameter is not valid percent-encoding', () => {
    const refusal = refusalOf(decodeParams(NAME, { name: '%E0%A4%A' }));
    assert.equal(refusal.status, 400);
    assert.match(String(refusal.body), /invalid-tour-name/);
    assert.match(String(refusal.body), /the name in the path is not valid percent-encoding/);
  });

  it('answers 400 with the schema’s message when the decoded value fails it', () => {
    // Decoded first: "%41" is one character, so six of them are six characters, over the limit.
    const refusal = refusalOf(decodeParams(NAME, { name: '%41%41%41%41%41%41' }));
    assert.equal(refusal.status, 400);
    assert.match(String(refusal.body), /at most 5 characters/);
    assert.deepEqual(decodeParams(NAME, { name: '%41%41%41%41%41' }), { params: { name: 'AAAAA' } });
  });
});
