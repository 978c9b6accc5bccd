import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { lastValueFrom, toArray } from 'rxjs';
import {
  UtteranceEvent,
  type ConverseFeedbackMsg,
  type ConverseResultMsg,
  type PlayAudioMsg,
  type SetBoolResponseMsg,
  type TranscriptMsg,
} from '../../src/ros/port/ros-messages.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  ROS_HEARD_TOPIC,
  ROS_SERVICES,
  ROS_TRANSCRIPT_TOPIC,
  ROS_UTTERANCE_AUDIO_TOPIC,
  type MicrophoneRequest,
} from '../../src/ros/port/ros-port.js';
import { TRANSCRIPT_LIMITS } from '../../src/ros/rclnodejs/transcript-source.js';
import {
  createRclnodejsBackend,
  RclnodejsUnavailableError,
} from '../../src/ros/rclnodejs/rclnodejs-backend.js';
import type { Rclnodejs } from '../../src/ros/binding/rclnodejs-loader.js';
import { createRclnodejsPort } from '../../src/ros/rclnodejs/rclnodejs-port.js';
import { NOT_READY_ANSWER } from '../../src/ros/rclnodejs/microphone-service.js';
import { FakeQoS } from '../support/fake-qos.js';
import { callOnce, callTimeouts } from '../support/port-calls.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import { capturingLogger } from '../support/log-capture.js';

const IGNORE = { answered: () => undefined, failed: () => undefined };
const PLAY_AUDIO_TYPE = 'tour_guide_interfaces/msg/PlayAudio';

/*
 * The port's wiring against a stand-in for the few rclnodejs classes it touches (rclnodejs itself
 * cannot load without ROS 2): which entities it creates, with which names, types and QoS, and what it
 * does with their callbacks. rclnodejs itself is only exercised against a real ROS 2 graph.
 */

type Callback = (...args: unknown[]) => unknown;

class FakeClient {
  available = false;
  readonly requests: unknown[] = [];
  /** Each request's abort signal, in order. */
  readonly signals: AbortSignal[] = [];
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
    this.signals.push(options.signal);
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      options.signal.addEventListener('abort', () => {
        reject(new Error('aborted'));
      });
    });
  }
}

/** rclnodejs's ClientGoalHandle: accepted or not; its result resolves when the test finishes the goal. */
class FakeGoalHandle {
  /** GoalStatus: 2 executing, 4 succeeded, 5 canceled, 6 aborted. */
  status = 2;
  cancels = 0;
  private resolveResult: ((result: unknown) => void) | undefined;
  constructor(readonly accepted: boolean) {}
  isAccepted(): boolean {
    return this.accepted;
  }
  isSucceeded(): boolean {
    return this.status === 4;
  }
  isCanceled(): boolean {
    return this.status === 5;
  }
  isAborted(): boolean {
    return this.status === 6;
  }
  getResult(): Promise<unknown> {
    return new Promise((resolve) => {
      this.resolveResult = resolve;
    });
  }
  cancelGoal(): Promise<unknown> {
    this.cancels += 1;
    return Promise.resolve({ return_code: 0 });
  }
  /** The server ends the goal: rclnodejs sets the status from the result response, then resolves. */
  finish(status: number, result: unknown): void {
    assert.ok(this.resolveResult, 'nobody asked for the result');
    this.status = status;
    this.resolveResult(result);
  }
}

interface SentGoal {
  readonly goal: { utterance_id: string; streamed: boolean; audio: Uint8Array };
  readonly feedback: (feedback: unknown) => void;
  /** The server's answer to the goal request. */
  respond(accepted: boolean): FakeGoalHandle;
}

/** rclnodejs's ActionClient: records goals; the test plays the server. */
class FakeActionClient {
  available = false;
  readonly goals: SentGoal[] = [];
  constructor(
    node: FakeNode,
    readonly type: string,
    readonly name: string,
    readonly options?: unknown,
  ) {
    node.actionClients.push(this);
  }
  isActionServerAvailable(): boolean {
    return this.available;
  }
  sendGoal(
    goal: { utterance_id: string; streamed: boolean; audio: Uint8Array },
    feedback: (feedback: unknown) => void,
  ): Promise<FakeGoalHandle> {
    return new Promise((resolve) => {
      this.goals.push({
        goal,
        feedback,
        respond: (accepted) => {
          const handle = new FakeGoalHandle(accepted);
          resolve(handle);
          return handle;
        },
      });
    });
  }
}

