import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, lastValueFrom, Observable, toArray } from 'rxjs';
import type { SetBoolResponseMsg, TourMsg } from '../../src/ros/port/ros-messages.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  type MicrophoneRequest,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';
import { createMicrophoneHandler, NOT_READY_ANSWER } from '../../src/ros/rclnodejs/microphone-service.js';
import {
  loadRclnodejs,
  RclnodejsUnavailableError,
  rosEnvironmentProblem,
} from '../../src/ros/binding/rclnodejs-loader.js';
import { describeReadiness } from '../../src/ros/rclnodejs/readiness.js';
import { rmwLabel } from '../../src/ros/binding/rmw-label.js';
import { rclInitArgv } from '../../src/ros/binding/ros-args.js';
import {
  callRosService,
  REQUEST_TO_WIRE,
  RESPONSE_FROM_WIRE,
  type ServiceCallOptions,
  type ServiceClientLike,
} from '../../src/ros/rclnodejs/service-call.js';
import {
  bytesFromWire,
  bytesToWire,
  type WireRequest,
  type WireResponse,
} from '../../src/ros/port/ros-wire.js';
import { playAudioFromWire } from '../../src/ros/rclnodejs/play-audio-source.js';

import { capturingLogger } from '../support/log-capture.js';

// The adapter's pieces that do not need ROS: everything but the module that creates the node.

const tour: TourMsg = {
  tour_name: 'welcome',
  map_name: 'lobby',
  steps: [{ description: 'Greet', destination: ['entrance'], dialogue: [] }],
};

describe('uint8[] conversion', () => {
  it('turns number[] into a Uint8Array', () => {
    assert.deepEqual(bytesFromWire([1, 2, 255]), new Uint8Array([1, 2, 255]));
  });

  it('passes a plain Uint8Array through untouched', () => {
    const bytes = new Uint8Array([7, 8]);
    assert.equal(bytesFromWire(bytes), bytes);
  });

  it('re-views a Buffer as a plain Uint8Array over the same bytes', () => {
    const buffer = Buffer.from([9, 10, 11]);
    const bytes = bytesFromWire(buffer);
    assert.equal(Object.getPrototypeOf(bytes), Uint8Array.prototype);
    assert.deepEqual(bytes, new Uint8Array([9, 10, 11]));
    assert.equal(bytes.buffer, buffer.buffer);
    assert.equal(bytes.byteOffset, buffer.byteOffset);
  });

  it('sends an array owning its whole buffer as is', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    assert.equal(bytesToWire(bytes), bytes);
  });

  it('copies views before sending, since rclnodejs serialises .buffer from offset 0', () => {
    const backing = new Uint8Array([0, 1, 2, 3, 4, 5]);
    const view = backing.subarray(2, 5);
    const sent = bytesToWire(view);
    assert.notEqual(sent, view);
    assert.deepEqual(sent, new Uint8Array([2, 3, 4]));
    assert.equal(sent.byteOffset, 0);
    assert.equal(sent.buffer.byteLength, 3);

    const pooled = Buffer.from([42, 43]); // small Buffers are slices of a shared pool
    const sentPooled = bytesToWire(pooled);
    assert.deepEqual([...sentPooled], [42, 43]);
    assert.equal(sentPooled.buffer.byteLength, 2);
  });
});

