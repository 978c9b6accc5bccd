import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonShapeProblem } from '../../src/protocol/json-shape.js';
import { fuzzRuns } from '../support/fuzz-runs.js';

/** The shape as JSON.parse sees it: containers inside each other, and object members in all. */
const shapeOf = (value: unknown): { depth: number; members: number } => {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 };
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  const own = Array.isArray(value) ? 0 : children.length;
  return children.map(shapeOf).reduce(
    (shape, child) => ({
      depth: Math.max(shape.depth, child.depth + 1),
      members: shape.members + child.members,
    }),
    { depth: 1, members: own },
  );
};

const bytesOf = (text: string) => new TextEncoder().encode(text);

describe('jsonShapeProblem', () => {
  it('passes any JSON text at its own depth and member count, and refuses it one below either', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const { depth, members } = shapeOf(value);
        assert.equal(jsonShapeProblem(bytesOf(text), { maxDepth: depth, maxMembers: members }), undefined);
        if (depth > 0) {
          assert.match(
            String(jsonShapeProblem(bytesOf(text), { maxDepth: depth - 1, maxMembers: members })),
            new RegExp(`nest more than ${depth - 1} deep`),
          );
        }
        if (members > 0) {
          assert.equal(
            jsonShapeProblem(bytesOf(text), { maxDepth: depth, maxMembers: members - 1 }),
            `more than ${members - 1} object members`,
          );
        }
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('reads brackets, colons and escaped quotes inside strings as text', () => {
    const text = JSON.stringify({ a: '[{:}]" \\"{', 'b\\': '\\', c: 'é:[' });
    assert.equal(jsonShapeProblem(bytesOf(text), { maxDepth: 1, maxMembers: 3 }), undefined);
    assert.equal(
      jsonShapeProblem(bytesOf(text), { maxDepth: 1, maxMembers: 2 }),
      'more than 2 object members',
    );
  });

  it('stops at the first byte past the depth, whatever follows', () => {
    const bytes = bytesOf('['.repeat(1_000_000));
    assert.equal(
      jsonShapeProblem(bytes, { maxDepth: 3, maxMembers: 10 }),
      'objects and arrays nest more than 3 deep (at byte 3)',
    );
  });

  it('leaves text that is not JSON (an unterminated string) to the parser', () => {
    assert.equal(jsonShapeProblem(bytesOf('{"a":"[[[[[['), { maxDepth: 1, maxMembers: 1 }), undefined);
  });
});
