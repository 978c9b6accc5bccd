import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OPTION_SPECS } from '../../src/cli/options.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const tableRows = readme
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

describe('README matches the code', () => {
  it('lists every option with its environment variable and default', () => {
    for (const spec of Object.values(OPTION_SPECS)) {
      const cells = tableRows.find((row) => row[0] === '`--' + spec.flag + '`');
      assert.ok(cells, `README has no row for --${spec.flag}`);
      assert.equal(cells[1], '`' + spec.env + '`', `README row of --${spec.flag} names its variable`);
      assert.equal(cells[2], '`' + spec.defaultValue + '`', `README row of --${spec.flag} gives its default`);
    }
  });

  it('gives the two fresh-machine commands on its first screen', () => {
    const firstScreen = readme.split('\n').slice(0, 25).join('\n');
    assert.match(firstScreen, /npm ci && npm run demo/);
    assert.match(firstScreen, /npm ci && npm test/);
  });
});
