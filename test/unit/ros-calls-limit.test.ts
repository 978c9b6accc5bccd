import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { VirtualTimeScheduler, type SchedulerLike } from 'rxjs';
import { OPTION_SPECS } from '../../src/cli/options.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import type { ConverseResultMsg } from '../../src/ros/port/ros-messages.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  RosTimeoutError,
  SETTLED_CALL,
  type RosCallHandler,
  type RosCallKey,
  type RosCallTicket,
  type RosConverseHandler,
  type RosRequest,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';
import { callTimeouts } from '../support/port-calls.js';

/*
 * The call wrapper's in-flight limit and its part in the port closing, over a port whose calls stay
 * outstanding until the test answers them (the rclnodejs adapter's own tests: rclnodejs-port.test.ts).
 * Found with `npm run test:ros`: bursts of concurrent calls lost requests or answers in the RMW's
 * keep-last-10 service queues (100 concurrent GET /tour/{name}: 80 answered 504 on a real graph).
 */

interface SentCall {
  readonly service: RosCallKey;
  readonly name: string;
  readonly handler: RosCallHandler<'tour_delete'> | RosConverseHandler;
  cancelled: boolean;
}

const outcome = (message: string) => ({ success: true, outcome: 0, message });
const RESULT: ConverseResultMsg = { success: true, outcome: 0, message: 'done' };

/** A port that sends at once, refuses at once when no server is there, and never answers by itself. */
class PendingPort {
  available = true;
  availabilityChecks = 0;
  readonly sent: SentCall[] = [];

  serviceName(service: RosCallKey): string {
    return `/robot1/${service}`;
  }

  serverAvailable(): boolean {
    this.availabilityChecks += 1;
    return this.available;
  }

  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket {
    if (!this.available) {
      handler.failed(new RosServiceUnavailableError(service, this.serviceName(service)));
      return SETTLED_CALL;
    }
    const name = 'tour_name' in request ? request.tour_name : '';
    return this.#record({
      service,
      name,
      handler: handler as RosCallHandler<'tour_delete'>,
      cancelled: false,
    });
  }

  converse(goal: { audio: Uint8Array }, handler: RosConverseHandler): RosCallTicket {
    return this.#record({ service: 'converse', name: String(goal.audio[0]), handler, cancelled: false });
  }

  #record(call: SentCall): RosCallTicket {
    this.sent.push(call);
    return {
      cancel: () => {
        call.cancelled = true;
      },
    };
  }

  names(): string[] {
    return this.sent.map((call) => call.name);
  }

  /** Answers the oldest call not yet answered or cancelled. */
  answerOldest(message: string): void {
    const index = this.sent.findIndex((call) => !call.cancelled && call.service !== 'converse');
    const [call] = this.sent.splice(index, 1);
    assert.ok(call, 'no call is outstanding');
    (call.handler as RosCallHandler<'tour_delete'>).answered(outcome(message));
  }
}

const setup = (callsInFlight: number, timeoutMs = 60_000, scheduler?: SchedulerLike) => {
  const port = new PendingPort();
  const closing = new AbortController();
  const calls = createRosCalls({
    port,
    timeoutsMs: callTimeouts(timeoutMs),
    callsInFlight,
    closing: closing.signal,
    ...(scheduler === undefined ? {} : { scheduler }),
  });
  const outcomes: Record<string, unknown> = {};
  const remove = (name: string): RosCallTicket =>
    calls.call(
      'tour_delete',
      { tour_name: name },
      {
        answered: (response) => {
          outcomes[name] = response.message;
        },
        failed: (error) => {
          outcomes[name] = error;
        },
      },
    );
  return { port, calls, closing, outcomes, remove };
};

