import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { claimRows } from '../src/experiments/claims';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cocoTestScores, table5ClaimList, table5Rows, COCO_TEST_SPLIT, type Table5Result } from '../src/experiments/cc12m/table5';
import { evaluate } from '../src/metrics/evaluate';

const items = [
  { image_id: 1, caption: 'a dog runs on the grass', references: ['a dog running on green grass', 'a brown dog runs across a field'] },
  { image_id: 2, caption: 'a man rides a bike', references: ['a man riding a bicycle down the street', 'a person on a bike'] },
  { image_id: 3, caption: 'a red car', references: ['a red car parked by the road', 'a small red car on a street'] },
];

test('cocoTestScores: stored COCO-test captions scored with BLEU-4, METEOR, ROUGE-L, CIDEr-D and SPICE, ×100, as evaluate gives them', () => {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-cc12m-coco-'));
  fs.mkdirSync(path.join(run, 'predictions'));
  fs.writeFileSync(
    path.join(run, 'predictions', `${COCO_TEST_SPLIT}.json`),
    JSON.stringify({ version: 1, run: 'r', split: COCO_TEST_SPLIT, created: '2026-01-01', items }),
  );
  const { scores, images } = cocoTestScores(run);
  assert.equal(images, 3);
  const direct = evaluate(
    items.map((i) => ({ imageId: String(i.image_id), references: i.references, candidate: i.caption })),
    { metrics: ['bleu', 'meteor', 'rouge', 'cider', 'spice'] },
  ).corpus;
  assert.equal(scores['BLEU-4'], 100 * direct.Bleu_4!);
  assert.equal(scores.METEOR, 100 * direct.METEOR!);
  assert.equal(scores['ROUGE-L'], 100 * direct.ROUGE_L!);
  assert.equal(scores.CIDEr, 100 * direct.CIDEr!);
  assert.equal(scores.SPICE, 100 * direct.SPICE!);
  assert.ok(scores.CIDEr > 0 && scores.SPICE > 0);
  // a stored caption without references cannot be scored: the run and image are named
  fs.writeFileSync(
    path.join(run, 'predictions', `${COCO_TEST_SPLIT}.json`),
    JSON.stringify({ version: 1, run: 'r', split: COCO_TEST_SPLIT, created: '2026-01-01', items: [{ image_id: 9, caption: 'x' }] }),
  );
  assert.throws(() => cocoTestScores(run), /image 9 has no stored references/);
});

const result = (seed: number, cider: Record<string, number>, out: Record<string, number>): Table5Result => ({
  seed,
  captioned: 0,
  rows: Object.keys(cider).map((p) => ({
    pretraining: p as 'none',
    run: `finetune-${p}`,
    scores: { 'BLEU-4': 10, METEOR: 15, 'ROUGE-L': 30, CIDEr: cider[p]!, SPICE: 5 },
    images: 250,
    nocapsOut: out[p]!,
    nocapsOverall: out[p]! + 5,
  })),
});

test('table5Claims and table5Rows: verdicts decided over seeds; the paper column is n/a', () => {
  const perSeed = [
    result(0, { none: 50, cc3m: 55, cc12m: 52 }, { none: 20, cc3m: 25, cc12m: 40 }),
    result(1, { none: 50, cc3m: 48, cc12m: 53 }, { none: 22, cc3m: 24, cc12m: 30 }),
  ];
  const claims = claimRows(table5ClaimList(perSeed));
  const verdict = (prefix: string) => claims.find((c) => c.claim.startsWith(prefix))!.here;
  assert.equal(verdict('pre-training on cc3m'), 'undecided'); // +5, −2
  assert.equal(verdict('pre-training on cc12m'), 'undecided'); // +2, +3: two seeds, t(1) = 12.7
  // out-of-domain gain − COCO gain: seed 0 (40−20) − (52−50) = +18; seed 1 (30−22) − (53−50) = +5
  const mechanism = claims.find((c) => c.claim.startsWith("CC12M's CIDEr gain"))!;
  assert.equal(mechanism.here, 'undecided');
  assert.equal(mechanism['measured (per seed)'], 'out gain − COCO gain: +18.0, +5.0');
  assert.equal(mechanism['mean [95% interval]'], '+11.5 [−71.1, +94.1]');
  const rows = table5Rows(perSeed);
  assert.deepEqual(
    rows.map((r) => [r['pre-training'], r.CIDEr, r['paper CIDEr']]),
    [
      ['none', '50.0 ± 0.0', 'n/a'],
      ['cc3m', '51.5 ± 4.9', 'n/a'],
      ['cc12m', '52.5 ± 0.7', 'n/a'],
    ],
  );
});
