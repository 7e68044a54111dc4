/**
 * Every table's one-seed result keeps the per-image scores of what it evaluates, read back from the runs' stored
 * captions (src/experiments/split-per-image.ts; nocaps rows: src/experiments/cc12m/per-image.ts), and Table 8 its
 * per-query hits: their means are the reported scores, and a split whose stored captions score otherwise gets a note
 * instead. The runs folders here are fabricated: stored predictions with their references, as the tables write them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import { captionerPerImage, type CaptionerRow } from '../src/experiments/cc3m/tables4-7';
import { table5PerImage, type Table5Row } from '../src/experiments/cc12m/table5';
import { table7PerImage, type Table7Row } from '../src/experiments/cc12m/table7';
import { RETRIEVAL_TEST_SPLIT, table8PerQuery, type Table8Row } from '../src/experiments/cc12m/table8';
import { retrievalFile } from '../src/experiments/plan';
import type { Recalls } from '../src/experiments/retrieval-scoring';
import { narrativesPerImage, type Table6Row } from '../src/experiments/cc12m/tables6-10';
import type { ResultRow } from '../src/experiments/runner';
import { perImageOfSplits, SAME_SCORES } from '../src/experiments/split-per-image';
import { TABLES } from '../src/experiments/tables';
import { evaluateRun, scoreCases } from '../src/decode/evaluate-run';
import { readScores } from '../src/runs/layout';
import { ciderMeans } from '../src/metrics/bootstrap';
import type { CaptionCase } from '../src/metrics/evaluate';
import { retrievalRanks, retrievalRecall } from '../src/metrics/retrieval';
import { seededRandom } from '../src/util/random';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-per-image-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let folders = 0;
/** A fresh runs root. */
const runsRoot = (): string => fs.mkdtempSync(path.join(root, `runs${folders++}-`));

const words = ['dog', 'cat', 'boat', 'durian', 'quiche', 'tree', 'car', 'bird'];
const domainOf = ['in', 'near', 'out'] as const;
/** Ten images with five references each; `right` of them captioned well (a split without domains unless `domains`). */
function cases(right: number, seed = 1, domains = false): CaptionCase[] {
  const random = seededRandom(seed);
  return Array.from({ length: 10 }, (_, i) => {
    const object = words[(i + seed) % words.length]!;
    const references = Array.from({ length: 5 }, (_, r) => `a ${object} ${r % 2 ? 'on a table' : 'in the park'} with a ${words[(i + r) % words.length]}`);
    const candidate = i < right ? `a ${object} in the park` : `a ${random() < 0.5 ? 'car' : 'boat'} on the grass`;
    return { imageId: String(i), references, candidate, ...(domains ? { domain: domainOf[i % 3] } : {}) };
  });
}

/** Stores the cases as `runs/<run>/predictions/<split>.json` (as `evaluateRun` writes them); their corpus CIDEr-D ×100. */
function store(runs: string, run: string, split: string, c: readonly CaptionCase[]): number {
  fs.mkdirSync(path.join(runs, run, 'predictions'), { recursive: true });
  const items = c.map((x) => ({ image_id: Number(x.imageId), caption: x.candidate, references: x.references, ...(x.domain ? { domain: x.domain } : {}) }));
  fs.writeFileSync(path.join(runs, run, 'predictions', `${split}.json`), JSON.stringify({ version: 1, run, split, items }));
  return 100 * scoreCases(c, { metrics: ['cider'] }).corpus.CIDEr!;
}

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) <= SAME_SCORES, `${a} vs ${b}`);

