import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resubscribing } from '../../src/streams/resubscribe.js';
import { marbleScheduler } from '../support/marbles.js';

describe('resubscribing: a failed or ended port stream is followed again after a delay (marbles)', () => {
  it('subscribes again `delayMs` after an error, reporting each error', () => {
    const scheduler = marbleScheduler();
    const restarts: unknown[] = [];
    const lost = new Error('topic lost');
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-#', { a: 'hello' }, lost);
      const followed = source.pipe(
        resubscribing('play_audio', { delayMs: 3, scheduler, onRestart: (error) => restarts.push(error) }),
      );
      // Fails at 3 and 9; each time 3 frames without a subscription, then the stream again.
      expectObservable(followed, '^-----------!').toBe('-a-----a----', { a: 'hello' });
      expectSubscriptions(source.subscriptions).toBe(['^--!', '------^--!']);
    });
    assert.deepEqual(restarts, [lost, lost]);
  });

  it('subscribes again `delayMs` after the stream ends, reporting that it ended', () => {
    const scheduler = marbleScheduler();
    const restarts: string[] = [];
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a|', { a: 'hello' });
      const followed = source.pipe(
        resubscribing('microphone_requests', {
          delayMs: 3,
          scheduler,
          onRestart: (error) => restarts.push((error as Error).message),
        }),
      );
      expectObservable(followed, '^-----------!').toBe('-a----a----a', { a: 'hello' });
      expectSubscriptions(source.subscriptions).toBe(['^-!', '-----^-!', '----------^-!']);
    });
    assert.deepEqual(restarts, [
      'the microphone_requests stream ended',
      'the microphone_requests stream ended',
    ]);
  });
});
