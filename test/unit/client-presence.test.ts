import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientPresence } from '../../src/transport/http/client-presence.js';

describe('ClientPresence', () => {
  it('runs every listener once, in order, when the client leaves', () => {
    const client = new ClientPresence();
    const heard: string[] = [];
    client.onGone(() => heard.push('first'));
    client.onGone(() => heard.push('second'));
    assert.equal(client.gone, false);
    client.leave();
    client.leave();
    assert.equal(client.gone, true);
    assert.deepEqual(heard, ['first', 'second']);
  });

  it('runs a listener at once when the client has already left', () => {
    const client = new ClientPresence();
    client.leave();
    const heard: string[] = [];
    client.onGone(() => heard.push('late'));
    assert.deepEqual(heard, ['late']);
  });

  it('forgets a cancelled listener and keeps the others', () => {
    const client = new ClientPresence();
    const heard: string[] = [];
    const cancel = client.onGone(() => heard.push('cancelled'));
    client.onGone(() => heard.push('kept'));
    cancel();
    cancel();
    client.leave();
    assert.deepEqual(heard, ['kept']);
  });
});
