import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressCounts } from '../../src/transport/ws/address-counts.js';

const takeAll = (counts: AddressCounts, address: string, tries: number): (string | undefined)[] =>
  Array.from({ length: tries }, () => counts.take(address));

describe('the session places per client address', () => {
  it('refuses an address past its limit, and takes its place back when one closes', () => {
    const counts = new AddressCounts(2, 1_000);
    assert.deepEqual(takeAll(counts, 'a', 3), [undefined, undefined, 'per_address']);
    counts.release('a');
    assert.equal(counts.take('a'), undefined);
  });

  it('keeps the last tenth of the places for addresses holding fewer than 2', () => {
    const counts = new AddressCounts(16, 20);
    assert.equal(counts.unreserved, 18);
    // 16 from one host, 2 from another: the places not kept are gone.
    assert.equal(takeAll(counts, 'a', 16).filter((refusal) => refusal === undefined).length, 16);
    assert.deepEqual(takeAll(counts, 'b', 3), [undefined, undefined, 'reserved']);
    assert.equal(counts.take('a'), 'per_address', 'the per-address limit is said first');
    // A new address gets a kept place, and a second one (its reconnection).
    assert.deepEqual(takeAll(counts, 'c', 2), [undefined, undefined]);
    // Every place held: the hub refuses (too many sessions), and the socket's place is given back.
    assert.equal(counts.take('c'), undefined);
    counts.release('c');
    // One place free again, a kept one: for a new address, not for one holding 2.
    counts.release('a');
    assert.equal(counts.take('c'), 'reserved');
    assert.equal(counts.take('d'), undefined);
    // Places given back below the kept ones are anyone's again.
    counts.release('a');
    counts.release('a');
    counts.release('a');
    assert.equal(counts.take('b'), undefined);
  });

  it('never counts a place given back twice', () => {
    const counts = new AddressCounts(16, 10);
    counts.release('nobody');
    assert.equal(takeAll(counts, 'a', 9).filter((refusal) => refusal === undefined).length, 9);
    assert.equal(counts.take('a'), 'reserved', '9 of 10 held: the tenth is kept');
  });

  it('keeps none of a few places, and leaves the refusal past all of them to the hub', () => {
    const counts = new AddressCounts(16, 2);
    assert.deepEqual(takeAll(counts, 'a', 3), [undefined, undefined, undefined]);
  });

  it('keeps no places without a per-address limit (addresses do not tell clients apart)', () => {
    const counts = new AddressCounts(0, 10);
    assert.deepEqual(
      takeAll(counts, 'a', 10),
      Array.from({ length: 10 }, () => undefined),
    );
  });
});
