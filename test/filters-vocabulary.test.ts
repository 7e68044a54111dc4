import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { REFERENCE_VOCABULARY, ReferenceVocabulary } from '../src/filters/reference-vocabulary';
import { WIKIPEDIA_LIST_MIN_COUNT, WIKITEXT_MARKUP, parseWikipediaWordList, wikipediaWords } from '../src/filters/wikipedia-words';
import { filterPool } from '../src/filters/run';
import { CC12M_TEXT_FILTER, CC3M_TEXT_FILTER, TextFilter } from '../src/filters/text';
import { vocabularyChoice } from '../src/cli/filter';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-vocabulary-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const reference = new ReferenceVocabulary();
const scale = REFERENCE_VOCABULARY.referenceTokens / REFERENCE_VOCABULARY.corpusTokens;
/** The reference as it was before English Wikipedia's word list: SUBTLEX-US and WordNet only. */
const subtitlesAndWordnet = new ReferenceVocabulary({ ...REFERENCE_VOCABULARY, wikipediaListedCount: 0 });

test('reference vocabulary: SUBTLEX counts scaled to Wikipedia size, WordNet lemmas, parts', () => {
  // "broccoli" is 116 times in SUBTLEX-US: 116 × 2.5e9 / 51e6 ≈ 5,686
  assert.equal(Math.round(reference.count('broccoli')), Math.round(116 * scale));
  assert.equal(reference.count('Broccoli'), reference.count('broccoli'));
  // WordNet lemmas absent from SUBTLEX ("bollard", "wagtail") count wordnetCount; plurals through morphy
  // (the Wikipedia list, which has both, is left out to see WordNet's share alone)
  const marked = new ReferenceVocabulary({ ...REFERENCE_VOCABULARY, wordnetCount: 7, wikipediaListedCount: 0 });
  assert.equal(marked.count('bollard'), 7);
  assert.equal(marked.count('wagtails'), 7);
  assert.equal(marked.count('broccoli'), reference.count('broccoli'));
  // accents stripped, clitics and dotted words by their parts
  assert.ok(reference.count('café') > 20);
  assert.ok(reference.count("n't") > 20);
  assert.ok(reference.count('u.s.') > 20);
  // none of the three sources knows these (real tuxpaint words: Yiddish dreidel words, a German toy; and garbage)
  for (const word of ['inukshuk', 'räuchermännchen', 'nisht', 'shtel', 'arayn', 'zzxqv']) assert.equal(reference.count(word), 0, word);
});

test('English Wikipedia’s word list: the encyclopedic words of real alt-text pass both thresholds', () => {
  // issue #30: film subtitles and WordNet know none of these; English Wikipedia has each ≥ 100 times
  for (const word of ['clownfish', 'kiwifruit', 'hoverfly', 'Magellanic', 'Tamworth', 'Stryker']) {
    assert.equal(subtitlesAndWordnet.count(word), 0, `${word} without the list`);
    assert.equal(reference.count(word), WIKIPEDIA_LIST_MIN_COUNT, word);
    assert.ok(reference.count(word) >= CC12M_TEXT_FILTER.minWordFrequency! && reference.count(word) >= CC3M_TEXT_FILTER.minWordFrequency!);
  }
  // a count the subtitles give is kept when larger than the list's floor; the list lifts a smaller one to it
  assert.equal(Math.round(reference.count('broccoli')), Math.round(116 * scale));
  assert.equal(reference.count('bollard'), Math.max(WIKIPEDIA_LIST_MIN_COUNT, subtitlesAndWordnet.count('bollard')));

  // real tuxpaint captions: rejected before, kept with the list (CC12M, threshold 20)
  const before = new TextFilter(CC12M_TEXT_FILTER, subtitlesAndWordnet);
  const after = new TextFilter(CC12M_TEXT_FILTER, reference);
  for (const caption of [
    'A Magellanic penguin.',
    'A hoverfly resembles a honeybee drone.',
    'A Tamworth pig.',
    'With a fast APC like this Stryker, you can surprise the enemy.',
  ]) {
    const old = before.check(caption);
    assert.equal(old.keep === false && old.reason, 'text:rare-words', caption);
    assert.equal(after.check(caption).keep, true, caption);
  }
  // and real tuxpaint captions whose words English Wikipedia has fewer than 100 times stay rejected, naming them
  const yiddish = after.check('Nun stands for nisht or nothing. If the dreidel lands on nun, you do nothing.');
  assert.equal(yiddish.keep === false && yiddish.detail, '"nisht" seen 0 (a word must be seen ≥ 20)');
  const german = after.check('A wooden toy from Germany called a "Räuchermännchen".');
  assert.equal(german.keep === false && german.reason, 'text:rare-words');
  // the CC3M threshold too
  const cc3m = new TextFilter(CC3M_TEXT_FILTER, reference);
  assert.equal(cc3m.check('With a fast APC like this Stryker, you can surprise the enemy.').keep, true);
  const twoWords = cc3m.check('Shin stands for shtel arayn or put in. If the dreidel lands on shin, put two objects into the middle.');
  assert.equal(twoWords.keep === false && twoWords.detail, '"shtel" seen 0, "arayn" seen 0 (a word must be seen ≥ 5)');
});

