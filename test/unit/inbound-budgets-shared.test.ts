import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEPARTED_ADDRESSES_MAX,
  PROCESS_BURST_SECONDS,
  SharedInboundBudget,
  type InboundShare,
} from '../../src/actors/budgets.js';

const rates = { framesPerSecond: 100, bytesPerSecond: 100_000 };

/**
 * Sessions sending at their rates (frames a second) for `seconds`, in steps of 10 ms, round-robin; a
 * session refused is closed (it leaves) and sends no more. Returns the frames refused per session.
 */
const drive = (
  budget: SharedInboundBudget,
  senders: { share: InboundShare; perSecond: number; bytes?: number }[],
  fromMs: number,
  seconds: number,
): { refused: boolean[]; passed: number[] } => {
  const refused = senders.map(() => false);
  const passed = senders.map(() => 0);
  const owed = senders.map(() => 0);
  for (let now = fromMs; now < fromMs + seconds * 1000; now += 10) {
    senders.forEach((sender, index) => {
      if (refused[index]) return;
      // In hundredths of a frame, so no rounding is gathered.
      owed[index] = (owed[index] ?? 0) + sender.perSecond;
      while ((owed[index] ?? 0) >= 100 && !refused[index]) {
        owed[index] = (owed[index] ?? 0) - 100;
        if (budget.take(sender.share, sender.bytes ?? 10, now)) passed[index] = (passed[index] ?? 0) + 1;
        else {
          refused[index] = true;
          budget.leave(sender.share, now);
        }
      }
    });
  }
  return { refused, passed };
};

