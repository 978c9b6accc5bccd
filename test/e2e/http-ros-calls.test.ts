import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { of } from 'rxjs';
import * as v from 'valibot';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { emptyTourMsg } from '../../src/ros/tour-message.js';
import { StoredTourSchema, TourSchema } from '../../src/protocol/tour-schema.js';
import { assertProblem } from '../contract/tour-api-contract.js';
import { request, sendJson } from '../support/http.js';
import { ScriptedPort } from '../support/scripted-port.js';
import { startTestService, type TestService } from '../support/test-service.js';

/**
 * The ROS calls behind HTTP requests: released when the client goes away, counted in the in-flight gauge,
 * and not started once a graceful stop has begun. The port is a test double whose services never answer.
 */

/** Polls (bounded) until `check` holds; returns whether it did. */
const eventually = async (check: () => boolean, withinMs = 2_000): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(5);
  }
  return check();
};

/** A raw keep-alive HTTP/1.1 connection: requests are written by hand, answers collected as text. */
const openConnection = async (baseUrl: string): Promise<{ socket: Socket; received: () => string }> => {
  const { port } = new URL(baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text };
};

const get = (socket: Socket, path: string) => {
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
};

const ROS_TIMEOUT_MS = 30_000;

const withService = async (test: (running: TestService, port: ScriptedPort) => Promise<void>) => {
  const port = new ScriptedPort(); // every service takes the request and never answers
  const running = await startTestService(port, { overrides: { ros_timeout_ms: String(ROS_TIMEOUT_MS) } });
  try {
    await test(running, port);
  } finally {
    await running.service.stop(50);
    await port.close();
  }
};

describe('ROS calls behind HTTP requests', () => {
  it('a client that disconnects releases its ROS call at once, not at the time-out', async () => {
    await withService(async (running, port) => {
      const { socket } = await openConnection(running.baseUrl);
      get(socket, '/tour');
      assert.ok(await eventually(() => port.activeCalls === 1), 'the call was sent');
      socket.destroy();
      const started = Date.now();
      assert.ok(
        await eventually(() => port.activeCalls === 0, 2_000),
        `the call is still open ${Date.now() - started} ms after the client left`,
      );
      assert.ok(await eventually(() => running.service.hub.readGauges().inFlightRosCalls === 0));
    });
  });

  it('counts pending HTTP tour calls in tour_bridge_ros_calls_in_flight', async () => {
    await withService(async (running, port) => {
      const sockets = await Promise.all([1, 2].map(() => openConnection(running.baseUrl)));
      get(sockets[0]!.socket, '/tour');
      get(sockets[1]!.socket, '/tour/welcome');
      assert.ok(await eventually(() => port.activeCalls === 2));
      const pending = await request(running.baseUrl, 'GET', '/metrics');
      assert.match(pending.text, /^tour_bridge_ros_calls_in_flight 2$/m);
      for (const { socket } of sockets) socket.destroy();
      assert.ok(await eventually(() => port.activeCalls === 0));
      const after = await request(running.baseUrl, 'GET', '/metrics');
      assert.match(after.text, /^tour_bridge_ros_calls_in_flight 0$/m);
    });
  });

  it('while stopping, a keep-alive connection gets 503 with connection: close and starts no ROS call', async () => {
    await withService(async (running, port) => {
      const keepAlive = await openConnection(running.baseUrl);
      get(keepAlive.socket, '/health');
      assert.ok(await eventually(() => keepAlive.received().includes('\r\n\r\n')), 'the first answer');
      assert.match(keepAlive.received(), /^HTTP\/1\.1 200/);
      // A request in progress keeps the drain going.
      const pending = await openConnection(running.baseUrl);
      get(pending.socket, '/tour');
      assert.ok(await eventually(() => port.activeCalls === 1));

      const stopped = running.service.stop(1_000);
      const before = keepAlive.received().length;
      const callsBefore = port.calls.length;
      get(keepAlive.socket, '/tour');
      assert.ok(
        await eventually(
          () => keepAlive.received().length > before && /\r\n\r\n/.test(keepAlive.received().slice(before)),
        ),
      );
      const answer = keepAlive.received().slice(before);
      assert.match(answer, /^HTTP\/1\.1 503/);
      assert.match(answer, /^connection: close\r$/im);
      assert.match(answer, /shutting-down/);
      assert.equal(port.calls.length, callsBefore, 'no ROS call was started');
      await stopped;
      // The drain ended by closing the pending request's connection: its call is released too.
      assert.ok(await eventually(() => port.activeCalls === 0));
      keepAlive.socket.destroy();
      pending.socket.destroy();
    });
  });
});

