import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Boilerplate, cropBoilerplate } from '../src/filters/boilerplate';
import { analyse, countWords, tokenize } from '../src/filters/nlp';
import { CC12M_TEXT_FILTER, CC3M_TEXT_FILTER, TEXT_REASONS, TextFilter, TextFilterOptions, WordCounts, textStatistics } from '../src/filters/text';
import type { Verdict } from '../src/filters/types';
import { World } from '../src/world/world';
import { tempFile } from './helpers';

const outcome = (v: Verdict): string => (v.keep ? 'keep' : v.reason);
const cc3m = new TextFilter(CC3M_TEXT_FILTER);
const cc12m = new TextFilter(CC12M_TEXT_FILTER);

// ---------------------------------------------------------------------------
// nlp.ts

test('analyse: <PERSON> stays one PROPN token, with offsets into the caption', () => {
  const caption = "<PERSON> attends the premiere with <PERSON>'s dog";
  const a = analyse(caption);
  const persons = a.tokens.filter((t) => t.isPlaceholder);
  assert.equal(persons.length, 2);
  for (const p of persons) {
    assert.equal(p.text, '<PERSON>');
    assert.equal(p.pos, 'PROPN');
    assert.equal(p.isWord, true);
  }
  assert.ok(!a.tokens.some((t) => t.text === '<' || t.text === '>' || t.text === 'PERSON'));
  for (const t of a.tokens) assert.equal(caption.slice(t.start, t.end), t.text, `offsets of ${t.text}`);
  assert.deepEqual(
    a.tokens.map((t) => t.text),
    ['<PERSON>', 'attends', 'the', 'premiere', 'with', '<PERSON>', "'s", 'dog'],
  );
  // touching placeholders are still separate single tokens; other angle brackets are left alone
  const b = analyse('<PERSON><PERSON> at a <b> tag');
  assert.deepEqual(
    b.tokens.filter((t) => t.isPlaceholder).map((t) => [t.start, t.end]),
    [
      [0, 8],
      [8, 16],
    ],
  );
  assert.ok(b.tokens.some((t) => t.text === '<'));
  // the tokenize-only path splits the same way
  assert.deepEqual(
    tokenize(caption).tokens.map((t) => t.text),
    a.tokens.map((t) => t.text),
  );
});

test('analyse: POS tags, lemmas and flags', () => {
  const a = analyse('Actor Harrison Ford attends the premiere of the film in PARIS.');
  const by = Object.fromEntries(a.tokens.map((t) => [t.text, t]));
  assert.equal(by.the.pos, 'DET');
  assert.equal(by.of.pos, 'ADP');
  assert.equal(by.premiere.pos, 'NOUN');
  assert.equal(by.Harrison.pos, 'PROPN');
  assert.equal(by.attends.lemma, 'attend');
  assert.equal(by.Actor.isCapitalised, true);
  assert.equal(by.the.isCapitalised, false);
  assert.equal(by.the.isStopWord, true);
  assert.equal(by.PARIS.isAllCaps, true);
  assert.equal(by['.'].isPunctuation, true);
  assert.equal(by['.'].isWord, false);
  assert.equal(a.words.length, 11);
  assert.equal(analyse('Élan vital in Zürich').tokens[0].isCapitalised, true);
  assert.equal(countWords('  a  dog\ton the\nmat '), 5);
  assert.equal(countWords(''), 0);
});

// ---------------------------------------------------------------------------
// boilerplate.ts

test('boilerplate: CC3M §3 prefixes and suffixes are cropped, the rest kept', () => {
  const crops: [string, string][] = [
    ['Stock Photo - A red durian on a table', 'A red durian on a table'],
    ['A car on a shelf in 2012 - click to enlarge', 'A car on a shelf in 2012'],
    ['A dog on the grass (click to enlarge picture)', 'A dog on the grass'],
    ['Image may contain: A bright table beside a dish', 'A bright table beside a dish'],
    ['A durian | royalty free image', 'A durian'],
    ['Royalty-free stock photo: A cat on a mat.', 'A cat on a mat.'],
    ['Stock photo of a dog on the beach', 'a dog on the beach'],
    ['A dog on a sofa. Stock Photo - click to enlarge', 'A dog on a sofa.'],
    ['A truck loading at the port', 'A truck loading at the port'],
    ['Camera zoom lens on a table', 'Camera zoom lens on a table'],
  ];
  for (const [input, expected] of crops) {
    const r = cropBoilerplate(input);
    assert.ok(r.keep, input);
    assert.equal(r.text, expected, input);
    assert.equal(r.cropped.length > 0, input !== expected, input);
  }
});

