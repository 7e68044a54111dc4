/**
 * Metric speed on a nocaps-val-sized input: 4,500 images × 10 references of ~11 tokens,
 * generated deterministically. Prints seconds per metric (median, min, max of the runs).
 * Run: npm run bench  (or: node dist/bench/metrics.js [runs])
 */
import { performance } from 'perf_hooks';
import * as bleu from '../src/metrics/bleu';
import * as cider from '../src/metrics/cider';
import { CaptionCase, evaluate } from '../src/metrics/evaluate';
import * as meteor from '../src/metrics/meteor';
import * as rouge from '../src/metrics/rouge';
import { tokenizeCaption } from '../src/text/ptb-tokenizer';
import { Candidates, References } from '../src/metrics/types';
import { formatTable } from '../src/report/table';
import { seededRandom, zipfSampler } from '../src/util/random';

const IMAGES = 4500;
const REFERENCES_PER_IMAGE = 10;
const MEAN_TOKENS = 11;

function makeInput(seed: number): { references: References; candidates: Candidates; rawCaptions: string[] } {
  const random = seededRandom(seed);
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'de', 'po', 'ga', 'zu'];
  const vocabulary = Array.from({ length: 8000 }, (_, i) => {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
    return word;
  });
  const commonWord = zipfSampler(vocabulary.length, 1.1, random);
  const length = () => Math.max(3, Math.round(MEAN_TOKENS + (random() + random() + random() - 1.5) * 5));
  const references: References = {};
  const candidates: Candidates = {};
  const rawCaptions: string[] = [];
  for (let image = 0; image < IMAGES; image++) {
    // each image has its own content words that most of its captions share
    const content = Array.from({ length: 6 }, () => vocabulary[commonWord()]);
    const caption = () =>
      Array.from({ length: length() }, () => (random() < 0.55 ? content[Math.floor(random() * content.length)] : vocabulary[commonWord()])).join(' ');
    const id = `img${image}`;
    references[id] = Array.from({ length: REFERENCES_PER_IMAGE }, caption);
    candidates[id] = caption();
    rawCaptions.push(...references[id].map((r) => `A ${r}, with "${r.split(' ')[0]}'s" (etc.)`));
  }
  return { references, candidates, rawCaptions };
}

function time(runs: number, fn: () => void): number[] {
  const seconds: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    fn();
    seconds.push((performance.now() - start) / 1000);
  }
  return seconds.sort((a, b) => a - b);
}

function main(): void {
  const runs = Number(process.argv[2] ?? 5);
  const { references, candidates, rawCaptions } = makeInput(2021);
  const tokens = Object.values(references)
    .flat()
    .reduce((n, r) => n + r.split(' ').length, 0);
  console.log(
    `input: ${IMAGES} images × ${REFERENCES_PER_IMAGE} references, ${(tokens / (IMAGES * REFERENCES_PER_IMAGE)).toFixed(1)} tokens each; ${runs} runs; node ${process.version}`,
  );
  const rows: (string | number)[][] = [];
  const measure = (name: string, fn: () => void) => {
    const s = time(runs, fn);
    rows.push([name, s[Math.floor(s.length / 2)], s[0], s[s.length - 1]]);
    return s[Math.floor(s.length / 2)];
  };
  const b = measure('BLEU-1..4', () => bleu.score(references, candidates));
  const c = measure('CIDEr-D', () => cider.score(references, candidates));
  const r = measure('ROUGE-L', () => rouge.score(references, candidates));
  const cases: CaptionCase[] = Object.keys(candidates).map((imageId) => ({ imageId, references: references[imageId], candidate: candidates[imageId] }));
  const together = measure('BLEU + CIDEr-D + ROUGE-L via evaluate (n-grams counted once)', () =>
    evaluate(cases, { tokenized: true, metrics: ['bleu', 'cider', 'rouge'] }),
  );
  measure('METEOR', () => meteor.score(references, candidates));
  measure(`PTB tokenizer (${rawCaptions.length} raw captions)`, () => rawCaptions.forEach(tokenizeCaption));
  console.log(formatTable(['metric', 'median s', 'min s', 'max s'], rows, 3));
  console.log(`BLEU + CIDEr-D + ROUGE-L together: ${together.toFixed(3)} s median (separate calls: ${(b + c + r).toFixed(3)} s)`);
}

main();
