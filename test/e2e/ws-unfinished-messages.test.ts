import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metric } from '../support/metric.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { clientFrame, WireWsClient } from '../support/wire-ws-client.js';

/**
 * A socket may keep an unfinished message (fragments without their last) in the transport, up to the
 * transport ceiling, for as long as it stays open; one client address may hold at most
 * --ws_sessions_per_address sockets, so what one client pins is bounded (docs/operations.md, Memory).
 */

const MIB = 1024 * 1024;
const PER_ADDRESS = 16;
const SOCKETS = 40;
/** An unfinished binary message of 4 MiB: the transport ceiling (twice 2 MiB, plus 1 KiB) lets it grow. */
const UNFINISHED_BYTES = 4 * MIB;
const FRAGMENT_BYTES = 256 * 1024;

const closeOf = (client: WireWsClient) => client.frames.find((frame) => frame.opcode === 8);

describe('unfinished messages and sessions per client address', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess();
  });
  after(async () => {
    await server.stop();
  });

  it(`one address holds ${PER_ADDRESS} sessions; their unfinished 4 MiB messages pin at most that many times 4 MiB`, async () => {
    const clients: WireWsClient[] = [];
    try {
      for (let index = 0; index < SOCKETS; index += 1) {
        const client = await WireWsClient.connect(server.wsUrl);
        await client.until((frames) => frames.length >= 1, 'the welcome or the close');
        clients.push(client);
      }
      const refused = clients.filter((client) => closeOf(client) !== undefined);
      const held = clients.filter((client) => closeOf(client) === undefined);
      assert.equal(held.length, PER_ADDRESS);
      assert.equal(refused.length, SOCKETS - PER_ADDRESS);
      const close = closeOf(refused[0]!)!;
      assert.equal(close.payload.readUInt16BE(0), 1013);
      assert.equal(close.payload.subarray(2).toString(), 'too many sessions from this address');

      const rssBefore = server.rssBytes();
      const fragment = Buffer.alloc(FRAGMENT_BYTES, 7);
      for (const client of clients) {
        // Sent on refused sockets too: once closed, their bytes go nowhere.
        client.write(clientFrame(0x2, fragment, false));
        for (let sent = FRAGMENT_BYTES; sent < UNFINISHED_BYTES; sent += FRAGMENT_BYTES) {
          client.write(clientFrame(0x0, fragment, false));
        }
      }
      // The server has read them all once it answers a ping sent after them on each held socket.
      for (const client of held) client.write(clientFrame(0x9, Buffer.from('after')));
      await Promise.all(
        held.map((client) =>
          client.until((frames) => frames.some((frame) => frame.opcode === 10), 'the pong', 20_000),
        ),
      );
      const grewMiB = (server.rssBytes() - rssBefore) / MIB;
      console.log(
        `# ${held.length} sockets with an unfinished 4 MiB message: RSS grew ${grewMiB.toFixed(1)} MiB`,
      );
      assert.ok(
        grewMiB < (PER_ADDRESS * UNFINISHED_BYTES) / MIB + 32,
        `RSS grew ${grewMiB.toFixed(1)} MiB, more than ${PER_ADDRESS} unfinished messages explain`,
      );
      assert.ok(grewMiB > (PER_ADDRESS * UNFINISHED_BYTES) / MIB / 2, 'the unfinished messages are held');
      assert.equal(
        await metric(server.baseUrl, 'tour_bridge_ws_sessions_refused_total{reason="per_address"}'),
        SOCKETS - PER_ADDRESS,
      );

      // A session closed gives its address's place back.
      held[0]!.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = await WireWsClient.connect(server.wsUrl);
      clients.push(again);
      await again.until((frames) => frames.length >= 1, 'the welcome');
      assert.equal(again.frames[0]?.opcode, 1, 'a welcome, not a close');
    } finally {
      for (const client of clients) client.close();
    }
  });
});