test('boilerplate: texts beginning/ending with reject patterns, or only boilerplate, are rejected', () => {
  for (const input of [
    'Embedded image permalink',
    'PROFILE PHOTO',
    'Profile photo of a man',
    'A man in his profile photo',
    'Image not found',
    'No image available.',
    'Stock photo: image not found',
  ]) {
    const r = cropBoilerplate(input);
    assert.equal(r.keep, false, input);
  }
  assert.deepEqual(cropBoilerplate('stock photo'), { keep: false, pattern: '' });
  const custom = new Boilerplate({ prefixes: ['look at this'], suffixes: [], rejects: ['sold out'] });
  assert.deepEqual(custom.apply('Look at this: a dog in a hat'), { keep: true, text: 'a dog in a hat', cropped: ['Look at this:'] });
  assert.equal(custom.apply('A dog in a hat - sold out').keep, false);
  assert.equal(custom.apply('Stock photo - a dog').keep, true);
});

test('boilerplate: long runs of spaces or separators do not make the patterns backtrack', () => {
  const started = Date.now();
  for (const input of ['a' + ' '.repeat(20000) + 'b', 'a' + ' - '.repeat(7000) + 'b', '- '.repeat(10000) + 'stock', 'stock' + ' '.repeat(20000) + 'x']) {
    cropBoilerplate(input);
    cc12m.check(input);
  }
  assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
});

// ---------------------------------------------------------------------------
// text.ts: every reason

test('each rejection reason is triggered', () => {
  const long = Array.from({ length: 260 }, (_, i) => (i % 2 ? 'on' : 'the')).join(' ') + ' mat';
  const cases: [TextFilter, string, string][] = [
    [cc12m, 'A durian.', TEXT_REASONS.length],
    [cc12m, `A cat ${long}`, TEXT_REASONS.length],
    [cc3m, 'Embedded image permalink', TEXT_REASONS.boilerplate],
    [cc12m, 'Profile photo', TEXT_REASONS.boilerplate],
    [cc3m, 'This is so very good', TEXT_REASONS.noNoun],
    [cc12m, 'Very happy and so excited!', TEXT_REASONS.noNoun],
    // an SEO keyword list (CC3M §3's motivating example of non-descriptive alt-text)
    [cc3m, 'person cockatoo bird animal', TEXT_REASONS.noDeterminer],
    [cc12m, 'durian fruit food best hd', TEXT_REASONS.noDeterminer],
    [cc3m, 'A bottle and a glass', TEXT_REASONS.noPreposition],
    [cc3m, 'The durian fruit market stall photo from Paris market', TEXT_REASONS.nounRatio],
    [cc3m, 'A ball beside a ball on a table.', TEXT_REASONS.repetition],
    [cc12m, 'A durian durian durian durian on a table', TEXT_REASONS.repetition],
    [cc3m, 'pendant designs from the jewelry collection', TEXT_REASONS.capitalisation],
    [cc3m, 'A CAR UNDER A CLOCK AND A CHAIR ON A SHELF.', TEXT_REASONS.capitalisation],
    [cc3m, 'Dark Garments On The Wooden Table', TEXT_REASONS.capitalisation],
    [cc3m, 'A a a a a cat on a mat', TEXT_REASONS.uniqueWords],
    [cc3m, 'An amazing view of the lake', TEXT_REASONS.polarity],
    [cc12m, 'A fantastic, superb dinner at the restaurant', TEXT_REASONS.polarity],
    [cc3m, 'A man with a dildo on the table', TEXT_REASONS.profanity],
    [cc12m, 'A porn star at the premiere', TEXT_REASONS.profanity],
  ];
  for (const [filter, caption, reason] of cases) assert.equal(outcome(filter.check(caption)), reason, caption);
  const seen = new Set(cases.map((c) => c[2]));
  seen.add(TEXT_REASONS.rareWords); // next test
  assert.deepEqual([...seen].sort(), Object.values(TEXT_REASONS).sort());
});