describe('the process-wide inbound budget, shared among addresses', () => {
  it('passes every frame while all sessions together stay within it, however one address sends', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const heavy = Array.from({ length: 8 }, () => ({ share: budget.join('10.0.0.1', 0), perSecond: 10 }));
    const light = { share: budget.join('10.0.0.2', 0), perSecond: 5 };
    const { refused } = drive(budget, [...heavy, light], 0, 10);
    assert.deepEqual(refused, heavy.map(() => false).concat(false), '85 frames a second of 100');
  });

  it('when the process is short, cuts sessions of the address flooding and never the quiet one', () => {
    const budget = new SharedInboundBudget(rates, 0);
    // 16 sessions of one address at 18 a second: 288 a second, nearly 3 times the process rate.
    const flood = Array.from({ length: 16 }, () => ({ share: budget.join('10.0.0.1', 0), perSecond: 18 }));
    const honest = { share: budget.join('10.0.0.9', 0), perSecond: 10 };
    const { refused, passed } = drive(budget, [...flood, honest], 0, 10);
    assert.equal(refused.at(-1), false, 'the honest session is never refused');
    assert.equal(passed.at(-1), 100, 'all its frames passed');
    const cut = refused.slice(0, -1).filter(Boolean).length;
    // What stays of the flood fits the process with the honest session: at most (100 - 10) / 18 = 5 sessions.
    assert.ok(cut >= 11, `${cut} flooding sessions cut`);
    assert.ok(cut < 16, `${cut} cut: not all, the ones left fit the process rate`);
  });

  it('among many flooding addresses, cuts the ones sending most, and sessions sending nothing shrink no one', () => {
    const budget = new SharedInboundBudget(rates, 0);
    // 50 addresses whose kiosks send nothing.
    for (let index = 0; index < 50; index += 1) budget.join(`10.1.0.${index}`, 0);
    const flooders = Array.from({ length: 4 }, (_, address) =>
      Array.from({ length: 8 }, () => ({ share: budget.join(`10.0.0.${address}`, 0), perSecond: 18 })),
    ).flat();
    // An address with three kiosks at 5 frames a second: 15 a second, less than a fifth of the process rate
    // (the part of each of the 5 addresses sending) but more than 100 / 55.
    const kiosks = Array.from({ length: 3 }, () => ({ share: budget.join('10.0.0.9', 0), perSecond: 5 }));
    const { refused } = drive(budget, [...flooders, ...kiosks], 0, 10);
    assert.deepEqual(
      refused.slice(-3),
      [false, false, false],
      'the kiosks of the busy but fair address stay',
    );
    assert.ok(refused.slice(0, -3).filter(Boolean).length >= 24, 'the flooders are cut to what fits');
  });

  it('holds the addresses with sessions; one that sent nothing is forgotten with its last session', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const first = budget.join('10.0.0.1', 0);
    const second = budget.join('10.0.0.1', 0);
    budget.join('10.0.0.2', 0);
    assert.equal(budget.addresses, 2);
    budget.leave(first, 10);
    assert.equal(budget.addresses, 2);
    budget.leave(second, 20);
    assert.equal(budget.addresses, 1);
    assert.equal(budget.departed, 0, 'nothing to remember of an address that sent nothing');
  });

  it('a flooder cut that comes back at once starts from what it sent before: it is cut again at once', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const honest = { share: budget.join('10.0.0.9', 0), perSecond: 90 };
    /** Drives the flooder with the honest session, 10 ms at a time, until it is cut; what passed, and when. */
    const floodUntilCut = (share: InboundShare, from: number): { passed: number; at: number } => {
      let passed = 0;
      for (let now = from; now < from + 5_000; now += 10) {
        const step = drive(budget, [{ share, perSecond: 400 }, honest], now, 0.01);
        assert.equal(step.refused[1], false, 'the honest session is never refused');
        passed += step.passed[0] ?? 0;
        if (step.refused[0]) return { passed, at: now };
      }
      assert.fail('the flooder was never cut');
    };
    const first = floodUntilCut(budget.join('10.0.0.1', 0), 0);
    assert.equal(budget.departed, 1, 'the flooder is remembered');
    // Back on a new session 10 ms later. Forgotten, it would start from nothing and pass until its new
    // tally reached the honest address's (about 60 frames); remembered, it is over its share at once.
    const again = floodUntilCut(budget.join('10.0.0.1', first.at + 10), first.at + 10);
    assert.ok(
      again.passed <= 5,
      `${again.passed} frames passed after it came back (${first.passed} before its cut)`,
    );
  });

  it('forgets a departed address once its tally has decayed, and never holds more than the cap', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const share = budget.join('10.0.0.1', 0);
    for (let frame = 0; frame < 50; frame += 1) budget.take(share, 10, frame);
    budget.leave(share, 50);
    assert.equal(budget.departed, 1);
    // 50 frames decay below one in ln(50) ≈ 4 windows; the next join or leave forgets it.
    budget.leave(budget.join('10.0.0.2', 10_000), 10_000);
    assert.equal(budget.departed, 0);
    // Many addresses that each sent, then left: at most the cap are remembered.
    for (let index = 0; index < DEPARTED_ADDRESSES_MAX + 10; index += 1) {
      const key = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
      const one = budget.join(key, 20_000);
      budget.take(one, 10, 20_000);
      budget.take(one, 10, 20_000);
      budget.leave(one, 20_000);
    }
    assert.equal(budget.departed, DEPARTED_ADDRESSES_MAX);
  });

  it('shares the byte rate the same way: a burst of a second, then the address sending most is refused', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const big = budget.join('10.0.0.1', 0);
    const small = budget.join('10.0.0.2', 0);
    assert.equal(budget.take(big, 100_000 * PROCESS_BURST_SECONDS, 0), true, 'the burst');
    assert.equal(budget.take(small, 1_000, 0), true, 'an address sending little passes, short or not');
    assert.equal(budget.take(big, 1_000, 0), false, 'the address sending most is refused while short');
    // Refused frames are not counted: once the buckets refill, it passes again.
    assert.equal(budget.take(big, 1_000, 2_000), true);
  });

  it('a lone address that overdraws the process is refused: it is the one sending most', () => {
    const budget = new SharedInboundBudget(rates, 0);
    const shares = Array.from({ length: 20 }, () => budget.join('10.0.0.1', 0));
    const { refused } = drive(
      budget,
      shares.map((share) => ({ share, perSecond: 18 })),
      0,
      5,
    );
    const left = refused.filter((cut) => !cut).length;
    assert.ok(left >= 4 && left <= 6, `${left} sessions left, about 100 / 18`);
  });
});
