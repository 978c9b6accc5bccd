import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { lastValueFrom, toArray } from 'rxjs';
import type { PlayAudioMsg, SetBoolResponseMsg } from '../../src/ros/ros-messages.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  ROS_SERVICES,
  type MicrophoneRequest,
} from '../../src/ros/ros-port.js';
import {
  createRclnodejsBackend,
  RclnodejsUnavailableError,
} from '../../src/ros/rclnodejs/rclnodejs-backend.js';
import type { Rclnodejs } from '../../src/ros/rclnodejs/rclnodejs-loader.js';
import { createRclnodejsPort } from '../../src/ros/rclnodejs/rclnodejs-port.js';
import { NOT_READY_ANSWER } from '../../src/ros/rclnodejs/microphone-service.js';
import { FakeQoS } from '../support/fake-qos.js';
import { callOnce } from '../support/port-calls.js';

const IGNORE = { answered: () => undefined, failed: () => undefined };

/*
 * The port's wiring against a stand-in for the few rclnodejs classes it touches (rclnodejs itself
 * cannot load without ROS 2): which entities it creates, with which names, types and QoS, and what it
 * does with their callbacks. rclnodejs itself is only exercised against a real ROS 2 graph.
 */

type Callback = (...args: unknown[]) => unknown;

class FakeClient {
  available = false;
  readonly requests: unknown[] = [];
  private resolve: ((response: unknown) => void) | undefined;
  constructor(
    readonly type: string,
    readonly name: string,
    readonly options: unknown,
    /** What rclnodejs's `serviceName` getter would read from rcl: the name after remapping. */
    readonly serviceName?: string,
  ) {}
  isServiceServerAvailable(): boolean {
    return this.available;
  }
  answer(response: unknown): void {
    assert.ok(this.resolve, 'no request is waiting');
    this.resolve(response);
  }
  sendRequestAsync(request: unknown, options: { signal: AbortSignal }): Promise<unknown> {
    this.requests.push(request);
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      options.signal.addEventListener('abort', () => {
        reject(new Error('aborted'));
      });
    });
  }
}

