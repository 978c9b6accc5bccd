import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tourMsgToJson, tourToMsg } from '../../src/ros/tour-message.js';
import {
  IF_MATCH_MAX_CHARS,
  ifMatchHolds,
  parseIfMatch,
  tourEntityTag,
} from '../../src/protocol/tour-version.js';

const TAG = `"${'a'.repeat(43)}"`;

describe('tour entity tags', () => {
  it('depend on the content alone: equal tours, equal tags; any change, another tag', () => {
    const tour = {
      tour_name: 'garden',
      map_name: 'park',
      steps: [{ description: 'Roses', destination: null, dialogue: '' }],
    };
    const tag = tourEntityTag(tourMsgToJson(tourToMsg(tour)));
    assert.match(tag, /^"[A-Za-z0-9_-]{43}"$/);
    // A copy built separately (another node's answer) has the same tag.
    assert.equal(tourEntityTag(tourMsgToJson(tourToMsg(structuredClone(tour)))), tag);
    // null and "" differ, as the API keeps them apart.
    const nulled = { ...tour, steps: [{ description: 'Roses', destination: null, dialogue: null }] };
    assert.notEqual(tourEntityTag(tourMsgToJson(tourToMsg(nulled))), tag);
    assert.notEqual(tourEntityTag(tourMsgToJson(tourToMsg({ ...tour, map_name: 'park ' }))), tag);
  });
});

describe('If-Match', () => {
  it('reads absent, *, and lists of strong and weak tags', () => {
    assert.deepEqual(parseIfMatch(''), { kind: 'absent' });
    assert.deepEqual(parseIfMatch('*'), { kind: 'any' });
    assert.deepEqual(parseIfMatch(` ${TAG} `), { kind: 'tags', tags: [{ tag: TAG, weak: false }] });
    assert.deepEqual(parseIfMatch(`"x", W/"y",${TAG}`), {
      kind: 'tags',
      tags: [
        { tag: '"x"', weak: false },
        { tag: '"y"', weak: true },
        { tag: TAG, weak: false },
      ],
    });
    // A comma inside a tag is part of it (etagc allows it).
    assert.deepEqual(parseIfMatch('"a,b"'), { kind: 'tags', tags: [{ tag: '"a,b"', weak: false }] });
  });

  it('refuses what is no list of quoted tags, saying so', () => {
    for (const value of ['abc', `${TAG} junk`, '"open', '  ', '*, "x"', `"a"b"`]) {
      const parsed = parseIfMatch(value);
      assert.equal(parsed.kind, 'invalid', value);
    }
    const long = parseIfMatch(`"${'a'.repeat(IF_MATCH_MAX_CHARS)}"`);
    assert.equal(long.kind, 'invalid');
  });

  it('compares strongly: the same tag matches, a weak one never does', () => {
    const strong = parseIfMatch(`"x", ${TAG}`);
    const weak = parseIfMatch(`W/${TAG}`);
    assert.ok(strong.kind === 'tags' && weak.kind === 'tags');
    assert.equal(ifMatchHolds(strong, TAG), true);
    assert.equal(ifMatchHolds(strong, '"y"'), false);
    assert.equal(ifMatchHolds(weak, TAG), false);
  });
});
