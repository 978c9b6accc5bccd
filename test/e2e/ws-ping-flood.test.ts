import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimService, type TestService } from '../support/test-service.js';

/** A client's masked WebSocket ping frame with a 125-byte payload (the largest a control frame holds). */
const pingFrame = (): Buffer => {
  const payload = randomBytes(125);
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] ?? 0)));
  return Buffer.concat([Buffer.from([0x89, 0x80 | 125]), mask, masked]);
};

/** Opens /ws over a raw socket and returns it once upgraded; nothing is read after the upgrade. */
const openRawWebSocket = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(head.split('\r\n')[0]));
      // Never read again: the pongs the server owes pile up on its side.
      socket.pause();
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });

const metric = async (baseUrl: string, name: string): Promise<number> => {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(name));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
};

describe('a ping flood from a client that never reads', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService({}, { send_buffer_bytes: String(64 * 1024) });
  });
  after(async () => {
    await running.stop();
  });

  it('is closed with 1008 once the pongs it leaves unread pass --send_buffer_bytes', async () => {
    const socket = await openRawWebSocket(Number(new URL(running.baseUrl).port));
    try {
      const closedCode = 'tour_bridge_ws_sessions_closed_total{code="1008"}';
      // 2,000 pings per write, at most 100 writes (25 MB of pongs owed without the limit).
      const burst = Buffer.concat(Array.from({ length: 2_000 }, pingFrame));
      for (let round = 0; round < 100; round += 1) {
        if (socket.destroyed || !socket.write(burst)) break;
        await new Promise((resolve) => setImmediate(resolve));
        if ((await metric(running.baseUrl, closedCode)) >= 1) break;
      }
      const deadline = Date.now() + 5_000;
      while ((await metric(running.baseUrl, closedCode)) < 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await metric(running.baseUrl, closedCode), 1);
      assert.equal(await metric(running.baseUrl, 'tour_bridge_ws_sessions '), 0);
    } finally {
      socket.destroy();
    }
  });
});
