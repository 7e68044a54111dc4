import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  ALL_POS,
  WordNetReader,
  hypernyms,
  lemmaBaseForms,
  parseSynsetId,
  synsetId,
  synsetsOf,
  wordnet,
  wordnetDictPath,
  wordnetLoadStats,
} from '../src/wordnet';

test('nothing is loaded before the first query', () => {
  const reader = new WordNetReader(wordnetDictPath());
  assert.deepEqual(reader.loadStats, {});
  assert.equal(reader.isLemma('dog', 'n'), true);
  assert.equal(typeof reader.loadStats.indexMs, 'number');
  assert.ok((reader.loadStats.lemmaCount ?? 0) > 140000, 'all four index files parsed');
});

test('car and automobile share a synset', () => {
  const car = synsetsOf('car');
  const automobile = synsetsOf('automobile');
  const shared = car.filter((id) => automobile.includes(id));
  assert.ok(shared.length >= 1);
  const rec = wordnet().synset(shared[0]!);
  assert.equal(rec.pos, 'n');
  assert.ok(rec.lemmas.includes('car') && rec.lemmas.includes('automobile'));
  assert.ok(wordnet().areSynonyms('car', 'automobile'));
  assert.ok(!wordnet().areSynonyms('car', 'banana'));
});

test('morphy: exception lists', () => {
  assert.deepEqual(lemmaBaseForms('geese', 'n'), ['goose']);
  assert.deepEqual(lemmaBaseForms('running', 'v'), ['run']);
  assert.deepEqual(lemmaBaseForms('mice', 'n'), ['mouse']);
  assert.ok(lemmaBaseForms('better', 'a').includes('good'));
  assert.ok(wordnet().loadStats.exceptionSource !== undefined);
});

test('morphy: detachment rules and the word itself', () => {
  assert.deepEqual(lemmaBaseForms('dogs', 'n'), ['dog']);
  assert.deepEqual(lemmaBaseForms('churches', 'n'), ['church']);
  assert.deepEqual(lemmaBaseForms('walked', 'v'), ['walk']);
  assert.deepEqual(lemmaBaseForms('taller', 'a'), ['tall']);
  // A lemma is its own base form; nouns in "ss" are not stripped.
  assert.deepEqual(lemmaBaseForms('glass', 'n'), ['glass']);
  assert.ok(lemmaBaseForms('glasses', 'n').includes('glass'));
  // No base form in that part of speech.
  assert.deepEqual(lemmaBaseForms('quickly', 'n'), []);
  assert.deepEqual(lemmaBaseForms('xyzzyq', 'v'), []);
});

test('synsetsOf covers every part of speech and base forms', () => {
  const geese = new Set(synsetsOf('geese'));
  const gooseNouns = synsetsOf('goose').filter((id) => id.startsWith('n'));
  assert.ok(gooseNouns.length > 0);
  for (const id of gooseNouns) assert.ok(geese.has(id), `geese has ${id}`);
  // "geese" is only a noun form: the verb "goose" is not reached.
  assert.ok(![...geese].some((id) => id.startsWith('v')));
  const poses = new Set(synsetsOf('run').map((id) => id.charAt(0)));
  assert.ok(poses.has('n') && poses.has('v'));
  assert.ok(synsetsOf('running').some((id) => synsetsOf('run').includes(id)));
  assert.deepEqual(synsetsOf('qwertyuiop'), []);
  assert.deepEqual(synsetsOf('Car'), synsetsOf('car'), 'lower-cased');
});

test('synset ids round-trip', () => {
  assert.equal(synsetId('n', 2961779), 'n02961779');
  assert.deepEqual(parseSynsetId('v01934709'), { pos: 'v', offset: 1934709 });
  assert.deepEqual([...ALL_POS], ['n', 'v', 'a', 'r']);
  assert.throws(() => parseSynsetId('x0001'));
});

test('hypernym pointers: car is a motor vehicle, chain ends at entity', () => {
  const wn = wordnet();
  const car = synsetsOf('automobile').find((id) => id.startsWith('n'))!;
  const up = hypernyms(car);
  assert.ok(up.some((id) => wn.synset(id).lemmas.includes('motor_vehicle')));
  let id = car;
  const chain = [id];
  for (let guard = 0; guard < 40; guard++) {
    const h = hypernyms(id);
    if (h.length === 0) break;
    id = h[0]!;
    chain.push(id);
  }
  assert.deepEqual(wn.synset(chain[chain.length - 1]!).lemmas, ['entity']);
  assert.ok(chain.length > 5);
});

test('load time is reported', () => {
  synsetsOf('dog');
  const stats = wordnetLoadStats();
  assert.equal(typeof stats.indexMs, 'number');
  assert.equal(typeof stats.exceptionsMs, 'number');
  assert.ok(stats.indexMs! < 10000);
});
