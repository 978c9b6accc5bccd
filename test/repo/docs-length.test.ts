import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * docs/performance.md and docs/ros-testing.md are references: how to measure, what each figure means, the
 * latest results. Dated entries go to CHANGELOG.md, so the two stay short enough to read first.
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
      assert.ok(lines <= maxLines, `${path} has ${lines} lines; move dated entries to CHANGELOG.md`);
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

  it('leaves the dated history in CHANGELOG.md, newest first', () => {
    const dates = headings(repositoryFile('CHANGELOG.md')).filter((heading) =>
      /^\d{4}-\d{2}-\d{2}$/.test(heading),
    );
    assert.ok(dates.length > 0, 'CHANGELOG.md has dated sections');
    assert.deepEqual(dates, [...dates].sort().reverse(), 'dated sections newest first');
  });
});
