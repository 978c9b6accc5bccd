import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createActor } from 'xstate';
import type { SetBoolResponseMsg } from '../../src/ros/port/ros-messages.js';
import {
  isMicrophoneEnabled,
  MICROPHONE_MESSAGES,
  microphoneMachine,
  startMicrophoneActor,
  type MicrophoneActor,
} from '../../src/actors/microphone-machine.js';
import { driveMicrophone, microphoneView } from '../../src/actors/microphone-machine.js';
import { FakeConversationPort, keeperTurn } from '../support/conversation-fakes.js';

/** One request, and its answers once the keeper has run. */
const set = async (actor: MicrophoneActor, enabled: boolean): Promise<SetBoolResponseMsg[]> => {
  const answers: SetBoolResponseMsg[] = [];
  actor.send({
    type: 'microphone.set',
    enabled,
    source: 'test',
    respond: (response) => answers.push(response),
  });
  await keeperTurn();
  return answers;
};

describe('microphone machine', () => {
  it('starts enabled', () => {
    const actor = createActor(microphoneMachine).start();
    assert.equal(isMicrophoneEnabled(actor.getSnapshot()), true);
    actor.stop();
  });

  const transitions: [from: boolean, request: boolean, to: boolean, message: string][] = [
    [true, false, false, MICROPHONE_MESSAGES.disabled],
    [true, true, true, MICROPHONE_MESSAGES.alreadyEnabled],
    [false, true, true, MICROPHONE_MESSAGES.enabled],
    [false, false, false, MICROPHONE_MESSAGES.alreadyDisabled],
  ];
  for (const [from, request, to, message] of transitions) {
    it(`${from ? 'enabled' : 'disabled'} + set(${request}) → ${to ? 'enabled' : 'disabled'}, "${message}"`, async () => {
      const actor = startMicrophoneActor();
      if (!from) await set(actor, false);
      const answers = await set(actor, request);
      assert.deepEqual(answers, [{ success: true, message }]);
      assert.equal(isMicrophoneEnabled(actor.getSnapshot()), to);
      actor.stop();
    });
  }

  it('answers every request of a burst in order and ends in the state of the last one', async () => {
    const port = new FakeConversationPort();
    const actor = startMicrophoneActor();
    const subscription = driveMicrophone(port.microphoneRequests$, actor);
    const burst = [false, false, true, false, true, true, false];
    const answers = burst.map((enabled) => port.requestMicrophone(enabled));
    await keeperTurn();
    assert.deepEqual(
      answers.map((list) => list.map((answer) => answer.message)),
      [
        [MICROPHONE_MESSAGES.disabled],
        [MICROPHONE_MESSAGES.alreadyDisabled],
        [MICROPHONE_MESSAGES.enabled],
        [MICROPHONE_MESSAGES.disabled],
        [MICROPHONE_MESSAGES.enabled],
        [MICROPHONE_MESSAGES.alreadyEnabled],
        [MICROPHONE_MESSAGES.disabled],
      ],
    );
    assert.ok(answers.every((list) => list.every((answer) => answer.success)));
    assert.equal(isMicrophoneEnabled(actor.getSnapshot()), false);
    subscription.unsubscribe();
    actor.stop();
  });

  it('keeps a burst consistent when a request arrives while another is being answered', async () => {
    const actor = startMicrophoneActor();
    const messages: string[] = [];
    // The first caller reacts to its answer with a new request: it is queued, not interleaved.
    actor.send({
      type: 'microphone.set',
      enabled: false,
      source: 'test',
      respond: (response) => {
        messages.push(response.message);
        actor.send({
          type: 'microphone.set',
          enabled: true,
          source: 'test',
          respond: (second) => messages.push(second.message),
        });
        messages.push('first answered');
      },
    });
    await keeperTurn();
    assert.deepEqual(messages, [MICROPHONE_MESSAGES.disabled, 'first answered', MICROPHONE_MESSAGES.enabled]);
    assert.equal(isMicrophoneEnabled(actor.getSnapshot()), true);
    actor.stop();
  });
});

describe('microphoneView', () => {
  it('emits the current state on subscribe and then only changes', async () => {
    const actor = startMicrophoneActor();
    const view = microphoneView(actor);
    const seen: boolean[] = [];
    const subscription = view.enabled$.subscribe((enabled) => seen.push(enabled));
    for (const enabled of [true, false, false, true]) await set(actor, enabled);
    assert.deepEqual(seen, [true, false, true]);
    assert.equal(view.isEnabled(), true);
    subscription.unsubscribe();
    await set(actor, false);
    assert.deepEqual(seen, [true, false, true]);
    actor.stop();
  });
});

describe('driveMicrophone', () => {
  it('reports a caller whose answer throws and keeps serving the next callers', async () => {
    const port = new FakeConversationPort();
    const actor = startMicrophoneActor();
    const reported: unknown[] = [];
    const subscription = driveMicrophone(port.microphoneRequests$, actor, (error) => reported.push(error));
    port.microphoneRequests.next({
      enabled: false,
      source: 'test',
      respond: () => {
        throw new Error('caller gone');
      },
    });
    const answers = port.requestMicrophone(true);
    await keeperTurn();
    assert.equal(reported.length, 1);
    assert.deepEqual(answers, [{ success: true, message: MICROPHONE_MESSAGES.enabled }]);
    assert.equal(actor.getSnapshot().status, 'active');
    subscription.unsubscribe();
    actor.stop();
  });
});