test('rare words: vocabulary counts below 5 (CC3M) / 20 (CC12M) reject; numbers and <PERSON> are exempt', () => {
  const counts = [
    'a\t1000',
    'the\t1000',
    'on\t500',
    'plate\t300',
    'in\t800',
    'kitchen\t40',
    'mangosteen\t10',
    'quiche\t3',
    'with\t300',
    'attends\t30',
    'premiere\t30',
    'of\t900',
    'film\t60',
  ];
  const vocabulary = WordCounts.fromFrequencyText(counts.join('\n') + '\n');
  const v3 = new TextFilter(CC3M_TEXT_FILTER, vocabulary);
  const v12 = new TextFilter(CC12M_TEXT_FILTER, vocabulary);
  assert.ok(v3.checksRareWords && v12.checksRareWords && !cc3m.checksRareWords);
  assert.equal(outcome(v3.check('A mangosteen on a plate in the kitchen.')), 'keep'); // 10 ≥ 5
  assert.equal(outcome(v12.check('A mangosteen on a plate in the kitchen.')), TEXT_REASONS.rareWords); // 10 < 20
  assert.equal(outcome(v3.check('A quiche on a plate in the kitchen.')), TEXT_REASONS.rareWords); // 3 < 5
  assert.equal(outcome(v3.check('A durian on a plate')), TEXT_REASONS.rareWords); // unseen
  assert.deepEqual(v3.rareWords(analyse('A durian and a quiche on a plate')), ['durian', 'and', 'quiche']);
  assert.equal(outcome(v12.check('<PERSON> attends the premiere of the film in 2017')), 'keep');
});

test('WordCounts: from captions (first pass) and from token<TAB>count files', () => {
  const v = WordCounts.fromCaptions(['A dog on a mat.', 'The DOG and <PERSON> in 2017', 'dogs']);
  assert.equal(v.count('dog'), 2);
  assert.equal(v.count('Dog'), 2);
  assert.equal(v.count('a'), 2);
  assert.equal(v.count('.'), 0, 'punctuation is not counted');
  assert.equal(v.count('2017'), 0, 'numbers are not counted');
  assert.equal(v.count('<person>'), 0, 'placeholders are not counted');
  assert.equal(v.count('person'), 0);
  const file = tempFile('vocab.tsv', v.toFrequencyText());
  const back = WordCounts.fromFile(file);
  assert.equal(back.size, v.size);
  assert.equal(back.total, v.total);
  assert.equal(back.count('dog'), 2);
  assert.equal(WordCounts.fromFrequencyText('Dog\t3\ndog\t4\r\n\n').count('DOG'), 7, 'case-folded and merged');
  assert.throws(() => WordCounts.fromFrequencyText('dog 3\n'), /line 1/);
  assert.throws(() => WordCounts.fromFrequencyText('dog\t3\ncat\tmany\n'), /line 2/);
});

test('async first pass gives the same vocabulary', async () => {
  const captions = ['A dog on a mat.', 'A cat on a mat.'];
  async function* source() {
    yield* captions;
  }
  const v = await WordCounts.fromCaptionsAsync(source());
  assert.equal(v.toFrequencyText(), WordCounts.fromCaptions(captions).toFrequencyText());
});

// ---------------------------------------------------------------------------
// The papers' examples

test('CC3M keeps well-formed news-style alt-text (Figure 1 style) and returns the cropped caption', () => {
  for (const caption of [
    'Actor Harrison Ford attends the premiere of Hollywood Homicide at the American Film Festival',
    'A Pakistani worker helps to clear the debris from the Taj Mahal Hotel November 7, 2005 in Balakot, Pakistan.',
    'Musician Justin Timberlake performs at the 2017 Pilgrimage Music & Cultural Festival on September 23, 2017 in Franklin, Tennessee.',
    'Pendant designs from the jewelry collection',
  ]) {
    assert.deepEqual(cc3m.check(caption), { keep: true, caption }, caption);
    assert.deepEqual(cc12m.check(caption), { keep: true, caption }, caption);
  }
  assert.deepEqual(cc3m.check('Stock Photo - A red durian on a table in the kitchen'), { keep: true, caption: 'A red durian on a table in the kitchen' });
  assert.deepEqual(cc12m.check('A dog on the grass (click to enlarge picture)'), { keep: true, caption: 'A dog on the grass' });
});

