/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --cpu-prof <dir>`): the functions
 * with the most self time and the most inclusive time, as shares of the profiled time.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--filter src/]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, ...rest] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter text]\n');
  process.exit(2);
}
const option = (flag: string): string | undefined => {
  const index = rest.indexOf(flag);
  return index === -1 ? undefined : rest[index + 1];
};
const top = Number(option('--top') ?? '25');
const filter = option('--filter');

const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const label = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    url === '' ? '' : ` ${url.replace(/^file:\/\/.*?\/(src|bench|node_modules)\//, '$1/')}:${lineNumber + 1}`;
  return `${functionName === '' ? '(anonymous)' : functionName}${where}`;
};

const selfUs = new Map<string, number>();
const totalUs = new Map<string, number>();
let allUs = 0;
let idleUs = 0;
profile.samples.forEach((sample, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const node = byId.get(sample);
  if (node === undefined) return;
  allUs += delta;
  if (node.callFrame.functionName === '(idle)') {
    idleUs += delta;
    return;
  }
  const own = label(node);
  selfUs.set(own, (selfUs.get(own) ?? 0) + delta);
  // Inclusive: once per distinct function on the stack.
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id);
    if (frame === undefined) break;
    const name = label(frame);
    if (seen.has(name)) continue;
    seen.add(name);
    totalUs.set(name, (totalUs.get(name) ?? 0) + delta);
  }
});

const busyUs = allUs - idleUs;
const print = (title: string, values: Map<string, number>) => {
  process.stdout.write(
    `\n${title} (share of busy time, ${(busyUs / 1e6).toFixed(2)} s busy of ${(allUs / 1e6).toFixed(2)} s)\n`,
  );
  [...values.entries()]
    .filter(([name]) => filter === undefined || name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, us]) => {
      process.stdout.write(`${((us / busyUs) * 100).toFixed(1).padStart(6)}%  ${name}\n`);
    });
};
print('Self time', selfUs);
print('Inclusive time', totalUs);