describe("tour names in the path are the tour service's to decide", () => {
  // Another ROS node holds a tour whose name our own schema would not create (over 128 characters, a tab).
  const held = `${'long '.repeat(40)}\tname`;
  const ok = (message: string) => ({ success: true, outcome: TourOutcome.OK, message });
  const notFound = { success: false, outcome: TourOutcome.NOT_FOUND, message: 'no such tour' };
  const port = new ScriptedPort({
    tour_list: () => of({ ...ok('1 tour'), tour_names: [held] }),
    tour_get: ({ tour_name }) =>
      of(
        tour_name === held
          ? { ...ok('found'), tour: { tour_name: held, map_name: 'm', steps: [] } }
          : { ...notFound, tour: emptyTourMsg() },
      ),
    tour_update: ({ tour }) => of(tour.tour_name === held ? ok('updated') : notFound),
    tour_delete: ({ tour_name }) => of(tour_name === held ? ok('deleted') : notFound),
  });

  it('gets, updates and deletes a listed tour whatever its name, and answers 404 for an unknown one', async () => {
    const running = await startTestService(port);
    try {
      const path = `/tour/${encodeURIComponent(held)}`;
      assert.deepEqual((await request(running.baseUrl, 'GET', '/tour')).json, [held]);
      const got = await request(running.baseUrl, 'GET', path);
      assert.equal(got.status, 200, got.text);
      assert.equal((got.json as { tour_name: string }).tour_name, held);
      // The OpenAPI document promises the stored shape for this answer, not the limits of a request body.
      assert.ok(v.is(StoredTourSchema, got.json));
      assert.ok(!v.is(TourSchema, got.json));
      const document = (await request(running.baseUrl, 'GET', '/openapi.json')).json as {
        paths: Record<string, { get: { responses: Record<string, { content: unknown }> } }>;
      };
      assert.deepEqual(document.paths['/tour/{tour_name}']?.get.responses['200']?.content, {
        'application/json': { schema: { $ref: '#/components/schemas/StoredTour' } },
      });
      const updated = await sendJson(running.baseUrl, 'PUT', path, { map_name: 'n', steps: [] });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await request(running.baseUrl, 'DELETE', path)).status, 200);
      const unknown = `/tour/${encodeURIComponent(`${held}?`)}`;
      assertProblem(await request(running.baseUrl, 'GET', unknown), 404, 'tour-not-found');
      assertProblem(await request(running.baseUrl, 'DELETE', unknown), 404, 'tour-not-found');
      // Each request reached its service with the name as sent.
      assert.deepEqual(
        port.calls.map(({ service }) => service),
        ['tour_list', 'tour_get', 'tour_update', 'tour_delete', 'tour_get', 'tour_delete'],
      );
      assert.equal((port.calls[2]?.request as { tour: { tour_name: string } }).tour.tour_name, held);
      // A body still follows the documented rules, even when it names the path's tour.
      const strict = await sendJson(running.baseUrl, 'PUT', path, {
        tour_name: held,
        map_name: 'n',
        steps: [],
      });
      assertProblem(strict, 422, 'validation-failed');
    } finally {
      await running.stop();
    }
  });
});
