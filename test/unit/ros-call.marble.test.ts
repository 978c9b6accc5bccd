import assert from 'node:assert/strict';
import { callTimeouts } from '../support/port-calls.js';
import { describe, it } from 'node:test';
import type { SchedulerLike } from 'rxjs';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import {
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosPort,
  type RosRequest,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';
import { rosCall$ } from '../../src/streams/call-streams.js';
import { audioOf } from '../support/conversation-fakes.js';
import { marbleScheduler, scriptedPort } from '../support/marbles.js';

const response = { emotion: 'happy', text: 'hi', audio: audioOf(1) };

/** One call through the call wrapper, built over `port` with every service's time-out `timeoutMs`. */
const callWithTimeout = <K extends RosServiceKey>(
  port: Pick<RosPort, 'call' | 'serviceName'>,
  service: K,
  request: RosRequest<K>,
  { timeoutMs, scheduler }: { timeoutMs: number; scheduler: SchedulerLike },
) => {
  const timeoutsMs = callTimeouts(timeoutMs);
  const calls = createRosCalls({ port, timeoutsMs, scheduler });
  return { call: rosCall$(calls, service, request), calls };
};

describe('rosCall$ over the call wrapper (marbles)', () => {
  it('emits the one response and leaves the port right after it', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      // A port that emits but never completes must still be left after its first value.
      const port = cold('--r-----', { r: response });
      const { call } = callWithTimeout(
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
      const { call } = callWithTimeout(
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
      const { call } = callWithTimeout(
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
      const { call } = callWithTimeout(
        scriptedPort({ 1: cold('-#', undefined, error) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 4, scheduler },
      );
      expectObservable(call).toBe('-#', undefined, error);
    });
  });

  it('counts the call as in flight from the call until its answer', () => {
    const scheduler = marbleScheduler();
    const seen: number[] = [];
    let wrapper: { readonly inFlight: number } = { inFlight: -1 };
    scheduler.run(({ cold, flush }) => {
      const { call, calls } = callWithTimeout(
        scriptedPort({ 1: cold('---(r|)', { r: response }) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 10, scheduler },
      );
      wrapper = calls;
      seen.push(calls.inFlight);
      call.subscribe(() => seen.push(calls.inFlight));
      seen.push(calls.inFlight);
      flush();
    });
    assert.deepEqual(seen, [0, 1, 0]);
    assert.equal(wrapper.inFlight, 0);
  });

  it('counts a timed-out or abandoned call out of flight', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const timedOut = callWithTimeout(
        scriptedPort({ 1: cold('---------r|', { r: response }) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 3, scheduler },
      );
      expectObservable(timedOut.call).toBe('---#', undefined, new RosTimeoutError('chat', 3));
      const abandoned = callWithTimeout(
        scriptedPort({ 1: cold('---------r|', { r: response }) }),
        'chat',
        { audio: audioOf(1) },
        { timeoutMs: 30, scheduler },
      );
      expectObservable(abandoned.call, '^-!').toBe('---');
      flush();
      assert.equal(timedOut.calls.inFlight, 0);
      assert.equal(abandoned.calls.inFlight, 0);
    });
  });

  it('times out many calls of one service each at its own deadline', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const never = cold('-');
      const calls = createRosCalls({
        port: scriptedPort({ 1: never, 2: never, 3: never }),
        timeoutsMs: callTimeouts(5),
        scheduler,
      });
      const starts = hot('a-b--c|', { a: 1, b: 2, c: 3 });
      const timeouts: string[] = [];
      starts.subscribe((n) => {
        rosCall$(calls, 'chat', { audio: audioOf(n) }).subscribe({
          error: () => timeouts.push(`${n}@${scheduler.now()}`),
        });
      });
      expectObservable(starts).toBe('a-b--c|', { a: 1, b: 2, c: 3 });
      scheduler.flush();
      assert.deepEqual(timeouts, ['1@5', '2@7', '3@10']);
      assert.equal(calls.inFlight, 0);
    });
  });

  it('cancels a call abandoned before its answer at the port, at once, and leaves an answered one as it ends', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slowPort = cold('-----r|', { r: response });
      const answeredPort = cold('-r|', { r: response });
      const { call: slow } = callWithTimeout(
        scriptedPort({ 1: slowPort }),
        'chat',
        { audio: audioOf(1) },
        {
          timeoutMs: 50,
          scheduler,
        },
      );
      const { call: answered } = callWithTimeout(
        scriptedPort({ 2: answeredPort }),
        'chat',
        { audio: audioOf(2) },
        { timeoutMs: 50, scheduler },
      );
      expectObservable(slow, '^--!').toBe('---');
      expectObservable(answered).toBe('-(r|)', { r: response });
      // The abandoned call leaves the port when it is abandoned (frame 3), before its answer (frame 5).
      expectSubscriptions(slowPort.subscriptions).toBe('^--!');
      expectSubscriptions(answeredPort.subscriptions).toBe('^!');
    });
  });
});
