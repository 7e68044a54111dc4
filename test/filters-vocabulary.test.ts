import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { REFERENCE_VOCABULARY, ReferenceVocabulary } from '../src/filters/reference-vocabulary';
import { filterPool } from '../src/filters/run';
import { CC12M_TEXT_FILTER, CC3M_TEXT_FILTER, TextFilter } from '../src/filters/text';
import { vocabularyChoice } from '../src/cli/filter';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-vocabulary-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const reference = new ReferenceVocabulary();
const scale = REFERENCE_VOCABULARY.referenceTokens / REFERENCE_VOCABULARY.corpusTokens;

test('reference vocabulary: SUBTLEX counts scaled to Wikipedia size, WordNet lemmas, parts', () => {
  // "broccoli" is 116 times in SUBTLEX-US: 116 × 2.5e9 / 51e6 ≈ 5,686
  assert.equal(Math.round(reference.count('broccoli')), Math.round(116 * scale));
  assert.equal(reference.count('Broccoli'), reference.count('broccoli'));
  // WordNet lemmas absent from SUBTLEX ("bollard", "wagtail") count wordnetCount; plurals through morphy
  const marked = new ReferenceVocabulary({ ...REFERENCE_VOCABULARY, wordnetCount: 7 });
  assert.equal(marked.count('bollard'), 7);
  assert.equal(marked.count('wagtails'), 7);
  assert.equal(marked.count('broccoli'), reference.count('broccoli'));
  // accents stripped, clitics and dotted words by their parts
  assert.ok(reference.count('café') > 20);
  assert.ok(reference.count("n't") > 20);
  assert.ok(reference.count('u.s.') > 20);
  // neither subtitles nor WordNet know these
  for (const word of ['hoverfly', 'inukshuk', 'räuchermännchen', 'zzxqv']) assert.equal(reference.count(word), 0, word);
});

test('the text filter with the reference keeps everyday nouns at the papers’ thresholds and rejects unknown words', () => {
  const cc12m = new TextFilter(CC12M_TEXT_FILTER, reference);
  assert.equal(cc12m.check('A beagle sleeping on the sofa.').keep, true);
  const verdict = cc12m.check('A hoverfly resting on a yellow flower.');
  assert.equal(verdict.keep, false);
  assert.equal(verdict.keep === false && verdict.reason, 'text:rare-words');
  const cc3m = new TextFilter(CC3M_TEXT_FILTER, reference);
  assert.equal(cc3m.check('A dachshund puppy sleeping on a blanket.').keep, true);
});

test('filterPool records which vocabulary it used; threads and main thread agree', async () => {
  const tsv = path.join(dir, 'real.tsv');
  const captions = [
    'A beagle sleeping on the sofa.',
    'A hoverfly resting on a yellow flower.',
    'A red bicycle leaning against a wall.',
    'A magellanic penguin on the beach.',
    'The old lighthouse on a rocky coast.',
  ];
  fs.writeFileSync(tsv, captions.map((c, i) => `http://example.com/${i}.jpg\t${c}`).join('\n') + '\n');
  const ref = await filterPool({ preset: 'cc12m', input: tsv, out: path.join(dir, 'ref'), stages: ['text'], nsfw: false, workers: 0 });
  assert.equal(ref.vocabulary?.kind, 'reference');
  assert.equal(ref.vocabulary?.threshold, 20);
  assert.equal(ref.kept, 3);
  const written = JSON.parse(fs.readFileSync(path.join(dir, 'ref', 'vocabulary.json'), 'utf8'));
  assert.equal(written.kind, 'reference');
  assert.equal(written.threshold, 20);
  assert.match(written.source, /SUBTLEX-US/);

  const threaded = await filterPool({ preset: 'cc12m', input: tsv, out: path.join(dir, 'ref-threads'), stages: ['text'], nsfw: false, workers: 1 });
  assert.equal(fs.readFileSync(path.join(dir, 'ref-threads', 'kept.tsv'), 'utf8'), fs.readFileSync(path.join(dir, 'ref', 'kept.tsv'), 'utf8'));
  assert.equal(threaded.kept, 3);

  // the input's own counts: 5 captions, threshold scaled to the floor 2, so every word seen once is rare
  const own = await filterPool({ preset: 'cc12m', input: tsv, out: path.join(dir, 'own'), stages: ['text'], nsfw: false, vocabulary: 'input' });
  assert.equal(own.vocabulary?.kind, 'input');
  assert.equal(own.vocabulary?.threshold, 2);
  assert.equal(own.vocabularyPairs, 5);
  assert.equal(own.kept, 0);

  // a frequency file: thresholds unscaled
  const file = path.join(dir, 'counts.tsv');
  fs.writeFileSync(file, ['a\t100', 'the\t100', 'on\t100', 'beagle\t25', 'sleeping\t25', 'sofa\t19'].join('\n') + '\n');
  const counted = await filterPool({ preset: 'cc12m', input: tsv, out: path.join(dir, 'file'), stages: ['text'], nsfw: false, vocabulary: { file } });
  assert.equal(counted.vocabulary?.kind, 'file');
  assert.equal(counted.vocabulary?.threshold, 20);
  assert.equal(counted.kept, 0); // "sofa" 19 < 20
});

test('cckit filter --vocabulary auto: the input for world data, the reference otherwise', () => {
  const world = path.join(dir, 'world.tsv');
  fs.writeFileSync(world, 'world://img/1\tA dog on a sofa.\n');
  const real = path.join(dir, 'real-list.tsv');
  fs.writeFileSync(real, 'https://example.com/1.jpg\tA dog on a sofa.\n');
  assert.equal(vocabularyChoice('auto', world), 'input');
  assert.equal(vocabularyChoice('auto', real), 'reference');
  assert.equal(vocabularyChoice('input', real), 'input');
  assert.deepEqual(vocabularyChoice(real, real), { file: real });
  assert.throws(() => vocabularyChoice('wikipedia', real), /--vocabulary: "wikipedia" is not auto, reference or input/);
});
