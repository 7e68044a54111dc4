import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lcsLength, rougeL, score } from '../src/metrics/rouge';

const close = (actual: number, expected: number, tol = 1e-12) => assert.ok(Math.abs(actual - expected) <= tol, `${actual} ≠ ${expected}`);

test('longest common subsequence', () => {
  assert.equal(lcsLength('a b c d e'.split(' '), 'a c e'.split(' ')), 3);
  assert.equal(lcsLength('a b'.split(' '), 'c d'.split(' ')), 0);
  assert.equal(lcsLength([], ['a']), 0);
  assert.equal(lcsLength('b a c'.split(' '), 'a b c'.split(' ')), 2);
});

test('F with beta 1.2 from LCS precision and recall', () => {
  const p = 2 / 3;
  const r = 1;
  close(rougeL(['a', 'b', 'c'], [['a', 'c']]), ((1 + 1.44) * p * r) / (r + 1.44 * p));
});

test('best precision and best recall are taken separately over references, as coco-caption does', () => {
  // ref 1: P = 2/4, R = 1; ref 2: P = 1, R = 4/6 → max P = 1, max R = 1 → F = 1
  close(rougeL('a b c d'.split(' '), ['a b'.split(' '), 'a b c d e f'.split(' ')]), 1);
});

test('corpus value is the mean over images; an empty candidate scores 0', () => {
  const s = score({ a: ['a b'], b: ['c d'] }, { a: 'a b', b: '' });
  assert.equal(s.ROUGE_L.perImage.b, 0);
  close(s.ROUGE_L.corpus, 0.5);
});