describe('message mapping', () => {
  it('maps each request to what rclnodejs sends', () => {
    const audio = new Uint8Array([0, 1, 2, 3]).subarray(1);
    assert.deepEqual(REQUEST_TO_WIRE.chat({ audio }), { audio: new Uint8Array([1, 2, 3]) });
    assert.deepEqual(REQUEST_TO_WIRE.clear_history({}), {});
    assert.deepEqual(REQUEST_TO_WIRE.tour_list({}), {});
    assert.deepEqual(REQUEST_TO_WIRE.tour_get({ tour_name: 'welcome' }), { tour_name: 'welcome' });
    assert.deepEqual(REQUEST_TO_WIRE.tour_delete({ tour_name: 'welcome' }), { tour_name: 'welcome' });
    const created = REQUEST_TO_WIRE.tour_create({ tour });
    assert.deepEqual(created, { tour });
    assert.notEqual(created.tour.steps[0], tour.steps[0], 'the request is a copy, not the caller’s object');
    assert.deepEqual(REQUEST_TO_WIRE.tour_update({ tour }), { tour });
  });

  it('maps responses to the port’s shapes, dropping unknown fields', () => {
    assert.deepEqual(RESPONSE_FROM_WIRE.chat({ emotion: 'happy', text: 'hi', audio: [1, 2] }), {
      emotion: 'happy',
      text: 'hi',
      audio: new Uint8Array([1, 2]),
    });
    assert.deepEqual(RESPONSE_FROM_WIRE.clear_history({}), {});
    const outcome = { success: false, outcome: 1, message: 'no tour named "x"' };
    assert.deepEqual(RESPONSE_FROM_WIRE.tour_list({ ...outcome, tour_names: ['a', 'b'] }), {
      ...outcome,
      tour_names: ['a', 'b'],
    });
    const extra = { ...outcome, tour: { ...tour, surplus: 1 }, also: true };
    assert.deepEqual(RESPONSE_FROM_WIRE.tour_get(extra), { ...outcome, tour });
    assert.deepEqual(RESPONSE_FROM_WIRE.tour_create({ ...outcome, surplus: 2 } as typeof outcome), outcome);
    assert.deepEqual(RESPONSE_FROM_WIRE.tour_update(outcome), outcome);
    assert.deepEqual(RESPONSE_FROM_WIRE.tour_delete(outcome), outcome);
  });

  it('maps /play_audio messages, normalising the audio', () => {
    assert.deepEqual(playAudioFromWire({ emotion: 'calm', text: 'hello', audio: Buffer.from([5, 6]) }), {
      emotion: 'calm',
      text: 'hello',
      audio: new Uint8Array([5, 6]),
    });
  });
});

describe('ROS arguments and environment', () => {
  it('builds rcl_init’s argv from the command line’s ROS arguments', () => {
    assert.deepEqual(rclInitArgv([]), ['tour-bridge']);
    assert.deepEqual(rclInitArgv(['--ros-args', '-r', '__ns:=/robot1']), [
      'tour-bridge',
      '--ros-args',
      '-r',
      '__ns:=/robot1',
    ]);
    assert.deepEqual(rclInitArgv(['-r', '/chat:=/robot1/chat']), [
      'tour-bridge',
      '--ros-args',
      '-r',
      '/chat:=/robot1/chat',
    ]);
  });

  it('refuses to import rclnodejs without a sourced ROS 2', async () => {
    assert.equal(rosEnvironmentProblem({ AMENT_PREFIX_PATH: '/opt/ros/jazzy' }), undefined);
    assert.match(rosEnvironmentProblem({}) ?? '', /AMENT_PREFIX_PATH is not set/);
    assert.match(rosEnvironmentProblem({ AMENT_PREFIX_PATH: ' ' }) ?? '', /AMENT_PREFIX_PATH is not set/);
    await assert.rejects(loadRclnodejs({}), (error: unknown) => {
      assert.ok(error instanceof RclnodejsUnavailableError);
      assert.equal(error.name, 'RclnodejsUnavailableError');
      assert.equal(
        error.message,
        'rclnodejs cannot load: AMENT_PREFIX_PATH is not set, so no ROS 2 environment is sourced',
      );
      return true;
    });
  });

  it('names the RMW and the node in the readiness detail', () => {
    assert.equal(rmwLabel({ RMW_IMPLEMENTATION: 'rmw_zenoh_cpp' }), 'rmw_zenoh_cpp');
    assert.equal(rmwLabel({}), 'the default RMW (RMW_IMPLEMENTATION unset)');
    const base = { nodeName: '/tour_bridge', rmw: 'rmw_zenoh_cpp' };
    assert.deepEqual(describeReadiness({ ...base, spinning: true, servicesWithoutServer: [] }), {
      ready: true,
      detail: 'ROS node /tour_bridge spinning on rmw_zenoh_cpp; every called service has a server',
    });
    assert.deepEqual(
      describeReadiness({ ...base, spinning: true, servicesWithoutServer: ['/chat', '/tour_get'] }),
      {
        ready: true,
        detail: 'ROS node /tour_bridge spinning on rmw_zenoh_cpp; no server yet for /chat, /tour_get',
      },
    );
    assert.equal(describeReadiness({ ...base, spinning: false, servicesWithoutServer: [] }).ready, false);
  });
});

/** Behaves like rclnodejs's Client: rejects with an AbortError when the signal fires first. */
class FakeClient<Req, Res> implements ServiceClientLike<Req, Res> {
  available = true;
  readonly sent: Req[] = [];
  readonly signals: AbortSignal[] = [];
  private settle: { resolve: (response: Res) => void; reject: (error: unknown) => void } | undefined;

  isServiceServerAvailable(): boolean {
    return this.available;
  }

