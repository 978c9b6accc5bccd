import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SerialByKey, type QueuePlace } from '../../src/transport/http/exchange.js';

/** Each key is free: a new request of it starts at once (a key still held or queued would make it wait). */
const assertFree = (serial: SerialByKey, ...keys: string[]) => {
  for (const key of keys) {
    let started = false;
    serial.enter(key, (turn) => {
      started = true;
      turn.release();
    });
    assert.ok(started, `${key} is still held or queued`);
  }
};

describe('SerialByKey', () => {
  it('runs one per key at a time, in arrival order; other keys do not wait', () => {
    const serial = new SerialByKey(10);
    const started: string[] = [];
    const turns = new Map<string, QueuePlace>();
    const enter = (key: string, label: string) =>
      serial.enter(key, (turn) => {
        started.push(label);
        turns.set(label, turn);
      });
    enter('a', 'a1');
    enter('a', 'a2');
    enter('b', 'b1');
    enter('a', 'a3');
    assert.deepEqual(started, ['a1', 'b1']);
    turns.get('a1')?.release();
    assert.deepEqual(started, ['a1', 'b1', 'a2']);
    // Releasing twice passes nothing on twice.
    turns.get('a1')?.release();
    assert.deepEqual(started, ['a1', 'b1', 'a2']);
    turns.get('a2')?.release();
    turns.get('b1')?.release();
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'a3']);
    turns.get('a3')?.release();
    assertFree(serial, 'a', 'b');
  });

  it('lets a waiter leave the queue without taking its turn', () => {
    const serial = new SerialByKey(10);
    const started: string[] = [];
    let first: QueuePlace | undefined;
    serial.enter('k', (turn) => {
      started.push('first');
      first = turn;
    });
    const leaving = serial.enter('k', () => started.push('left'));
    serial.enter('k', (turn) => {
      started.push('third');
      turn.release();
    });
    leaving?.release();
    first?.release();
    assert.deepEqual(started, ['first', 'third']);
    assertFree(serial, 'k');
  });

  it('passes the turn on when the holder releases it while starting', () => {
    const serial = new SerialByKey(10);
    const started: string[] = [];
    serial.enter('k', (turn) => {
      started.push('holder');
      turn.release();
    });
    serial.enter('k', (turn) => {
      started.push('next');
      turn.release();
    });
    assert.deepEqual(started, ['holder', 'next']);
    assertFree(serial, 'k');
  });

  it('refuses a request beyond maxWaiting behind the holder', () => {
    const serial = new SerialByKey(2);
    const noop = () => undefined;
    assert.ok(serial.enter('k', noop));
    assert.ok(serial.enter('k', noop));
    assert.ok(serial.enter('k', noop));
    assert.equal(serial.enter('k', noop), undefined);
    assert.ok(serial.enter('other', noop));
  });
});
