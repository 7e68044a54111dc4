/**
 * Speed of the CC12M Table 1 statistics pass (src/data/stats.ts) on a CC12M-sized TSV.
 *
 * Generates, deterministically and streaming, a CC12M-style TSV (url<TAB>caption) with web-like
 * captions (lengths log-normal around 20 tokens with a long tail, Zipf-distributed vocabulary of
 * 1M words, punctuation, <PERSON> placeholders, numbers, a few rare words) into a temporary
 * folder, then times one statistics pass over it. Generation is timed separately.
 *
 * Run:  npx tsx bench/stats.ts [rows] [--tokenizer fast|ptb] [--compare N] [--keep] [--dir DIR]
 *       (or after `npm run build`: node dist/bench/stats.js …). rows defaults to 12,423,374
 *       (CC12M's size); --compare N also tokenizes the first N captions with both tokenizers and
 *       prints their speed and how far their token and type counts differ.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { formatLength, tsvStats, StatsTokenizer } from '../src/data/stats';
import { fastTokenize } from '../src/text/fast-tokenizer';
import { TsvWriter, readTsvBatches, isReject } from '../src/data/tsv';
import { seededRandom } from '../src/util/random';

const CC12M_ROWS = 12_423_374;
const VOCABULARY = 1_000_000;

/** Common caption words, most frequent first; the rest of the vocabulary is made of syllables. */
const COMMON = (
  'a the of in and on with for to at is from by an this are as his her its new stock photo image ' +
  'man woman people white black red blue green background view old young two one water city house ' +
  'vector illustration design beautiful day night street table room wall girl boy dog cat car tree ' +
  'beach sea mountain road sky flowers food cake wedding dress shirt set hand home garden style ' +
  'modern vintage art top best small large interior kitchen living bedroom window light dark wood'
).split(' ');
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'de', 'po', 'ga', 'zu', 'ber', 'tan', 'wel', 'sho', 'rin', 'cal'];
const RARE = ['mangosteen', 'durian', 'quiche', 'pokemon', 'Pokemon', 'Durian'];
const HOSTS = ['i.pinimg.com', 'media.gettyimages.com', 'images.squarespace-cdn.com', 'live.staticflickr.com', 'cdn.shopify.com', 'world://cc12m'];

function makeVocabulary(): string[] {
  const words = COMMON.slice();
  for (let i = 0; words.length < VOCABULARY; i++) {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
    words.push(word);
  }
  return words;
}