  sendRequestAsync(request: Req, options: { signal: AbortSignal }): Promise<Res> {
    this.sent.push(request);
    this.signals.push(options.signal);
    return new Promise<Res>((resolve, reject) => {
      this.settle = { resolve, reject };
      options.signal.addEventListener('abort', () => {
        reject(Object.assign(new Error('Service request was aborted'), { name: 'AbortError' }));
      });
    });
  }

  answer(response: Res): void {
    this.settle?.resolve(response);
  }

  fail(error: unknown): void {
    this.settle?.reject(error);
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A call as an observable, so these tests read like the port's other stream tests: subscribing calls
 * callRosService, unsubscribing cancels the call.
 */
const serviceCall$ = <K extends RosServiceKey>(
  service: K,
  client: ServiceClientLike<WireRequest<K>, WireResponse<K>>,
  request: RosRequest<K>,
  lifetime: AbortSignal,
  options?: ServiceCallOptions,
): Observable<RosResponse<K>> =>
  new Observable<RosResponse<K>>((subscriber) => {
    const ticket = callRosService(
      service,
      client,
      request,
      lifetime,
      {
        answered: (response) => {
          subscriber.next(response);
          subscriber.complete();
        },
        failed: (error) => {
          subscriber.error(error);
        },
      },
      options,
    );
    return () => {
      ticket.cancel();
    };
  });

describe('service calls', () => {
  it('sends the converted request and answers the converted response', async () => {
    const client = new FakeClient<
      { tour_name: string },
      { success: boolean; outcome: number; message: string }
    >();
    const call$ = serviceCall$('tour_delete', client, { tour_name: 'x' }, new AbortController().signal);
    await tick();
    const result = firstValueFrom(call$);
    client.answer({ success: true, outcome: 0, message: 'deleted "x"' });
    assert.deepEqual(await result, { success: true, outcome: 0, message: 'deleted "x"' });
    assert.deepEqual(client.sent, [{ tour_name: 'x' }]);
  });

  it('emits the converted response once and completes', async () => {
    const client = new FakeClient<
      { audio: Uint8Array },
      { emotion: string; text: string; audio: number[] }
    >();
    const all = lastValueFrom(
      serviceCall$('chat', client, { audio: new Uint8Array([1]) }, new AbortController().signal).pipe(
        toArray(),
      ),
    );
    client.answer({ emotion: 'happy', text: 'hi', audio: [3, 4] });
    assert.deepEqual(await all, [{ emotion: 'happy', text: 'hi', audio: new Uint8Array([3, 4]) }]);
  });

  it('fails with RosServiceUnavailableError when no server is matched, sending nothing', async () => {
    const client = new FakeClient<{ tour_name: string }, never>();
    client.available = false;
    await assert.rejects(
      firstValueFrom(serviceCall$('tour_get', client, { tour_name: 'x' }, new AbortController().signal)),
      (error: unknown) => error instanceof RosServiceUnavailableError && error.service === 'tour_get',
    );
    assert.equal(client.sent.length, 0);
  });

  // Found on a real graph: with `--ros-args -r /tour_get:=/x/tour_get` the 503 said /tour_get, a name
  // the operator finds nowhere on the graph.
  it('names the service by its name on the graph in 503 and 502 errors', async () => {
    const absent = new FakeClient<{ tour_name: string }, never>();
    absent.available = false;
    await assert.rejects(
      firstValueFrom(
        serviceCall$('tour_get', absent, { tour_name: 'x' }, new AbortController().signal, {
          serviceName: '/robot1/tour_get',
        }),
      ),
      (error: unknown) => {
        assert.ok(error instanceof RosServiceUnavailableError);
        assert.equal(error.service, 'tour_get');
        assert.equal(error.message, 'ROS service /robot1/tour_get is not available');
        return true;
      },
    );
    const failing = new FakeClient<Record<string, never>, Record<string, never>>();
    const result = firstValueFrom(
      serviceCall$('clear_history', failing, {}, new AbortController().signal, {
        serviceName: '/robot1/clear_history',
      }),
    );
    failing.fail(new Error('rcl_send_request failed'));
    await assert.rejects(result, {
      name: 'RosCallFailedError',
      message: 'ROS service /robot1/clear_history failed: rcl_send_request failed',
    });
    // A server is matched, but the port has closed: refused as unavailable, under the same name.
    const closed = new AbortController();
    closed.abort();
    await assert.rejects(
      firstValueFrom(
        serviceCall$('tour_get', new FakeClient(), { tour_name: 'x' }, closed.signal, {
          serviceName: '/robot1/tour_get',
        }),
      ),
      { message: 'ROS service /robot1/tour_get is not available' },
    );
  });

  it('fails with RosCallFailedError keeping the cause', async () => {
    const client = new FakeClient<Record<string, never>, Record<string, never>>();
    const result = firstValueFrom(serviceCall$('clear_history', client, {}, new AbortController().signal));
    const cause = new Error('rcl_send_request failed\nsecond line');
    client.fail(cause);
    await assert.rejects(result, (error: unknown) => {
      assert.ok(error instanceof RosCallFailedError);
      assert.equal(error.message, 'ROS service /clear_history failed: rcl_send_request failed');
      assert.equal(error.cause, cause);
      return true;
    });
  });

  it('turns a synchronous throw of the client (e.g. a bounded sequence too long) into RosCallFailedError', async () => {
    const client = new FakeClient<{ tour: TourMsg }, never>();
    client.sendRequestAsync = () => {
      throw new RangeError('The length of array destination must be <= 1.');
    };
    await assert.rejects(
      firstValueFrom(serviceCall$('tour_create', client, { tour }, new AbortController().signal)),
      (error: unknown) => error instanceof RosCallFailedError && /must be <= 1/.test(error.message),
    );
  });

  it('abandons the call on unsubscribe: the signal aborts and the late answer goes nowhere', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = new FakeClient<{ tour_name: string }, never>();
      const seen: unknown[] = [];
      const subscription = serviceCall$(
        'tour_get',
        client,
        { tour_name: 'x' },
        new AbortController().signal,
      ).subscribe({
        next: (value) => seen.push(value),
        error: (error: unknown) => seen.push(error),
      });
      subscription.unsubscribe();
      assert.equal(client.signals[0]?.aborted, true);
      await tick();
      await tick();
      assert.deepEqual(seen, []);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('refuses new calls once the backend closed (the wrapper fails those outstanding: ros-calls-limit.test.ts)', async () => {
    const lifetime = new AbortController();
    const client = new FakeClient<{ tour_name: string }, never>();
    lifetime.abort();
    await assert.rejects(
      firstValueFrom(serviceCall$('tour_get', client, { tour_name: 'x' }, lifetime.signal)),
      RosServiceUnavailableError,
    );
    assert.equal(client.sent.length, 0);
  });
});

// Found in review: `AbortSignal.any([perCall, backendLifetime])` keeps every combined signal reachable from
// the process-long lifetime signal on Node 20 (nodejs/node#55351): ~5 KB per call, 237 MiB per 50,000 calls.
describe('service calls over the life of the process', () => {
  const answeringClient = (): ServiceClientLike<{ tour_name: string }, never> => ({
    isServiceServerAvailable: () => true,
    sendRequestAsync: () => Promise.resolve({ success: true, outcome: 0, message: 'deleted' } as never),
  });

  it('keeps nothing of a call on the backend lifetime once it settles, fails or is abandoned', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const lifetime = new AbortController();
    // Each call's handler, seen only through a WeakRef: whatever the lifetime still holds of a call keeps
    // its handler (the closures of one call share its scope), so a handler not collected is a leak.
    const handlers = await (async () => {
      const handler = () => ({ answered: () => undefined, failed: () => undefined });
      const answered = handler();
      callRosService('tour_delete', answeringClient(), { tour_name: 'x' }, lifetime.signal, answered);
      await tick();
      const failing = new FakeClient<Record<string, never>, Record<string, never>>();
      const failed = handler();
      callRosService('clear_history', failing, {}, lifetime.signal, failed);
      failing.fail(new Error('rcl_send_request failed'));
      await tick();
      const abandoned = handler();
      callRosService('tour_get', new FakeClient(), { tour_name: 'x' }, lifetime.signal, abandoned).cancel();
      await tick();
      return [new WeakRef(answered), new WeakRef(failed), new WeakRef(abandoned)];
    })();
    await tick();
    collect();
    assert.deepEqual(
      handlers.map((ref) => (ref.deref() === undefined ? 'collected' : 'kept')),
      ['collected', 'collected', 'collected'],
    );
    assert.ok(getEventListeners(lifetime.signal, 'abort').length <= 1);
  });

  // Found under load on a robot and in `npm test`: one abort listener per outstanding call on the one
  // lifetime signal gave `MaxListenersExceededWarning`. The wrapper now fails them on close, with one
  // listener of its own (ros-calls-limit.test.ts); the adapter puts none.
  it('puts no listener on the backend lifetime for 100 outstanding calls, and sends them all', () => {
    const lifetime = new AbortController();
    const client = new PendingClient<{ tour_name: string }, never>();
    const tickets = Array.from({ length: 100 }, (_, index) =>
      callRosService('tour_get', client, { tour_name: `t${String(index)}` }, lifetime.signal, {
        answered: () => undefined,
        failed: () => undefined,
      }),
    );
    assert.equal(client.sent.length, 100);
    assert.equal(getEventListeners(lifetime.signal, 'abort').length, 0);
    for (const ticket of tickets) ticket.cancel();
    assert.ok(client.pending.every((call) => call.signal.aborted));
  });

  it('keeps no memory per call: 20,000 answered calls, heap after GC grows by far less than 5 KB a call', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const lifetime = new AbortController();
    const client = answeringClient();
    const calls = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        await firstValueFrom(serviceCall$('tour_delete', client, { tour_name: 'x' }, lifetime.signal));
      }
    };
    await calls(2_000); // warm-up: compiled code and RxJS's own caches
    collect();
    const before = process.memoryUsage().heapUsed;
    await calls(20_000);
    collect();
    const grown = process.memoryUsage().heapUsed - before;
    // The leak made ~95 MiB here; 10 MiB leaves room for the collector's own noise.
    assert.ok(grown < 10 * 1024 * 1024, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB`);
  });
});

/** A client whose calls stay pending until answered one by one, in any order. */
class PendingClient<Req, Res> implements ServiceClientLike<Req, Res> {
  available = true;
  readonly sent: Req[] = [];
  readonly pending: { request: Req; resolve: (response: Res) => void; signal: AbortSignal }[] = [];

  isServiceServerAvailable(): boolean {
    return this.available;
  }

  sendRequestAsync(request: Req, options: { signal: AbortSignal }): Promise<Res> {
    this.sent.push(request);
    return new Promise<Res>((resolve, reject) => {
      this.pending.push({ request, resolve, signal: options.signal });
      options.signal.addEventListener('abort', () => {
        reject(Object.assign(new Error('Service request was aborted'), { name: 'AbortError' }));
      });
    });
  }

  answerOldest(response: Res): void {
    const oldest = this.pending.shift();
    assert.ok(oldest, 'no call is pending');
    oldest.resolve(response);
  }
}

class FakeResponder {
  readonly sent: SetBoolResponseMsg[] = [];
  failWith: Error | undefined;
  send(response: SetBoolResponseMsg): void {
    if (this.failWith) throw this.failWith;
    this.sent.push(response);
  }
}

describe('/microphone/set_enabled handler', () => {
  const setup = (options: { listeners: boolean; closed?: boolean }) => {
    const emitted: MicrophoneRequest[] = [];
    const log = capturingLogger();
    const handler = createMicrophoneHandler({
      hasListeners: () => options.listeners,
      emit: (request) => emitted.push(request),
      isClosed: () => options.closed ?? false,
      logger: log.logger,
    });
    return { handler, emitted, log };
  };

  it('answers at once when nobody listens', () => {
    const { handler, emitted } = setup({ listeners: false });
    const responder = new FakeResponder();
    // The value matters at run time: rclnodejs sends a truthy return value as the answer itself.
    // eslint-disable-next-line @typescript-eslint/no-confusing-void-expression
    const returned: unknown = handler({ data: true }, responder);
    assert.equal(returned, undefined);
    assert.deepEqual(responder.sent, [NOT_READY_ANSWER]);
    assert.deepEqual(emitted, []);
  });

  it('hands the request on and sends the first answer only, even from a later tick', async () => {
    const { handler, emitted } = setup({ listeners: true });
    const responder = new FakeResponder();
    handler({ data: false }, responder);
    assert.equal(emitted.length, 1);
    const [request] = emitted;
    assert.ok(request);
    assert.equal(request.enabled, false);
    // SetBool carries no caller identity: the event log names the service.
    assert.equal(request.source, 'ROS service /microphone/set_enabled');
    assert.deepEqual(responder.sent, []);
    await tick();
    request.respond({ success: true, message: 'microphone off' });
    request.respond({ success: false, message: 'ignored' });
    assert.deepEqual(responder.sent, [{ success: true, message: 'microphone off' }]);
  });

  it('does not answer after close, and logs a failed send instead of throwing', () => {
    const closed = setup({ listeners: false, closed: true });
    const unsent = new FakeResponder();
    closed.handler({ data: true }, unsent);
    assert.deepEqual(unsent.sent, []);

    const { handler, log } = setup({ listeners: false });
    const broken = new FakeResponder();
    broken.failWith = new Error('service handle destroyed');
    assert.doesNotThrow(() => {
      handler({ data: true }, broken);
    });
    assert.ok(log.lines.some((line) => line.level === 40 && /could not answer/.test(line.msg)));
  });
});