class FakeNode {
  readonly clients: FakeClient[] = [];
  readonly actionClients: FakeActionClient[] = [];
  readonly subscriptions: { type: string; topic: string; options: { qos: FakeQoS }; callback: Callback }[] =
    [];
  readonly services: { type: string; name: string; options: unknown; callback: Callback }[] = [];
  readonly publishers: {
    type: string;
    topic: string;
    options: { qos: FakeQoS };
    published: unknown[];
    /** Thrown by publish, as rclnodejs throws for a message it cannot serialise or a destroyed publisher. */
    failure?: Error | undefined;
  }[] = [];
  spinTimeout: number | undefined;
  spinning = false;
  /**
   * rclnodejs's executor thread waits in rcl_wait holding the node's handle lock, so syncHandles (every
   * entity created or destroyed) and stop() would block the main thread until it wakes: with no
   * timeout, only a triggered guard condition wakes it. A sync consumes the wake.
   */
  executorWoken = false;
  syncs = 0;
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
  createSubscription(type: string, topic: string, options: { qos: FakeQoS }, callback: Callback): object {
    const entity = { type, topic, options, callback };
    this.subscriptions.push(entity);
    if (type === PLAY_AUDIO_TYPE) this.playAudioSubscriptionsCreated += 1;
    this.syncHandles();
    return entity;
  }
  destroySubscription(entity: object): void {
    const index = this.subscriptions.findIndex((subscription) => subscription === entity);
    assert.ok(index >= 0, 'destroying a subscription that does not exist');
    this.subscriptions.splice(index, 1);
    this.syncHandles();
  }
  createGuardCondition(callback: () => unknown): { trigger(): void } {
    assert.equal(typeof callback, 'function');
    this.syncHandles();
    return {
      trigger: () => {
        this.executorWoken = true;
      },
    };
  }
  syncHandles(): void {
    if (this.spinning && this.spinTimeout !== undefined && this.spinTimeout < 0) {
      assert.ok(
        this.executorWoken,
        'syncHandles while the executor sleeps in rcl_wait: the main thread blocks',
      );
      this.executorWoken = false;
    }
    this.syncs += 1;
  }
  playAudioSubscriptionsCreated = 0;
  /** The /play_audio subscriptions that exist now (the port also keeps /utterance/transcript's for good). */
  get playAudioSubscriptions() {
    return this.subscriptions.filter((subscription) => subscription.type === PLAY_AUDIO_TYPE);
  }
  subscriptionOf(type: string) {
    const found = this.subscriptions.find((subscription) => subscription.type === type);
    assert.ok(found, `no subscription of ${type}`);
    return found;
  }
  publisherOf(type: string) {
    const found = this.publishers.find((publisher) => publisher.type === type);
    assert.ok(found, `no publisher of ${type}`);
    return found;
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
    const publisher: FakeNode['publishers'][number] = { type, topic, options, published: [] };
    this.publishers.push(publisher);
    return {
      publish: (message) => {
        if (publisher.failure !== undefined) throw publisher.failure;
        publisher.published.push(message);
      },
    };
  }
  /** rcl_node_resolve_name: the remapping rules of rcl_init applied (how rcl_action names an action). */
  resolveTopicName(name: string): string {
    return this.context.remaps?.[name] ?? name;
  }
  spin(timeout: number): void {
    this.spinTimeout = timeout;
    this.spinning = true;
  }
  destroy(): void {
    if (this.spinning && this.spinTimeout !== undefined && this.spinTimeout < 0) {
      assert.ok(this.executorWoken, 'stop() joins an executor that sleeps in rcl_wait: it never returns');
    }
    this.spinning = false;
    this.destroyed = true;
  }
}

// As rclnodejs's native class (N-API instance methods): the method is read-only, an assignment throws.
Object.defineProperty(FakeNode.prototype, 'syncHandles', { writable: false });

