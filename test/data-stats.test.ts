import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import * as tar from 'tar-stream';
import { formatLength, shardStats, StatsAccumulator, tsvStats, TypeTable } from '../src/data/stats';
import { fastTokenize } from '../src/text/fast-tokenizer';
import { writeShards } from '../src/data/webdataset';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-data-stats-'));
}

// Hand-tokenized (lower-cased PTB tokens, punctuation kept):
//   "A durian, a mangosteen."        a durian , a mangosteen .        6 tokens
//   "Quiche for two"                 quiche for two                   3
//   "<PERSON> plays Pokemon Go!"     <PERSON> plays pokemon go !      5
//   "durian DURIAN Durian"           durian durian durian             3
// pairs 4; tokens 17; types {a durian , mangosteen . quiche for two <PERSON> plays pokemon go !} = 13
// mean 17/4 = 4.25; deviations 1.75 -1.25 0.75 -1.25 → variance 6.75/4 = 1.6875, std 1.2990381
// rare words: mangosteen 1, durian 4, quiche 1, pokemon 1
const CAPTIONS = ['A durian, a mangosteen.', 'Quiche for two', '<PERSON> plays Pokemon Go!', 'durian DURIAN Durian'];
const EXPECTED = {
  pairs: 4,
  tokens: 17,
  types: 13,
  tokenTypeRatio: 17 / 13,
  lengthMean: 4.25,
  lengthStd: Math.sqrt(1.6875),
  rareWords: { mangosteen: 1, durian: 4, quiche: 1, pokemon: 1 },
  rejects: 0,
};

function assertStats(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(expected)) {
    if (typeof value === 'number') assert.ok(Math.abs((actual[key] as number) - value) < 1e-12, `${key}: ${actual[key]} ≠ ${value}`);
    else assert.deepEqual(actual[key], value, key);
  }
}

test('stats on a hand-made CC3M-style TSV (caption<TAB>url)', async () => {
  const file = path.join(tempDir(), 'cc3m.tsv');
  fs.writeFileSync(file, CAPTIONS.map((c, i) => `${c}\thttps://img/${i}.jpg`).join('\r\n'));
  const stats = await tsvStats(file);
  assertStats(stats as unknown as Record<string, unknown>, { ...EXPECTED, tokenizer: 'fast' });
  assert.equal(formatLength(stats), '4.3 ± 1.3');
});

test('stats: the same captions in CC12M order, with the PTB tokenizer, and from shards agree', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'cc12m.tsv');
  fs.writeFileSync(file, CAPTIONS.map((c, i) => `world://cc12m/${i}\t${c}\n`).join(''));
  assertStats((await tsvStats(file)) as unknown as Record<string, unknown>, EXPECTED);
  assertStats((await tsvStats(file, { tokenizer: 'ptb' })) as unknown as Record<string, unknown>, { ...EXPECTED, tokenizer: 'ptb' });
  const shards = path.join(dir, 'shards');
  await writeShards(
    shards,
    CAPTIONS.map((caption) => ({ kind: 'success' as const, image: Buffer.from('not decoded'), imageExt: 'jpg' as const, caption })),
    { samplesPerShard: 3 },
  );
  assertStats((await shardStats(shards)) as unknown as Record<string, unknown>, EXPECTED);
});

test('stats: malformed rows throw with file and line, or are counted as rejects', async () => {
  const file = path.join(tempDir(), 'mixed.tsv');
  fs.writeFileSync(file, `${CAPTIONS[0]}\thttps://a\nbroken\n${CAPTIONS[1]}\thttps://b\n`);
  await assert.rejects(tsvStats(file), /mixed\.tsv:2: expected 2 tab-separated columns, found 1/);
  const stats = await tsvStats(file, { malformed: 'reject', rareWords: ['durian', 'Quiche', 'kiwi'] });
  assert.equal(stats.pairs, 2);
  assert.equal(stats.rejects, 1);
  assert.equal(stats.tokens, 9);
  assert.deepEqual(stats.rareWords, { durian: 1, Quiche: 1, kiwi: 0 });
  const rejected: [string, string][] = [];
  await tsvStats(file, { malformed: 'reject', onReject: (where, reason) => rejected.push([where, reason]) });
  assert.deepEqual(rejected, [[`${file}:2`, 'expected 2 tab-separated columns, found 1']]);
});