test('perImageOfSplits: kept where the per-image mean is the reported CIDEr; a note for captions that score otherwise, none stored, or no references', () => {
  const runs = runsRoot();
  const good = store(runs, 'good', 'coco-test', cases(6));
  const off = store(runs, 'off', 'coco-test', cases(3));
  const nocaps = store(runs, 'nocaps', 'nocaps-val', cases(5, 2, true));
  fs.mkdirSync(path.join(runs, 'bare', 'predictions'), { recursive: true });
  fs.writeFileSync(
    path.join(runs, 'bare', 'predictions', 'coco-test.json'),
    JSON.stringify({ version: 1, run: 'bare', split: 'coco-test', items: [{ image_id: 1, caption: 'a dog' }] }),
  );
  const { perImage, notes } = perImageOfSplits(
    [
      { row: 'a', key: 'test', run: 'good', split: 'coco-test', cider: good },
      { row: 'b', key: 'test', run: 'off', split: 'coco-test', cider: off + 0.5 },
      { row: 'c', key: 'test', run: 'missing', split: 'coco-test', cider: good },
      { row: 'd', key: 'test', run: 'bare', split: 'coco-test', cider: 1 },
      { row: 'e', key: 'test', run: 'nocaps', split: 'nocaps-val', cider: nocaps },
      { row: 'f', key: 'test', run: undefined, split: 'coco-test', cider: 1 },
    ],
    runs,
  );
  assert.deepEqual(Object.keys(perImage), ['a', 'b', 'c', 'd', 'e', 'f'], 'every row has an entry');
  assert.equal(perImage.a!.test!.ids.length, 10);
  assert.equal(perImage.a!.test!.domains, undefined, 'a split without domains: overall only');
  close(100 * ciderMeans(perImage.a!.test!).overall, good);
  assert.deepEqual(perImage.b, {});
  assert.deepEqual(perImage.c, {});
  assert.deepEqual(perImage.d, {});
  assert.deepEqual(perImage.f, {}, 'no run: nothing to read, no note');
  assert.deepEqual(perImage.e!.test!.domains?.slice(0, 3), ['in', 'near', 'out'], 'stored domains are kept');
  close(100 * ciderMeans(perImage.e!.test!).overall, nocaps);
  assert.equal(notes.length, 3);
  assert.match(notes[0]!, /^b test \(off coco-test\): the stored captions score [\d.]+, the row [\d.]+$/);
  assert.match(notes[1]!, /^c test \(missing coco-test\): no stored captions$/);
  assert.match(notes[2]!, /^d test \(bare coco-test\): image 1 has no stored references$/);
});

test('perImageOfSplits on captions and scores evaluateRun wrote (as every table stores them): the mean is the stored corpus CIDEr-D', () => {
  const runs = runsRoot();
  for (const [run, split, c] of [
    ['numeric', 'cc3m-test', cases(6, 12)],
    ['named', 'narratives-test', cases(4, 13).map((x, i) => ({ ...x, imageId: `img-${i}` }))],
  ] as const) {
    evaluateRun(c, { runDir: path.join(runs, run), split, metrics: ['bleu', 'rouge', 'cider'] });
    const stored = 100 * readScores(path.join(runs, run), split)!.corpus.CIDEr!;
    const { perImage, notes } = perImageOfSplits([{ row: run, key: 'test', run, split, cider: stored }], runs);
    assert.deepEqual(notes, []);
    assert.equal(perImage[run]!.test!.ids.length, 10);
    close(100 * ciderMeans(perImage[run]!.test!).overall, stored);
  }
});

test("CC12M Table 5: each row's COCO-like test per-image scores, or a note", () => {
  const runs = runsRoot();
  const row = (pretraining: Table5Row['pretraining'], run: string, cider: number): Table5Row => ({
    pretraining,
    run,
    scores: { 'BLEU-4': 1, METEOR: 1, 'ROUGE-L': 1, CIDEr: cider, SPICE: 1 },
    images: 10,
    nocapsOut: 1,
    nocapsOverall: 1,
  });
  const none = store(runs, 'ft-none', 'coco-test', cases(2));
  const cc12m = store(runs, 'ft-cc12m', 'coco-test', cases(7));
  const { perImage, perImageNotes } = table5PerImage([row('none', 'ft-none', none), row('cc12m', 'ft-cc12m', cc12m + 1)], runs);
  close(100 * ciderMeans(perImage!.none!.test!).overall, none);
  assert.deepEqual(perImage!.cc12m, {});
  assert.equal(perImageNotes!.length, 1);
  assert.match(perImageNotes![0]!, /^cc12m test \(ft-cc12m coco-test\): the stored captions score/);
  assert.equal(table5PerImage([row('none', 'ft-none', none)], runs).perImageNotes, undefined, 'no notes: no field');
});

test("CC12M Table 7: each row's CC3M-like dev and test per-image scores, or a note", () => {
  const runs = runsRoot();
  const split = (cider: number) => ({ scores: { CIDEr: cider, 'ROUGE-L': 1, SPICE: 1, 'BLEU-4': 1, METEOR: 1 }, images: 10 });
  const dev = store(runs, 'ft-cc3m', 'cc3m-dev', cases(4, 3));
  const testCider = store(runs, 'ft-cc3m', 'cc3m-test', cases(8, 4));
  const rows: Table7Row[] = [
    { pretraining: 'cc3m', run: 'ft-cc3m', candidates: [], step: 10, dev: split(dev), test: split(testCider) },
    { pretraining: 'none', run: 'ft-none', candidates: [], step: 10, dev: split(5), test: split(6) },
  ];
  const { perImage, perImageNotes } = table7PerImage(rows, runs);
  assert.deepEqual(Object.keys(perImage!.cc3m!), ['dev', 'test']);
  close(100 * ciderMeans(perImage!.cc3m!.dev!).overall, dev);
  close(100 * ciderMeans(perImage!.cc3m!.test!).overall, testCider);
  assert.deepEqual(perImage!.none, {});
  assert.deepEqual(perImageNotes, ['none dev (ft-none cc3m-dev): no stored captions', 'none test (ft-none cc3m-test): no stored captions']);
  // the test's captions changed after the row was scored: a note for test, dev kept
  store(runs, 'ft-cc3m', 'cc3m-test', cases(2, 4));
  const changed = table7PerImage(rows.slice(0, 1), runs);
  assert.deepEqual(Object.keys(changed.perImage!.cc3m!), ['dev']);
  assert.match(changed.perImageNotes![0]!, /^cc3m test \(ft-cc3m cc3m-test\): the stored captions score/);
});