/** rclnodejs's NodeOptions: every entity on by default. */
class FakeNodeOptions {
  startParameterServices = true;
  startTypeDescriptionService = true;
  enableRosout = true;
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

const setup = (
  remaps?: Readonly<Record<string, string>>,
  callsInFlight = 10,
  converse: { chatInterface?: 'service' | 'action'; ActionClient?: unknown } = {},
) => {
  const context = new FakeContext(remaps);
  // The stand-in covers only what the port uses; the cast is the price of not loading rclnodejs.
  const rcl = {
    Node: FakeNode,
    NodeOptions: FakeNodeOptions,
    QoS: FakeQoS,
    ActionClient: 'ActionClient' in converse ? converse.ActionClient : FakeActionClient,
  } as unknown as Rclnodejs;
  const { logger, lines: logs } = capturingLogger('info');
  const port = createRclnodejsPort({
    rcl,
    context: context as unknown as Parameters<typeof createRclnodejsPort>[0]['context'],
    logger,
    rmw: 'rmw_zenoh_cpp',
    ...(converse.chatInterface === undefined ? {} : { chatInterface: converse.chatInterface }),
  });
  const node = context.nodes[0];
  assert.ok(node);
  // The port as the bridge uses it: behind the one call wrapper, which bounds the calls in flight and
  // fails those outstanding when the port closes (close() below, as the deferred port does it).
  const closing = new AbortController();
  const calls = createRosCalls({
    port,
    timeoutsMs: callTimeouts(60_000, 60_000),
    callsInFlight,
    closing: closing.signal,
  });
  const close = (): Promise<void> => {
    closing.abort();
    return port.close();
  };
  return { port, calls, close, context, node, logs };
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
    assert.equal(node.playAudioSubscriptions.length, 0, 'no /play_audio subscription while nobody listens');
    const listening = port.playAudio$.subscribe();
    const [subscription] = node.playAudioSubscriptions;
    listening.unsubscribe();
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
    // No timeout: the executor sleeps until the middleware has work (src/ros/binding/spin-asleep.ts).
    assert.equal(node.spinTimeout, -1);
  });

  it('wakes the sleeping executor before every change to its entities and before it is stopped', async () => {
    const { port, node, close } = setup();
    const syncsAtStart = node.syncs;
    // The stand-in fails a sync or a stop that would block on the sleeping executor.
    for (let round = 0; round < 3; round += 1) port.playAudio$.subscribe().unsubscribe();
    assert.equal(node.syncs - syncsAtStart, 6, 'a subscription made and destroyed in each round');
    await close();
    assert.deepEqual([node.destroyed, node.spinning], [true, false]);
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

  it('starts no parameter, type description or rosout entities, and leaves the node-local arguments at their defaults', () => {
    // rclnodejs's Node(name, namespace, context, options, args = [], useGlobalArguments = true):
    // with args and useGlobalArguments at their defaults, rcl applies the ROS arguments given to rcl_init
    // (`--ros-args -r /play_audio:=/kiosk/play_audio`) to this node's topic and service names.
    const { node } = setup();
    const [options, ...rest] = node.extraArguments;
    assert.deepEqual(rest, []);
    assert.ok(options instanceof FakeNodeOptions);
    assert.deepEqual(
      [options.startParameterServices, options.startTypeDescriptionService, options.enableRosout],
      [false, false, false],
    );
  });

  it('feeds /play_audio messages to playAudio$ and survives unreadable ones', async () => {
    const { port, node } = setup();
    const received: PlayAudioMsg[] = [];
    port.playAudio$.subscribe((message) => received.push(message));
    const deliver = node.playAudioSubscriptions[0]?.callback;
    assert.ok(deliver);
    deliver({ emotion: 'happy', text: 'hello', audio: Buffer.from([1, 2]) });
    assert.doesNotThrow(() => deliver({ emotion: 'happy', text: 'broken', audio: undefined }));
    assert.deepEqual(received, [{ emotion: 'happy', text: 'hello', audio: new Uint8Array([1, 2]) }]);
    await port.close();
  });

  it('subscribes to /play_audio only while someone listens: none with no kiosk, one for many, gone after the last', async () => {
    const { port, node } = setup();
    assert.equal(node.playAudioSubscriptions.length, 0);
    const first = port.playAudio$.subscribe();
    const second = port.playAudio$.subscribe();
    assert.equal(node.playAudioSubscriptions.length, 1);
    first.unsubscribe();
    assert.equal(node.playAudioSubscriptions.length, 1, 'one listener left');
    second.unsubscribe();
    assert.equal(node.playAudioSubscriptions.length, 0, 'destroyed after the last listener');
    const again: PlayAudioMsg[] = [];
    const third = port.playAudio$.subscribe((message) => again.push(message));
    assert.deepEqual([node.playAudioSubscriptions.length, node.playAudioSubscriptionsCreated], [1, 2]);
    node.playAudioSubscriptions[0]?.callback({ emotion: 'happy', text: 'again', audio: Buffer.from([3]) });
    assert.deepEqual(again, [{ emotion: 'happy', text: 'again', audio: new Uint8Array([3]) }]);
    await port.close();
    assert.equal(third.closed, true, 'completed by close');
    let completed = false;
    port.playAudio$.subscribe({ complete: () => (completed = true) });
    assert.deepEqual(
      [completed, node.playAudioSubscriptionsCreated],
      [true, 2],
      'nothing subscribed after close',
    );
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

  it('keeps at most 10 calls of one service outstanding behind the call wrapper, each service on its own', async () => {
    const { calls: wrapper, close, node } = setup();
    const tourGet = node.clients[3];
    const tourList = node.clients[2];
    assert.ok(tourGet && tourList);
    tourGet.available = true;
    tourList.available = true;
    const calls = Array.from({ length: 11 }, (_, index) =>
      wrapper.call('tour_get', { tour_name: `t${index}` }, IGNORE),
    );
    const list = wrapper.call('tour_list', {}, IGNORE);
    assert.equal(tourGet.requests.length, 10);
    assert.equal(tourList.requests.length, 1);
    calls[0]?.cancel();
    await Promise.resolve();
    assert.equal(tourGet.requests.length, 11, 'the waiting call goes once a place frees');
    for (const call of calls) call.cancel();
    list.cancel();
    await close();
  });

  it('keeps as many calls of one service outstanding as configured (--ros_calls_in_flight)', async () => {
    const { calls: wrapper, close, node } = setup(undefined, 3);
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const calls = Array.from({ length: 5 }, (_, index) =>
      wrapper.call('tour_get', { tour_name: `t${index}` }, IGNORE),
    );
    assert.deepEqual(
      tourGet.requests,
      ['t0', 't1', 't2'].map((name) => ({ tour_name: name })),
    );
    calls[1]?.cancel();
    assert.deepEqual(tourGet.requests.at(-1), { tour_name: 't3' }, 'the oldest waiting call takes the place');
    assert.equal(tourGet.requests.length, 4);
    for (const call of calls) call.cancel();
    await close();
  });

  it('tells the call wrapper, without waiting, whether a server is there (no server, or no router: no wait)', async () => {
    const { port, node, close } = setup();
    const available = (service: 'tour_get' | 'converse') => port.serverAvailable?.(service);
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    assert.equal(available('tour_get'), false);
    tourGet.available = true;
    assert.equal(available('tour_get'), true);
    assert.equal(available('converse'), false);
    await close();
    assert.equal(available('tour_get'), false, 'closed');
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
    const { port, calls, close, node } = setup({ '/tour_get': '/robot1/tour_get' });
    assert.equal(port.serviceName('tour_get'), '/robot1/tour_get');
    assert.equal(port.serviceName('tour_list'), '/tour_list');
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), {
      name: 'RosServiceUnavailableError',
      message: 'ROS service /robot1/tour_get is not available',
    });
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const waiting = callOnce(calls, 'tour_get', { tour_name: 'x' });
    await close();
    await assert.rejects(waiting, {
      name: 'RosCallFailedError',
      message: 'ROS service /robot1/tour_get failed: the ROS backend closed before the answer arrived',
    });
  });

  it('closes once: completes the streams, shuts the context down; the wrapper fails the waiting calls', async () => {
    const { port, calls, close, node, context } = setup();
    const tourGet = node.clients[3];
    assert.ok(tourGet);
    tourGet.available = true;
    const waiting = callOnce(calls, 'tour_get', { tour_name: 'welcome' });
    const playAudio = lastValueFrom(port.playAudio$.pipe(toArray()));
    const microphone = lastValueFrom(port.microphoneRequests$.pipe(toArray()));

    const closing = close();
    assert.equal(port.close(), closing, 'idempotent: the same promise');
    await closing;

    assert.equal(context.shutdowns, 1);
    assert.equal(node.destroyed, true);
    await assert.rejects(waiting, RosCallFailedError);
    assert.equal(tourGet.signals[0]?.aborted, true, 'the request was abandoned at rclnodejs');
    assert.deepEqual(await playAudio, []);
    assert.deepEqual(await microphone, []);
    assert.equal(port.readiness().ready, false);
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), RosServiceUnavailableError);
  });
});

