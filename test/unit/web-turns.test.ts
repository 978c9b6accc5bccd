import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { THINKING_MAX_MS, TurnTracker } from '../../web/src/turns.js';

describe('TurnTracker', () => {
  it('numbers utterances 1, 2, … per session, as the server does', () => {
    const turns = new TurnTracker();
    assert.equal(turns.latest, 0);
    assert.deepEqual([turns.utteranceSent(0), turns.utteranceSent(0), turns.utteranceSent(0)], [1, 2, 3]);
    turns.reset();
    assert.equal(turns.utteranceSent(0), 1);
  });

  it('thinks from the utterance until its first answer, and answers until the turn ends', () => {
    const turns = new TurnTracker();
    assert.equal(turns.thinking(0), false);
    const turn = turns.utteranceSent(100);
    assert.equal(turns.thinking(100), true);
    assert.equal(turns.answering, false);
    assert.equal(turns.pair(turn), 'show');
    assert.equal(turns.thinking(200), false);
    assert.equal(turns.answering, true);
    assert.equal(turns.pair(turn), 'show');
    turns.turnEnded(turn);
    assert.equal(turns.answering, false);
    assert.equal(turns.thinking(300), false);
  });

  it('stops thinking on an error or the turn end, even without an answer', () => {
    const turns = new TurnTracker();
    const failed = turns.utteranceSent(0);
    assert.equal(turns.error(failed), 'show');
    assert.equal(turns.thinking(1), false);
    const refused = turns.utteranceSent(2);
    turns.turnEnded(refused);
    assert.equal(turns.thinking(3), false);
  });

  it('keeps thinking while a later utterance waits, whatever an earlier one does', () => {
    const turns = new TurnTracker();
    const first = turns.utteranceSent(0);
    turns.utteranceSent(10);
    turns.pair(first);
    turns.turnEnded(first);
    assert.equal(turns.thinking(20), true);
  });

  it('plays /play_audio pairs always; they end nothing once the server is known to number turns', () => {
    const turns = new TurnTracker();
    turns.turnEnded(turns.utteranceSent(0));
    turns.utteranceSent(1);
    assert.equal(turns.pair(undefined), 'show');
    assert.equal(turns.thinking(2), true);
  });

  it('takes an untagged pair as the answer while the server has never named a turn (a server without turns)', () => {
    const turns = new TurnTracker();
    turns.utteranceSent(0);
    assert.equal(turns.pair(undefined), 'show');
    assert.equal(turns.thinking(1), false);
    // Such a server cannot cancel: talking over it is no barge-in.
    assert.equal(turns.answering, false);
  });

  it('gives up thinking about a turn that never ends', () => {
    const turns = new TurnTracker();
    turns.utteranceSent(1_000);
    assert.equal(turns.thinking(1_000 + THINKING_MAX_MS - 1), true);
    assert.equal(turns.thinking(1_000 + THINKING_MAX_MS), false);
  });

  it('barge-in: drops every later pair and error of the cancelled turns, not of the next one', () => {
    const turns = new TurnTracker();
    const spoken = turns.utteranceSent(0);
    const queued = turns.utteranceSent(0);
    turns.pair(spoken);
    assert.equal(turns.answering, true);
    assert.equal(turns.cancelAll(), true);
    assert.equal(turns.answering, false);
    assert.equal(turns.thinking(1), false);
    assert.equal(turns.pair(spoken), 'ignore');
    assert.equal(turns.pair(queued), 'ignore');
    assert.equal(turns.error(queued), 'ignore');
    turns.turnEnded(spoken);
    turns.turnEnded(queued);
    const next = turns.utteranceSent(2);
    assert.equal(next, 3);
    assert.equal(turns.thinking(2), true);
    assert.equal(turns.pair(next), 'show');
    assert.equal(turns.pair(undefined), 'show');
    assert.equal(turns.error(undefined), 'show');
  });

  it('says whether a cancel finds anything open', () => {
    const turns = new TurnTracker();
    assert.equal(turns.cancelAll(), false);
    const turn = turns.utteranceSent(0);
    turns.turnEnded(turn);
    assert.equal(turns.cancelAll(), false);
    turns.utteranceSent(0);
    assert.equal(turns.cancelAll(), true);
  });

  it('counts a streamed utterance at its start, and thinks only once it is closed', () => {
    const turns = new TurnTracker();
    const whole = turns.utteranceSent(0);
    turns.turnEnded(whole);
    const streamed = turns.utteranceOpened();
    assert.equal(streamed, 2);
    assert.equal(turns.latest, 2);
    // Still spoken: not a question the robot works on, and not one a dropped connection loses.
    assert.equal(turns.thinking(10), false);
    assert.equal(turns.unanswered, false);
    assert.equal(turns.pending(streamed), true);
    turns.utteranceClosed(streamed, 20);
    assert.equal(turns.thinking(20), true);
    assert.equal(turns.unanswered, true);
    assert.equal(turns.thinking(20 + THINKING_MAX_MS), false);
  });

  it('shows the transcripts of the latest utterance only while it is neither ended nor cancelled', () => {
    const turns = new TurnTracker();
    const first = turns.utteranceOpened();
    assert.equal(turns.transcript(first), 'show');
    // A transcript is no answer: the robot still thinks once the utterance is closed.
    turns.utteranceClosed(first, 0);
    assert.equal(turns.transcript(first), 'show');
    assert.equal(turns.thinking(1), true);
    assert.equal(turns.answering, false);
    const second = turns.utteranceOpened();
    assert.equal(turns.transcript(first), 'ignore', 'an older utterance’s late words');
    assert.equal(turns.transcript(second), 'show');
    turns.cancelAll();
    assert.equal(turns.cancelled(second), true);
    assert.equal(turns.transcript(second), 'ignore');
    const third = turns.utteranceOpened();
    assert.equal(turns.cancelled(third), false);
    turns.turnEnded(third);
    assert.equal(turns.transcript(third), 'ignore');
    assert.equal(turns.transcript(99), 'ignore');
  });

  it('keeps a bounded number of open turns when the server never ends them', () => {
    const turns = new TurnTracker();
    for (let index = 0; index < 1_000; index += 1) turns.utteranceSent(index);
    // The oldest were forgotten, the newest still waits.
    assert.equal(turns.thinking(1_000), true);
    assert.equal(turns.latest, 1_000);
  });
});
