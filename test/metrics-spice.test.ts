import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_METRIC_NAMES, evaluate, resolveMetrics } from '../src/metrics/evaluate';
import { captionTuples, elementsMatch, matchCount, referenceTuples, score, spiceDetails, spiceOf, tuplesMatch } from '../src/metrics/spice';

/** Tuples as "(a, b, c)" strings, sorted: order-free exact comparison. */
const tuples = (caption: string): string[] =>
  captionTuples(caption)
    .map((t) => `(${t.join(', ')})`)
    .sort();

const close = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

test('SPICE Figure 1: "two women are sitting at a white table"', () => {
  assert.deepEqual(tuples('two women are sitting at a white table'), ['(table)', '(table, white)', '(woman)', '(woman, sit at, table)', '(woman, two)'].sort());
});

test('SPICE Figure 1: "a young girl standing on top of a tennis court" (compound → attribute, multi-word preposition)', () => {
  assert.deepEqual(
    tuples('a young girl standing on top of a tennis court'),
    ['(court)', '(court, tennis)', '(girl)', '(girl, stand on top of, court)', '(girl, young)'].sort(),
  );
});

test('parse rules: subject–verb–object, verb + preposition, copula, conjunction, plural count', () => {
  assert.deepEqual(tuples('a man riding a horse'), ['(horse)', '(man)', '(man, ride, horse)']);
  assert.deepEqual(tuples('a cat sitting on a bed'), ['(bed)', '(cat)', '(cat, sit on, bed)']);
  assert.deepEqual(tuples('the dog is brown'), ['(dog)', '(dog, brown)']);
  assert.deepEqual(tuples('a dog and a cat on a couch'), ['(cat)', '(cat, on, couch)', '(couch)', '(dog)', '(dog, on, couch)']);
  assert.deepEqual(tuples('two dogs'), ['(dog)', '(dog, two)']);
  assert.deepEqual(tuples('a man is skiing'), ['(man)', '(man, ski)']);
  assert.deepEqual(tuples('a red and white bus'), ['(bus)', '(bus, red)', '(bus, white)']);
  assert.deepEqual(tuples('a group of people standing around a table'), ['(people)', '(people, stand around, table)', '(table)']);
  assert.deepEqual(tuples('a cat sitting on a bed next to a window'), ['(bed)', '(bed, next to, window)', '(cat)', '(cat, sit on, bed)', '(window)']);
  assert.deepEqual(tuples("a man 's hand holding a phone"), ['(hand)', '(hand, hold, phone)', '(man)', '(man, have, hand)', '(phone)']);
  assert.deepEqual(tuples(''), []);
});

test('element and tuple matching: equal lemmas or a shared WordNet synset, word by word', () => {
  assert.ok(elementsMatch('couch', 'sofa'));
  assert.ok(elementsMatch('sit on', 'sit on'));
  assert.ok(!elementsMatch('sit on', 'sit'));
  assert.ok(!elementsMatch('dog', 'car'));
  assert.ok(tuplesMatch(['man', 'on', 'couch'], ['man', 'on', 'sofa']));
  assert.ok(!tuplesMatch(['man'], ['man', 'tall']));
});

test('each reference tuple is used once (one-to-one matching)', () => {
  // couch and sofa both match the one reference tuple (couch), which can be used once
  assert.equal(matchCount([['couch'], ['sofa']], [['couch']]), 1);
  // lounge ≡ couch (the sofa synset) and lounge ≡ loiter (a verb synset); sofa ≡ couch only.
  // A greedy pass gives (couch) to (lounge) and leaves (sofa) unmatched; the maximum matching
  // moves (lounge) to (loiter): 2 matches.
  assert.ok(elementsMatch('lounge', 'loiter') && !elementsMatch('sofa', 'loiter'));
  assert.equal(matchCount([['lounge'], ['sofa']], [['couch'], ['loiter']]), 2);
});

test('identical captions score 1, disjoint captions 0, an empty candidate 0', () => {
  const same = spiceOf('a man riding a horse', ['a man riding a horse']);
  assert.deepEqual([same.precision, same.recall, same.f1], [1, 1, 1]);
  const disjoint = spiceOf('a red car', ['two dogs']);
  assert.deepEqual([disjoint.precision, disjoint.recall, disjoint.f1, disjoint.matched], [0, 0, 0, 0]);
  assert.equal(spiceOf('', ['a dog']).f1, 0);
});

test('synonyms match through WordNet: "a man on a couch" vs "a man on a sofa"', () => {
  const d = spiceOf('a man on a couch', ['a man on a sofa']);
  assert.deepEqual([d.candidateTuples, d.referenceTuples, d.matched, d.f1], [3, 3, 3, 1]);
});

test('reference union: a tuple matching one already in T(S) is not added again', () => {
  // (man) (couch) (man, on, couch) from the first; the second adds nothing (sofa ≡ couch)
  assert.equal(referenceTuples(['a man on a couch', 'a man on a sofa']).length, 3);
});

test('a partial match, F1 computed by hand', () => {
  // candidate: (girl) (court) (court, tennis) (girl, stand on, court)                       |T(c)| = 4
  // references' union: (girl) (court) (girl, young) (court, tennis) (girl, stand on top of, court)
  //                    + (girl, on, court) from the second reference                       |T(S)| = 6
  // matched: (girl) (court) (court, tennis) = 3 → P = 3/4, R = 3/6, F1 = 2·0.75·0.5/1.25 = 0.6
  const d = spiceOf('a girl standing on a tennis court', ['a young girl standing on top of a tennis court', 'a girl on a tennis court']);
  assert.deepEqual([d.candidateTuples, d.referenceTuples, d.matched], [4, 6, 3]);
  close(d.precision, 0.75);
  close(d.recall, 0.5);
  close(d.f1, 0.6);
});

test('corpus SPICE is the mean of per-image F1; details give P, R and counts', () => {
  const references = { a: ['a young girl standing on top of a tennis court', 'a girl on a tennis court'], b: ['a man on a sofa'], c: ['two dogs'] };
  const candidates = { a: 'a girl standing on a tennis court', b: 'a man on a couch', c: 'a red car' };
  const result = score(references, candidates);
  close(result.SPICE.perImage.a, 0.6);
  close(result.SPICE.perImage.b, 1);
  close(result.SPICE.perImage.c, 0);
  close(result.SPICE.corpus, (0.6 + 1 + 0) / 3);
  assert.equal(spiceDetails(references, candidates).b.matched, 3);
});

test('evaluate(): SPICE only when asked for by name', () => {
  assert.ok(!DEFAULT_METRIC_NAMES.includes('SPICE'));
  assert.deepEqual(resolveMetrics(['spice']).names, ['SPICE']);
  assert.deepEqual(resolveMetrics(['SPICE']).families, ['spice']);
  const cases = [{ imageId: '1', references: ['A man on a sofa.'], candidate: 'A man on a couch.' }];
  assert.ok(!('SPICE' in evaluate(cases).corpus));
  assert.equal(evaluate(cases, { metrics: ['SPICE'] }).corpus.SPICE, 1);
});