/** Everything a Converse handler hears, in order. */
const recordTurn = () => {
  const events: (
    | { kind: 'part'; part: ConverseFeedbackMsg }
    | { kind: 'finished'; result: ConverseResultMsg }
    | { kind: 'failed'; error: Error }
  )[] = [];
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return {
    events,
    settled,
    handler: {
      part: (part: ConverseFeedbackMsg) => events.push({ kind: 'part', part }),
      finished: (result: ConverseResultMsg) => {
        events.push({ kind: 'finished', result });
        settle();
      },
      failed: (error: Error) => {
        events.push({ kind: 'failed', error });
        settle();
      },
    },
  };
};

const part = (index: number) => ({
  emotion: 'happy',
  text: `Part ${index}.`,
  audio: new Uint8Array([index, index + 1]),
});
const OK_RESULT = { success: true, outcome: 0, message: 'answered' };
const STATUS = { succeeded: 4, canceled: 5, aborted: 6 } as const;
/** Lets promise callbacks (goal acceptance, result) run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const converseSetup = (
  options: {
    remaps?: Readonly<Record<string, string>>;
    callsInFlight?: number;
    chatInterface?: 'service' | 'action';
  } = {},
) => {
  const made = setup(options.remaps, options.callsInFlight ?? 10, {
    ...(options.chatInterface === undefined ? {} : { chatInterface: options.chatInterface }),
  });
  const client = made.node.actionClients[0];
  assert.ok(client, 'the port made no action client');
  return { ...made, client };
};

describe('rclnodejs port: the Converse action', () => {
  it('creates one action client for tour_guide_interfaces/action/Converse on /converse', () => {
    const { client, port } = converseSetup();
    assert.deepEqual([client.type, client.name], ['tour_guide_interfaces/action/Converse', '/converse']);
    assert.equal(port.serviceName('converse'), '/converse');
    // Found on a real graph: with rclnodejs's default feedback QoS a burst of 40 parts lost some.
    const { qos } = client.options as { qos: Record<string, FakeQoS> };
    assert.deepEqual(Object.keys(qos), ['feedbackSubQosProfile'], 'the other profiles are the defaults');
    const feedback = qos['feedbackSubQosProfile'];
    assert.deepEqual(
      [feedback?.history, feedback?.depth, feedback?.reliability, feedback?.durability],
      [1, 100, 1, 2],
      'keep-last 100, reliable, volatile',
    );
  });

  // Found on a real graph (npm run test:ros): Jazzy's rcl_action applies no remapping rule to an action
  // name, so `-r /converse:=/robot1/converse` left the client on /converse, next to the other bridges.
  it('creates the action client on the remapped name, resolved by the port', () => {
    const { client, port, logs } = converseSetup({ remaps: { '/converse': '/robot1/converse' } });
    assert.equal(client.name, '/robot1/converse');
    assert.equal(port.serviceName('converse'), '/robot1/converse');
    assert.equal(logs.find((line) => line['msg'] === 'ROS node spinning')?.['action'], '/robot1/converse');
  });

  it('names a missing action server in readiness only with --chat_interface action', () => {
    const service = converseSetup();
    for (const each of service.node.clients) each.available = true;
    assert.match(service.port.readiness().detail, /every called service has a server/);

    const action = converseSetup({ chatInterface: 'action', remaps: { '/converse': '/robot1/converse' } });
    for (const each of action.node.clients) each.available = true;
    assert.match(action.port.readiness().detail, /no server yet for \/robot1\/converse$/);
    action.client.available = true;
    assert.match(action.port.readiness().detail, /every called service has a server/);
  });

  it('fails at once as unavailable when no action server is matched, sending nothing', () => {
    const { port, client } = converseSetup({ remaps: { '/converse': '/robot1/converse' } });
    const turn = recordTurn();
    port.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([1]) }, turn.handler);
    assert.equal(turn.events.length, 1, 'failed before converse returned');
    const [event] = turn.events;
    assert.equal(event?.kind, 'failed');
    assert.ok(event.error instanceof RosServiceUnavailableError);
    assert.equal(event.error.message, 'ROS action /robot1/converse is not available');
    assert.equal(client.goals.length, 0);
  });

  it('sends the goal, hands on every part in order, then the result', async () => {
    const { port, client } = converseSetup();
    client.available = true;
    const turn = recordTurn();
    const audio = new Uint8Array([9, 8, 7]);
    port.converse({ utterance_id: 'b1-4-2', streamed: false, audio }, turn.handler);
    const [sent] = client.goals;
    assert.ok(sent);
    assert.deepEqual(sent.goal, { utterance_id: 'b1-4-2', streamed: false, audio });
    const handle = sent.respond(true);
    await flush();
    sent.feedback(part(1));
    // rclnodejs delivers uint8[] as a Buffer or, with plain serialisation, as number[]: both become Uint8Array.
    sent.feedback({ ...part(2), audio: Buffer.from([2, 3]) });
    sent.feedback({ ...part(3), audio: [3, 4] });
    assert.deepEqual(
      turn.events.map((event) => (event.kind === 'part' ? event.part : event.kind)),
      [part(1), part(2), part(3)],
      'each part the moment it arrives',
    );
    handle.finish(STATUS.succeeded, OK_RESULT);
    await turn.settled;
    assert.deepEqual(turn.events.at(-1), { kind: 'finished', result: OK_RESULT });
    assert.equal(turn.events.length, 4);
    assert.equal(handle.cancels, 0);
  });

  // Issue #39: a streamed utterance's goal names it, so the robot finds its parts on /utterance/audio.
  it('sends a streamed goal with its utterance_id, streamed true and no audio', () => {
    const { port, client } = converseSetup();
    client.available = true;
    port.converse({ utterance_id: 'b1-4-3', streamed: true, audio: new Uint8Array() }, recordTurn().handler);
    const [sent] = client.goals;
    assert.ok(sent);
    assert.deepEqual(sent.goal, { utterance_id: 'b1-4-3', streamed: true, audio: new Uint8Array() });
  });

  // rclnodejs takes one feedback message per executor wake and the result is a service answer: parts
  // published right before the result can be taken after it.
  it('hands on parts that arrive just after the result before finishing, and nothing after finishing', async () => {
    const { port, client } = converseSetup();
    client.available = true;
    const turn = recordTurn();
    port.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([1]) }, turn.handler);
    const sent = client.goals[0];
    assert.ok(sent);
    const handle = sent.respond(true);
    await flush();
    sent.feedback(part(1));
    handle.finish(STATUS.succeeded, OK_RESULT);
    await flush();
    sent.feedback(part(2));
    await turn.settled;
    sent.feedback(part(3));
    assert.deepEqual(
      turn.events.map((event) => event.kind),
      ['part', 'part', 'finished'],
    );
  });

  for (const [what, status, expected] of [
    ['rejected', undefined, /^ROS action \/converse failed: goal rejected by the action server$/],
    ['aborted', STATUS.aborted, /goal aborted: gave up/],
    ['canceled by the server', STATUS.canceled, /goal canceled by the action server: gave up/],
  ] as const) {
    it(`fails with RosCallFailedError when the goal is ${what}`, async () => {
      const { port, client } = converseSetup();
      client.available = true;
      const turn = recordTurn();
      port.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([1]) }, turn.handler);
      const sent = client.goals[0];
      assert.ok(sent);
      const handle = sent.respond(status !== undefined);
      if (status !== undefined) {
        await flush();
        sent.feedback(part(1));
        handle.finish(status, { success: false, outcome: 4, message: 'gave up\nsecond line' });
      }
      await turn.settled;
      assert.deepEqual(
        turn.events.map((event) => event.kind),
        status === undefined ? ['failed'] : ['part', 'failed'],
      );
      const event = turn.events.at(-1);
      assert.ok(event?.kind === 'failed' && event.error instanceof RosCallFailedError);
      assert.match(event.error.message, expected);
    });
  }

  // rclnodejs 2.2.0 keeps an accepted goal's feedback callback for good, and a result request for as
  // long as no answer comes (lib/action/client.js): what those reach must not include the turn's handler
  // or utterance once the turn is over.
  for (const ending of ['finished', 'cancelled, the server never answering'] as const) {
    it(`leaves nothing of a turn ${ending} reachable from what rclnodejs keeps`, async () => {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const { port, client } = converseSetup();
      client.available = true;
      const handles: FakeGoalHandle[] = [];
      const released = await (async () => {
        const turn = recordTurn();
        const audio = new Uint8Array(1_000_000);
        const ticket = port.converse({ utterance_id: '', streamed: false, audio }, turn.handler);
        const handle = client.goals[0]?.respond(true);
        assert.ok(handle);
        handles.push(handle);
        await flush();
        if (ending === 'finished') {
          handle.finish(STATUS.succeeded, OK_RESULT);
          await turn.settled;
        } else {
          ticket.cancel();
          assert.equal(handle.cancels, 1);
        }
        return { handler: new WeakRef(turn.handler), audio: new WeakRef(audio) };
      })();
      // Kept, as rclnodejs keeps them: the feedback callbacks and the goal handles (with their pending
      // result). The fake's record of the goal itself (its audio) is dropped.
      const kept = client.goals.map((sent) => sent.feedback);
      client.goals.length = 0;
      for (let round = 0; round < 10 && released.handler.deref() !== undefined; round += 1) {
        await flush();
        gc();
      }
      assert.equal(released.handler.deref(), undefined, 'the handler is still reachable');
      assert.equal(released.audio.deref(), undefined, 'the utterance is still reachable');
      assert.equal(kept.length + handles.length, 2);
    });
  }

  it('cancel cancels the goal on the ROS side once and drops every later part and the result', async () => {
    const { calls, client } = converseSetup({ callsInFlight: 1 });
    client.available = true;
    const turn = recordTurn();
    const ticket = calls.converse(
      { utterance_id: '', streamed: false, audio: new Uint8Array([1]) },
      turn.handler,
    );
    const sent = client.goals[0];
    assert.ok(sent);
    const handle = sent.respond(true);
    await flush();
    sent.feedback(part(1));
    ticket.cancel();
    ticket.cancel();
    assert.equal(handle.cancels, 1);
    sent.feedback(part(2));
    handle.finish(STATUS.canceled, { success: false, outcome: 4, message: 'cancelled' });
    await flush();
    assert.deepEqual(
      turn.events.map((event) => event.kind),
      ['part'],
    );
    // The in-flight place was given back: the next goal is sent at once.
    calls.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([2]) }, recordTurn().handler);
    assert.equal(client.goals.length, 2);
  });

  it('cancel before the goal is accepted cancels it as soon as it is, and reports nothing', async () => {
    const { port, client } = converseSetup();
    client.available = true;
    const turn = recordTurn();
    const ticket = port.converse(
      { utterance_id: '', streamed: false, audio: new Uint8Array([1]) },
      turn.handler,
    );
    ticket.cancel();
    const sent = client.goals[0];
    assert.ok(sent);
    const handle = sent.respond(true);
    await flush();
    assert.equal(handle.cancels, 1);
    sent.feedback(part(1));
    assert.deepEqual(turn.events, []);
  });

  it('keeps at most --ros_calls_in_flight goals outstanding behind the wrapper; the next goes when one ends', async () => {
    const { calls, client } = converseSetup({ callsInFlight: 2 });
    client.available = true;
    const turns = [recordTurn(), recordTurn(), recordTurn()];
    for (const [index, turn] of turns.entries()) {
      calls.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([index]) }, turn.handler);
    }
    assert.deepEqual(
      client.goals.map((sent) => [...sent.goal.audio]),
      [[0], [1]],
    );
    const handle = client.goals[0]?.respond(true);
    await flush();
    handle?.finish(STATUS.succeeded, OK_RESULT);
    await turns[0]?.settled;
    assert.deepEqual(
      client.goals.map((sent) => [...sent.goal.audio]),
      [[0], [1], [2]],
    );
  });

  it('close fails outstanding goals and cancels them on the graph; later goals are unavailable', async () => {
    const { port, calls, close, client } = converseSetup();
    client.available = true;
    const running = recordTurn();
    calls.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([1]) }, running.handler);
    const handle = client.goals[0]?.respond(true);
    await flush();
    const waiting = recordTurn();
    calls.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([2]) }, waiting.handler);
    await close();
    assert.equal(handle?.cancels, 1);
    for (const turn of [running, waiting]) {
      await turn.settled;
      const [event] = turn.events;
      assert.equal(event?.kind, 'failed');
      assert.ok(event.error instanceof RosCallFailedError);
      assert.match(event.error.message, /the ROS backend closed before the result arrived/);
    }
    const after = recordTurn();
    port.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([3]) }, after.handler);
    assert.ok(
      after.events[0]?.kind === 'failed' && after.events[0].error instanceof RosServiceUnavailableError,
    );
  });

  it('without the action type: fails the start with --chat_interface action, fails converse otherwise', () => {
    // rclnodejs's ActionClient constructor throws when the type is not among the generated interfaces.
    const MissingType = function MissingType() {
      throw Object.assign(new Error('tour_guide_interfaces/action/Converse not found'), {
        code: 'MESSAGE_NOT_FOUND',
      });
    };
    assert.throws(() => setup(undefined, 10, { chatInterface: 'action', ActionClient: MissingType }), {
      message: /Converse not found/,
    });
    const { port, logs } = setup(undefined, 10, { ActionClient: MissingType });
    const turn = recordTurn();
    port.converse({ utterance_id: '', streamed: false, audio: new Uint8Array([1]) }, turn.handler);
    const [event] = turn.events;
    assert.ok(event?.kind === 'failed' && event.error instanceof RosCallFailedError);
    assert.match(event.error.message, /no action client: tour_guide_interfaces\/action\/Converse not found/);
    assert.ok(logs.some((line) => line['level'] === 40 && line['msg'].includes('Converse')));
  });
});

/** A QoS profile as [history, depth, reliability, durability] (FakeQoS: keep-last 1, reliable 1, volatile 2). */
const profileOf = (qos: FakeQoS) => [qos.history, qos.depth, qos.reliability, qos.durability];