test('the Wikipedia word list is read as data: the package’s list in rank order, a malformed file refused', () => {
  const words = wikipediaWords();
  assert.ok(words.size > 200_000, `${words.size} words`);
  assert.equal([...words][0], 'the');
  for (const word of words) assert.match(word, /^[a-z]+$/);
  // markup names counted in the wikitext are left out; English words that are also entity names stay
  for (const word of WIKITEXT_MARKUP) assert.equal(words.has(word), false, word);
  for (const word of ['amp', 'times', 'span']) assert.equal(words.has(word), true, word);
  // a real openclipart description with an escaping mistake stays rejected on the entity's name
  const flask = new TextFilter(CC12M_TEXT_FILTER, reference).check('A chemistry flask with the &quot;required&quot; complimentary bubbles.');
  assert.equal(flask.keep === false && flask.detail, '"quot" seen 0, "required&quot" seen 0 (a word must be seen ≥ 20)');
  assert.deepEqual(parseWikipediaWordList("var words = ['the','of', 'in']\n\nexport {words}\n"), ['the', 'of', 'in']);
  assert.throws(() => parseWikipediaWordList("var words = ['the','Of']"), /unexpected entry "'Of'"/);
  assert.throws(() => parseWikipediaWordList("var words = ['the', require('fs')]"), /unexpected entry/);
  assert.throws(() => parseWikipediaWordList('module.exports = {}'), /no array literal/);
});

test('the text filter with the reference keeps everyday nouns at the papers’ thresholds and rejects unknown words', () => {
  const cc12m = new TextFilter(CC12M_TEXT_FILTER, reference);
  assert.equal(cc12m.check('A beagle sleeping on the sofa.').keep, true);
  const verdict = cc12m.check('A shammash candle beside the menorah.');
  assert.equal(verdict.keep, false);
  assert.equal(verdict.keep === false && verdict.reason, 'text:rare-words');
  const cc3m = new TextFilter(CC3M_TEXT_FILTER, reference);
  assert.equal(cc3m.check('A dachshund puppy sleeping on a blanket.').keep, true);
});

test('filterPool records which vocabulary it used; threads and main thread agree', async () => {
  const tsv = path.join(dir, 'real.tsv');
  const captions = [
    'A beagle sleeping on the sofa.',
    'A shammash candle beside the menorah.',
    'A red bicycle leaning against a wall.',
    'A wooden räuchermännchen on the shelf.',
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
  assert.match(written.source, /English Wikipedia's word list \(popular-english-words 1\.0\.2/);
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
