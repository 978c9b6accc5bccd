import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latestWords, VISITOR_WORDS_MAX_CHARS, VisitorWords } from '../../web/src/visitor-words.js';

const transcript = (turn: number, text: string, final = false) =>
  ({ type: 'transcript', turn, text, final }) as const;

describe('VisitorWords', () => {
  it('replaces each partial transcript with the next, and the final one corrects them', () => {
    const words = new VisitorWords();
    assert.deepEqual(words.view, { text: '', final: false });
    assert.equal(words.heard(transcript(2, 'where is')), true);
    assert.deepEqual(words.view, { text: 'where is', final: false });
    assert.equal(words.turn, 2);
    assert.equal(words.heard(transcript(2, 'where is the')), true);
    assert.equal(words.heard(transcript(2, 'where is the')), false, 'the same words change nothing');
    assert.equal(words.heard(transcript(2, 'where is the dinosaur', true)), true);
    assert.deepEqual(words.view, { text: 'where is the dinosaur', final: true });
    // A partial that arrives after the final one of its turn is stale.
    assert.equal(words.heard(transcript(2, 'where is the dino')), false);
    assert.deepEqual(words.view, { text: 'where is the dinosaur', final: true });
  });

  it('shows the next turn’s words in place of the last', () => {
    const words = new VisitorWords();
    words.heard(transcript(1, 'hello', true));
    words.heard(transcript(2, 'and'));
    assert.deepEqual(words.view, { text: 'and', final: false });
    assert.equal(words.turn, 2);
  });

  it('clears, and says whether there was anything to clear', () => {
    const words = new VisitorWords();
    assert.equal(words.clear(), false);
    words.heard(transcript(1, 'hello'));
    assert.equal(words.clear(), true);
    assert.deepEqual(words.view, { text: '', final: false });
    assert.equal(words.turn, undefined);
  });
});

describe('latestWords', () => {
  it('keeps a short line as it is, spaces tidied', () => {
    assert.equal(latestWords('  where   is\nthe  cafe '), 'where is the cafe');
  });

  it('keeps the latest words of a long line, from a word on, within the limit', () => {
    const said = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const shown = latestWords(said);
    assert.ok(shown.length <= VISITOR_WORDS_MAX_CHARS, `${shown.length} characters`);
    assert.ok(shown.startsWith('…word'), shown);
    assert.ok(shown.endsWith(' word59'));
    assert.ok(said.endsWith(shown.slice(1)));
  });

  it('cuts one overlong word at the limit', () => {
    const shown = latestWords('x'.repeat(500), 20);
    assert.equal(shown, `…${'x'.repeat(19)}`);
  });
});
