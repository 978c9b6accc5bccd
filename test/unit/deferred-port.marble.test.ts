import { describe, it } from 'node:test';
import { NEVER, type Observable } from 'rxjs';
import { createDeferredPort } from '../../src/ros/port/deferred-port.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import { defaultServiceName, SETTLED_CALL, type RosPort } from '../../src/ros/port/ros-port.js';
import { marbleScheduler } from '../support/marbles.js';

const message = (text: string): PlayAudioMsg => ({ emotion: 'happy', text, audio: new Uint8Array([1]) });
const messages = { a: message('a'), b: message('b'), c: message('c'), d: message('d') };

/** A backend whose /play_audio topic is the given marble stream. */
const backendWith = (playAudio$: Observable<PlayAudioMsg>): RosPort => ({
  backend: 'ros',
  description: 'marble backend',
  serviceName: defaultServiceName,
  call: () => SETTLED_CALL,
  converse: () => SETTLED_CALL,
  playAudio$,
  microphoneRequests$: NEVER,
  transcripts$: NEVER,
  publishUtteranceAudio: () => undefined,
  publishHeard: () => undefined,
  readiness: () => ({ ready: true, detail: 'marble backend' }),
  close: () => Promise.resolve(),
});

describe('the deferred port’s streams follow the backend (marbles)', () => {
  it('hears nothing before attach, the backend’s messages after it, and completes on close', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const topic = hot('-a--b--c--d', messages);
      const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
      scheduler.schedule(() => {
        port.attach(backendWith(topic));
      }, 3);
      scheduler.schedule(() => {
        void port.close();
      }, 8);
      expectObservable(port.playAudio$).toBe('----b--c|', messages);
      // The backend's topic is subscribed from attach until close, not before, not after.
      expectSubscriptions(topic.subscriptions).toBe('---^----!');
    });
  });

  it('hands a subscription taken after attach straight to the backend, and completes one taken after close', () => {
    const scheduler = marbleScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const topic = hot('-a--b--c', messages);
      const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
      port.attach(backendWith(topic));
      scheduler.schedule(() => {
        void port.close();
      }, 6);
      // Subscribed at 0, after attach: the backend's messages, until the close at 6.
      expectObservable(port.playAudio$).toBe('-a--b-|', messages);
      // Subscribed at 7, after close: complete at once.
      expectObservable(port.microphoneRequests$, '-------^').toBe('-------|');
    });
  });
});
