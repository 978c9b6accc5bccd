import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey } from '../../src/transport/ws/address-key.js';

describe('the key a client address is counted under', () => {
  it('keeps an IPv4 address whole', () => {
    assert.equal(addressKey('127.0.0.1'), '127.0.0.1');
    assert.notEqual(addressKey('127.0.0.2'), addressKey('127.0.0.1'));
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, in uWS full form or compressed', () => {
    assert.equal(addressKey('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
    assert.equal(addressKey('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(addressKey('::ffff:c0a8:102'), '192.168.1.2');
  });

  it('counts an IPv6 address by its /64', () => {
    const key = addressKey('2001:0db8:0001:0002:0000:0000:0000:0001');
    assert.equal(key, '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), key);
    assert.equal(addressKey('2001:db8:1:2::1%eth0'), key);
    assert.notEqual(addressKey('2001:db8:1:3::1'), key);
    assert.equal(addressKey('0000:0000:0000:0000:0000:0000:0000:0001'), '0:0:0:0::/64');
  });

  it('keeps what is not an address as it is, cut short', () => {
    assert.equal(addressKey(''), '');
    assert.equal(addressKey('x'.repeat(100)).length, 64);
  });
});
