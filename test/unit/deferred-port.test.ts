import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastValueFrom, of, toArray } from 'rxjs';
import { createDeferredPort } from '../../src/ros/port/deferred-port.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import { RosServiceUnavailableError, type MicrophoneRequest } from '../../src/ros/port/ros-port.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { callOnce } from '../support/port-calls.js';
import { ScriptedPort } from '../support/scripted-port.js';

const listResponse = { success: true, outcome: 0, message: '1 tour(s)', tour_names: ['welcome'] };
const audio = (text: string): PlayAudioMsg => ({ emotion: 'happy', text, audio: new Uint8Array([1]) });

describe('the deferred ROS port', () => {
  it('before attach: calls fail with RosServiceUnavailableError and readiness says what is awaited', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    assert.deepEqual(port.readiness(), { ready: false, detail: 'starting' });
    port.setPending('waiting for the Zenoh router at tcp/r:7447');
    assert.deepEqual(port.readiness(), {
      ready: false,
      detail: 'waiting for the Zenoh router at tcp/r:7447',
    });
    assert.match(port.description, /waiting for the Zenoh router/);
    await assert.rejects(
      callOnce(port, 'tour_list', {}),
      (error: unknown) => error instanceof RosServiceUnavailableError && error.service === 'tour_list',
    );
    assert.equal(port.attached, undefined);
  });

  it('after attach: calls, readiness and description are the backend’s', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    const backend = new ScriptedPort({ tour_list: () => of(listResponse) });
    port.attach(backend);
    assert.deepEqual(await callOnce(port, 'tour_list', {}), listResponse);
    assert.deepEqual(backend.calls, [{ service: 'tour_list', request: {} }]);
    assert.deepEqual(port.readiness(), { ready: true, detail: 'scripted' });
    assert.equal(port.description, backend.description);
    port.setPending('ignored once attached');
    assert.deepEqual(port.readiness(), { ready: true, detail: 'scripted' });
  });

  it('publishes the microphone state to the backend, the last one given before attach at once on attach', () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    const published: boolean[] = [];
    const backend = Object.assign(new ScriptedPort({}), {
      publishMicrophoneEnabled: (enabled: boolean) => published.push(enabled),
    });
    port.publishMicrophoneEnabled?.(true);
    port.publishMicrophoneEnabled?.(false);
    assert.deepEqual(published, []);
    port.attach(backend);
    assert.deepEqual(published, [false]);
    port.publishMicrophoneEnabled?.(true);
    assert.deepEqual(published, [false, true]);
  });

  it('names services as the attached backend does (remapped), the default names before and without', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    assert.equal(port.serviceName('tour_get'), '/tour_get');
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), {
      message: 'ROS service /tour_get is not available',
    });
    port.attach(new ScriptedPort({}, { tour_get: '/robot1/tour_get' }));
    assert.equal(port.serviceName('tour_get'), '/robot1/tour_get');
    assert.equal(port.serviceName('tour_list'), '/tour_list');
    await port.close();
    // Refused after close, the service is still named as the backend called it.
    assert.equal(port.serviceName('tour_get'), '/robot1/tour_get');
    await assert.rejects(callOnce(port, 'tour_get', { tour_name: 'x' }), {
      message: 'ROS service /robot1/tour_get is not available',
    });

    const sim = createDeferredPort({ backend: 'sim', pendingDetail: 'starting' });
    sim.attach(createSimBackend());
    assert.equal(sim.serviceName('chat'), '/chat');
    await sim.close();
  });

  it('routes a call when it is made: before attach it fails at once, after attach it reaches the backend', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    await assert.rejects(callOnce(port, 'tour_list', {}), RosServiceUnavailableError);
    port.attach(new ScriptedPort({ tour_list: () => of(listResponse) }));
    assert.deepEqual(await callOnce(port, 'tour_list', {}), listResponse);
  });

  it('switches streams subscribed before attach over to the backend’s', () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    const heard: string[] = [];
    const requests: MicrophoneRequest[] = [];
    port.playAudio$.subscribe((message) => heard.push(message.text));
    port.microphoneRequests$.subscribe((request) => requests.push(request));
    const backend = new ScriptedPort();
    backend.playAudio.next(audio('before attach: nobody hears it'));
    port.attach(backend);
    assert.equal(backend.playAudio.observed, true, 'the backend stream is subscribed once attached');
    backend.playAudio.next(audio('hello'));
    backend.microphone.next({ enabled: false, source: 'test', respond: () => undefined });
    assert.deepEqual(heard, ['hello']);
    assert.equal(requests[0]?.enabled, false);
  });

  it('hands the transcripts over on attach: taken before, after and after close', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    const before: string[] = [];
    const after: string[] = [];
    const ended: string[] = [];
    port.transcripts$.subscribe({
      next: (transcript) => before.push(transcript.text),
      complete: () => ended.push('before'),
    });
    const backend = new ScriptedPort();
    port.attach(backend);
    assert.equal(port.transcripts$, backend.transcripts$, 'taken after attach: the backend’s own stream');
    port.transcripts$.subscribe({
      next: (transcript) => after.push(transcript.text),
      complete: () => ended.push('after'),
    });
    backend.transcripts.next({ utterance_id: 'u-1', text: 'hello', final: true });
    await port.close();
    assert.deepEqual(before, ['hello']);
    assert.deepEqual(after, ['hello']);
    assert.deepEqual(ended.sort(), ['after', 'before'], 'the backend completes its stream when it closes');
    const late = await lastValueFrom(port.transcripts$.pipe(toArray()));
    assert.deepEqual(late, [], 'taken after close: complete at once');
  });

  it('close: completes the streams, closes the attached backend, aborts start-up work; idempotent', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    const backend = new ScriptedPort();
    port.attach(backend);
    const heard = lastValueFrom(port.playAudio$.pipe(toArray()));
    const closing = port.close();
    assert.equal(port.close(), closing);
    await closing;
    assert.equal(backend.closed, true);
    assert.equal(port.closing.aborted, true);
    assert.deepEqual(await heard, []);
    assert.equal(port.readiness().ready, false);
    await assert.rejects(callOnce(port, 'chat', { audio: new Uint8Array() }), RosServiceUnavailableError);
  });

  it('closes a backend attached after close instead of using it, and refuses a second attach', async () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    await port.close();
    const late = new ScriptedPort();
    port.attach(late);
    assert.equal(late.closed, true);
    assert.equal(port.attached, undefined);

    const other = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    other.attach(new ScriptedPort());
    assert.throws(() => {
      other.attach(new ScriptedPort());
    }, /already attached/);
  });

  it('reports a failed start in readiness', () => {
    const port = createDeferredPort({ backend: 'ros', pendingDetail: 'starting' });
    port.fail('rcl_init failed');
    assert.deepEqual(port.readiness(), {
      ready: false,
      detail: 'the ros backend failed to start: rcl_init failed',
    });
  });
});
