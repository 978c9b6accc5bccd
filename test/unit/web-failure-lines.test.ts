import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, TURN_OUTCOMES, type ErrorCode } from '../../src/protocol/ws/index.js';
import { ABANDONED_UTTERANCE, failureLine } from '../../web/src/failure-lines.js';

describe('failure lines', () => {
  it('says in the bubble what became of every streamed utterance the service gave up on or refused', () => {
    // The codes TURN_OUTCOMES names for `abandoned`, and a start refused while one is open.
    const abandoning = [...TURN_OUTCOMES.abandoned.matchAll(/`(\w+)`/g)].map(
      (match) => match[1] as ErrorCode,
    );
    assert.ok(abandoning.length >= 6, abandoning.join(', '));
    for (const code of [...abandoning, 'utterance_open'] as const) {
      assert.ok(code in ERROR_CODES, code);
      const line = failureLine(code);
      assert.ok(line !== undefined, `no line for ${code}`);
      assert.match(line.text, /^Sorry, .+\.$/);
      // What to do next, not which rule broke.
      assert.doesNotMatch(line.text, /utterance|part|protocol|_/i);
    }
    assert.match(ABANDONED_UTTERANCE.text, /again/);
  });

  it('has no line for what the visitor did not ask (reports the kiosk makes)', () => {
    assert.equal(failureLine('heard_invalid'), undefined);
    assert.equal(failureLine('part_invalid'), undefined);
  });
});
