import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { UtteranceEvent, type ConverseResultMsg } from '../../src/ros/port/ros-messages.js';
import {
  ROS_HEARD_TOPIC,
  ROS_TRANSCRIPT_TOPIC,
  ROS_UTTERANCE_AUDIO_TOPIC,
} from '../../src/ros/port/ros-port.js';
import {
  createConverseServer,
  type ConverseGoalLike,
  type ConverseServerDeps,
} from '../../src/robot/nodes/converse-server.js';
import { serveDemoChat } from '../../src/robot/nodes/demo-chat-node.js';
import {
  createDialogueHistory,
  HISTORY_LIMITS,
  historyJson,
} from '../../src/robot/nodes/dialogue-history.js';
import { HEARD_LIMITS, historyTopicOf, serveHistory } from '../../src/robot/nodes/history-topics.js';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { serveRecognition } from '../../src/robot/nodes/recognition-topics.js';
import { createStreamingRecogniser } from '../../src/robot/nodes/streaming-recogniser.js';
import { FakeQoS } from '../support/fake-qos.js';
import { capturingLogger } from '../support/log-capture.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * The demo chat's side of a streamed conversation (issue #39), on a clock moved by hand and stand-ins
 * for the few rclnodejs calls it makes: a streamed Converse goal answered from its utterance, the wait
 * for its END, the whole path's cost, the dialogue history and the heard report, and the topics with
 * their QoS.
 */

const silent = pino({ level: 'silent' });
/** Lets promise callbacks run (a goal's next step after a timer or a claim). */
const flush = async () => {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};
/** `ms` of 16-bit mono 16 kHz PCM (32 bytes a millisecond). */
const pcm = (ms: number, seed = 0): Uint8Array =>
  Uint8Array.from({ length: ms * 32 }, (_, index) => (index * 3 + seed) & 0xff);
/** PCM as the WAV a kiosk decodes. */
const wavOf = (audio: Uint8Array) => wavOfPcmParts([audio]);
const profileOf = (qos: FakeQoS) => [qos.history, qos.depth, qos.reliability, qos.durability];

class FakeServerGoal implements ConverseGoalLike {
  readonly feedback: { emotion: string; text: string; audio: Uint8Array; atMs: number }[] = [];
  readonly ended: string[] = [];
  isCancelRequested = false;
  constructor(
    readonly request: { utterance_id: string; streamed: boolean; audio: Uint8Array },
    private readonly clock: ManualClock,
  ) {}
  publishFeedback(feedback: { emotion: string; text: string; audio: Uint8Array }): void {
    this.feedback.push({ ...feedback, audio: new Uint8Array(feedback.audio), atMs: this.clock.now() });
  }
  succeed(): void {
    this.ended.push('succeeded');
  }
  canceled(): void {
    this.ended.push('canceled');
  }
  abort(): void {
    this.ended.push('aborted');
  }
}

const streamingSetup = (rt: number, deps: Partial<ConverseServerDeps> = {}, parts = 1) => {
  const clock = new ManualClock();
  const recogniser = createStreamingRecogniser({ rt, clock, logger: silent, publish: () => undefined });
  const history = createDialogueHistory();
  const server = createConverseServer({ parts, partMs: 0, mode: 'answer' }, silent, () => false, {
    recognition: { rt, utteranceWaitMs: 10_000 },
    utterances: recogniser,
    history,
    clock,
    ...deps,
  });
  const event = (id: string, kind: number, sequence: number, audio: Uint8Array = new Uint8Array()) => {
    recogniser.take({ utterance_id: id, sequence, event: kind, audio });
  };
  return { clock, recogniser, history, server, event };
};

describe('the demo chat Converse server: a streamed goal', () => {
  it("waits for its utterance's END and recognition, then answers the echo of its PCM as a WAV", async () => {
    const { clock, recogniser, history, server, event } = streamingSetup(0.3);
    const parts = [pcm(200, 1), pcm(200, 2)];
    event('b-1-1', UtteranceEvent.PART, 0, parts[0]);
    event('b-1-1', UtteranceEvent.PART, 1, parts[1]);
    const goal = new FakeServerGoal(
      { utterance_id: 'b-1-1', streamed: true, audio: new Uint8Array() },
      clock,
    );
    let result: ConverseResultMsg | undefined;
    void server.execute(goal).then((value) => (result = value));
    clock.advance(1_000);
    await flush();
    assert.deepEqual([goal.feedback, result], [[], undefined], 'no answer before END');
    event('b-1-1', UtteranceEvent.END, 2);
    clock.advance(0);
    await flush();
    assert.deepEqual(result, { success: true, outcome: 0, message: 'answered in 1 part(s)' });
    const [answer] = goal.feedback;
    assert.ok(answer);
    assert.deepEqual(answer.audio, wavOf(Uint8Array.from([...parts[0]!, ...parts[1]!])));
    assert.equal(answer.text, 'You spoke for less than a second. This is what I heard.');
    assert.deepEqual(goal.ended, ['succeeded']);
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.deepEqual(history.entries, [
      { role: 'visitor', utterance_id: 'b-1-1', text: '[0.4 s of speech]' },
      { role: 'robot', utterance_id: 'b-1-1', text: answer.text },
    ]);
  });

  it('answers OUTCOME_INVALID, saying why, when no END comes within the wait', async () => {
    const { clock, server, event } = streamingSetup(0);
    event('b-1-2', UtteranceEvent.PART, 0, pcm(100));
    const goal = new FakeServerGoal(
      { utterance_id: 'b-1-2', streamed: true, audio: new Uint8Array() },
      clock,
    );
    const result = server.execute(goal);
    clock.advance(10_000);
    assert.deepEqual(await result, {
      success: false,
      outcome: 3,
      message: 'the recogniser got no END of utterance b-1-2 within 10000 ms of its goal',
    });
    assert.deepEqual([goal.feedback, goal.ended], [[], ['succeeded']]);
  });

  it('answers OUTCOME_INVALID at once for an abandoned utterance, and without a recogniser', async () => {
    const { clock, server, event } = streamingSetup(0);
    event('b-1-3', UtteranceEvent.PART, 0, pcm(100));
    event('b-1-3', UtteranceEvent.ABANDONED, 1);
    const goal = new FakeServerGoal(
      { utterance_id: 'b-1-3', streamed: true, audio: new Uint8Array() },
      clock,
    );
    const result = server.execute(goal);
    await flush();
    clock.advance(0);
    assert.equal((await result).message, 'utterance b-1-3 was abandoned after 1 parts');
    const bare = createConverseServer({ parts: 1, partMs: 0, mode: 'answer' }, silent, () => false);
    const unserved = new FakeServerGoal(
      { utterance_id: 'x', streamed: true, audio: new Uint8Array() },
      clock,
    );
    assert.deepEqual(await bare.execute(unserved), {
      success: false,
      outcome: 3,
      message: 'this Converse server takes no streamed utterances',
    });
  });

  it('a cancel while it waits ends the goal canceled and lets the utterance go', async () => {
    const { clock, recogniser, server, event } = streamingSetup(0);
    event('b-1-4', UtteranceEvent.PART, 0, pcm(100));
    const goal = new FakeServerGoal(
      { utterance_id: 'b-1-4', streamed: true, audio: new Uint8Array() },
      clock,
    );
    const result = server.execute(goal);
    await flush();
    assert.equal(server.cancel(goal), true);
    goal.isCancelRequested = true;
    assert.equal((await result).message, 'canceled after 0 of 1 part(s)');
    assert.deepEqual(goal.ended, ['canceled']);
    assert.deepEqual(recogniser.held, { utterances: 0, bytes: 0 });
    assert.equal(clock.pending, 0, 'the wait for END is stopped');
  });
});

describe('the demo chat: the whole path pays the same recogniser', () => {
  it('a whole Converse goal answers rt × its duration after it arrived, not before', async () => {
    const { clock, history, server } = streamingSetup(0.3);
    const wav = wavOf(pcm(1_000));
    const goal = new FakeServerGoal({ utterance_id: 'b-2-1', streamed: false, audio: wav }, clock);
    const result = server.execute(goal);
    clock.advance(299);
    await flush();
    assert.equal(goal.feedback.length, 0);
    clock.advance(1);
    await result;
    assert.deepEqual(
      goal.feedback.map((each) => [each.atMs, each.text]),
      [[300, 'You spoke for about 1 second. This is what I heard.']],
    );
    assert.deepEqual(history.entries[0], {
      role: 'visitor',
      utterance_id: 'b-2-1',
      text: '[1.0 s of speech]',
    });
  });

  it('/chat answers rt × the utterance duration after the call', () => {
    const clock = new ManualClock();
    const services = new Map<string, (request: unknown, response: { send(answer: unknown): void }) => void>();
    const node = {
      createService: (
        _type: string,
        name: string,
        _options: unknown,
        handler: (r: unknown, s: never) => void,
      ) => services.set(name, handler as never),
      createPublisher: () => ({ publish: () => undefined }),
    };
    let clears = 0;
    serveDemoChat({
      rcl: { QoS: FakeQoS } as unknown as Parameters<typeof serveDemoChat>[0]['rcl'],
      node: node as unknown as Parameters<typeof serveDemoChat>[0]['node'],
      logger: silent,
      isClosed: () => false,
      recognitionRt: 0.5,
      clock,
      clearHistory: () => (clears += 1),
    });
    const answers: unknown[] = [];
    const wav = wavOf(pcm(2_000));
    services.get('/chat')?.({ audio: wav }, { send: (answer) => answers.push(answer) });
    clock.advance(999);
    assert.equal(answers.length, 0);
    clock.advance(1);
    assert.equal(answers.length, 1);
    assert.deepEqual((answers[0] as { audio: Uint8Array }).audio, wav);
    services.get('/clear_history')?.({}, { send: () => undefined });
    assert.equal(clears, 1, '/clear_history clears the dialogue history');
  });
});

describe('the dialogue history', () => {
  it("holds the turns, the answer's parts as said, and what was heard once a heard report came", () => {
    const published: string[] = [];
    const history = createDialogueHistory((entries) => published.push(historyJson(entries)));
    history.visitor('b-1-1', '[1.2 s of speech]');
    history.said('b-1-1', 'First part.');
    history.said('b-1-1', 'Second part.');
    history.visitor('b-1-2', '[0.8 s of speech]');
    history.said('b-1-2', 'Another answer.');
    assert.equal(history.heard({ utterance_id: 'b-1-1', played_ms: 850, heard_text: 'First' }), true);
    assert.deepEqual(history.entries, [
      { role: 'visitor', utterance_id: 'b-1-1', text: '[1.2 s of speech]' },
      { role: 'robot', utterance_id: 'b-1-1', text: 'First', heard: { played_ms: 850 } },
      { role: 'visitor', utterance_id: 'b-1-2', text: '[0.8 s of speech]' },
      { role: 'robot', utterance_id: 'b-1-2', text: 'Another answer.' },
    ]);
    assert.equal(published.length, 6, 'published on every change');
    assert.deepEqual(JSON.parse(published.at(-1) ?? ''), { entries: history.entries });
    history.said('b-1-1', 'Third part.');
    assert.equal(history.entries[1]?.text, 'First', 'what was heard stays');
  });

  it('ignores a heard report of a turn it does not hold, and of an unnamed turn', () => {
    const history = createDialogueHistory();
    history.visitor('', '[1.0 s of speech]');
    history.said('', 'Answer.');
    assert.equal(history.heard({ utterance_id: '', played_ms: 1, heard_text: '' }), false);
    assert.equal(history.heard({ utterance_id: 'b-9-9', played_ms: 1, heard_text: '' }), false);
    assert.equal(history.entries[1]?.text, 'Answer.');
  });

  it(`keeps the last ${HISTORY_LIMITS.entries} entries and cuts a text over ${HISTORY_LIMITS.textChars} characters; clear empties it`, () => {
    const history = createDialogueHistory();
    for (let turn = 1; turn <= 20; turn += 1) {
      history.visitor(`b-1-${turn}`, `turn ${turn}`);
      history.said(`b-1-${turn}`, `answer ${turn}`);
    }
    assert.equal(history.entries.length, HISTORY_LIMITS.entries);
    assert.equal(history.entries[0]?.text, 'turn 13');
    history.visitor('b-1-21', 'y'.repeat(HISTORY_LIMITS.textChars + 10));
    assert.equal(history.entries.at(-1)?.text, `${'y'.repeat(HISTORY_LIMITS.textChars - 1)}…`);
    history.clear();
    assert.deepEqual(history.entries, []);
  });
});

/** What the topic wiring creates on the node: publishers with what they published, subscriptions. */
class FakeNode {
  readonly publishers: { type: string; topic: string; qos: FakeQoS; published: unknown[] }[] = [];
  readonly subscriptions: {
    type: string;
    topic: string;
    qos: FakeQoS;
    callback: (message: unknown) => void;
  }[] = [];
  createPublisher(type: string, topic: string, options: { qos: FakeQoS }) {
    const publisher = { type, topic, qos: options.qos, published: [] as unknown[] };
    this.publishers.push(publisher);
    return { publish: (message: unknown) => publisher.published.push(message) };
  }
  createSubscription(
    type: string,
    topic: string,
    options: { qos: FakeQoS },
    callback: (message: unknown) => void,
  ) {
    this.subscriptions.push({ type, topic, qos: options.qos, callback });
  }
  on(topic: string) {
    const found = this.subscriptions.find((subscription) => subscription.topic === topic);
    assert.ok(found, `no subscription to ${topic}`);
    return found;
  }
  to(topic: string) {
    const found = this.publishers.find((publisher) => publisher.topic === topic);
    assert.ok(found, `no publisher on ${topic}`);
    return found;
  }
}
const fakeRcl = { QoS: FakeQoS } as unknown as Parameters<typeof serveRecognition>[0]['rcl'];
const asNode = (node: FakeNode) => node as unknown as Parameters<typeof serveRecognition>[0]['node'];

describe('the demo chat on the graph: recognition and history topics', () => {
  it('takes /utterance/audio and publishes /utterance/transcript, reliable, keep-last their depths, volatile', () => {
    const node = new FakeNode();
    const { logger, lines } = capturingLogger('warn');
    const clock = new ManualClock();
    serveRecognition({
      rcl: fakeRcl,
      node: asNode(node),
      logger,
      isClosed: () => false,
      rt: 0,
      clock,
    });
    const audio = node.on('/utterance/audio');
    const transcripts = node.to('/utterance/transcript');
    assert.deepEqual(
      [audio.type, transcripts.type],
      [ROS_UTTERANCE_AUDIO_TOPIC.type, ROS_TRANSCRIPT_TOPIC.type],
    );
    assert.deepEqual(profileOf(audio.qos), [1, 256, 1, 2]);
    assert.deepEqual(profileOf(transcripts.qos), [1, 16, 1, 2]);
    // rclnodejs may hand uint8[] as number[].
    audio.callback({ utterance_id: 'b-1-1', sequence: 0, event: 0, audio: Array.from(pcm(100)) });
    audio.callback({ utterance_id: 'b-1-1', sequence: 1, event: 1, audio: [] });
    assert.doesNotThrow(() => {
      audio.callback(undefined);
    });
    clock.advance(0);
    assert.deepEqual(transcripts.published, [
      { utterance_id: 'b-1-1', text: '[0.1 s of speech]', final: false },
      { utterance_id: 'b-1-1', text: '[0.1 s of speech]', final: true },
    ]);
    assert.deepEqual(
      lines.map((line) => line['msg']),
      ['dropped an /utterance/audio event that could not be read'],
    );
  });

  it('publishes the history on <action>/history, transient local, at once and on every change, and takes heard reports', () => {
    assert.equal(historyTopicOf('/robot1/converse'), '/robot1/converse/history');
    const node = new FakeNode();
    const { logger, lines } = capturingLogger('info');
    const history = serveHistory({
      rcl: fakeRcl,
      node: asNode(node),
      logger,
      isClosed: () => false,
      actionName: '/converse',
    });
    const published = node.to('/converse/history');
    assert.equal(published.type, 'std_msgs/msg/String');
    assert.deepEqual(profileOf(published.qos), [1, 1, 1, 1], 'keep-last 1, reliable, transient local');
    assert.deepEqual(published.published, [{ data: '{"entries":[]}' }]);
    const heard = node.on('/conversation/heard');
    assert.equal(heard.type, ROS_HEARD_TOPIC.type);
    assert.deepEqual(profileOf(heard.qos), [1, 16, 1, 2]);

    history.visitor('b-1-1', '[2.0 s of speech]');
    history.said('b-1-1', 'You spoke for about 2 seconds.');
    heard.callback({ utterance_id: 'b-1-1', played_ms: 640, heard_text: 'You spoke' });
    heard.callback({
      utterance_id: 'b-1-1',
      played_ms: 1,
      heard_text: 'z'.repeat(HEARD_LIMITS.heardTextChars + 1),
    });
    heard.callback({ utterance_id: 'b-7-7', played_ms: 1, heard_text: '' });
    const last = published.published.at(-1) as { data: string };
    assert.deepEqual(JSON.parse(last.data), {
      entries: [
        { role: 'visitor', utterance_id: 'b-1-1', text: '[2.0 s of speech]' },
        { role: 'robot', utterance_id: 'b-1-1', text: 'You spoke', heard: { played_ms: 640 } },
      ],
    });
    assert.deepEqual(
      lines.filter((line) => line['level'] >= 30).map((line) => line['msg']),
      [
        'heard report: the answer in the history now holds what was heard',
        `dropped a heard report: its heard_text of ${HEARD_LIMITS.heardTextChars + 1} characters is over the ${HEARD_LIMITS.heardTextChars} limit`,
        'heard report of a turn the history does not hold; ignored',
      ],
    );
  });
});