test('CC12M keeps longer raw captions that CC3M rejects', () => {
  const cases: [string, string][] = [
    ['pendant designs from the jewelry collection', TEXT_REASONS.capitalisation],
    ['A bottle and a glass', TEXT_REASONS.noPreposition],
    ['A ball beside a ball on a table.', TEXT_REASONS.repetition],
    ['The durian fruit market stall photo from Paris market', TEXT_REASONS.nounRatio],
    [
      'the view from the top of the hill looking down towards the old harbour, where fishing boats were moored and the water was calm; ' +
        'the houses of the village climb the slope behind the harbour and the church tower rises above them in the evening light',
      TEXT_REASONS.capitalisation,
    ],
    ['Dark Garments On The Wooden Table', TEXT_REASONS.capitalisation],
  ];
  for (const [caption, reason] of cases) {
    assert.equal(outcome(cc3m.check(caption)), reason, caption);
    assert.equal(outcome(cc12m.check(caption)), 'keep', caption);
  }
});

test('<PERSON> placeholders pass through the filter as one token', () => {
  const caption = '<PERSON> and <PERSON> at the premiere of the film';
  assert.deepEqual(cc12m.check(caption), { keep: true, caption });
  // two placeholders are not a repetition, and they do not count as capitalised words
  const s = textStatistics(analyse(caption));
  assert.equal(s.repetition, 0);
  assert.equal(s.capitalisedRatio, 0);
  assert.equal(s.words, 9);
  assert.deepEqual(cc3m.check(caption), { keep: true, caption });
});

test('options are data: a threshold can be overridden or switched off', () => {
  const relaxed: TextFilterOptions = { ...CC3M_TEXT_FILTER, requirePreposition: false };
  assert.equal(outcome(new TextFilter(relaxed).check('A bottle and a glass')), 'keep');
  const noProfanity: TextFilterOptions = { ...CC12M_TEXT_FILTER, profanity: false };
  assert.equal(outcome(new TextFilter(noProfanity).check('A porn star at the premiere')), 'keep');
  const noBoilerplate: TextFilterOptions = { ...CC12M_TEXT_FILTER, boilerplate: false, minWords: null };
  assert.equal(outcome(new TextFilter(noBoilerplate).check('Embedded image permalink')), TEXT_REASONS.noDeterminer);
  assert.ok(Object.isFrozen(CC3M_TEXT_FILTER) && Object.isFrozen(CC12M_TEXT_FILTER));
  assert.equal(CC12M_TEXT_FILTER.maxRepetition, 0.2);
  assert.equal(CC12M_TEXT_FILTER.minWordFrequency, 20);
  assert.equal(CC3M_TEXT_FILTER.minWordFrequency, 5);
});

// ---------------------------------------------------------------------------
// The world: CC3M is stricter than CC12M

test('world alt-text: CC3M keeps fewer of 2,000 captions than CC12M', (t) => {
  const world = new World({ seed: 1 });
  const POOL = 50_000;
  const pool: string[] = [];
  for (let i = 0; i < POOL; i++) pool.push(world.webPair(i).caption);
  const sample = pool.slice(0, 2000);
  const rate = (filter: TextFilter) => sample.filter((c) => filter.check(c).keep).length / sample.length;

  // without a vocabulary: the heuristics alone; CC3M's keeps are a subset of CC12M's
  const k3 = sample.map((c) => cc3m.check(c).keep);
  const k12 = sample.map((c) => cc12m.check(c).keep);
  const r3 = k3.filter(Boolean).length / sample.length;
  const r12 = k12.filter(Boolean).length / sample.length;
  assert.ok(
    k3.every((kept, i) => !kept || k12[i]),
    'every caption CC3M keeps, CC12M keeps',
  );
  assert.ok(r3 < r12, `CC3M ${r3} < CC12M ${r12}`);

  // with the rare-word check over the vocabulary of the pool being filtered (50k captions, of which
  // the sample is the first 2,000)
  const vocabulary = WordCounts.fromCaptions(pool);
  const v3 = rate(new TextFilter(CC3M_TEXT_FILTER, vocabulary));
  const v12 = rate(new TextFilter(CC12M_TEXT_FILTER, vocabulary));
  assert.ok(v3 < v12, `CC3M ${v3} < CC12M ${v12}`);
  t.diagnostic(`keep rates on 2,000 world alt-texts (seed 1): no vocabulary CC3M ${r3} CC12M ${r12}; vocabulary of 50k pool CC3M ${v3} CC12M ${v12}`);

  // nothing that is only boilerplate, a file name or a keyword list survives either filter
  for (let i = 0; i < sample.length; i++) {
    const style = world.webPair(i).truth.style;
    if (style === 'boilerplate-reject' || style === 'filename' || style === 'keywords') assert.equal(k12[i], false, sample[i]);
  }
});
