/**
 * The CC3M dataset tables' computations (src/experiments/cc3m-dataset.ts) on inputs small enough to check by
 * hand: the transform trace, the ground-truth quality judge, the URL-hash split and its statistics, and the
 * out-of-domain coverage. The notebook (notebooks/02-cc3m-dataset.ipynb, test/notebooks.test.ts) runs them on a world.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import {
  DEFAULT_URL_SPLIT_FRACTIONS,
  datasetSplits,
  examplesPerTransform,
  isPersonMention,
  namesLeft,
  outOfDomainCoverage,
  poolQuality,
  readRejects,
  splitOf,
  splitStatistics,
  traceCc3mTransform,
  transformCounts,
  urlUnit,
  webGroundingVocabulary,
  type TransformTrace,
} from '../src/experiments/cc3m-dataset';
import { readWebTruth } from '../src/experiments/world-stats';
import type { ConceptCatalog } from '../src/wordnet/catalog';

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-cc3m-dataset-'));
after(() => fs.rmSync(temporary, { recursive: true, force: true }));

/** A two-concept catalog: durian is long-tail (→ fruit), dog is common (kept). */
const catalog: ConceptCatalog = {
  name: 'test',
  longestName: 1,
  concept: (name) => (name === 'durian' ? { common: false, hypernym: 'fruit' } : name === 'dog' ? { common: true, hypernym: 'animal' } : undefined),
};

test('transform trace: boilerplate crop, locative phrase and hypernym marked; CC12M keeps the text', () => {
  const t = traceCc3mTransform('Stock photo of a durian on a table in Paris.', { catalog, hypernymRule: 'every-noun' });
  assert.equal(t.caption, 'a fruit on a table');
  assert.deepEqual(t.cropped, ['Stock photo of']);
  // "in Paris" goes with the locative rule alone ("Paris" → "city" without it); "a ... table" was already lower case
  assert.deepEqual(t.transforms, ['boilerplate', 'locations', 'hypernyms']);
  assert.deepEqual(t.names, []);
  assert.equal(t.cc12m, 'a durian on a table in Paris.');
});

test('transform trace: a name and a date removed, <PERSON> in CC12M', () => {
  const t = traceCc3mTransform('Actor Harrison Ford attends the premiere on May 5, 2015.', { catalog });
  assert.equal(t.caption, 'actor attends the premiere');
  assert.deepEqual(t.transforms, ['dates', 'entities', 'lowercase']);
  assert.deepEqual(t.names, ['Harrison Ford']);
  assert.equal(t.cc12m, 'Actor <PERSON> attends the premiere on May 5, 2015.');
});

test('transform trace: numbers dropped, "a dog and a dog" merged; too short after the rewrite is a rejection', () => {
  const merged = traceCc3mTransform('A dog and a dog on the grass with 3 balls', { catalog });
  assert.equal(merged.caption, 'dogs on the grass with balls');
  assert.deepEqual(merged.transforms, ['modifiers', 'coordination']);
  const short = traceCc3mTransform('Photo by Anna Smith - stock photo', { catalog });
  assert.equal(short.caption, null);
  assert.equal(short.rejected, 'transform:too-short');
  assert.deepEqual(short.cropped, ['Photo by', 'stock photo']);
  assert.equal(short.cc12m, '<PERSON>');
});

const trace = (caption: string | null, transforms: TransformTrace['transforms'], names: string[] = []): TransformTrace => ({
  altText: 'x',
  caption,
  transforms,
  cropped: [],
  names,
  cc12m: 'x',
});

test('transform counts, first example per rewrite, names left in a caption', () => {
  const traces = [trace('a fruit', ['hypernyms', 'lowercase']), trace('a fruit near a city', ['hypernyms', 'entities']), trace(null, ['dates'])];
  const counts = transformCounts(traces);
  assert.equal(counts.hypernyms, 2);
  assert.equal(counts.entities, 1);
  assert.equal(counts.dates, 1);
  assert.equal(counts.coordination, 0);
  const examples = examplesPerTransform(traces);
  // each trace at most once; a rejected trace is no example; lower-casing is skipped by default
  assert.equal(examples.get('hypernyms'), traces[0]);
  assert.equal(examples.get('entities'), traces[1]);
  assert.equal(examples.has('dates'), false);
  assert.equal(examples.has('lowercase'), false);
  const left = namesLeft([
    trace('actor ann lee at a gala', ['lowercase'], ['Ann Lee']),
    trace('a leek soup', [], ['Lee']),
    trace('actor at a gala', ['entities'], ['Ann Lee']),
  ]);
  assert.equal(left.length, 1, 'whole words only: "leek" is not "Lee"');
  assert.equal(left[0]!.caption, 'actor ann lee at a gala');
  // other names than the detected ones (the world's truth)
  const truthNames = [{ ...trace('photo by bo kim', []), truthNames: ['Bo Kim'] }];
  assert.equal(namesLeft(truthNames).length, 0);
  assert.equal(namesLeft(truthNames, (t) => t.truthNames).length, 1);
});

