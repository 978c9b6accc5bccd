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
    // A new address gets a kept place, and a second one (its reconnection), not a third.
    assert.deepEqual(takeAll(counts, 'c', 3), [undefined, undefined, 'reserved']);
    // A place given back below the kept ones is anyone's again.
    counts.release('a');
    counts.release('a');
    counts.release('a');
    assert.equal(counts.take('b'), undefined);
  });

  it('never counts a place given back twice', () => {
    const counts = new AddressCounts(0, 10);
    counts.release('nobody');
    assert.equal(takeAll(counts, 'a', 9).filter((refusal) => refusal === undefined).length, 9);
    assert.equal(counts.take('a'), 'reserved', '9 of 10 held: the tenth is kept');
  });
});
