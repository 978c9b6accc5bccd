import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { matchesIfNoneMatch } from '../../src/transport/routes/static-routes.js';
import {
  etagOf,
  loadStaticSite,
  STATIC_LIMITS,
  StaticSiteError,
} from '../../src/transport/http/static-site.js';

describe('loadStaticSite', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tour-bridge-site-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads every file with its content type and a content hash, skipping dot files', async () => {
    writeFileSync(join(root, 'index.html'), '<p>hi</p>');
    writeFileSync(join(root, '.DS_Store'), 'junk');
    mkdirSync(join(root, 'img'));
    writeFileSync(join(root, 'img', 'a.svg'), '<svg/>');
    const site = await loadStaticSite(root);
    assert.ok(site);
    assert.deepEqual([...site.keys()], ['img/a.svg', 'index.html']);
    const page = site.get('index.html');
    assert.ok(page);
    assert.equal(page.contentType, 'text/html; charset=utf-8');
    assert.equal(Buffer.from(page.body).toString(), '<p>hi</p>');
    assert.equal(page.etag, etagOf(new TextEncoder().encode('<p>hi</p>')));
    assert.notEqual(page.etag, etagOf(new TextEncoder().encode('<p>hi!</p>')));
  });

  it('reports a missing root as undefined', async () => {
    assert.equal(await loadStaticSite(join(root, 'absent')), undefined);
  });

  it('refuses a root over the byte limit before reading the file that crosses it', async () => {
    writeFileSync(join(root, 'a.js'), 'x'.repeat(600));
    writeFileSync(join(root, 'b.js'), 'x'.repeat(600));
    await assert.rejects(
      loadStaticSite(root, { ...STATIC_LIMITS, maxTotalBytes: 1_000 }),
      (error) => error instanceof StaticSiteError && /more than 1000 bytes/.test(error.message),
    );
    assert.ok(await loadStaticSite(root, { ...STATIC_LIMITS, maxTotalBytes: 1_200 }));
  });

  it('refuses too many files and too deep a tree', async () => {
    for (const name of ['a.js', 'b.js', 'c.js']) writeFileSync(join(root, name), '');
    await assert.rejects(loadStaticSite(root, { ...STATIC_LIMITS, maxFiles: 2 }), /more than 2 files/);
    mkdirSync(join(root, 'x', 'y'), { recursive: true });
    await assert.rejects(loadStaticSite(root, { ...STATIC_LIMITS, maxDepth: 1 }), /x\/y: deeper than 1/);
  });

  it('refuses files it could not serve safely', async () => {
    writeFileSync(join(root, 'run.sh'), '');
    await assert.rejects(loadStaticSite(root), /run\.sh: no content type/);
    rmSync(join(root, 'run.sh'));
    writeFileSync(join(root, 'a b.js'), '');
    await assert.rejects(loadStaticSite(root), /a b\.js: file names may hold only/);
    rmSync(join(root, 'a b.js'));
    symlinkSync('/etc/hostname', join(root, 'host.txt'));
    await assert.rejects(loadStaticSite(root), /host\.txt: not a regular file/);
  });
});

describe('matchesIfNoneMatch', () => {
  it('compares weakly, takes lists and the wildcard', () => {
    assert.equal(matchesIfNoneMatch('"a"', '"a"'), true);
    assert.equal(matchesIfNoneMatch('W/"a"', '"a"'), true);
    assert.equal(matchesIfNoneMatch('"b", "a"', '"a"'), true);
    assert.equal(matchesIfNoneMatch('*', '"a"'), true);
    assert.equal(matchesIfNoneMatch('"b"', '"a"'), false);
    assert.equal(matchesIfNoneMatch('', '"a"'), false);
    assert.equal(matchesIfNoneMatch('a', '"a"'), false);
  });
});
