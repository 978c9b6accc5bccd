import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * The README's layout table and docs/architecture.md's layer picture are drawn from the tree: each names
 * every folder of `src/`, and each `src/…` folder they name exists.
 */
const ROOT = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8');

const srcFolders = readdirSync(new URL('src/', ROOT))
  .filter((name) => statSync(new URL(`src/${name}`, ROOT)).isDirectory())
  .sort();

/** The `src/<folder>` names a text mentions, the top-level folder of each. */
const foldersNamed = (text: string): string[] =>
  [...new Set([...text.matchAll(/src\/([a-z][\w-]*)(?=[/`\s]|$)/gm)].map((match) => match[1] ?? ''))]
    .filter((name) => !name.endsWith('.ts'))
    .sort();

const section = (text: string, start: string, end: string): string => {
  const from = text.indexOf(start);
  assert.ok(from >= 0, `no "${start}"`);
  return text.slice(from, text.indexOf(end, from + start.length));
};

describe('the layout as the docs draw it', () => {
  it('README: the layout table names every folder of src/, and only those', () => {
    const readme = read('README.md');
    const table = section(readme, '| Folder ', '\n\n');
    assert.deepEqual(foldersNamed(table), srcFolders);
  });

  it('docs/architecture.md: the layer picture names every folder of src/, and only those', () => {
    const picture = section(read('docs/architecture.md'), '## Layers', '\n```\n\n');
    assert.deepEqual(foldersNamed(picture), srcFolders);
  });
});