class FakeNode {
  readonly clients: FakeClient[] = [];
  readonly subscriptions: { type: string; topic: string; options: { qos: FakeQoS }; callback: Callback }[] =
    [];
  readonly services: { type: string; name: string; options: unknown; callback: Callback }[] = [];
  readonly publishers: { type: string; topic: string; options: { qos: FakeQoS }; published: unknown[] }[] =
    [];
  spinTimeout: number | undefined;
  destroyed = false;
  readonly extraArguments: unknown[];
  constructor(
    readonly nodeName: string,
    readonly namespace: string,
    readonly context: FakeContext,
    ...extraArguments: unknown[]
  ) {
    this.extraArguments = extraArguments;
    context.nodes.push(this);
  }
  getFullyQualifiedName(): string {
    return `/${this.nodeName}`;
  }
  createClient(type: string, name: string, options: unknown): FakeClient {
    const client = new FakeClient(type, name, options, this.context.remaps?.[name]);
    this.clients.push(client);
    return client;
  }
  // rclnodejs returns the entity, whose `topic` / `serviceName` getters read the remapped name from rcl;
  // without remaps the stand-in returns nothing, as an rclnodejs without those getters would.
  createSubscription(
    type: string,
    topic: string,
    options: { qos: FakeQoS },
    callback: Callback,
  ): { topic: string } | undefined {
    this.subscriptions.push({ type, topic, options, callback });
    const remapped = this.context.remaps?.[topic];
    return remapped === undefined ? undefined : { topic: remapped };
  }
  createService(
    type: string,
    name: string,
    options: unknown,
    callback: Callback,
  ): { serviceName: string } | undefined {
    this.services.push({ type, name, options, callback });
    const remapped = this.context.remaps?.[name];
    return remapped === undefined ? undefined : { serviceName: remapped };
  }
  createPublisher(type: string, topic: string, options: { qos: FakeQoS }): { publish(m: unknown): void } {
    const publisher = { type, topic, options, published: [] as unknown[] };
    this.publishers.push(publisher);
    return { publish: (message) => publisher.published.push(message) };
  }
  spin(timeout: number): void {
    this.spinTimeout = timeout;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

class FakeContext {
  readonly nodes: FakeNode[] = [];
  shutdowns = 0;
  /** Remapping rules of rcl_init (`--ros-args -r from:=to`), by the name the entity was created with. */
  constructor(readonly remaps?: Readonly<Record<string, string>>) {}
  shutdown(): void {
    this.shutdowns++;
    for (const node of this.nodes) node.destroy();
  }
}

const setup = (remaps?: Readonly<Record<string, string>>, callsInFlight = 10) => {
  const context = new FakeContext(remaps);
  // The stand-in covers only what the port uses; the cast is the price of not loading rclnodejs.
  const rcl = { Node: FakeNode, QoS: FakeQoS } as unknown as Rclnodejs;
  const logs: Record<string, unknown>[] = [];
  const port = createRclnodejsPort({
    rcl,
    context: context as unknown as Parameters<typeof createRclnodejsPort>[0]['context'],
    logger: pino(
      { level: 'info' },
      {
        write: (line: string) => {
          logs.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    ),
    rmw: 'rmw_zenoh_cpp',
    callsInFlight,
  });
  const node = context.nodes[0];
  assert.ok(node);
  return { port, context, node, logs };
};

class FakeResponse {
  readonly sent: SetBoolResponseMsg[] = [];
  send(response: SetBoolResponseMsg): void {
    this.sent.push(response);
  }
}

describe('rclnodejs port wiring', () => {
  it('creates node tour_bridge with a client per service, the subscription and the service, and spins', () => {
    const { port, node } = setup();
    assert.equal(port.backend, 'ros');
    assert.equal(node.nodeName, 'tour_bridge');
    assert.deepEqual(
      node.clients.map((client) => [client.type, client.name, client.options]),
      Object.values(ROS_SERVICES).map(({ type, name }) => [
        type,
        name,
        { qos: 'qos_profile_services_default' },
      ]),
    );
    const [subscription] = node.subscriptions;
    assert.equal(subscription?.type, 'tour_guide_interfaces/msg/PlayAudio');
    assert.equal(subscription.topic, '/play_audio');
    const { qos } = subscription.options;
    assert.deepEqual(
      [qos.history, qos.depth, qos.reliability, qos.durability],
      [1, 1000, 1, 2],
      'keep-last 1000 (a burst published back to back outruns the take; issue #15), reliable, volatile',
    );
    assert.deepEqual(
      node.services.map((service) => [service.type, service.name, service.options]),
      [['std_srvs/srv/SetBool', '/microphone/set_enabled', { qos: 'qos_profile_services_default' }]],
    );
    assert.equal(node.spinTimeout, 10);
  });

  // Issue #15: nodes had no way to learn the microphone's state, nor one started after a change.
  it('publishes the microphone state on /microphone/enabled, transient local, keep-last 1, reliable', async () => {
    const { port, node } = setup();
    const [publisher] = node.publishers;
    assert.equal(publisher?.type, 'std_msgs/msg/Bool');
    assert.equal(publisher.topic, '/microphone/enabled');
    const { qos } = publisher.options;
    assert.deepEqual([qos.history, qos.depth, qos.reliability, qos.durability], [1, 1, 1, 1]);
    port.publishMicrophoneEnabled?.(false);
    port.publishMicrophoneEnabled?.(true);
    assert.deepEqual(publisher.published, [{ data: false }, { data: true }]);
    await port.close();
    port.publishMicrophoneEnabled?.(false);
    assert.equal(publisher.published.length, 2, 'nothing after close');
  });

  it('leaves node options, node-local arguments and useGlobalArguments at their defaults', () => {
    // rclnodejs's Node(name, namespace, context, options, args = [], useGlobalArguments = true):
    // with the defaults, rcl applies the ROS arguments given to rcl_init (`--ros-args -r
    // /play_audio:=/kiosk/play_audio`) to this node's topic and service names.
    const { node } = setup();
    assert.deepEqual(node.extraArguments, []);
  });

  it('feeds /play_audio messages to playAudio$ and survives unreadable ones', async () => {
    const { port, node } = setup();
    const received: PlayAudioMsg[] = [];
    port.playAudio$.subscribe((message) => received.push(message));
    const deliver = node.subscriptions[0]?.callback;
    assert.ok(deliver);
    deliver({ emotion: 'happy', text: 'hello', audio: Buffer.from([1, 2]) });
    assert.doesNotThrow(() => deliver({ emotion: 'happy', text: 'broken', audio: undefined }));
    assert.deepEqual(received, [{ emotion: 'happy', text: 'hello', audio: new Uint8Array([1, 2]) }]);
    await port.close();
  });

  it('answers microphone calls itself only while nobody listens', () => {
    const { port, node } = setup();
    const handle = node.services[0]?.callback;
    assert.ok(handle);

    const early = new FakeResponse();
    handle({ data: true }, early);
    assert.deepEqual(early.sent, [NOT_READY_ANSWER]);

    const requests: MicrophoneRequest[] = [];
    port.microphoneRequests$.subscribe((request) => requests.push(request));
    const answered = new FakeResponse();
    handle({ data: true }, answered);
    const [request] = requests;
    assert.ok(request);
    assert.equal(request.enabled, true);
    request.respond({ success: true, message: 'microphone on' });
    assert.deepEqual(answered.sent, [{ success: true, message: 'microphone on' }]);
  });

  it('calls services through their clients and reports missing servers in readiness', async () => {
    const { port, node } = setup();
    const [chat, , tourList] = node.clients;
    assert.ok(chat && tourList);
    assert.match(port.readiness().detail, /no server yet for \/chat, \/clear_history, \/tour_list/);

    tourList.available = true;
    const result = callOnce(port, 'tour_list', {});
    tourList.answer({ success: true, outcome: 0, message: '1 tour(s)', tour_names: ['welcome'] });
    assert.deepEqual(await result, {
      success: true,
      outcome: 0,
      message: '1 tour(s)',
      tour_names: ['welcome'],
    });

    await assert.rejects(callOnce(port, 'chat', { audio: new Uint8Array() }), RosServiceUnavailableError);
    assert.deepEqual(port.readiness(), {
      ready: true,
      detail: `ROS node /tour_bridge spinning on rmw_zenoh_cpp; no server yet for ${Object.values(
        ROS_SERVICES,
      )
        .map((service) => service.name)
        .filter((name) => name !== '/tour_list')
        .join(', ')}`,
    });
  });

  it('keeps at most 10 calls of one service outstanding, each service on its own', async () => {
    const { port, node } = setup();
    const tourGet = node.clients[3];
    const tourList = node.clients[2];
    assert.ok(tourGet && tourList);
    tourGet.available = true;
    tourList.available = true;
    const calls = Array.from({ length: 11 }, (_, index) =>
      port.call('tour_get', { tour_name: `t${index}` }, IGNORE),
    );
    const list = port.call('tour_list', {}, IGNORE);
    assert.equal(tourGet.requests.length, 10);
    assert.equal(tourList.requests.length, 1);
    calls[0]?.cancel();
    await Promise.resolve();
    assert.equal(tourGet.requests.length, 11, 'the waiting call goes once a place frees');
    for (const call of calls) call.cancel();
    list.cancel();
    await port.close();
  });

  it('keeps as many calls of one service outstanding as configured (--ros_calls_in_flight)', async () => {
    const { port, node, logs } = setup(undefined, 3);
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const calls = Array.from({ length: 5 }, (_, index) =>
      port.call('tour_get', { tour_name: `t${index}` }, IGNORE),
    );
    assert.deepEqual(
      tourGet.requests,
      ['t0', 't1', 't2'].map((name) => ({ tour_name: name })),
    );
    calls[1]?.cancel();
    assert.deepEqual(tourGet.requests.at(-1), { tour_name: 't3' }, 'the oldest waiting call takes the place');
    assert.equal(tourGet.requests.length, 4);
    assert.equal(logs.find((line) => line['msg'] === 'ROS node spinning')?.['callsInFlight'], 3);
    for (const call of calls) call.cancel();
    await port.close();
  });

  // Found on a real graph (npm run test:ros): a bridge started with `--ros-args -r /tour_get:=/x/tour_get`
  // said "no server yet for /tour_get" while the operator had to look for /x/tour_get.
  it('names remapped services and topics by their names on the graph in readiness and the log', () => {
    const { port, logs } = setup({
      '/tour_get': '/robot1/tour_get',
      '/chat': '/robot1/chat',
      '/play_audio': '/kiosk1/play_audio',
      '/microphone/set_enabled': '/kiosk1/microphone/set_enabled',
    });
    assert.equal(
      port.readiness().detail,
      'ROS node /tour_bridge spinning on rmw_zenoh_cpp; no server yet for /robot1/chat, /clear_history, ' +
        '/tour_list, /robot1/tour_get, /tour_create, /tour_update, /tour_delete',
    );
    const spinning = logs.find((line) => line['msg'] === 'ROS node spinning');
    assert.deepEqual(
      [spinning?.['services'], spinning?.['subscribes'], spinning?.['provides']],
      [
        [
          '/robot1/chat',
          '/clear_history',
          '/tour_list',
          '/robot1/tour_get',
          '/tour_create',
          '/tour_update',
          '/tour_delete',
        ],
        '/kiosk1/play_audio',
        '/kiosk1/microphone/set_enabled',
      ],
    );
  });

  it('names remapped services by their names on the graph in call errors and serviceName', async () => {
    const { port, node } = setup({ '/tour_get': '/robot1/tour_get' });
    assert.equal(port.serviceName('tour_get'), '/robot1/tour_get');
    assert.equal(port.serviceName('tour_list'), '/tour_list');
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), {
      name: 'RosServiceUnavailableError',
      message: 'ROS service /robot1/tour_get is not available',
    });
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const waiting = callOnce(port, 'tour_get', { tour_name: 'x' });
    await port.close();
    await assert.rejects(waiting, {
      name: 'RosCallFailedError',
      message: 'ROS service /robot1/tour_get failed: the ROS backend closed before the answer arrived',
    });
  });

  it('closes once: fails waiting calls, completes the streams, shuts the context down', async () => {
    const { port, node, context } = setup();
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const waiting = callOnce(port, 'tour_get', { tour_name: 'welcome' });
    const playAudio = lastValueFrom(port.playAudio$.pipe(toArray()));
    const microphone = lastValueFrom(port.microphoneRequests$.pipe(toArray()));

    const closing = port.close();
    assert.equal(port.close(), closing, 'idempotent: the same promise');
    await closing;

    assert.equal(context.shutdowns, 1);
    assert.equal(node.destroyed, true);
    await assert.rejects(waiting, RosCallFailedError);
    assert.deepEqual(await playAudio, []);
    assert.deepEqual(await microphone, []);
    assert.equal(port.readiness().ready, false);
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), RosServiceUnavailableError);
  });
});

describe('createRclnodejsBackend', () => {
  it(
    'fails with RclnodejsUnavailableError, without importing rclnodejs, when no ROS 2 is sourced',
    { skip: process.env['AMENT_PREFIX_PATH'] ? 'a ROS 2 environment is sourced here' : false },
    async () => {
      await assert.rejects(
        createRclnodejsBackend({
          logger: pino({ level: 'silent' }),
          rosArgs: ['--ros-args'],
          callsInFlight: 10,
        }),
        RclnodejsUnavailableError,
      );
    },
  );
});
