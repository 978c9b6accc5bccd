import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pino, type Logger } from 'pino';
import {
  createConverseServer,
  serveConverseAction,
  type ConverseGoalLike,
  type ConverseServerOptions,
} from '../../src/robot/nodes/converse-server.js';
import { serveDemoChat, subscriptionCount } from '../../src/robot/nodes/demo-chat-node.js';
import { greetingMessage, greetingTone } from '../../src/robot/nodes/greeting.js';
import { NODE_HELP, parseNodeCommandLine } from '../../src/robot/nodes/node-options.js';
import { serveTourStore } from '../../src/robot/nodes/tour-store-node.js';
import { ROS_PLAY_AUDIO_TOPIC, ROS_SERVICES } from '../../src/ros/port/ros-port.js';
import { openDurableTourStore } from '../../src/robot/tours/durable-tour-store.js';
import { TOUR_SERVICE_KEYS } from '../../src/robot/tours/tour-rules.js';
import { FakeQoS } from '../support/fake-qos.js';
import { capturingLogger } from '../support/log-capture.js';

/*
 * The reference nodes' wiring against a stand-in for the few rclnodejs calls they make (rclnodejs
 * itself cannot load without ROS 2): which services and topics, with which types and QoS, and what
 * the callbacks answer. Against a real graph they run in `npm run test:ros`.
 */

type Handler = (request: unknown, response: { send(answer: unknown): void }) => unknown;

class FakePublisher {
  subscribers = 0;
  readonly published: unknown[] = [];
  constructor(
    readonly type: string,
    readonly topic: string,
    readonly options: { qos: FakeQoS },
  ) {}
  // A getter, as rclnodejs 2.2.0 implements it (lib/publisher.js), not the method its .d.ts declares.
  get subscriptionCount(): number {
    return this.subscribers;
  }
  publish(message: unknown): void {
    this.published.push(message);
  }
}

class FakeNode {
  readonly services = new Map<string, { type: string; options: unknown; handler: Handler }>();
  readonly publishers: FakePublisher[] = [];
  createService(type: string, name: string, options: unknown, handler: Handler): void {
    this.services.set(name, { type, options, handler });
  }
  createPublisher(type: string, topic: string, options: { qos: FakeQoS }): FakePublisher {
    const publisher = new FakePublisher(type, topic, options);
    this.publishers.push(publisher);
    return publisher;
  }
  /** Calls a service as a client would and waits (bounded) for the answer. */
  async call(name: string, request: unknown): Promise<unknown> {
    const service = this.services.get(name);
    assert.ok(service, `no service ${name}`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`${name} did not answer`));
      }, 5_000);
      const returned = service.handler(request, {
        send: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
      });
      // rclnodejs would send a truthy return value itself: the handlers must return nothing.
      assert.equal(returned, undefined);
    });
  }
}

// The stand-ins cover only what the nodes use; the casts are the price of not loading rclnodejs.
const fakeRcl = { QoS: FakeQoS } as unknown as Parameters<typeof serveTourStore>[0]['rcl'];
const asNode = (node: FakeNode) => node as unknown as Parameters<typeof serveTourStore>[0]['node'];
const asChatNode = (node: FakeNode) => node as unknown as Parameters<typeof serveDemoChat>[0]['node'];
const silent = pino({ level: 'silent' });
/** The demo chat node served on a fake node that is never closed. */
const serveDemoChatOn = (node: FakeNode, logger: Logger = silent) =>
  serveDemoChat({ rcl: fakeRcl, node: asChatNode(node), logger, isClosed: () => false });