test("CC12M Tables 10 and 6: Table 10's rows on nocaps (as Table 3's), Table 6's on the narratives' test part", () => {
  const runs = runsRoot();
  const scoresOf = (c: CaptionCase[]) => {
    const d = scoreCases(c, { metrics: ['cider'] }).domains!;
    return { in: 100 * d.in!.CIDEr!, near: 100 * d.near!.CIDEr!, out: 100 * d.out!.CIDEr!, overall: 100 * d.overall!.CIDEr! };
  };
  const val = cases(6, 5, true);
  const zeroShot = cases(3, 6, true);
  store(runs, 'ft-narr', 'nocaps-val', val);
  store(runs, 'pre-narr', 'nocaps-val', zeroShot);
  const table10: ResultRow[] = [
    { label: 'narratives', finetuned: scoresOf(val), zeroShot: scoresOf(zeroShot), finetuneRun: 'ft-narr', pretrainRun: 'pre-narr' },
    { label: 'none', finetuned: { ...scoresOf(val), out: scoresOf(val).out + 1 }, finetuneRun: 'ft-narr' },
  ];
  const narr = store(runs, 'narr-none', 'narratives-test', cases(5, 7));
  const row6 = (init: Table6Row['init'], run: string, cider: number): Table6Row => ({
    init,
    run,
    scores: { 'BLEU-4': 1, 'ROUGE-L': 1, CIDEr: cider },
    tokens: 9,
    referenceTokens: 9,
    images: 10,
  });
  const { perImage, perImageNotes } = narrativesPerImage(table10, [row6('none', 'narr-none', narr), row6('cc3m', 'narr-cc3m', 20)], runs);
  assert.deepEqual(Object.keys(perImage!.table10.narratives!), ['val', 'zeroShot']);
  const means = ciderMeans(perImage!.table10.narratives!.val!);
  for (const d of ['in', 'near', 'out', 'overall'] as const) close(100 * means[d], scoresOf(val)[d]);
  assert.deepEqual(perImage!.table10.none, {}, 'a domain off: the row’s scores are not its stored captions’');
  close(100 * ciderMeans(perImage!.table6.none!.test!).overall, narr);
  assert.equal(perImage!.table6.none!.test!.domains, undefined);
  assert.deepEqual(perImage!.table6.cc3m, {});
  assert.equal(perImageNotes!.length, 2);
  assert.match(perImageNotes![0]!, /^Table 10 none val \(ft-narr nocaps-val\): the stored captions score/);
  assert.equal(perImageNotes![1], 'Table 6 cc3m test (narr-cc3m narratives-test): no stored captions');
});

test("CC3M Tables 4–7: each run's per-image scores on the three tests (its CIDEr ×1), or a note", () => {
  const runs = runsRoot();
  const testScores = (cider100: number) => ({ metrics: { CIDEr: cider100 / 100, ROUGE_L: 0.1, METEOR: 0.1, SPICE: 0.1 }, images: 10, distinct: 10 });
  const coco = store(runs, 'rnn', 'cc3m-coco-test', cases(6, 8));
  const conceptual = store(runs, 'rnn', 'cc3m-conceptual-test', cases(4, 9));
  const flickr = store(runs, 'rnn', 'cc3m-flickr-test', cases(2, 10));
  const row: CaptionerRow = {
    label: 'RNN1x1_coco',
    model: 'RNN',
    features: '1x1',
    training: 'coco',
    run: 'rnn',
    vocabSize: 10,
    tests: { coco: testScores(coco), conceptual: testScores(conceptual), flickr: testScores(flickr + 2) },
    trained: false,
    captioned: 0,
  };
  const { perImage, perImageNotes } = captionerPerImage([row], runs);
  assert.deepEqual(Object.keys(perImage!.RNN1x1_coco!), ['coco', 'conceptual']);
  close(100 * ciderMeans(perImage!.RNN1x1_coco!.coco!).overall, coco);
  close(100 * ciderMeans(perImage!.RNN1x1_coco!.conceptual!).overall, conceptual);
  assert.equal(perImageNotes!.length, 1);
  assert.match(perImageNotes![0]!, /^RNN1x1_coco flickr \(rnn cc3m-flickr-test\): the stored captions score/);
});

