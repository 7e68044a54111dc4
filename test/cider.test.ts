import assert from 'node:assert/strict';
import { test } from 'node:test';
import { score } from '../src/metrics/cider';

const close = (actual: number, expected: number, tol = 1e-9) => assert.ok(Math.abs(actual - expected) <= tol, `${actual} ≠ ${expected}`);

test('a single image scores 0: document frequencies come from the evaluated set', () => {
  const s = score({ a: ['a dog on a sofa', 'a dog on a couch'] }, { a: 'a dog on a sofa' });
  assert.equal(s.CIDEr.corpus, 0);
  assert.equal(s.CIDEr.perImage.a, 0);
});

test('two disjoint perfect captions: orders 1 and 2 match fully, 3 and 4 are empty → 10 × 2/4 = 5', () => {
  const s = score({ a: ['a b'], b: ['c d'] }, { a: 'a b', b: 'c d' });
  close(s.CIDEr.perImage.a, 5);
  close(s.CIDEr.perImage.b, 5);
  close(s.CIDEr.corpus, 5);
});

test('n-grams found in every image carry no weight', () => {
  const s = score({ a: ['the x'], b: ['the y'] }, { a: 'the z', b: 'the y' });
  assert.equal(s.CIDEr.perImage.a, 0);
  assert.ok(s.CIDEr.perImage.b > 0);
});

test('repeating a matched word is clipped and the length penalty (sigma 6) lowers the score', () => {
  const refs = { a: ['red apple'], b: ['blue car'] };
  const exact = score(refs, { a: 'red apple', b: 'blue car' }).CIDEr.perImage.a;
  const repeated = score(refs, { a: 'red red red apple', b: 'blue car' }).CIDEr.perImage.a;
  assert.ok(repeated < exact, `${repeated} should be below ${exact}`);
  const longer = score(refs, { a: 'red apple ' + 'x '.repeat(12).trim(), b: 'blue car' }).CIDEr.perImage.a;
  assert.ok(longer < exact);
});

test('an empty candidate scores 0, not NaN', () => {
  const s = score({ a: ['a dog'], b: ['a cat'] }, { a: '', b: 'a cat' });
  assert.equal(s.CIDEr.perImage.a, 0);
  assert.ok(Number.isFinite(s.CIDEr.corpus));
});