test('quality: GOOD names a present object and no absent one; person mentions counted apart', () => {
  const file = path.join(temporary, 'truth.jsonl');
  const rows = [
    { url: 'u1', concepts: ['dog'], describesImage: true, tags: [] },
    { url: 'u2', concepts: ['dog'], describesImage: true },
    { url: 'u3', concepts: ['dog'], describesImage: false },
    { url: 'u4', concepts: ['dog'], describesImage: true },
    { url: 'u5', concepts: ['durian'], describesImage: true, persons: [{ start: 0, end: 7, name: 'Ann Lee', role: 'chef' }], tags: ['durian', 'fruit'] },
  ];
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const truth = readWebTruth(file);
  assert.equal(truth.size, 5);
  assert.deepEqual(truth.get('u5'), { concepts: ['durian'], describesImage: true, persons: ['Ann Lee'], tags: ['durian', 'fruit'] });
  assert.deepEqual(truth.get('u2')!.tags, [], 'no tags: none');
  assert.deepEqual(truth.get('u1')!.persons, []);
  const vocabulary = webGroundingVocabulary();
  assert.ok(isPersonMention('<person>', vocabulary) && isPersonMention('actor', vocabulary) && !isPersonMention('dog', vocabulary));
  const q = poolQuality(
    [
      { url: 'u1', caption: 'a dog on the grass' }, // GOOD
      { url: 'u2', caption: 'a dog and a cat' }, // cat is absent
      { url: 'u3', caption: 'a view of the sea' }, // no object
      { url: 'u4', caption: '<PERSON> with a dog at a press conference' }, // an absent person; "press" is frame, not an object
      { url: 'u5', caption: 'a fruit on a plate' }, // GOOD by the durian's hypernym
      { url: 'u9', caption: 'a dog' }, // not in the truth
    ],
    truth,
    vocabulary,
  );
  assert.equal(q.pairs, 5);
  assert.equal(q.unmatched, 1);
  assert.equal(q.good, 2);
  assert.equal(q.goodRate, 2 / 5);
  assert.equal(q.goodExceptPersonsRate, 3 / 5);
  assert.equal(q.hallucinationRate, 2 / 5);
  assert.equal(q.personHallucinationRate, 1 / 5);
  assert.equal(q.noObjectRate, 1 / 5);
  assert.equal(q.describesImageRate, 4 / 5);
  assert.deepEqual(q.topHallucinations, [
    ['<person>', 1],
    ['cat', 1],
  ]);
});

test('split statistics: examples, unique tokens, mean, population std, median', () => {
  // 2, 4 and 3 tokens; types a, dog, runs, fast, the, cat, sat
  const s = splitStatistics(['a dog', 'a dog runs fast', 'The cat sat']);
  assert.equal(s.examples, 3);
  assert.equal(s.uniqueTokens, 7);
  assert.equal(s.tokens, 9);
  assert.equal(s.mean, 3);
  assert.ok(Math.abs(s.std - Math.sqrt(2 / 3)) < 1e-12);
  assert.equal(s.median, 3);
  assert.equal(splitStatistics(['a b', 'a b c d']).median, 3, 'even count: the mean of the middle two');
  assert.ok(Number.isNaN(splitStatistics([]).mean));
});

test('splits by URL hash: deterministic, in proportion, every pair in one split', () => {
  assert.equal(urlUnit('world://0/web/1.jpg'), urlUnit('world://0/web/1.jpg'));
  const urls = Array.from({ length: 4000 }, (_, i) => `world://0/web/${i}.jpg`);
  for (const u of urls.slice(0, 50)) assert.ok(urlUnit(u) >= 0 && urlUnit(u) < 1);
  const counts = { train: 0, validation: 0, test: 0 };
  for (const u of urls) counts[splitOf(u)]++;
  assert.ok(Math.abs(counts.validation / urls.length - DEFAULT_URL_SPLIT_FRACTIONS.validation) < 0.02, `validation ${counts.validation}`);
  assert.ok(Math.abs(counts.test / urls.length - DEFAULT_URL_SPLIT_FRACTIONS.test) < 0.02, `test ${counts.test}`);
  assert.equal(splitOf(urls[0]!, { validation: 0, test: 0 }), 'train');
  assert.equal(splitOf(urls[0]!, { validation: 0, test: 1 }), 'test');
  assert.throws(() => splitOf(urls[0]!, { validation: 0.6, test: 0.6 }), /sum to ≤ 1/);
  const rows = urls.slice(0, 300).map((url) => ({ url, caption: 'a dog on the grass' }));
  const splits = datasetSplits(rows);
  assert.equal(splits.train.examples + splits.validation.examples + splits.test.examples, 300);
  assert.equal(splits.validation.examples, rows.filter((r) => splitOf(r.url) === 'validation').length);
  assert.equal(splits.train.mean, 5);
});

test('out-of-domain coverage: share of concepts mentioned in ≥ k captions of each pool', () => {
  const c = outOfDomainCoverage({ a: ['a durian here', 'two durians and a sitar', 'a kumquatx'], b: [] }, ['sitar', 'durian', 'kumquat', 'durian'], [1, 2]);
  assert.deepEqual(c.concepts, ['durian', 'kumquat', 'sitar']);
  assert.deepEqual(c.share.a, { 1: 2 / 3, 2: 1 / 3 });
  assert.deepEqual(c.share.b, { 1: 0, 2: 0 });
  assert.deepEqual(c.mentions.a, { durian: 2, kumquat: 0, sitar: 1 });
});

test('rejects: stage:reason by URL; a missing file is empty', () => {
  const file = path.join(temporary, 'rejects.jsonl');
  fs.writeFileSync(file, '{"line":1,"url":"u1","stage":"text","reason":"text:repetition"}\n{"line":2,"url":"u2","stage":"image","reason":"image:aspect"}\n');
  assert.deepEqual(
    [...readRejects(file)],
    [
      ['u1', 'text:repetition'],
      ['u2', 'image:aspect'],
    ],
  );
  assert.equal(readRejects(path.join(temporary, 'none.jsonl')).size, 0);
});
