import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RosServiceUnavailableError, RosTimeoutError } from '../../src/ros/ros-port.js';
import { Gauge } from '../../src/streams/resource-gauges.js';
import { callWithTimeout } from '../../src/streams/ros-call.js';
import { audioOf } from '../support/conversation-fakes.js';
import { marbleScheduler, scriptedPort } from '../support/marbles.js';

const response = { emotion: 'happy', text: 'hi', audio: audioOf(1) };

describe('callWithTimeout (marbles)', () => {
  it('emits the one response and leaves the port right after it', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      // A port that emits but never completes must still be left after its first value.
      const port = cold('--r-----', { r: response });
      const call = callWithTimeout(
        scriptedPort({ 1: port }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 5, scheduler },
      );
      expectObservable(call).toBe('--(r|)', { r: response });
      expectSubscriptions(port.subscriptions).toBe('^-!');
    });
  });

  it('errors with RosTimeoutError on the injected scheduler and abandons the port call', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const port = cold('----------(r|)', { r: {} });
      const call = callWithTimeout(
        scriptedPort({ clear_history: port }),
        'clear_history',
        {},
        { timeoutMs: 4, scheduler },
      );
      expectObservable(call).toBe('----#', undefined, new RosTimeoutError('clear_history', 4));
      expectSubscriptions(port.subscriptions).toBe('^---!');
    });
  });

  it('names the service in RosTimeoutError as the port calls it on the graph (remapped)', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const call = callWithTimeout(
        scriptedPort(
          { clear_history: cold('----------(r|)', { r: {} }) },
          { clear_history: '/robot1/clear_history' },
        ),
        'clear_history',
        {},
        { timeoutMs: 4, scheduler },
      );
      const expected = new RosTimeoutError('clear_history', 4, '/robot1/clear_history');
      assert.equal(expected.message, 'ROS service /robot1/clear_history did not answer within 4 ms');
      expectObservable(call).toBe('----#', undefined, expected);
    });
  });

  it('passes port errors through unchanged', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const error = new RosServiceUnavailableError('chat');
      const call = callWithTimeout(
        scriptedPort({ 1: cold('-#', undefined, error) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 4, scheduler },
      );
      expectObservable(call).toBe('-#', undefined, error);
    });
  });

  it('counts the call as in flight while it is subscribed', () => {
    const scheduler = marbleScheduler();
    const inFlight = new Gauge();
    const seen: number[] = [];
    scheduler.run(({ cold, flush }) => {
      const call = callWithTimeout(
        scriptedPort({ 1: cold('---(r|)', { r: response }) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 10, scheduler, inFlight },
      );
      call.subscribe(() => seen.push(inFlight.value));
      seen.push(inFlight.value);
      flush();
    });
    assert.deepEqual(seen, [1, 1]);
    assert.equal(inFlight.value, 0);
  });

  it('reports a call abandoned before its answer, and only that one', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const abandoned: string[] = [];
      const slow = callWithTimeout(
        scriptedPort({ 1: cold('-----r|', { r: response }) }),
        'chat',
        { audio: audioOf(1) },
        {
          timeoutMs: 50,
          scheduler,
          onAbandoned: () => abandoned.push('slow'),
        },
      );
      const answered = callWithTimeout(
        scriptedPort({ 2: cold('-r|', { r: response }) }),
        'chat',
        { audio: audioOf(2) },
        {
          timeoutMs: 50,
          scheduler,
          onAbandoned: () => abandoned.push('answered'),
        },
      );
      expectObservable(slow, '^--!').toBe('---');
      expectObservable(answered).toBe('-(r|)', { r: response });
      scheduler.flush();
      assert.deepEqual(abandoned, ['slow']);
    });
  });
});
