import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * docs/performance.md and docs/ros-testing.md are references: how to measure, what each figure means, the
 * latest results, short enough to read first; dated runs belong in git, and CHANGELOG.md holds release notes.
 */

/** A file of the repository, by its path from the root. */
const repositoryFile = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Lines as `wc -l` counts them: a final newline ends the last line, it does not start another. */
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The headings of a Markdown file, without their `#`s; fenced code is not read. */
const headings = (text: string): string[] =>
  text
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n')
    .flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.slice(1) ?? []);

describe('the performance and ROS testing docs are references', () => {
  for (const [path, maxLines] of [
    ['docs/performance.md', 300],
    ['docs/ros-testing.md', 250],
  ] as const) {
    it(`keeps ${path} within ${maxLines} lines`, () => {
      const lines = lineCount(repositoryFile(path));
      assert.ok(lines <= maxLines, `${path} has ${lines} lines; keep the latest results only`);
    });
  }

  it('keeps the sections other docs, tests and comments point to', () => {
    // kiosk.md, deployment.md and operations.md link to these by anchor; test/ros/footprint-suite.ts,
    // test/e2e/idle-wakeups.test.ts, the Dockerfile and docs/robot.md name them.
    const performance = headings(repositoryFile('docs/performance.md'));
    for (const heading of [
      'Footprint on the robot',
      'Idle: nothing runs while nothing happens',
      'Memory on a real graph',
      'The operator page on a tour at the step limit',
    ]) {
      assert.ok(performance.includes(heading), `docs/performance.md has "${heading}"`);
    }
    assert.match(repositoryFile('docs/ros-testing.md'), /\*\*Speech through the middleware\*\*/);
  });

  it('keeps CHANGELOG.md as release notes, one section per version, newest first', () => {
    const changelog = repositoryFile('CHANGELOG.md');
    const releases = headings(changelog).flatMap((heading) => /^(\d+\.\d+\.\d+)\b/.exec(heading)?.[1] ?? []);
    assert.ok(releases.length > 0, 'CHANGELOG.md has a section per version');
    const byVersion = (a: string, b: string): number => {
      const [x, y] = [a, b].map((version) => version.split('.').map(Number));
      const differs = (x ?? []).findIndex((part, i) => part !== (y ?? [])[i]);
      return differs < 0 ? 0 : (y?.[differs] ?? 0) - (x?.[differs] ?? 0);
    };
    assert.deepEqual(releases, [...releases].sort(byVersion), 'versions newest first');
    const packageVersion = (JSON.parse(repositoryFile('package.json')) as { version: string }).version;
    assert.equal(releases[0], packageVersion, "the newest section is package.json's version");
    assert.doesNotMatch(changelog, /^#+ \d{4}-\d{2}-\d{2}$/m, 'no dated benchmark sections');
  });
});