describe('rclnodejs port: the streamed conversation (issue #39)', () => {
  it('creates the /utterance/audio and /conversation/heard publishers and the /utterance/transcript subscription at start, each reliable, keep-last its depth, volatile', () => {
    const { node } = setup();
    const audio = node.publisherOf(ROS_UTTERANCE_AUDIO_TOPIC.type);
    const heard = node.publisherOf(ROS_HEARD_TOPIC.type);
    const transcripts = node.subscriptionOf(ROS_TRANSCRIPT_TOPIC.type);
    assert.deepEqual(
      [audio.topic, heard.topic, transcripts.topic],
      ['/utterance/audio', '/conversation/heard', '/utterance/transcript'],
    );
    assert.deepEqual(profileOf(audio.options.qos), [1, 256, 1, 2]);
    assert.deepEqual(profileOf(heard.options.qos), [1, 16, 1, 2]);
    assert.deepEqual(profileOf(transcripts.options.qos), [1, 16, 1, 2]);
  });

  it('names the three topics after remapping in the log line of the start', () => {
    const { logs } = setup({
      '/utterance/audio': '/robot1/utterance/audio',
      '/utterance/transcript': '/robot1/utterance/transcript',
      '/conversation/heard': '/robot1/conversation/heard',
    });
    const spinning = logs.find((line) => line['msg'] === 'ROS node spinning');
    assert.deepEqual(
      [spinning?.['utteranceAudio'], spinning?.['transcripts'], spinning?.['heard']],
      ['/robot1/utterance/audio', '/robot1/utterance/transcript', '/robot1/conversation/heard'],
    );
  });

  it('arms no timer: an idle bridge spends no CPU on the conversation topics', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const { port, close } = setup();
    const listening = port.transcripts$.subscribe();
    assert.equal(timers(), before);
    listening.unsubscribe();
    await close();
  });

  it('publishes the events of an utterance in call order, every field, the audio as an array that owns its buffer', () => {
    const { port, node } = setup();
    const published = node.publisherOf(ROS_UTTERANCE_AUDIO_TOPIC.type).published;
    // A part as the session may hold it: a view into a larger frame (header first).
    const frame = new Uint8Array([0, 0, 0, 1, 0, 0, 0, 0, 10, 20, 30, 40]);
    const part = frame.subarray(8);
    port.publishUtteranceAudio({
      utterance_id: 'b1-2-1',
      sequence: 0,
      event: UtteranceEvent.PART,
      audio: part,
    });
    port.publishUtteranceAudio({
      utterance_id: 'b1-2-1',
      sequence: 1,
      event: UtteranceEvent.PART,
      audio: new Uint8Array([50]),
    });
    port.publishUtteranceAudio({
      utterance_id: 'b1-2-1',
      sequence: 2,
      event: UtteranceEvent.END,
      audio: new Uint8Array(),
    });
    assert.deepEqual(published, [
      { utterance_id: 'b1-2-1', sequence: 0, event: 0, audio: new Uint8Array([10, 20, 30, 40]) },
      { utterance_id: 'b1-2-1', sequence: 1, event: 0, audio: new Uint8Array([50]) },
      { utterance_id: 'b1-2-1', sequence: 2, event: 1, audio: new Uint8Array() },
    ]);
    // rclnodejs serialises a typed array from its buffer's offset 0: a view would send the header.
    const first = published[0] as { audio: Uint8Array };
    assert.deepEqual([first.audio.byteOffset, first.audio.buffer.byteLength], [0, 4]);
  });

  it('publishes heard reports with every field', () => {
    const { port, node } = setup();
    port.publishHeard({ utterance_id: 'b1-2-1', played_ms: 1234, heard_text: 'Hello there' });
    assert.deepEqual(node.publisherOf(ROS_HEARD_TOPIC.type).published, [
      { utterance_id: 'b1-2-1', played_ms: 1234, heard_text: 'Hello there' },
    ]);
  });

  it('logs a publish that fails instead of throwing it at the session, and publishes nothing after close', async () => {
    const { port, node, logs, close } = setup();
    const audio = node.publisherOf(ROS_UTTERANCE_AUDIO_TOPIC.type);
    const heard = node.publisherOf(ROS_HEARD_TOPIC.type);
    audio.failure = new Error('cannot serialise');
    heard.failure = new Error('cannot serialise');
    const event = {
      utterance_id: 'b1-3-1',
      sequence: 4,
      event: UtteranceEvent.ABANDONED,
      audio: new Uint8Array(),
    };
    assert.doesNotThrow(() => {
      port.publishUtteranceAudio(event);
      port.publishHeard({ utterance_id: 'b1-3-1', played_ms: 1, heard_text: '' });
    });
    const errors = logs.filter((line) => line['level'] === 50);
    assert.deepEqual(
      errors.map((line) => [line['msg'], line['utteranceId']]),
      [
        ['failed to publish on /utterance/audio', 'b1-3-1'],
        ['failed to publish on /conversation/heard', 'b1-3-1'],
      ],
    );
    assert.equal(errors[0]?.['sequence'], 4);
    audio.failure = undefined;
    heard.failure = undefined;
    await close();
    assert.doesNotThrow(() => {
      port.publishUtteranceAudio(event);
      port.publishHeard({ utterance_id: 'b1-3-1', played_ms: 1, heard_text: '' });
    });
    assert.deepEqual([audio.published.length, heard.published.length], [0, 0]);
  });

  it('hands every transcript taken to every listener of transcripts$ (hot), and completes it on close', async () => {
    const { port, node, close } = setup();
    const deliver = node.subscriptionOf(ROS_TRANSCRIPT_TOPIC.type).callback;
    const first: TranscriptMsg[] = [];
    const second: TranscriptMsg[] = [];
    port.transcripts$.subscribe((message) => first.push(message));
    deliver({ utterance_id: 'b1-1-1', text: '[0.2 s of speech]', final: false });
    port.transcripts$.subscribe((message) => second.push(message));
    deliver({ utterance_id: 'b1-1-1', text: '[0.4 s of speech]', final: true });
    assert.deepEqual(first, [
      { utterance_id: 'b1-1-1', text: '[0.2 s of speech]', final: false },
      { utterance_id: 'b1-1-1', text: '[0.4 s of speech]', final: true },
    ]);
    assert.deepEqual(second, [{ utterance_id: 'b1-1-1', text: '[0.4 s of speech]', final: true }]);
    const ended = lastValueFrom(port.transcripts$.pipe(toArray()));
    await close();
    assert.deepEqual(await ended, []);
  });

  it('drops a transcript over its limits or unreadable, saying why, and takes the next', () => {
    const { port, node, logs } = setup();
    const deliver = node.subscriptionOf(ROS_TRANSCRIPT_TOPIC.type).callback;
    const taken: TranscriptMsg[] = [];
    port.transcripts$.subscribe((message) => taken.push(message));
    const longest = 'x'.repeat(TRANSCRIPT_LIMITS.textChars);
    deliver({ utterance_id: 'b1-1-1', text: `${longest}y`, final: false });
    deliver({ utterance_id: 'u'.repeat(TRANSCRIPT_LIMITS.utteranceIdChars + 1), text: 'hi', final: false });
    assert.doesNotThrow(() => deliver(undefined));
    deliver({ utterance_id: 'b1-1-1', text: longest, final: true });
    assert.deepEqual(taken, [{ utterance_id: 'b1-1-1', text: longest, final: true }]);
    const warnings = logs.filter((line) => line['level'] === 40).map((line) => line['msg']);
    assert.deepEqual(warnings, [
      `dropped a transcript: its text of ${TRANSCRIPT_LIMITS.textChars + 1} characters is over the ${TRANSCRIPT_LIMITS.textChars} limit`,
      `dropped a transcript: its utterance_id of ${TRANSCRIPT_LIMITS.utteranceIdChars + 1} characters is over the ${TRANSCRIPT_LIMITS.utteranceIdChars} limit`,
      'dropped a transcript that could not be read',
    ]);
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
        }),
        RclnodejsUnavailableError,
      );
    },
  );
});