/** Streams `rows` generated rows into a CC12M-style TSV. */
async function generate(file: string, rows: number, seed: number): Promise<void> {
  const random = seededRandom(seed);
  const vocabulary = makeVocabulary();
  const logV = Math.log(vocabulary.length + 1);
  // Zipf(1) by inverting the continuous 1/x density on [1, V+1].
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * logV)) - 1)];
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  // log-normal word counts (≈ 19 ± 15, long right tail, capped at 250); with punctuation ≈ 20 tokens
  const length = () => Math.max(1, Math.min(250, Math.round(Math.exp(2.68 + 0.7 * normal()))));
  const writer = TsvWriter.create(file, { layout: 'url-caption' });
  try {
    for (let row = 0; row < rows; row++) {
      const n = length();
      const parts: string[] = [];
      for (let t = 0; t < n; t++) {
        const r = random();
        let token: string;
        if (r < 0.03) token = '<PERSON>';
        else if (r < 0.04) token = String(Math.floor(random() * 2030));
        else if (r < 0.040004) token = RARE[Math.floor(random() * RARE.length)];
        else token = word();
        if (t === 0) token = token.charAt(0).toUpperCase() + token.slice(1);
        const p = random();
        if (p < 0.06) token += ',';
        else if (p < 0.07) token += "'s";
        else if (p < 0.075) token = `"${token}"`;
        else if (p < 0.078) token = `(${token})`;
        parts.push(token);
      }
      let caption = parts.join(' ');
      const end = random();
      if (end < 0.4) caption += '.';
      else if (end < 0.43) caption += '!';
      else if (end < 0.45) caption += ' ...';
      const host = HOSTS[row % HOSTS.length];
      const url = host.startsWith('world://') ? `${host}/${row}` : `https://${host}/originals/${((row * 2654435761) >>> 0).toString(16)}/${row}.jpg`;
      const pending = writer.write({ url, caption });
      if (pending) await pending;
    }
    await writer.close();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

async function compareTokenizers(file: string, limit: number): Promise<void> {
  const captions: string[] = [];
  for await (const batch of readTsvBatches(file)) {
    for (const item of batch) if (!isReject(item) && captions.length < limit) captions.push(item.caption);
    if (captions.length >= limit) break;
  }
  const { ptbTokenize } = require('../src/text/ptb-tokenizer') as typeof import('../src/text/ptb-tokenizer');
  const measure = (name: string, tokenize: (c: string) => string[]) => {
    // time the tokenizer alone, then count tokens and types outside the timed loop
    let start = performance.now();
    for (const caption of captions) tokenize(caption);
    const seconds = (performance.now() - start) / 1000;
    const types = new Set<string>();
    let tokens = 0;
    start = performance.now();
    for (const caption of captions) {
      const list = tokenize(caption);
      tokens += list.length;
      for (const t of list) types.add(t);
    }
    console.log(
      `  ${name.padEnd(5)} ${(captions.length / seconds).toFixed(0).padStart(9)} captions/s (tokenizing only)  tokens ${tokens}  types ${types.size}`,
    );
    return { tokens, types: types.size };
  };
  console.log(`tokenizers on the first ${captions.length} captions:`);
  const fast = measure('fast', fastTokenize);
  const ptb = measure('ptb', (c) => ptbTokenize(c));
  console.log(
    `  fast vs ptb: tokens ${(((fast.tokens - ptb.tokens) / ptb.tokens) * 100).toFixed(3)}%, types ${(((fast.types - ptb.types) / ptb.types) * 100).toFixed(3)}%`,
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name);
    if (at < 0) return undefined;
    const value = args[at + 1];
    args.splice(at, 2);
    return value;
  };
  const keep = args.includes('--keep');
  if (keep) args.splice(args.indexOf('--keep'), 1);
  const tokenizer = (option('--tokenizer') ?? 'fast') as StatsTokenizer;
  const compare = Number(option('--compare') ?? 0);
  const dirOption = option('--dir');
  const rows = args[0] === undefined ? CC12M_ROWS : Number(args[0].replace(/[_,]/g, ''));
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`rows must be a positive integer, got ${args[0]}`);
  if (tokenizer !== 'fast' && tokenizer !== 'ptb') throw new Error(`--tokenizer must be fast or ptb, got ${tokenizer}`);

  const dir = dirOption ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-stats-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'cc12m-like.tsv');
  try {
    console.log(`generating ${rows.toLocaleString('en-US')} rows → ${file}`);
    let start = performance.now();
    await generate(file, rows, 12);
    const generation = (performance.now() - start) / 1000;
    const bytes = fs.statSync(file).size;
    console.log(`generation: ${generation.toFixed(1)} s (${(rows / generation).toFixed(0)} rows/s, ${(bytes / 2 ** 20).toFixed(0)} MiB)`);

    start = performance.now();
    const stats = await tsvStats(file, { tokenizer });
    const seconds = (performance.now() - start) / 1000;
    console.log(
      `stats pass (${tokenizer} tokenizer): ${seconds.toFixed(1)} s, ${(rows / seconds).toFixed(0)} rows/s, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
    );
    console.log(
      `  pairs ${stats.pairs.toLocaleString('en-US')}  token/type ${stats.tokenTypeRatio.toFixed(1)} (${stats.tokens} tokens, ${stats.types} types)  ` +
        `length ${formatLength(stats)}  rare ${JSON.stringify(stats.rareWords)}`,
    );
    if (compare > 0) await compareTokenizers(file, compare);
  } finally {
    if (!keep && dirOption === undefined) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${file}`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
