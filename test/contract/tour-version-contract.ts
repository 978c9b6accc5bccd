import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { request, sendJson, type HttpResult } from '../support/http.js';
import { assertProblem, type ContractTarget } from './tour-api-contract.js';

/**
 * Tour versions over HTTP, whatever backend serves them: `ETag` on `GET /tour/{name}`, `If-Match` on
 * `PUT /tour`, `PUT /tour/{name}` and `DELETE /tour/{name}`. Part of the tour API contract, so it runs on
 * the simulation (test/e2e/tour-api.test.ts) and on real ROS 2 nodes (`npm run test:ros`).
 */

const uniqueName = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
const pathOf = (name: string) => `/tour/${encodeURIComponent(name)}`;
const tourOf = (name: string, description = 'Start here') => ({
  tour_name: name,
  map_name: 'floor-1',
  steps: [{ description, destination: 'dock', dialogue: null }],
});

const STRONG_TAG = /^"[A-Za-z0-9_-]{43}"$/;

const sendWith = (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  value?: unknown,
): Promise<HttpResult> =>
  request(baseUrl, method, path, {
    headers,
    ...(value === undefined ? {} : { body: JSON.stringify(value) }),
  });

export const tourVersionContract = (target: () => ContractTarget): void => {
  const url = () => target().baseUrl;

  const created = async (label: string): Promise<{ name: string; etag: string }> => {
    const name = uniqueName(label);
    const made = await sendJson(url(), 'POST', '/tour', tourOf(name));
    assert.equal(made.status, 201, made.text);
    return { name, etag: await etagOf(name) };
  };
  const etagOf = async (name: string): Promise<string> => {
    const got = await request(url(), 'GET', pathOf(name));
    assert.equal(got.status, 200, got.text);
    const etag = got.headers.get('etag') ?? '';
    assert.match(etag, STRONG_TAG);
    return etag;
  };
  const descriptionOf = async (name: string): Promise<string | undefined> => {
    const got = await request(url(), 'GET', pathOf(name));
    return got.status === 200
      ? (got.json as { steps: { description: string }[] }).steps[0]?.description
      : undefined;
  };

  describe('tour versions: ETag and If-Match', () => {
    it('GET sends a strong ETag of the tour’s content: the SHA-256 of the body it sends', async () => {
      const { name, etag } = await created('etag');
      const got = await request(url(), 'GET', pathOf(name));
      // The body is the tour's canonical JSON; the tag is its hash, so any node holding this tour gives it.
      assert.equal(etag, `"${createHash('sha256').update(got.text).digest('base64url')}"`);
      assert.equal(got.headers.get('etag'), etag, 'the same tour, read again, has the same tag');
      const head = await request(url(), 'HEAD', pathOf(name));
      assert.equal(head.headers.get('etag'), etag);

      const changed = await sendJson(url(), 'PUT', pathOf(name), tourOf(name, 'Moved'));
      assert.equal(changed.status, 200, changed.text);
      const second = await etagOf(name);
      assert.notEqual(second, etag, 'new content, new tag');
      assert.equal((await sendJson(url(), 'PUT', pathOf(name), tourOf(name))).status, 200);
      assert.equal(await etagOf(name), etag, 'the first content again: the first tag again');
    });

    it('PUT with the current ETag in If-Match: 200; with a stale one: 412, the current ETag, nothing changed', async () => {
      const { name, etag: first } = await created('put-if-match');
      const matching = await sendWith(url(), 'PUT', pathOf(name), { 'if-match': first }, tourOf(name, 'A'));
      assert.equal(matching.status, 200, matching.text);
      assert.deepEqual(matching.json, { success: true });
      const second = await etagOf(name);

      // Both update forms: the name in the path, and the name in the body.
      for (const path of [pathOf(name), '/tour']) {
        const stale = await sendWith(url(), 'PUT', path, { 'if-match': first }, tourOf(name, 'B'));
        const problem = assertProblem(stale, 412, 'tour-changed');
        assert.equal(stale.headers.get('etag'), second, 'the 412 names the current version');
        assert.match(String(problem['detail']), /changed since it was read/);
        assert.equal(await descriptionOf(name), 'A', `${path}: the stale change was not made`);
      }
      // A list naming the current version among others matches; weak tags never do (strong comparison).
      const listed = await sendWith(
        url(),
        'PUT',
        '/tour',
        { 'if-match': `${first}, ${second}` },
        tourOf(name, 'C'),
      );
      assert.equal(listed.status, 200, listed.text);
      const third = await etagOf(name);
      assertProblem(
        await sendWith(url(), 'PUT', pathOf(name), { 'if-match': `W/${third}` }, tourOf(name, 'D')),
        412,
        'tour-changed',
      );
      assert.equal(await descriptionOf(name), 'C');
    });

    it('DELETE with a stale ETag: 412 and the tour stays; with the current one: 200', async () => {
      const { name, etag: first } = await created('delete-if-match');
      assert.equal((await sendJson(url(), 'PUT', pathOf(name), tourOf(name, 'Edited'))).status, 200);
      const stale = await sendWith(url(), 'DELETE', pathOf(name), { 'if-match': first });
      assertProblem(stale, 412, 'tour-changed');
      const current = await etagOf(name);
      assert.equal(stale.headers.get('etag'), current);
      assert.equal(await descriptionOf(name), 'Edited');

      const deleted = await sendWith(url(), 'DELETE', pathOf(name), { 'if-match': current });
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.json, { success: true });
      assertProblem(await request(url(), 'GET', pathOf(name)), 404, 'tour-not-found');
    });

    it('without If-Match, or with *, a change goes through as the specification says', async () => {
      const { name, etag } = await created('no-if-match');
      assert.equal((await sendJson(url(), 'PUT', pathOf(name), tourOf(name, 'Edited'))).status, 200);
      // The version read before the edit is stale now, but a client that sends none is not checked.
      assert.notEqual(await etagOf(name), etag);
      assert.equal((await sendJson(url(), 'PUT', '/tour', tourOf(name, 'Again'))).status, 200);
      assert.equal(await descriptionOf(name), 'Again');
      const any = await sendWith(url(), 'PUT', pathOf(name), { 'if-match': '*' }, tourOf(name, 'Any'));
      assert.equal(any.status, 200, any.text);
      assert.equal((await request(url(), 'DELETE', pathOf(name))).status, 200);
      // A missing tour stays 404 with or without a condition (RFC 9110 §13.2.1: the 404 comes first).
      assertProblem(await request(url(), 'DELETE', pathOf(name)), 404, 'tour-not-found');
      assertProblem(
        await sendWith(url(), 'DELETE', pathOf(name), { 'if-match': etag }),
        404,
        'tour-not-found',
      );
      assertProblem(
        await sendWith(url(), 'PUT', pathOf(name), { 'if-match': etag }, tourOf(name)),
        404,
        'tour-not-found',
      );
      assertProblem(
        await sendWith(url(), 'PUT', pathOf(name), { 'if-match': '*' }, tourOf(name)),
        404,
        'tour-not-found',
      );
    });

    it('answers 400 to an If-Match that is no list of quoted entity tags, and changes nothing', async () => {
      const { name, etag } = await created('bad-if-match');
      const bare = etag.slice(1, -1);
      for (const value of [bare, `${etag} junk`, `"unterminated`]) {
        const refused = assertProblem(
          await sendWith(url(), 'PUT', pathOf(name), { 'if-match': value }, tourOf(name, 'X')),
          400,
          'bad-request',
        );
        assert.match(String(refused['detail']), /If-Match/);
      }
      assertProblem(await sendWith(url(), 'DELETE', pathOf(name), { 'if-match': bare }), 400, 'bad-request');
      assert.equal(await descriptionOf(name), 'Start here');
    });

    it('of concurrent changes sent with the same version, exactly one is made; the others get 412', async () => {
      const { name, etag } = await created('race-if-match');
      const count = 8;
      const results = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          sendWith(url(), 'PUT', pathOf(name), { 'if-match': etag }, tourOf(name, `writer ${index}`)),
        ),
      );
      const statuses = results.map((result) => result.status);
      const winners = statuses.flatMap((status, index) => (status === 200 ? [index] : []));
      assert.equal(winners.length, 1, `statuses ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 412).length, count - 1, statuses.join(' '));
      // What is stored is the winner's change, not a later loser's.
      assert.equal(await descriptionOf(name), `writer ${winners[0]}`);
    });
  });
};