test("CC12M Table 8: per-query hits from the stored ranks, their means the row's recalls; a note where they are not", () => {
  const runs = runsRoot();
  // 6 images × 2 captions, noisy similarities: some queries hit, some not
  const random = seededRandom(11);
  const textImage = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
  const matrix = () => Array.from({ length: 6 }, (_, i) => textImage.map((image) => (image === i ? 0.5 : 0) + random()));
  const percent = (r: ReturnType<typeof retrievalRecall>): Recalls => {
    const pct = (x: Record<string, number>) => ({ 'R@1': 100 * x['R@1']!, 'R@5': 100 * x['R@5']!, 'R@10': 100 * x['R@10']! });
    return { imageToText: pct(r.imageToText), textToImage: pct(r.textToImage) };
  };
  const fine = matrix();
  const zero = matrix();
  const recalls = { finetuned: percent(retrievalRecall(fine, textImage, [1, 5, 10])), zeroShot: percent(retrievalRecall(zero, textImage, [1, 5, 10])) };
  // each run stores its own retrieval evaluation (the executor's `retrieval/<split>.json`)
  const write = (run: string, test: string, ranks: ReturnType<typeof retrievalRanks>) => {
    const file = retrievalFile(path.join(runs, run), RETRIEVAL_TEST_SPLIT);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ split: RETRIEVAL_TEST_SPLIT, test, recalls: {}, temperature: 1, ranks }));
  };
  write('ft-cc12m', 'digest', retrievalRanks(fine, textImage));
  write('pre-cc12m', 'digest', retrievalRanks(zero, textImage));
  write('ft-none', 'digest', retrievalRanks(zero, textImage));
  write('ft-cc3m', 'another', retrievalRanks(fine, textImage));
  const row = (pretraining: Table8Row['pretraining'], run: string, finetuned: Recalls, zeroShot?: Recalls): Table8Row => ({
    pretraining,
    run,
    finetuned,
    ...(zeroShot ? { zeroShot, pretrainRun: `pre-${pretraining}` } : {}),
    finalLoss: { finetune: 1 },
    pretrainPairs: 0,
    trained: false,
  });
  const rows = [
    row('cc12m', 'ft-cc12m', recalls.finetuned, recalls.zeroShot),
    row('none', 'ft-none', recalls.finetuned),
    row('cc3m', 'ft-cc3m', recalls.finetuned),
    row('cc3m+cc12m', 'ft-both', recalls.finetuned),
  ];
  const { perQuery, perQueryNotes } = table8PerQuery(rows, runs, 'digest');
  const mean = (xs: number[]) => 100 * (xs.reduce((a, b) => a + b, 0) / xs.length);
  for (const which of ['finetuned', 'zeroShot'] as const)
    for (const d of ['imageToText', 'textToImage'] as const)
      for (const k of ['R@1', 'R@5', 'R@10'] as const) {
        const hits = perQuery!.cc12m![which]![d][k];
        assert.equal(hits.length, d === 'imageToText' ? 6 : 12, 'one per image, one per caption');
        assert.ok(hits.every((h) => h === 0 || h === 1));
        assert.equal(mean(hits), recalls[which][d][k], `${which} ${d} ${k}`);
      }
  assert.ok(
    perQuery!.cc12m!.finetuned!.textToImage['R@1'].some((h) => h === 0),
    'some queries miss',
  );
  assert.deepEqual(perQuery!.none, {}, 'the stored ranks give other recalls');
  assert.deepEqual(perQuery!.cc3m, {});
  assert.deepEqual(perQuery!['cc3m+cc12m'], {});
  assert.equal(perQueryNotes!.length, 3);
  assert.match(perQueryNotes![0]!, /^none finetuned \(ft-none\): .*the stored ranks give [\d.]+, the row [\d.]+/);
  assert.equal(perQueryNotes![1], 'cc3m finetuned (ft-cc3m): the stored ranks are of another test set');
  assert.match(perQueryNotes![2]!, /^cc3m\+cc12m finetuned \(ft-both\): no stored ranks/);
});

test('results as JSON leave the per-image scores and per-query hits out, their notes in', () => {
  const json = (name: keyof typeof TABLES, result: object) => JSON.parse(JSON.stringify((TABLES[name].json as (r: object) => unknown)(result)));
  for (const name of ['cc12m/table4', 'cc12m/table5', 'cc12m/tables6-10', 'cc12m/table7', 'cc3m/tables4-7'] as const)
    assert.deepEqual(json(name, { seed: 0, perImage: { a: { test: { ids: ['1'], overall: [1] } } }, perImageNotes: ['a note'] }), {
      seed: 0,
      perImageNotes: ['a note'],
    });
  assert.deepEqual(json('cc12m/table8', { seed: 0, perQuery: { none: {} }, perQueryNotes: ['a note'] }), { seed: 0, perQueryNotes: ['a note'] });
});
