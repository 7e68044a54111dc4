import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bleuStats, score } from '../src/metrics/bleu';
import { countCorpus } from '../src/metrics/ngrams';

const statsOf = (candidate: string, references: string[]) => bleuStats(countCorpus({ x: references }, { x: candidate }).image(0));

const close = (actual: number, expected: number, tol = 1e-6) => assert.ok(Math.abs(actual - expected) <= tol, `${actual} ≠ ${expected}`);

test('identical candidate and reference score 1 at every order', () => {
  const s = score({ a: ['a b c d e'] }, { a: 'a b c d e' });
  for (const k of [1, 2, 3, 4]) close(s[`Bleu_${k}`].corpus, 1);
});

test('candidate counts are clipped to the largest count in any one reference', () => {
  // "the" ×4 against "the cat": 1 of 4 unigrams match; candidate longer than reference → no penalty
  const s = score({ a: ['the cat'] }, { a: 'the the the the' });
  close(s.Bleu_1.corpus, 0.25);
  const stats = statsOf('the the the', ['the the cat', 'the dog']);
  assert.deepEqual(stats.correct.slice(0, 2), [2, 1]);
  assert.deepEqual(stats.guess, [3, 2, 1, 0]);
});

test('brevity penalty uses exp(1 - r/c) with the closest reference length, ties to the shorter', () => {
  const s = score({ a: ['a b c d'] }, { a: 'a b' });
  close(s.Bleu_1.corpus, Math.exp(1 - 4 / 2));
  assert.equal(statsOf('x y z', ['a b c d', 'a b']).referenceLength, 2);
  assert.equal(statsOf('x y z', ['a b c d e', 'a b c d']).referenceLength, 4);
});

test('corpus BLEU sums statistics over images rather than averaging per-image scores', () => {
  const s = score({ a: ['a b'], b: ['c d e f'] }, { a: 'a b', b: 'c x' });
  // unigrams: 3 of 4 match; candidate length 4 in all against closest reference lengths 2 + 4 = 6 → penalty
  close(s.Bleu_1.corpus, (3 / 4) * Math.exp(1 - 6 / 4));
  close(s.Bleu_1.perImage.a, 1);
  close(s.Bleu_1.perImage.b, 0.5 * Math.exp(1 - 4 / 2));
});

test('an empty candidate scores 0, not NaN', () => {
  const s = score({ a: ['a dog'], b: ['a cat'] }, { a: '', b: 'a cat' });
  for (const k of [1, 2, 3, 4]) {
    assert.equal(s[`Bleu_${k}`].perImage.a, 0);
    assert.ok(Number.isFinite(s[`Bleu_${k}`].corpus));
  }
});
