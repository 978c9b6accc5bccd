import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layers of docs/architecture.md, held: a folder of src/ (each top-level entry is one) imports only
 * folders below it, so there is no folder cycle, and only the composition root reaches the port's
 * adapters and the robot's stand-ins. A new folder fails here until it is given its place.
 */

/** From the top to the bottom. */
const LAYERS = [
  'server',
  'app',
  'cli',
  'ros/rclnodejs',
  'robot',
  'transport',
  'state',
  'actors',
  'streams',
  'ros/tour-message',
  'protocol',
  'metrics',
  'ros/port',
  'ros/binding',
  'ros/zenoh',
  'log',
  'files',
  'version',
] as const;

/** Rooms that stand alone: they import no other room of src/, whatever their rank. */
const LEAVES = ['protocol', 'files', 'version'] as const;

/** The most lines a file of src/ holds: past it a file holds more than one idea (docs/architecture.md). */
const MAX_FILE_LINES = 400;

/** What stands in for the robot reaches none of the bridge's runtime, only the contract it serves. */
const ROBOT_MAY_NOT_IMPORT = ['app', 'transport', 'actors', 'streams', 'metrics'] as const;

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

const sourceFiles = (directory: string): string[] =>
  readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/**
 * The folder (or top-level file, without extension) of src/ a path is in; in src/ros/, ROS's one home,
 * the folder (or file) below it, since the port's adapter stands above its contract.
 */
const roomOf = (path: string): string => {
  const [top = '', below = ''] = relative(SRC, path).split('/');
  return (top === 'ros' ? `ros/${below}` : top).replace(/\.ts$/, '');
};

// Static imports and exports with a relative specifier, and dynamic `import('./…')`.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly file: string;
  /** The imported file, relative to src/. */
  readonly target: string;
}

const edges = (): Edge[] =>
  sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((match) => {
      const specifier = match[1] ?? match[2] ?? '';
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (!target.startsWith(`${SRC}/`)) return [];
      const from = roomOf(file);
      const to = roomOf(target);
      return [{ from, to, file: relative(SRC, file), target: relative(SRC, target) }];
    }),
  );

describe('layers of src/', () => {
  const everyImport = edges();
  const all = everyImport.filter((edge) => edge.from !== edge.to);

  it('finds the imports it checks (the reader works)', () => {
    assert.ok(all.some((edge) => edge.from === 'transport' && edge.to === 'actors'));
    assert.ok(all.some((edge) => edge.from === 'actors' && edge.to === 'streams'));
    assert.ok(all.length > 30, `${all.length} imports between folders`);
  });

  it('gives every folder of src/ its place, the required rooms among them', () => {
    const rooms = new Set(sourceFiles(SRC).map(roomOf));
    for (const room of rooms) assert.ok((LAYERS as readonly string[]).includes(room), `${room} has no layer`);
    for (const required of ['server', 'actors', 'streams']) assert.ok(rooms.has(required), required);
  });

  it('imports only downwards: no import runs back up a layer, so no folder cycle', () => {
    const rank = (room: string) => (LAYERS as readonly string[]).indexOf(room);
    const upwards = all
      .filter((edge) => rank(edge.from) >= rank(edge.to))
      .map((edge) => `${edge.file} imports ${edge.to}/`);
    assert.deepEqual(upwards, []);
  });

  it('keeps the pure rooms pure: protocol imports no ROS, files and version nothing', () => {
    const leaving = all
      .filter((edge) => (LEAVES as readonly string[]).includes(edge.from))
      .map((edge) => `${edge.file} imports ${edge.to}/`);
    // No exception: the tour's ROS message mapping is src/ros/tour-message.ts, between protocol and the port.
    assert.deepEqual(leaving, []);
  });

  it('keeps the robot off the bridge: no import of its transport, actors, streams, metrics or wiring', () => {
    const reaching = all
      .filter(
        (edge) => edge.from === 'robot' && (ROBOT_MAY_NOT_IMPORT as readonly string[]).includes(edge.to),
      )
      .map((edge) => `${edge.file} imports ${edge.to}/`);
    assert.deepEqual(reaching, []);
  });

  it('keeps the port adapters behind the composition root: the robot and every other room reach ROS through the port', () => {
    assert.ok(everyImport.some((edge) => edge.target.startsWith('ros/rclnodejs/')));
    const importers = [
      ...new Set(all.filter((edge) => edge.to === 'ros/rclnodejs').map((edge) => edge.from)),
    ];
    assert.deepEqual(importers, ['app']);
  });

  it('keeps the robot apart: only the composition root imports it', () => {
    const importers = [...new Set(all.filter((edge) => edge.to === 'robot').map((edge) => edge.from))];
    assert.deepEqual(importers, ['app']);
  });

  it(`keeps every file of src/ within ${MAX_FILE_LINES} lines`, () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 100, 'the reader finds the source files');
    const over = files
      .map((file) => ({
        file: relative(SRC, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    assert.deepEqual(over, []);
  });
});
