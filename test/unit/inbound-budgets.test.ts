import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FRAME_BURST_SECONDS, InboundBudget } from '../../src/actors/budgets.js';

const rates = { framesPerSecond: 20, bytesPerSecond: 1000, largestFrameBytes: 4000 };

/** How many frames of `bytes` pass at `at` ms, one after the other, before one is refused (at most 10,000). */
const passing = (budget: InboundBudget, bytes: number, at: number): number => {
  let passed = 0;
  while (passed < 10_000 && budget.take(bytes, at)) passed += 1;
  return passed;
};

describe('the inbound budget of a /ws session', () => {
  it('lets a burst of frames through, refuses the next, and refills at its rate', () => {
    const budget = new InboundBudget(rates, 0);
    assert.equal(passing(budget, 0, 0), 20 * FRAME_BURST_SECONDS);
    // Overdrawn by the refused frame: a second later the rate's frames, less that one, pass.
    assert.equal(passing(budget, 0, 1000), 19);
  });

  it('lets a burst of twice the largest frame through in bytes, then the byte rate', () => {
    const budget = new InboundBudget(rates, 0);
    assert.equal(budget.take(4000, 0), true);
    assert.equal(budget.take(4000, 0), true);
    assert.equal(budget.take(1, 0), false, 'past the burst');
    assert.equal(budget.take(500, 2000), true, '2 s refill 2,000 bytes; 1,999 after the refused byte');
    assert.equal(budget.take(1500, 2000), false);
  });

  it('lets 2 seconds of a byte rate through at once where that is more than two of the largest frames', () => {
    const budget = new InboundBudget({ ...rates, bytesPerSecond: 10_000 }, 0);
    assert.equal(budget.take(20_000, 0), true);
    assert.equal(budget.take(1, 0), false);
  });

  it('never holds more than its bursts, however long the session was quiet', () => {
    const budget = new InboundBudget(rates, 0);
    assert.equal(passing(budget, 0, 3_600_000), 20 * FRAME_BURST_SECONDS);
  });
});