describe('the reference tour store node', () => {
  it('serves the five tour services with their types and the services QoS, answering from the durable store', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tour-store-node-'));
    try {
      const file = join(directory, 'tours.json');
      const { store } = await openDurableTourStore({ file });
      const node = new FakeNode();
      serveTourStore({ rcl: fakeRcl, node: asNode(node), store, logger: silent, isClosed: () => false });
      assert.deepEqual(
        [...node.services].map(([name, service]) => [name, service.type, service.options]),
        TOUR_SERVICE_KEYS.map((key) => [
          ROS_SERVICES[key].name,
          ROS_SERVICES[key].type,
          { qos: 'qos_profile_services_default' },
        ]),
      );

      const wireTour = {
        tour_name: 'garden',
        map_name: 'park',
        steps: [{ description: 'Roses', destination: ['rose_bed'], dialogue: [] }],
      };
      assert.deepEqual(await node.call('/tour_create', { tour: wireTour }), {
        success: true,
        outcome: 0,
        message: 'created "garden"',
      });
      assert.match(await readFile(file, 'utf8'), /"garden"/, 'answered after the file holds the change');
      assert.deepEqual(await node.call('/tour_create', { tour: wireTour }), {
        success: false,
        outcome: 2,
        message: 'a tour named "garden" already exists',
      });
      const list = (await node.call('/tour_list', {})) as { tour_names: string[] };
      assert.deepEqual(list.tour_names, ['welcome', 'garden']);
      const got = (await node.call('/tour_get', { tour_name: 'garden' })) as {
        tour: unknown;
        outcome: number;
      };
      assert.equal(got.outcome, 0);
      assert.deepEqual(got.tour, wireTour);
      assert.equal(
        ((await node.call('/tour_delete', { tour_name: 'nope' })) as { outcome: number }).outcome,
        1,
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('does not answer once closed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tour-store-node-'));
    try {
      const { store } = await openDurableTourStore({ file: join(directory, 'tours.json') });
      const node = new FakeNode();
      serveTourStore({ rcl: fakeRcl, node: asNode(node), store, logger: silent, isClosed: () => true });
      const sent: unknown[] = [];
      node.services.get('/tour_list')?.handler({}, { send: (answer) => sent.push(answer) });
      await store.close();
      assert.deepEqual(sent, []);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('the reference demo chat node', () => {
  it('echoes /chat as the simulation does and acknowledges /clear_history', async () => {
    const node = new FakeNode();
    const chat = serveDemoChatOn(node);
    assert.equal(node.services.get('/chat')?.type, 'tour_guide_interfaces/srv/Chat');
    assert.equal(node.services.get('/clear_history')?.type, 'std_srvs/srv/Empty');
    assert.deepEqual(await node.call('/chat', { audio: [1, 2, 3] }), {
      emotion: 'happy',
      text: 'I heard you. This is what you sent me.',
      audio: new Uint8Array([1, 2, 3]),
    });
    assert.deepEqual(await node.call('/clear_history', {}), {});
    assert.equal(chat.historyClears, 1);
  });

  it('publishes the greeting on /play_audio (reliable, keep all, volatile) once a subscriber matches', async () => {
    const node = new FakeNode();
    const chat = serveDemoChatOn(node);
    const [publisher] = node.publishers;
    assert.ok(publisher);
    assert.equal(publisher.type, ROS_PLAY_AUDIO_TOPIC.type);
    assert.equal(publisher.topic, '/play_audio');
    const { qos } = publisher.options;
    assert.deepEqual([qos.history, qos.reliability, qos.durability], [2, 1, 2]);

    const greeted = chat.greet(new AbortController().signal, { pollMs: 10, maxWaitMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(publisher.published, [], 'nobody listens yet: nothing is published into the void');
    publisher.subscribers = 1;
    assert.equal(await greeted, true);
    assert.equal(publisher.published.length, 1);
    const message = publisher.published[0] as unknown as { text: string; audio: Uint8Array };
    assert.equal(message.text, greetingMessage().text);
    assert.deepEqual([...message.audio], [...greetingTone()]);
  });

  it('reads the subscription count as rclnodejs implements it (getter) and as it declares it (method)', () => {
    assert.equal(subscriptionCount({ subscriptionCount: 2 }), 2);
    assert.equal(subscriptionCount({ subscriptionCount: () => 3 }), 3);
    assert.equal(subscriptionCount({}), 0);
  });

  it('gives the greeting up after its bound, and at once when aborted', async () => {
    const node = new FakeNode();
    const chat = serveDemoChatOn(node);
    assert.equal(await chat.greet(new AbortController().signal, { pollMs: 10, maxWaitMs: 50 }), false);
    const controller = new AbortController();
    const greeting = chat.greet(controller.signal, { pollMs: 10_000, maxWaitMs: 60_000 });
    controller.abort();
    assert.equal(await greeting, false);
    assert.deepEqual(node.publishers[0]?.published, []);
  });

  it('survives a publisher and a responder that throw (a node shutting down under it)', async () => {
    const node = new FakeNode();
    const { logger, lines: warnings } = capturingLogger('warn');
    const chat = serveDemoChatOn(node, logger);
    const publisher = node.publishers[0]!;
    publisher.subscribers = 1;
    publisher.publish = () => {
      throw new Error('publisher is destroyed');
    };
    assert.equal(await chat.greet(new AbortController().signal, { pollMs: 10, maxWaitMs: 50 }), false);
    assert.doesNotThrow(() =>
      node.services.get('/clear_history')?.handler(
        {},
        {
          send: () => {
            throw new Error('service is destroyed');
          },
        },
      ),
    );
    assert.equal(chat.historyClears, 1);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]?.msg ?? '', /could not publish the greeting/);
    assert.match(warnings[1]?.msg ?? '', /could not answer a \/clear_history call/);
  });

  it('greets with a valid WAV tone: RIFF/WAVE, PCM mono 16 kHz 16-bit, sizes consistent', () => {
    const wav = Buffer.from(greetingTone());
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.readUInt32LE(4), wav.byteLength - 8);
    assert.equal(wav.toString('ascii', 8, 16), 'WAVEfmt ');
    assert.deepEqual(
      [wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)],
      [1, 1, 16_000, 16],
    );
    assert.equal(wav.toString('ascii', 36, 40), 'data');
    assert.equal(wav.readUInt32LE(40), wav.byteLength - 44);
    assert.equal(wav.readInt16LE(44), 0, 'faded in from silence');
  });
});

describe('the reference nodes command line', () => {
  it('reads the command, its options and the ROS arguments', () => {
    assert.deepEqual(
      parseNodeCommandLine(
        [
          'tour-store',
          '--file',
          '/data/t.json',
          '--max_tours',
          '50',
          '--log_level',
          'debug',
          '--ros-args',
          '-r',
          '__ns:=/r1',
        ],
        {},
      ),
      {
        kind: 'run',
        options: {
          command: 'tour-store',
          logLevel: 'debug',
          file: '/data/t.json',
          maxTours: 50,
          converse: { parts: 1, partMs: 0, mode: 'answer' },
          recognition: { rt: 0, utteranceWaitMs: 10_000 },
          rosArgs: ['--ros-args', '-r', '__ns:=/r1'],
        },
      },
    );
    const fromEnv = parseNodeCommandLine(['tour-store'], {
      TOUR_STORE_FILE: '/var/lib/tour-bridge/tours.json',
    });
    assert.equal(fromEnv.kind === 'run' && fromEnv.options.file, '/var/lib/tour-bridge/tours.json');
    assert.equal(parseNodeCommandLine(['demo-chat'], {}).kind, 'run');
    const converse = parseNodeCommandLine(
      ['demo-chat', '--converse_parts', '50', '--converse_part_ms', '60000', '--converse_mode', 'silent'],
      {},
    );
    assert.deepEqual(converse.kind === 'run' && converse.options.converse, {
      parts: 50,
      partMs: 60_000,
      mode: 'silent',
    });
    const recognition = parseNodeCommandLine(
      ['demo-chat', '--recognition_rt', '0.3', '--utterance_wait_ms', '600000'],
      {},
    );
    assert.deepEqual(recognition.kind === 'run' && recognition.options.recognition, {
      rt: 0.3,
      utteranceWaitMs: 600_000,
    });
    assert.deepEqual(parseNodeCommandLine(['demo-chat', '--help'], {}), { kind: 'help', text: NODE_HELP });
  });

  it('refuses bad input with one line saying what is wrong', () => {
    const errors: [string[], RegExp][] = [
      [[], /first argument must be tour-store or demo-chat/],
      [['talker'], /first argument/],
      [['tour-store'], /needs --file <path> \(or TOUR_STORE_FILE\)/],
      [['demo-chat', '--log_level', 'loud'], /--log_level must be one of/],
      [['tour-store', '--file', ''], /--file must be a path/],
      [
        ['tour-store', '--file', 'x', '--max_tours', '0'],
        /--max_tours must be a whole number from 1 to 100000/,
      ],
      [['demo-chat', '--verbose', 'yes'], /unknown option --verbose/],
      [['demo-chat', '--log_level'], /--log_level needs a value/],
      [['demo-chat', '--converse_parts', '0'], /--converse_parts must be a whole number from 1 to 50/],
      [['demo-chat', '--converse_parts', '51'], /--converse_parts must be/],
      [['demo-chat', '--converse_parts', '2.5'], /--converse_parts must be/],
      [
        ['demo-chat', '--converse_part_ms', '60001'],
        /--converse_part_ms must be a whole number from 0 to 60000/,
      ],
      [['demo-chat', '--converse_part_ms', '-1'], /--converse_part_ms must be/],
      [['demo-chat', '--converse_mode', 'loud'], /--converse_mode must be one of answer, silent/],
      [['tour-store', '--file', 'x', '--converse_parts', '2'], /the --converse_\* options are for demo-chat/],
      [
        ['demo-chat', '--recognition_rt', '10.5'],
        /--recognition_rt must be a number from 0 to 10 with at most 3 decimals/,
      ],
      [['demo-chat', '--recognition_rt', '-1'], /--recognition_rt must be/],
      [['demo-chat', '--recognition_rt', '0.1234'], /--recognition_rt must be/],
      [['demo-chat', '--recognition_rt', '1e1'], /--recognition_rt must be/],
      [
        ['demo-chat', '--utterance_wait_ms', '99'],
        /--utterance_wait_ms must be a whole number from 100 to 600000/,
      ],
      [['demo-chat', '--utterance_wait_ms', '600001'], /--utterance_wait_ms must be/],
      [['tour-store', '--file', 'x', '--recognition_rt', '0.3'], /--recognition_rt is for demo-chat/],
    ];
    for (const [argv, message] of errors) {
      const parsed = parseNodeCommandLine(argv, {});
      if (parsed.kind !== 'error') assert.fail(`accepted: ${argv.join(' ')}`);
      assert.match(parsed.message, message);
    }
  });
});

/** rclnodejs's ServerGoalHandle as the converse server uses it; the test plays rclnodejs and the client. */
class FakeServerGoal implements ConverseGoalLike {
  readonly feedback: { emotion: string; text: string; audio: Uint8Array; atMs: number }[] = [];
  readonly ended: string[] = [];
  isCancelRequested = false;
  private readonly startedAt = performance.now();
  readonly request: { utterance_id: string; streamed: boolean; audio: Uint8Array };
  constructor(request: { audio: Uint8Array; utterance_id?: string; streamed?: boolean }) {
    this.request = { utterance_id: '', streamed: false, ...request };
  }
  publishFeedback(feedback: { emotion: string; text: string; audio: Uint8Array }): void {
    this.feedback.push({
      ...feedback,
      audio: new Uint8Array(feedback.audio),
      atMs: performance.now() - this.startedAt,
    });
  }
  succeed(): void {
    this.ended.push('succeeded');
  }
  canceled(): void {
    assert.ok(this.isCancelRequested, 'canceled() is only valid from CANCELING');
    this.ended.push('canceled');
  }
  abort(): void {
    this.ended.push('aborted');
  }
}

const converseServer = (options: Partial<ConverseServerOptions> = {}, isClosed = () => false) =>
  createConverseServer({ parts: 1, partMs: 0, mode: 'answer', ...options }, silent, isClosed);

describe('the reference demo chat node: the Converse action', () => {
  it('publishes part k after k × partMs, in order, then succeeds with OUTCOME_OK', async () => {
    const server = converseServer({ parts: 3, partMs: 40 });
    const goal = new FakeServerGoal({ audio: new Uint8Array([1, 2, 3, 4, 5, 6]) });
    const result = await server.execute(goal);
    assert.deepEqual(result, { success: true, outcome: 0, message: 'answered in 3 part(s)' });
    assert.deepEqual(goal.ended, ['succeeded']);
    assert.deepEqual(
      goal.feedback.map((each) => [each.text, [...each.audio]]),
      [
        ['I heard you. This is what you sent me.', [1, 2]],
        ['This is part 2 of 3.', [3, 4]],
        ['This is part 3 of 3.', [5, 6]],
      ],
    );
    goal.feedback.forEach((each, index) => {
      // Timers fire no earlier than asked (a 1 ms tolerance for timer rounding); late only by the machine's load.
      assert.ok(each.atMs >= (index + 1) * 40 - 1, `part ${index + 1} at ${each.atMs} ms`);
    });
    assert.deepEqual(server.stats, { goals: 1, cancels: 0 });
  });

  it('on cancel stops publishing and ends the goal canceled', async () => {
    const server = converseServer({ parts: 5, partMs: 30 });
    const goal = new FakeServerGoal({ audio: new Uint8Array(10) });
    const running = server.execute(goal);
    while (goal.feedback.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(server.cancel(goal), true);
    // rclnodejs moves the goal to CANCELING after the cancel callback accepted.
    goal.isCancelRequested = true;
    const result = await running;
    assert.deepEqual(goal.ended, ['canceled']);
    assert.equal(goal.feedback.length, 2);
    assert.deepEqual(result, { success: false, outcome: 4, message: 'canceled after 2 of 5 part(s)' });
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(goal.feedback.length, 2, 'nothing after the cancel');
    assert.equal(server.stats.cancels, 1);
  });

  it('serves tour_guide_interfaces/action/Converse on /converse, remapped by the node, accepting cancels of running goals', async () => {
    const created: {
      type: string;
      name: string;
      cancel: (goal?: unknown) => unknown;
      options: { qos: Record<string, FakeQoS> };
    }[] = [];
    const rcl = {
      QoS: FakeQoS,
      CancelResponse: { REJECT: 1, ACCEPT: 2 },
      ActionServer: function ActionServer(
        _node: unknown,
        type: string,
        name: string,
        _execute: unknown,
        _goal: unknown,
        _accepted: unknown,
        cancel: (goal?: unknown) => unknown,
        options: { qos: Record<string, FakeQoS> },
      ) {
        created.push({ type, name, cancel, options });
      },
    };
    // Jazzy's rcl_action does not remap an action name: the node resolves it (rcl_node_resolve_name).
    const node = { resolveTopicName: (name: string) => (name === '/converse' ? '/robot1/converse' : name) };
    const server = converseServer({ mode: 'silent' });
    const served = serveConverseAction(
      rcl as unknown as Parameters<typeof serveConverseAction>[0],
      node as unknown as Parameters<typeof serveConverseAction>[1],
      server,
    );
    assert.equal(served, '/robot1/converse');
    const [action] = created;
    assert.ok(action);
    assert.deepEqual(
      [action.type, action.name],
      ['tour_guide_interfaces/action/Converse', '/robot1/converse'],
    );
    const feedback = action.options.qos['feedbackSubQosProfile'];
    assert.deepEqual(
      [feedback?.history, feedback?.reliability, feedback?.durability],
      [2, 1, 2],
      'speech QoS for the parts: keep all, reliable, volatile',
    );
    const goal = new FakeServerGoal({ audio: new Uint8Array(2) });
    const running = server.execute(goal);
    assert.equal(action.cancel(goal), 2, 'ACCEPT');
    assert.equal(action.cancel(undefined), 1, 'REJECT without a goal');
    goal.isCancelRequested = true;
    await running;
    assert.deepEqual(goal.ended, ['canceled']);
  });

  it('silent: accepts goals and publishes nothing until cancelled; close wakes what still runs', async () => {
    const server = converseServer({ mode: 'silent' });
    const cancelled = new FakeServerGoal({ audio: new Uint8Array(4) });
    const running = server.execute(cancelled);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual([cancelled.feedback, cancelled.ended], [[], []]);
    server.cancel(cancelled);
    cancelled.isCancelRequested = true;
    assert.equal((await running).message, 'canceled after 0 of 1 part(s)');
    assert.deepEqual(cancelled.ended, ['canceled']);

    let closed = false;
    const closingServer = converseServer({ mode: 'silent' }, () => closed);
    const left = new FakeServerGoal({ audio: new Uint8Array(4) });
    const leftRunning = closingServer.execute(left);
    closed = true;
    closingServer.close();
    assert.equal((await leftRunning).message, 'the node is shutting down');
    assert.deepEqual(left.ended, [], 'a closing node touches no goal handle');
  });
});
