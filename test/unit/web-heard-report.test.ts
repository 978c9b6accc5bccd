import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerProgress } from '../../web/src/heard-report.js';

describe('AnswerProgress (the heard report)', () => {
  it('counts the turn’s earlier parts whole and the cut part up to the clock', () => {
    const progress = new AnswerProgress();
    progress.started(3, 10, { start: 5, end: 5.75 });
    progress.started(3, 11, { start: 5.75, end: 6.5 });
    progress.started(3, 12, { start: 6.5, end: 7.25 });
    assert.equal(progress.turn, 3);
    assert.deepEqual(progress.cut(6.8), {
      service: 'heard',
      turn: 3,
      playedMs: 1_800,
      messageId: 12,
      partPlayedMs: 300,
      partMs: 750,
    });
    // The cut ends that answer: nothing more to report until the next one plays.
    assert.equal(progress.turn, undefined);
    assert.equal(progress.cut(7), undefined);
  });

  it('reports a part heard whole when the cut comes between parts', () => {
    const progress = new AnswerProgress();
    progress.started(1, 4, { start: 0, end: 1.2 });
    assert.deepEqual(progress.cut(1.9), {
      service: 'heard',
      turn: 1,
      playedMs: 1_200,
      messageId: 4,
      partPlayedMs: 1_200,
      partMs: 1_200,
    });
  });

  it('starts afresh with each turn and leaves /play_audio messages out', () => {
    const progress = new AnswerProgress();
    progress.started(1, 1, { start: 0, end: 2 });
    progress.started(2, 2, { start: 2, end: 3 });
    progress.started(undefined, 3, { start: 3, end: 4 });
    const report = progress.cut(3.5);
    assert.equal(report?.turn, 2);
    assert.equal(report.playedMs, 1_000);
    assert.equal(report.messageId, 2);
  });

  it('never reports more than was placed, nor less than nothing', () => {
    const progress = new AnswerProgress();
    progress.started(1, 1, { start: 10, end: 10.5 });
    assert.equal(progress.cut(9)?.partPlayedMs, 0);
    progress.started(1, 1, { start: 10, end: 10.5 });
    assert.equal(progress.cut(30)?.playedMs, 500);
  });

  it('forgets a session’s turns when it ends', () => {
    const progress = new AnswerProgress();
    progress.started(1, 1, { start: 0, end: 1 });
    progress.reset();
    assert.equal(progress.cut(0.5), undefined);
  });
});
