import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kioskView, refusal, secondsLeft, type KioskState } from '../../web/src/kiosk-view.js';
import { clampThreshold, DEFAULT_VAD, THRESHOLD_RANGE } from '../../web/src/vad.js';

const ready: KioskState = {
  connection: 'online',
  lostSession: false,
  retryAt: undefined,
  microphoneAllowed: true,
  device: 'open',
  tokenGiven: true,
  handsFree: false,
  recording: 'none',
  secondsLeft: undefined,
  heldPastLimit: false,
  thinking: false,
  speaking: false,
  voiceInterrupts: false,
  untilPause: undefined,
  touchOnly: false,
};

describe('kioskView', () => {
  it('shows the thinking face and says so while the robot thinks, but not while offline', () => {
    assert.equal(kioskView(ready, 0).faceStatus, '');
    assert.equal(kioskView(ready, 0).faceOverride, undefined);
    const thinking = kioskView({ ...ready, thinking: true }, 0);
    assert.equal(thinking.faceStatus, 'Thinking…');
    assert.equal(thinking.faceOverride, 'thinking');
    const lost = kioskView({ ...ready, thinking: true, connection: 'offline', lostSession: true }, 0);
    assert.equal(lost.faceStatus, '');
    assert.equal(lost.faceOverride, undefined);
  });

  it('offers push-to-talk when online with the microphone open', () => {
    const view = kioskView(ready, 0);
    assert.equal(view.connection, 'online');
    assert.equal(view.connectionText, 'Connected');
    assert.equal(view.retryText, '');
    assert.equal(view.talkUsable, true);
    assert.equal(view.talkLook, 'ready');
    assert.equal(view.talkLabel, 'Hold to talk');
    assert.equal(view.hint, 'Hold the button — or the Space bar — while you speak, then let go.');
    // On a touch screen (a phone, a kiosk tablet) there is no Space bar to press.
    assert.equal(
      kioskView({ ...ready, touchOnly: true }, 0).hint,
      'Hold the button while you speak, then let go.',
    );
    assert.equal(view.microphoneText, 'Microphone on');
    const listening = kioskView({ ...ready, recording: 'push' }, 0);
    assert.equal(listening.talkLook, 'listening');
    assert.equal(listening.microphoneText, 'Listening…');
  });

  it('counts down the last seconds before the length limit, and says it was sent while still held', () => {
    assert.equal(
      kioskView({ ...ready, recording: 'push', secondsLeft: 7 }, 0).talkLabel,
      'Listening…\n7 s left',
    );
    assert.equal(
      kioskView({ ...ready, handsFree: true, recording: 'hands-free', secondsLeft: 3 }, 0).talkLabel,
      'Listening…\n3 s left',
    );
    const held = kioskView({ ...ready, heldPastLimit: true, speaking: true }, 0);
    assert.equal(held.talkLabel, 'Sent —\nlet go');
    assert.equal(held.talkLook, 'sent');
  });

  it('push-to-talk while the robot speaks: the button and the hint say a press interrupts it', () => {
    const view = kioskView({ ...ready, speaking: true }, 0);
    assert.equal(view.talkLook, 'speaking');
    assert.equal(view.talkLabel, 'Speaking…\nhold to interrupt');
    assert.equal(view.hint, 'The robot is speaking: hold the button to interrupt it and ask something else.');
    assert.equal(view.talkUsable, true);
    assert.equal(kioskView({ ...ready, speaking: true, recording: 'push' }, 0).talkLook, 'listening');
  });

  it('says offline everywhere, with no microphone, and counts down to the next attempt', () => {
    const offline: KioskState = {
      ...ready,
      connection: 'offline',
      lostSession: true,
      retryAt: 10_000,
      microphoneAllowed: undefined,
    };
    assert.equal(kioskView(offline, 3_000).retryText, ' — trying again in 7 s');
    assert.equal(kioskView(offline, 3_001).retryText, ' — trying again in 7 s');
    assert.equal(kioskView(offline, 4_000).retryText, ' — trying again in 6 s');
    assert.equal(kioskView(offline, 9_999).retryText, ' — trying again in 1 s');
    // Late timers never show 0 or a negative number.
    assert.equal(kioskView(offline, 12_000).retryText, ' — trying again in 1 s');
    const view = kioskView(offline, 0);
    // The announced status does not change every second.
    assert.equal(view.connectionText, 'Offline');
    assert.equal(view.connection, 'offline');
    assert.equal(view.talkLook, 'offline');
    assert.equal(view.talkLabel, 'Offline');
    assert.equal(view.talkUsable, false);
    assert.equal(view.microphoneKey, 'offline');
    assert.equal(view.microphoneText, 'Microphone off while offline');
    assert.match(view.idleText, /offline/);
    assert.match(view.hint, /offline/);
  });

  it('hands-free while the robot speaks: says it is speaking and not listening, and a press interrupts it', () => {
    const listening = kioskView({ ...ready, handsFree: true }, 0);
    assert.equal(listening.talkUsable, false, 'hands-free listens by itself');
    const speaking = kioskView({ ...ready, handsFree: true, speaking: true }, 0);
    assert.equal(speaking.talkLabel, 'Speaking…\npress to interrupt');
    assert.equal(speaking.talkLook, 'hands-free-speaking');
    assert.equal(speaking.talkUsable, true);
    assert.equal(speaking.microphoneText, 'Not listening while the robot speaks');
    assert.match(speaking.hint, /press the button to interrupt/);
    assert.doesNotMatch(`${speaking.microphoneText} ${speaking.hint}`, /just speak/);
  });

  it('hands-free while the robot speaks, where voice may interrupt it: says to talk over it or press', () => {
    const speaking = kioskView({ ...ready, handsFree: true, speaking: true, voiceInterrupts: true }, 0);
    assert.equal(speaking.microphoneText, 'Robot speaking — talk to interrupt');
    assert.equal(speaking.hint, 'The robot is speaking: talk over it, or press the button, to interrupt it.');
    assert.equal(speaking.talkUsable, true);
    // Push-to-talk is unchanged by the setting: a press there always talks over the robot.
    const push = kioskView({ ...ready, speaking: true, voiceInterrupts: true }, 0);
    assert.equal(push.microphoneText, 'Microphone on');
  });

  it('hands-free past the length limit, the visitor still speaking: says their voice interrupts after a pause', () => {
    const waiting = kioskView(
      { ...ready, handsFree: true, speaking: true, voiceInterrupts: true, untilPause: { quietMs: 0 } },
      0,
    );
    assert.equal(waiting.microphoneText, 'Robot speaking — pause, then talk to interrupt');
    assert.match(waiting.hint, /pause a moment before you talk over it/);
  });

  it('says access refused, not offline, when the service refused this kiosk, with no countdown', () => {
    const refused: KioskState = {
      ...ready,
      connection: 'refused',
      lostSession: true,
      retryAt: 60_000,
      microphoneAllowed: undefined,
    };
    const view = kioskView(refused, 0);
    assert.equal(view.connection, 'refused');
    assert.equal(view.connectionText, 'Access refused: check this kiosk’s token');
    assert.equal(view.retryText, '');
    assert.equal(view.talkLabel, 'Access refused');
    assert.equal(view.talkUsable, false);
    assert.match(view.hint, /token/);
    assert.doesNotMatch(`${view.connectionText} ${view.hint} ${view.idleText}`, /offline/i);
    assert.equal(view.badgeText, 'No access');
  });

  it('says a kiosk opened without a token is not set up, not refused', () => {
    const view = kioskView(
      { ...ready, connection: 'refused', lostSession: true, microphoneAllowed: undefined, tokenGiven: false },
      0,
    );
    assert.equal(view.connection, 'refused');
    assert.equal(view.connectionText, 'Not set up: this display has no access token');
    assert.equal(view.talkLabel, 'Not set up');
    assert.equal(view.badgeText, 'Not set up');
    assert.match(view.hint, /^This display is not set up yet\. Please ask a member of staff\./);
    assert.doesNotMatch(
      `${view.connectionText} ${view.hint} ${view.talkLabel} ${view.badgeText}`,
      /refused/i,
    );
  });

  it('stays offline while a reconnect attempt is under way, and only then', () => {
    const attempt: KioskState = { ...ready, connection: 'connecting', lostSession: true, retryAt: undefined };
    assert.equal(kioskView(attempt, 0).connection, 'offline');
    assert.equal(kioskView(attempt, 0).connectionText, 'Offline');
    assert.equal(kioskView(attempt, 0).retryText, ' — trying again now…');
    const first: KioskState = { ...attempt, lostSession: false, microphoneAllowed: undefined };
    assert.equal(kioskView(first, 0).connection, 'connecting');
    assert.equal(kioskView(first, 0).connectionText, 'Connecting…');
    assert.equal(kioskView(first, 0).retryText, '');
    assert.equal(kioskView(first, 0).talkLook, 'waiting');
  });

  it('hands-free: the hint and the button say "just speak"; a press does not talk', () => {
    const handsFree = { ...ready, handsFree: true };
    const view = kioskView(handsFree, 0);
    assert.equal(view.talkLook, 'hands-free');
    assert.equal(view.talkLabel, 'Just speak');
    assert.equal(view.hint, 'Hands-free is on: just speak. The robot answers when you pause.');
    assert.doesNotMatch(view.hint, /Hold/);
    assert.equal(view.talkUsable, false);
    assert.equal(refusal(handsFree), 'Hands-free mode is on: just speak.');
    assert.equal(kioskView({ ...handsFree, recording: 'hands-free' }, 0).talkLook, 'hands-free-listening');
  });

  it('says why talking is not possible', () => {
    assert.equal(refusal(ready), undefined);
    assert.equal(refusal({ ...ready, connection: 'offline' }), 'The robot is offline.');
    assert.equal(
      refusal({ ...ready, connection: 'connecting', microphoneAllowed: undefined }),
      'Not connected to the robot yet.',
    );
    assert.equal(
      refusal({ ...ready, microphoneAllowed: false }),
      'The robot has switched the microphone off.',
    );
    assert.equal(
      refusal({ ...ready, device: 'failed' }),
      'The microphone is not available. Please ask a member of staff.',
    );
    assert.equal(refusal({ ...ready, device: 'opening' }), 'The microphone is starting.');
    assert.equal(kioskView({ ...ready, microphoneAllowed: false }, 0).talkLook, 'unavailable');
  });

  it('has a hint for every refusal, so a refused press points at it rather than repeating it', () => {
    const refused: KioskState[] = [
      { ...ready, connection: 'offline', lostSession: true },
      { ...ready, connection: 'connecting', microphoneAllowed: undefined },
      { ...ready, connection: 'refused' },
      { ...ready, microphoneAllowed: false },
      { ...ready, device: 'failed' },
      { ...ready, connection: 'refused', tokenGiven: false },
      { ...ready, device: 'opening' },
      { ...ready, handsFree: true },
    ];
    for (const state of refused) {
      const view = kioskView(state, 0);
      assert.notEqual(refusal(state), undefined);
      assert.doesNotMatch(view.hint, /^Hold the button/, JSON.stringify(state));
      // The bubble does not invite the visitor to do what the kiosk cannot.
      assert.doesNotMatch(view.idleText, /Hold the big button/, JSON.stringify(state));
    }
  });

  it('counts whole seconds up', () => {
    assert.deepEqual(
      [0, 1, 999, 1_000, 1_001, 4_500].map((left) => secondsLeft(left, 0)),
      [1, 1, 1, 1, 2, 5],
    );
  });
});

describe('clampThreshold', () => {
  it('keeps whole dB inside the range and refuses what is not a number', () => {
    assert.equal(clampThreshold(-45), -45);
    assert.equal(clampThreshold(-45.4), -45);
    assert.equal(clampThreshold(-500), THRESHOLD_RANGE.minDb);
    assert.equal(clampThreshold(12), THRESHOLD_RANGE.maxDb);
    assert.equal(clampThreshold(Number.NaN), DEFAULT_VAD.thresholdDb);
    assert.equal(clampThreshold(Number.POSITIVE_INFINITY), DEFAULT_VAD.thresholdDb);
  });
});
