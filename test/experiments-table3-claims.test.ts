/** CC12M Table 3 over seeds: the tables, claims and the grounding note come from the per-seed numbers. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { claimRows } from '../src/experiments/claims';

import { perImageOfRows } from '../src/experiments/cc12m/per-image';
import type { Table3Result } from '../src/experiments/cc12m/table3';
import {
  table3ClaimList,
  table3DataRows,
  table3RateRows,
  table3Figure,
  table3GroundingNote,
  table3JudgeRows,
  table3SeedRows,
} from '../src/experiments/cc12m/table3-report';
import { mechanismFigure, namingCurvesFigure, spearman, table3Mechanism } from '../src/experiments/cc12m/mechanism';
import { RECIPES } from '../src/experiments/recipe';
import { scoreCases } from '../src/decode/evaluate-run';
import type { PerImageCider } from '../src/metrics/bootstrap';
import type { ResultRow } from '../src/experiments/runner';

type Domains = { in: number; near: number; out: number; overall: number };
const d = (inD: number, near: number, out: number): Domains => ({ in: inD, near, out, overall: (inD + near + out) / 3 });
const judge = (recall: number, byName: number) => {
  const g = { recall: recall / 100, specificRecall: byName / 100, chairS: 0.1, chairI: 0.05, captions: 10 };
  return { in: g, near: g, out: g, overall: g };
};

/** One seed: CC12M ahead of CC3M most out of domain on val (by `outGain`), fine-tuning ahead of zero-shot. */
function seedResult(seed: number, outGain: number, recall = 40): Table3Result {
  const val: Record<string, Domains> = { none: d(40, 30, 20), cc3m: d(50, 45, 30), cc12m: d(52, 47, 30 + outGain), 'cc3m+cc12m': d(53, 48, 33) };
  const row = (p: string, i: number) => ({
    pretraining: p as Table3Result['rows'][number]['pretraining'],
    finetuned: val[p]!,
    zeroShot: p === 'none' ? undefined : d(10, 10, p === 'cc3m' ? 12 : 8),
    test: { finetuned: val[p]! },
    grounding: { finetuned: judge(recall, recall / 2) },
    selection: { candidates: [], step: 100 + 25 * i },
    finetuneRun: `finetune-${p}-${seed}`,
  });
  return {
    config: { ...RECIPES.tiny, seed },
    rows: RECIPES.tiny.rows.map(row) as unknown as Table3Result['rows'],
    inputs: {} as never,
    human: { val: d(90, 90, 90) as never },
    pools: { cc3m: 500, cc12m: 2000 },
    seconds: 1,
  };
}

test('claims are decided over seeds: a gain on one seed and a loss on the other is undecided', () => {
  const claims = table3ClaimList([seedResult(0, 8), seedResult(1, -3)]);
  const byText = new Map(claims.map((c) => [c.claim, c]));
  assert.equal(byText.get('pre-training on CC3M beats no pre-training')!.verdict, 'holds');
  assert.equal(byText.get('CC12M beats CC3M out of domain')!.verdict, 'undecided');
  assert.equal(byText.get('CC12M beats CC3M out of domain')!.id, 'cc12m.table3.cc12m-vs-cc3m.out');
  assert.deepEqual(byText.get('CC12M beats CC3M out of domain')!.differences, [8, -3]);
  // out gain 8 against in/near gains of 2: +6 on seed 0; −3 against 2: −5 on seed 1
  assert.deepEqual(byText.get("CC12M's gain over CC3M is largest out of domain")!.differences, [6, -5]);
  assert.equal(byText.get('zero-shot, CC3M scores above CC12M')!.verdict, 'holds');
  assert.equal(byText.get('fine-tuning on COCO beats zero-shot (CC12M)')!.verdict, 'holds');
  assert.equal(claims.length, 11);
  const rows = claimRows(table3ClaimList([seedResult(0, 8), seedResult(1, 9)]));
  assert.equal(rows.find((r) => r.claim === 'CC12M beats CC3M out of domain')!.here, 'holds');
  assert.equal(rows.find((r) => r.claim === 'CC12M beats CC3M out of domain')!['measured (per seed)'], '+8.0, +9.0');
});

