import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * docs/architecture.md lists three event paths file by file. Every file it names exists, each heading's
 * count is the number of files its list names (the simulation's stand-ins, named as the alternative, are not
 * counted), /play_audio stays within 8 files and `PUT /tour/{name}` without `If-Match` within 12.
 */

const repositoryFile = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const exists = (path: string): boolean => existsSync(new URL(`../../${path}`, import.meta.url));

const architecture = repositoryFile('docs/architecture.md');
const pathsSection = architecture.slice(
  architecture.indexOf('## Three event paths, file by file'),
  architecture.indexOf('\n## ', architecture.indexOf('## Three event paths, file by file') + 1),
);

/** Each path: its heading line and the `src/…` files its list names, in order, without repeats. */
const paths = pathsSection
  .split(/\n(?=\*\*)/)
  .filter((block) => block.startsWith('**'))
  .map((block) => {
    const heading = block.slice(0, block.indexOf('\n'));
    const files = [...new Set([...block.matchAll(/`(src\/[\w./-]+\.ts)`/g)].map((match) => match[1] ?? ''))];
    return { heading, files, counted: files.filter((file) => !file.startsWith('src/robot/')) };
  });

/** The last "N files" of a heading: the count with every optional step. */
const headingCount = (heading: string): number => {
  const counts = [...heading.matchAll(/(\d+) files?/g)].map((match) => Number(match[1]));
  const last = counts.at(-1);
  if (last === undefined) throw new Error(`no file count in ${heading}`);
  return last;
};

describe('the three event paths of docs/architecture.md', () => {
  it('finds the three paths', () => {
    assert.deepEqual(
      paths.map(({ heading }) => /^\*\*`?([^`*]+)/.exec(heading)?.[1]),
      ['/play_audio', "A kiosk's audio → ", 'PUT /tour/{name}'],
    );
  });

  for (const { heading, files, counted } of paths) {
    it(`names only files that exist, as many as it says: ${heading}`, () => {
      assert.deepEqual(
        files.filter((file) => !exists(file)),
        [],
      );
      assert.equal(counted.length, headingCount(heading), counted.join('\n'));
    });
  }

  it('keeps /play_audio within 8 files', () => {
    const playAudio = paths[0];
    assert.ok(playAudio !== undefined);
    assert.ok(playAudio.counted.length <= 8, playAudio.counted.join('\n'));
  });

  it('keeps PUT /tour/{name} within 12 files without If-Match', () => {
    const put = paths[2];
    assert.ok(put !== undefined);
    const withoutIfMatch = put.counted.filter(
      (file) => file !== 'src/transport/http/serial-by-key.ts' && file !== 'src/protocol/tour-version.ts',
    );
    assert.equal(withoutIfMatch.length, put.counted.length - 2, 'the If-Match files are named');
    assert.ok(withoutIfMatch.length <= 12, withoutIfMatch.join('\n'));
  });
});