describe('the call wrapper: calls outstanding per service', () => {
  it('sends at most the limit at once (default 10, the services QoS depth); the others wait and go in order', () => {
    assert.equal(OPTION_SPECS.ros_calls_in_flight.defaultValue, '10');
    const { port, calls, outcomes, remove } = setup(10);
    const names = Array.from({ length: 13 }, (_, index) => `t${index}`);
    for (const name of names) remove(name);
    assert.deepEqual(port.names(), names.slice(0, 10));
    assert.equal(calls.inFlight, 13, 'waiting calls are in flight: their time-outs run');
    // Another service has places of its own.
    calls.call('tour_get', { tour_name: 'other' }, { answered: () => undefined, failed: () => undefined });
    assert.equal(port.sent.length, 11);
    port.sent.splice(10, 1)[0]?.handler.failed(new Error('not this one'));
    for (const name of names) port.answerOldest(`deleted ${name}`);
    assert.deepEqual(
      names.map((name) => outcomes[name]),
      names.map((name) => `deleted ${name}`),
    );
    assert.equal(calls.inFlight, 0);
  });

  it('sends nothing for a waiting call that is abandoned; abandoning a running call frees its place', () => {
    const { port, calls, outcomes, remove } = setup(1);
    const running = remove('a');
    remove('b').cancel();
    remove('c');
    assert.deepEqual(port.names(), ['a']);
    running.cancel();
    assert.equal(port.sent[0]?.cancelled, true, 'the running call is abandoned at the port');
    assert.deepEqual(port.names(), ['a', 'c']);
    port.sent.shift();
    port.answerOldest('deleted c');
    assert.deepEqual(outcomes, { c: 'deleted c' });
    assert.equal(calls.inFlight, 0);
  });

  it('answers a missing server at once, even behind a full queue; the port checks again when a waiting call goes', () => {
    const { port, outcomes, remove } = setup(1);
    remove('a');
    remove('b');
    assert.equal(port.availabilityChecks, 1, 'asked once: before b waited, not for a, which went at once');
    port.available = false;
    remove('c');
    assert.ok(outcomes['c'] instanceof RosServiceUnavailableError);
    assert.equal((outcomes['c'] as Error).message, 'ROS service /robot1/tour_delete is not available');
    // The server went away while 'b' waited: the port refuses 'b' when its turn comes.
    port.answerOldest('deleted a');
    assert.equal(outcomes['a'], 'deleted a');
    assert.ok(outcomes['b'] instanceof RosServiceUnavailableError);
    assert.deepEqual(port.names(), []);
  });

  it('fails a call that would wait when the port cannot tell whether a server is there', () => {
    const { port, outcomes, remove } = setup(1);
    remove('a');
    port.serverAvailable = () => {
      throw new Error('rcl_service_server_is_available failed\nsecond line');
    };
    remove('b');
    assert.ok(outcomes['b'] instanceof RosCallFailedError);
    assert.equal(
      (outcomes['b'] as Error).message,
      'ROS service /robot1/tour_delete failed: rcl_service_server_is_available failed',
    );
  });

  it('a waiting call that times out gives up its place in the queue and is never sent', () => {
    // Virtual time: both calls made at the same instant, so both deadlines pass together. (On the
    // process clock a millisecond between them leaves the second call 1 ms, and it is sent.)
    const scheduler = new VirtualTimeScheduler();
    const { port, calls, outcomes, remove } = setup(1, 20, scheduler);
    remove('a');
    remove('b');
    scheduler.flush();
    assert.ok(outcomes['a'] instanceof RosTimeoutError);
    assert.ok(outcomes['b'] instanceof RosTimeoutError);
    assert.deepEqual(port.names(), ['a']);
    assert.equal(port.sent[0]?.cancelled, true);
    assert.equal(calls.inFlight, 0);
  });

  it('bounds Converse goals apart from the services, and the next goal goes when one ends', () => {
    const { port, calls } = setup(2);
    const results: string[] = [];
    for (const index of [0, 1, 2]) {
      calls.converse(
        { utterance_id: '', streamed: false, audio: Uint8Array.of(index) },
        {
          part: () => undefined,
          finished: () => results.push(`finished ${index}`),
          failed: () => results.push(`failed ${index}`),
        },
      );
    }
    assert.deepEqual(port.names(), ['0', '1']);
    (port.sent[0]?.handler as RosConverseHandler).finished(RESULT);
    assert.deepEqual(port.names(), ['0', '1', '2']);
    assert.deepEqual(results, ['finished 0']);
  });

  it('refuses a limit that is not a positive whole number', () => {
    const createInFlightLimit = (callsInFlight: number) =>
      createRosCalls({ port: new PendingPort(), timeoutsMs: callTimeouts(1000), callsInFlight });
    assert.throws(() => createInFlightLimit(0), RangeError);
    assert.throws(() => createInFlightLimit(1.5), RangeError);
  });
});

describe('the call wrapper when the port closes', () => {
  it('fails the sent calls (the answer cannot come) and the waiting ones (unavailable), and sends nothing more', () => {
    const { port, calls, closing, outcomes, remove } = setup(1);
    remove('a');
    remove('b');
    closing.abort();
    assert.ok(outcomes['a'] instanceof RosCallFailedError);
    assert.equal(
      (outcomes['a'] as Error).message,
      'ROS service /robot1/tour_delete failed: the ROS backend closed before the answer arrived',
    );
    assert.ok(outcomes['b'] instanceof RosServiceUnavailableError);
    assert.deepEqual(port.names(), ['a'], 'b was never sent');
    assert.equal(port.sent[0]?.cancelled, true, 'a was abandoned at the port');
    assert.equal(calls.inFlight, 0);
  });

  it('fails a running Converse goal and cancels it at the port', () => {
    const { port, calls, closing } = setup(10);
    const heard: unknown[] = [];
    calls.converse(
      { utterance_id: '', streamed: false, audio: Uint8Array.of(1) },
      { part: () => undefined, finished: () => heard.push('finished'), failed: (error) => heard.push(error) },
    );
    closing.abort();
    assert.equal(port.sent[0]?.cancelled, true);
    assert.ok(heard[0] instanceof RosCallFailedError);
    assert.match((heard[0] as Error).message, /the ROS backend closed before the result arrived/);
  });

  // Found under load on a robot and in `npm test`: one abort listener per outstanding call on the one
  // lifetime signal gave `MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]`.
  it('puts one listener on the closing signal for 100 outstanding calls, warns nothing, and fails them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { port, closing, outcomes, remove } = setup(100);
      for (let index = 0; index < 100; index += 1) remove(`t${index}`);
      assert.equal(port.sent.length, 100);
      assert.equal(getEventListeners(closing.signal, 'abort').length, 1);
      closing.abort();
      assert.equal(Object.keys(outcomes).length, 100);
      assert.ok(Object.values(outcomes).every((failure) => failure instanceof RosCallFailedError));
      assert.ok(port.sent.every((call) => call.cancelled));
      // process 'warning' is emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.map((warning) => warning.name),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