test('the data rows: passes over each pre-training pool (both: their sum) and over the COCO-like captions up to the chosen step', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-t3-data-'));
  const coco = path.join(dir, 'captions_train.json');
  const images = [0, 1, 2, 3].map((id) => ({ id, file_name: `${id}.jpg` }));
  const annotations = images.flatMap((img) => [0, 1, 2, 3, 4].map((k) => ({ id: 5 * img.id + k, image_id: img.id, caption: `a caption ${k}` })));
  fs.writeFileSync(coco, JSON.stringify({ images, annotations }));
  try {
    const result = { ...seedResult(0, 8), inputs: { cocoTrain: coco, imageRoot: dir } as never };
    const rows = table3DataRows([result]);
    const pre = rows.filter((r) => r.stage === 'pre-training');
    assert.deepEqual(
      pre.map((r) => [r.data, r['pairs or captions'], r.drawn, r.passes]),
      [
        ['cc3m', '500', '48,000', '96.0'],
        ['cc12m', '2,000', '48,000', '24.0'],
        ['cc3m+cc12m', '2,500', '48,000', '19.2'],
      ],
    );
    const fine = rows.filter((r) => r.data === 'COCO-like train');
    assert.equal(fine.length, 4, 'one row per Table 3 row, none included');
    // the none row chose step 100 (100 × 32 = 3,200 captions drawn of 20): 160 passes
    assert.deepEqual([fine[0]!['pairs or captions'], fine[0]!.steps, fine[0]!.passes], ['20', '100 × 32', '160.0']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the learning-rate table puts the searched rows beside the preset-rate rows, with each seed's (rate, step) and each rate's best", () => {
  // the search chose 2.5e-4 @ 50 on seed 0 and 1e-3 @ 100 on seed 1 for cc12m, raising its val overall by 3 and 1
  const searchedSeed = (seed: number, lr: number, step: number, gain: number): Table3Result => {
    const base = seedResult(seed, 8);
    return {
      ...base,
      rows: base.rows.map((r) => {
        if (r.pretraining !== 'cc12m') return r;
        const finetuned = { ...r.finetuned, overall: r.finetuned.overall + gain };
        const rates = [2.5e-4, 5e-4, 1e-3].map((x) => ({
          lr: x,
          step,
          val: { ...finetuned, overall: x === lr ? finetuned.overall : r.finetuned.overall },
          run: `run-${x}`,
        }));
        return { ...r, finetuned, selection: { candidates: [], step, lr, rates } };
      }) as Table3Result['rows'],
    };
  };
  const rows = table3RateRows([seedResult(0, 8), seedResult(1, 8)], [searchedSeed(0, 2.5e-4, 50, 3), searchedSeed(1, 1e-3, 100, 1)]);
  const cc12m = rows.find((r) => r['pre-training'] === 'cc12m')!;
  const overall = d(52, 47, 38).overall;
  assert.equal(cc12m['rate, step chosen (per seed)'], '2.5e-4 @ 50 / 1.0e-3 @ 100');
  assert.equal(cc12m['val overall, preset rate'], `${overall.toFixed(1)} ± 0.0`);
  assert.equal(cc12m['val overall, searched'], `${(overall + 2).toFixed(1)} ± 1.4`);
  assert.equal(cc12m['val out, searched'], '38.0 ± 0.0', 'the search moved overall only');
  // 2.5e-4 was best on seed 0 (+3) and not on seed 1: its best is the mean of overall + 3 and overall
  assert.equal(cc12m['best val overall at 2.5e-4'], `${(overall + 1.5).toFixed(1)} ± 2.1`);
  assert.equal(cc12m['best val overall at 5.0e-4'], `${overall.toFixed(1)} ± 0.0`);
  // rows without a grid show no rate
  assert.match(rows.find((r) => r['pre-training'] === 'none')!['rate, step chosen (per seed)'], /^— @ 100 \/ — @ 100$/);
});

test('the seed table shows mean ± std per domain, the steps chosen per seed and the human row', () => {
  const rows = table3SeedRows([seedResult(0, 8), seedResult(1, 4)]);
  const cc12m = rows.find((r) => r['pre-training'] === 'cc12m')!;
  assert.equal(cc12m.out, '36.0 ± 2.8');
  assert.equal(cc12m['steps chosen'], '150 / 150');
  assert.equal(rows.at(-1)!['pre-training'], 'human');
  assert.equal(rows.at(-1)!.in, '90.0 ± 0.0');
  assert.equal(rows.find((r) => r['pre-training'] === 'none')!['zero-shot out'], '—');
  const judged = table3JudgeRows([seedResult(0, 8), seedResult(1, 4)]);
  assert.equal(judged.find((r) => r['pre-training'] === 'cc3m')!['recall out'], '40.0 ± 0.0');
  const fig = table3Figure([seedResult(0, 8), seedResult(1, 4)]) as { data: { name: string; y: number[] }[] };
  assert.deepEqual(fig.data.find((t) => t.name === 'cc12m')!.y.slice(0, 3), [52, 47, 36]);
});

test('the grounding note says whether the out-of-domain difference is evidence, from the judge’s recall', () => {
  assert.match(table3GroundingNote([seedResult(0, 8, 40)]), /compares models that look at the image/);
  assert.match(table3GroundingNote([seedResult(0, 8, 10)]), /not evidence either way/);
});

test('the mechanism: pool frequency against naming per concept, and naming at every fine-tuning checkpoint', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-mechanism-'));
  const world = path.join(dir, 'world');
  fs.mkdirSync(world);
  fs.writeFileSync(
    path.join(world, 'concepts.json'),
    JSON.stringify([
      { name: 'dog', coco: true },
      { name: 'durian', coco: false },
      { name: 'quiche', coco: false },
    ]),
  );
  // six nocaps-like images: durian in four (out of domain), quiche in three, dogs everywhere (COCO: not counted)
  const shows = [['durian', 'dog'], ['durian'], ['durian', 'quiche'], ['durian', 'quiche'], ['quiche', 'dog'], ['dog']];
  fs.writeFileSync(
    path.join(dir, 'nocaps.json'),
    JSON.stringify({
      images: shows.map((objects, id) => ({ id, file_name: `${id}.jpg`, width: 1, height: 1, domain: id < 4 ? 'out-domain' : 'in-domain', objects })),
      annotations: shows.map((_, id) => ({ id, image_id: id, caption: 'a thing' })),
    }),
  );
  fs.writeFileSync(path.join(dir, 'cc3m.tsv'), 'a fruit on a table\thttp://x/1\na quiche\thttp://x/2\n');
  fs.writeFileSync(path.join(dir, 'cc12m.tsv'), 'a durian\thttp://x/1\ntwo durians\thttp://x/2\na quiche\thttp://x/3\n');
  const runs = path.join(dir, 'runs');
  const store = (run: string, split: string, named: string[][]) => {
    fs.mkdirSync(path.join(runs, run, 'predictions'), { recursive: true });
    const items = named.map((n, id) => ({ image_id: id, caption: 'c', references: [], grounding: { named: n, byKind: [], hallucinated: [] } }));
    fs.writeFileSync(path.join(runs, run, 'predictions', `${split}.json`), JSON.stringify({ version: 1, run, split, items }));
  };
  // CC12M zero-shot names the durian on all four of its images; after fine-tuning on one, and at step 25 on two
  store('pre-12', 'nocaps-val', [['durian'], ['durian'], ['durian'], ['durian', 'quiche'], [], []]);
  store('ft-12', 'nocaps-val', [['dog'], [], [], ['durian'], [], []]);
  store('ft-12', 'nocaps-val.step-0000025', [['durian'], ['durian'], [], [], [], []]);
  store('pre-3', 'nocaps-val', [[], [], [], [], ['quiche'], []]);
  store('ft-3', 'nocaps-val', [[], [], [], [], [], []]);
  const result = {
    ...seedResult(0, 1),
    inputs: {
      pools: { cc3m: path.join(dir, 'cc3m.tsv'), cc12m: path.join(dir, 'cc12m.tsv') },
      cocoTrain: '',
      cocoVal: '',
      nocapsVal: path.join(dir, 'nocaps.json'),
      worldRoot: world,
    },
    rows: [
      { pretraining: 'cc3m', pretrainRun: 'pre-3', finetuneRun: 'ft-3' },
      { pretraining: 'cc12m', pretrainRun: 'pre-12', finetuneRun: 'ft-12' },
    ],
  } as unknown as Table3Result;
  const m = await table3Mechanism(result, runs);
  assert.deepEqual(
    m.concepts.cc12m!.map((c) => [c.concept, c.poolCount, c.images, c.zeroShot, c.finetuned]),
    [
      ['durian', 2, 4, 100, 25],
      ['quiche', 1, 3, 100 / 3, 0],
    ],
  );
  assert.deepEqual(
    m.concepts.cc3m!.map((c) => [c.concept, c.poolCount, c.zeroShot]),
    [
      ['durian', 0, 0],
      ['quiche', 1, 100 / 3],
    ],
  );
  // out-of-domain images 0–3: zero-shot all four name a tail object, step 25 two, the chosen checkpoint one
  assert.deepEqual(
    m.curves.find((c) => c.pretraining === 'cc12m'),
    { pretraining: 'cc12m', steps: [0, 25], named: [100, 50] },
  );
  const figure = mechanismFigure(m) as { data: { x: number[] }[]; layout: { xaxis: { type: string } } };
  assert.equal(figure.data.length, 4);
  assert.equal(figure.layout.xaxis.type, 'log');
  assert.deepEqual(figure.data[2]!.x, [3, 2], 'mentions + 1 on the log axis');
  assert.equal((namingCurvesFigure(m) as { data: unknown[] }).data.length, 2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("Spearman's rank correlation: monotone is 1, reversed is −1, ties averaged, too few pairs NaN", () => {
  assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1);
  assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  assert.ok(Math.abs(spearman([1, 1, 2, 3], [1, 2, 3, 4]) - 0.9486832980505138) < 1e-12);
  assert.ok(Number.isNaN(spearman([1, 2], [1, 2])));
  assert.ok(Number.isNaN(spearman([1, 2, 3], [5, 5, 5])), 'no variation: undefined');
});

/**
 * Per-image scores whose means are `scores` (×100): four images per domain, each domain's scores its mean ± `noise`
 * (the sign pattern shifted by `shift`, so two rows' noise does not cancel in their difference).
 */
function perImageOf(scores: Domains, noise: number, shift: number): PerImageCider {
  const domainsOf = ['in', 'near', 'out'] as const;
  const ids: string[] = [];
  const domains: PerImageCider['domains'] = [];
  const withinDomain: number[] = [];
  domainsOf.forEach((d, k) =>
    [1, -1, -1, 1].forEach((sign, i) => {
      ids.push(String(4 * k + i));
      domains.push(d);
      withinDomain.push((scores[d] + (i % 2 === shift % 2 ? sign : -sign) * noise) / 100);
    }),
  );
  return { ids, domains, withinDomain, overall: ids.map(() => scores.overall / 100) };
}

/** `seedResult` with per-image scores for every row and split, spread by `noise` (CIDEr ×100) around the row's. */
function withNoise(result: Table3Result, noise: number): Table3Result {
  const perImage = Object.fromEntries(
    result.rows.map((row, i) => [
      row.pretraining,
      {
        val: perImageOf(row.finetuned, noise, i),
        test: perImageOf(row.test!.finetuned, noise, i),
        ...(row.zeroShot ? { zeroShot: perImageOf(row.zeroShot, noise, i + 1) } : {}),
      },
    ]),
  );
  return { ...result, perImage };
}

test('with per-image scores every claim carries a bootstrap interval per seed; one seed is decided on it, several by t over seeds', () => {
  const quiet = table3ClaimList([withNoise(seedResult(0, 8), 1), withNoise(seedResult(1, 9), 1)]);
  const out = quiet.find((c) => c.claim === 'CC12M beats CC3M out of domain')!;
  assert.equal(out.verdict, 'holds');
  assert.equal(out.intervals!.length, 2);
  assert.ok(out.intervals!.every((i) => i!.low > 0));
  // the interval's estimate is the claim's difference (the per-image means are the row's scores)
  assert.ok(Math.abs(out!.intervals![0]!.estimate! - 8) < 1e-9);
  assert.match(
    claimRows(table3ClaimList([withNoise(seedResult(0, 8), 1)])).find((r) => r.claim === 'CC12M beats CC3M out of domain')!['measured (per seed)'],
    /^\+8\.0 \[\+\d/,
  );
  const lead = quiet.find((c) => c.claim === "CC12M's gain over CC3M is largest out of domain")!;
  assert.ok(Math.abs(lead!.intervals![0]!.estimate! - 6) < 1e-9, 'the difference of differences, resampled jointly');
  assert.ok(
    quiet.every((c) => c.intervals?.every((i) => i !== undefined)),
    'every claim, zero-shot and test included',
  );
  // the same differences with noisy images: each seed's interval reaches zero; over seeds, their spread is the noise
  const noisy = table3ClaimList([withNoise(seedResult(0, 8), 40), withNoise(seedResult(1, 9), 40)]);
  const noisyOut = noisy.find((c) => c.claim === 'CC12M beats CC3M out of domain')!;
  assert.deepEqual(noisyOut.differences, [8, 9]);
  assert.ok(noisyOut.intervals!.some((i) => i!.low <= 0));
  assert.equal(noisyOut.verdict, 'holds');
  assert.equal(noisyOut.decided.method, 't over seeds');
  const oneNoisy = table3ClaimList([withNoise(seedResult(0, 8), 40)]).find((c) => c.claim === 'CC12M beats CC3M out of domain')!;
  assert.equal(oneNoisy.verdict, 'undecided');
  assert.equal(oneNoisy.decided.method, 'images of one seed');
  const oneQuiet = table3ClaimList([withNoise(seedResult(0, 8), 1)]).find((c) => c.claim === 'CC12M beats CC3M out of domain')!;
  assert.equal(oneQuiet.verdict, 'holds');
  // deterministic: the seed's recipe seed seeds the resampling
  assert.deepEqual(table3ClaimList([withNoise(seedResult(0, 8), 40)])[3]!.intervals, table3ClaimList([withNoise(seedResult(0, 8), 40)])[3]!.intervals);
});

test("a row's per-image scores come from its runs' stored captions, kept only where they give the row's scores", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-perimage-'));
  const domains = ['in', 'near', 'out'] as const;
  const cases = (right: number) =>
    Array.from({ length: 9 }, (_, i) => ({
      imageId: String(i),
      references: [`a dog number ${i} on a sofa`, `a dog ${i} sleeping`, `the ${i} dog on a sofa`],
      candidate: i < right ? `a dog number ${i} on a sofa` : 'a car',
      domain: domains[i % 3],
    }));
  const store = (run: string, split: string, c: ReturnType<typeof cases>) => {
    fs.mkdirSync(path.join(dir, run, 'predictions'), { recursive: true });
    const items = c.map((x) => ({ image_id: Number(x.imageId), caption: x.candidate, references: x.references, domain: x.domain }));
    fs.writeFileSync(path.join(dir, run, 'predictions', `${split}.json`), JSON.stringify({ version: 1, run, split, items }));
    const d = scoreCases(c, { metrics: ['cider'] }).domains!;
    return { in: 100 * d.in!.CIDEr!, near: 100 * d.near!.CIDEr!, out: 100 * d.out!.CIDEr!, overall: 100 * d.overall!.CIDEr! };
  };
  const good = store('ft-good', 'nocaps-val', cases(6));
  const zero = store('pre-good', 'nocaps-val', cases(3));
  const other = store('ft-off', 'nocaps-val', cases(2));
  const rows: ResultRow[] = [
    { label: 'cc12m', finetuned: good, zeroShot: zero, finetuneRun: 'ft-good', pretrainRun: 'pre-good' },
    { label: 'cc3m', finetuned: { ...other, overall: other.overall + 1 }, finetuneRun: 'ft-off' },
    { label: 'none', finetuned: good, test: { finetuned: good }, finetuneRun: 'ft-missing' },
  ];
  const { perImage, notes } = perImageOfRows(rows, dir);
  assert.deepEqual(Object.keys(perImage.cc12m!), ['val', 'zeroShot']);
  assert.equal(perImage.cc12m!.val!.ids.length, 9);
  assert.deepEqual(perImage.cc3m, {}, 'the stored captions do not give the row’s scores');
  assert.deepEqual(perImage.none, {});
  assert.equal(notes.length, 3);
  assert.match(notes[0]!, /cc3m val \(ft-off nocaps-val\): the stored captions score/);
  assert.match(notes[1]!, /none val .*no stored captions/);
  assert.match(notes[2]!, /none test .*no stored captions/);
  fs.rmSync(dir, { recursive: true, force: true });
});