test('stats of shards: a sample without a caption throws, or with malformed: reject is counted and named', async () => {
  const dir = tempDir();
  const tarFile = path.join(dir, '00000.tar');
  const pack = tar.pack();
  const out = fs.createWriteStream(tarFile);
  pack.pipe(out);
  CAPTIONS.forEach((caption, i) => {
    pack.entry({ name: `k${i}.jpg` }, 'not decoded');
    if (i !== 1) pack.entry({ name: `k${i}.txt` }, caption);
    pack.entry({ name: `k${i}.json` }, '{}');
  });
  pack.finalize();
  await new Promise<void>((resolve) => out.on('close', () => resolve()));
  await assert.rejects(shardStats(dir), (err: Error) => err.message === `${tarFile}: sample k1: no .txt member (has jpg, json)`);
  const rejected: [string, string][] = [];
  const stats = await shardStats(dir, { malformed: 'reject', onReject: (where, reason) => rejected.push([where, reason]) });
  assert.deepEqual([stats.pairs, stats.rejects, stats.tokens], [3, 1, 14]);
  assert.deepEqual(rejected, [[`${tarFile}#k1`, 'no .txt member (has jpg, json)']]);
});

test('fast tokenizer: PTB-like splits', () => {
  assert.deepEqual(fastTokenize("A dog's life: don't run, it's 3.5 miles from the U.S. border!"), [
    'a',
    'dog',
    "'s",
    'life',
    ':',
    'do',
    "n't",
    'run',
    ',',
    'it',
    "'s",
    '3.5',
    'miles',
    'from',
    'the',
    'u.s.',
    'border',
    '!',
  ]);
  assert.deepEqual(fastTokenize('Actor <PERSON> attends "Pokemon" (2019)...'), [
    'actor',
    '<PERSON>',
    'attends',
    '``',
    'pokemon',
    "''",
    '-lrb-',
    '2019',
    '-rrb-',
    '...',
  ]);
  assert.deepEqual(fastTokenize("well-known chef's quiche -- 1,000 calories?! o'neill we'll 24/7"), [
    'well-known',
    'chef',
    "'s",
    'quiche',
    '--',
    '1,000',
    'calories',
    '?!',
    "o'neill",
    'we',
    "'ll",
    '24/7',
  ]);
  assert.deepEqual(fastTokenize('Mangosteen — isolated… “fresh”  players’ café'), [
    'mangosteen',
    '--',
    'isolated',
    '...',
    '``',
    'fresh',
    "''",
    'players',
    "'",
    'café',
  ]);
  assert.deepEqual(fastTokenize("<PERSON>'s (young) friend's"), ['<PERSON>', "'s", '-lrb-', 'young', '-rrb-', 'friend', "'s"]);
  assert.deepEqual(fastTokenize('   '), []);
});

test('type table: exact counts through growth, matching a Map', () => {
  const stats = new StatsAccumulator();
  const reference = new Map<string, number>();
  for (let i = 0; i < 60_000; i++) {
    const words = [`w${i}`, `w${i % 97}`, 'the'];
    stats.add(words.join(' '));
    for (const w of words) reference.set(w, (reference.get(w) ?? 0) + 1);
  }
  const result = stats.result();
  assert.equal(result.types, reference.size);
  assert.equal(result.tokens, 180_000);
  for (const word of ['the', 'w0', 'w96', 'w59999', 'w12345']) assert.equal(stats.count(word), reference.get(word), word);
  assert.equal(stats.count('absent'), 0);
  const table = new TypeTable();
  table.add(1, 2);
  table.add(1, 2);
  table.add(1, 3);
  assert.deepEqual([table.size, table.get(1, 2), table.get(1, 3), table.get(2, 1)], [2, 2, 1, 0]);
});
