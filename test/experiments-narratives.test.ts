import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  PAPER_NARRATIVES_MAX_LEN,
  narrativeTokenCap,
  narrativesDecode,
  narrativesFiles,
  splitNarratives,
  table10Recipe,
  table10Variants,
  table6Config,
  type NarrativesResult,
} from '../src/experiments/cc12m/tables6-10';
import { narrativesClaims, table10Paper, table10Rows, table6Rows } from '../src/experiments/cc12m/tables6-10-report';
import { RECIPES, type Inputs } from '../src/experiments/recipe';
import { finetuneConfig, pretrainConfig, type ResultRow } from '../src/experiments/runner';
import { table3Variants } from '../src/experiments/cc12m/table3';
import { readExamples, readEvalImages } from '../src/train/data';

test('splitNarratives: every testEvery-th image is held out, the rest train, none lost or shared', () => {
  const ids = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];
  const { train, test: held } = splitNarratives(ids, 5);
  assert.deepEqual(held, [14, 19]);
  assert.deepEqual(train, [10, 11, 12, 13, 15, 16, 17, 18, 20]);
  assert.throws(() => splitNarratives(ids, 1), /testEvery must be an integer ≥ 2/);
});

test('narrativesFiles: the pool TSV reads back as one pair per narrative; train/test annotation subsets; unchanged files are not rewritten', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-narratives-'));
  const source = path.join(dir, 'captions.json');
  const images = [0, 1, 2, 3].map((id) => ({ id, file_name: `${id}.jpg`, coco_url: `https://example.org/${id}.jpg`, width: 10, height: 10 }));
  const narrative = (id: number) => `In this image I can see a dog\tnumber ${id}.\nIn the background I can see grass.`;
  fs.writeFileSync(
    source,
    JSON.stringify({ info: {}, licenses: [], images, annotations: images.map((i) => ({ id: 100 + i.id, image_id: i.id, caption: narrative(i.id) })) }),
  );
  const files = narrativesFiles(source, path.join(dir, 'out'), 2);
  assert.deepEqual(files.counts, { images: 4, train: 2, test: 2 });
  const pool = await readExamples({ kind: 'tsv', path: files.pool });
  assert.equal(pool.length, 4);
  assert.equal(pool[1]!.caption, 'In this image I can see a dog number 1. In the background I can see grass.');
  assert.equal(pool[1]!.key, 'https://example.org/1.jpg');
  const train = readEvalImages({ path: files.train, imageRoot: files.imageRoot }).map((i) => i.imageId);
  const held = readEvalImages({ path: files.test, imageRoot: files.imageRoot });
  assert.deepEqual(train, [0, 2]);
  assert.deepEqual(
    held.map((i) => i.imageId),
    [1, 3],
  );
  assert.deepEqual(held[1]!.references, [narrative(3)]);
  const before = fs.statSync(files.train).mtimeMs;
  const again = narrativesFiles(source, path.join(dir, 'out'), 2);
  assert.equal(again.train, files.train, 'same source, same folder');
  assert.equal(fs.statSync(files.train).mtimeMs, before, 'an unchanged file is left as it is');
  // images known only by a local file name cannot be named in a pool TSV
  const local = path.join(dir, 'local.json');
  fs.writeFileSync(local, JSON.stringify({ images: [{ id: 7, file_name: '7.jpg' }], annotations: [{ id: 1, image_id: 7, caption: narrative(7) }] }));
  assert.throws(() => narrativesFiles(local, path.join(dir, 'out'), 2), /image 7 has no URL/);
});

const inputs: Inputs & { pools: { narratives: string } } = {
  pools: { cc3m: '/p/cc3m.tsv', cc12m: '/p/cc12m.tsv', narratives: '/p/narratives.tsv' },
  cocoTrain: '/c/train.json',
  cocoVal: '/c/val.json',
  nocapsVal: '/n/val.json',
};

test("Table 10: none / CC3M / CC12M are Table 3's variants with Table 3's recipe (same run configs); only the narratives row differs", () => {
  const recipe = RECIPES.tiny;
  const plan = recipe.narratives;
  const t3 = table3Variants(recipe);
  for (const v of table10Variants().filter((x) => x.label !== 'narratives')) {
    const same = t3.find((x) => x.label === v.label)!;
    const r = table10Recipe(recipe, v);
    assert.deepEqual(pretrainConfig(r, v, inputs), pretrainConfig(recipe, same, inputs), v.label);
    assert.deepEqual(finetuneConfig(r, v, inputs, 'runs/p'), finetuneConfig(recipe, same, inputs, 'runs/p'), v.label);
  }
  const narratives = table10Variants().find((x) => x.label === 'narratives')!;
  const pre = pretrainConfig(table10Recipe(recipe, narratives), narratives, inputs)!;
  assert.deepEqual(pre.data.train, [{ kind: 'tsv', path: '/p/narratives.tsv' }]);
  assert.equal(pre.steps, plan.pretrainSteps);
  assert.equal(pre.data.maxCaptionLen, recipe.maxCaptionLen, 'pre-training captions as Table 3 cuts them');
  const fine = finetuneConfig(table10Recipe(recipe, narratives), narratives, inputs, 'runs/p');
  const { name: _a, init: _b, ...rest } = fine;
  const { name: _c, init: _d, ...table3Rest } = finetuneConfig(recipe, t3[1]!, inputs, 'runs/p');
  assert.deepEqual(rest, table3Rest, "fine-tuning on COCO is Table 3's");
});

test("Table 6: long captions capped by the Transformer positions, the recipe's narratives stage, no selection nor validation, init from a pre-training run", () => {
  const recipe = RECIPES.tiny;
  const plan = recipe.narratives;
  const files = { source: '/s.json', pool: '/p.tsv', train: '/tr.json', test: '/te.json', imageRoot: '/', counts: { images: 5, train: 4, test: 1 } };
  assert.equal(narrativeTokenCap(recipe), 62, '64 positions: BOS and one of margin');
  assert.equal(narrativeTokenCap({ ...recipe, model: { kind: 'transformer', size: 'tiny', overrides: { maxPositions: 400 } } }), PAPER_NARRATIVES_MAX_LEN);
  assert.equal(narrativeTokenCap({ ...recipe, model: { kind: 'lstm', size: 'tiny' } }), PAPER_NARRATIVES_MAX_LEN);
  assert.deepEqual(narrativesDecode(recipe), { method: 'beam', beamSize: 5, alpha: 0.6, maxLen: 62, earlyStopping: 'heuristic' });
  const scratch = table6Config(recipe, 'none', files);
  assert.equal(scratch.data.maxCaptionLen, 62);
  assert.deepEqual(scratch.data.train, [{ kind: 'coco', path: '/tr.json', imageRoot: '/' }]);
  assert.equal(scratch.steps, plan.captioning.steps);
  assert.equal(scratch.batchSize, plan.captioning.batchSize);
  assert.equal(scratch.optimizer.lr, recipe.finetune.lr, "the fine-tuning stage's rate unless the narratives stage names one");
  assert.deepEqual(scratch.optimizer, { name: 'adam', lr: 5e-4, warmup: 10, decay: 'linear' });
  assert.equal(table6Config({ ...recipe, finetune: { ...recipe.finetune, lr: 1e-4 } }, 'none', files).optimizer.lr, 1e-4);
  assert.equal(scratch.val, undefined, 'nothing is validated on the test part');
  assert.equal(scratch.keepCheckpoints, undefined, 'no checkpoint selection');
  assert.equal(scratch.init, undefined);
  const fromCc12m = table6Config(recipe, 'cc12m', files, 'runs/pretrain-cc12m-x');
  assert.deepEqual(fromCc12m.init, { fromRun: 'runs/pretrain-cc12m-x', vocab: 'keep' });
  assert.notEqual(fromCc12m.name, scratch.name);
  assert.throws(() => table6Config(recipe, 'cc3m', files), /pre-training run expected/);
  assert.throws(() => table6Config(recipe, 'none', files, 'runs/x'), /no pre-training run expected/);
});

const scores = (overall: number) => ({ in: overall + 10, near: overall, out: overall - 10, overall });
const row = (label: string, overall: number): ResultRow => ({ label, finetuned: scores(overall), finetuneRun: `finetune-${label}` });
const result = (seed: number, t10: Record<string, number>, t6: Record<string, number>): NarrativesResult => ({
  seed,
  plan: RECIPES.tiny.narratives,
  table10: Object.entries(t10).map(([l, v]) => row(l, v)),
  table6: Object.entries(t6).map(([init, c]) => ({
    init: init as 'none',
    run: `n-${init}`,
    scores: { 'BLEU-4': c / 4, 'ROUGE-L': c / 2, CIDEr: c },
    tokens: 40,
    referenceTokens: 50,
    images: 40,
  })),
  pools: { cc3m: 500, cc12m: 2000, narratives: 200 },
  narratives: { images: 200, train: 160, test: 40, tokenCap: 62, longest: 74, cut: 33 },
  seconds: 1,
});

test("Table 10 and 6 rows: the paper's Table 10 numbers (none from Table 3), n/a for Table 6; mean ± std over seeds", () => {
  assert.equal(table10Paper('narratives'), '63.9');
  assert.equal(table10Paper('cc3m'), '73.2');
  assert.equal(table10Paper('cc12m'), '87.4');
  assert.equal(table10Paper('none'), '54.7 (Table 3)');
  assert.equal(table10Paper('something else'), 'n/a');
  const perSeed = [
    result(0, { none: 20, cc3m: 40, cc12m: 50, narratives: 30 }, { none: 10, cc3m: 20, cc12m: 30 }),
    result(1, { none: 22, cc3m: 42, cc12m: 52, narratives: 32 }, { none: 12, cc3m: 22, cc12m: 28 }),
  ];
  const t10 = table10Rows(perSeed);
  assert.deepEqual(
    t10.map((r) => r['pre-training']),
    ['none', 'cc3m', 'cc12m', 'narratives'],
  );
  const narratives = t10[3]!;
  assert.equal(narratives.overall, '31.0 ± 1.4');
  assert.equal(narratives['paper overall'], '63.9');
  assert.equal(narratives['pre-training steps'], String(RECIPES.tiny.narratives.pretrainSteps));
  assert.equal(narratives['pre-training pairs'], '200');
  const t6 = table6Rows(perSeed);
  assert.equal(t6[2]!.CIDEr, '29.0 ± 1.4');
  assert.ok(t6.every((r) => r['paper CIDEr'] === 'n/a'));
});

test('claims: decided over seeds (holds / undecided; one seed without per-image scores is not measured)', () => {
  const perSeed = [
    result(0, { none: 20, cc3m: 40, cc12m: 50, narratives: 30 }, { none: 10, cc3m: 20, cc12m: 30 }),
    result(1, { none: 22, cc3m: 31, cc12m: 52, narratives: 32 }, { none: 12, cc3m: 22, cc12m: 21 }),
  ];
  const claims = narrativesClaims(perSeed);
  const verdict = (text: string) => claims.find((c) => c.claim.startsWith(text))!;
  assert.equal(verdict('narratives as pre-training beat no pre-training').here, 'holds');
  assert.equal(verdict('narratives as pre-training beat no pre-training')['measured (per seed)'], '+10.0, +10.0');
  assert.equal(verdict('CC3M beats narratives').here, 'undecided');
  assert.equal(verdict('CC12M beats narratives').here, 'holds');
  assert.equal(verdict('CC12M pre-training beats CC3M').here, 'undecided');
  assert.equal(verdict('pre-training on CC3M helps').here, 'holds');
  assert.match(verdict('pre-training on CC3M helps').paper, /^n\/a/);
  assert.equal(verdict('CC3M beats narratives').paper, '73.2 vs 63.9');
  const behind = narrativesClaims([result(0, { none: 40, cc3m: 20, cc12m: 20, narratives: 30 }, { none: 30, cc3m: 20, cc12m: 10 })]);
  assert.equal(behind.find((c) => c.claim.startsWith('narratives as pre-training'))!.here, 'not measured');
  const behindTwice = narrativesClaims(
    [0, 1].map((seed) => result(seed, { none: 40, cc3m: 20, cc12m: 20, narratives: 30 }, { none: 30, cc3m: 20, cc12m: 10 })),
  );
  assert.equal(behindTwice.find((c) => c.claim.startsWith('narratives as pre-training'))!.here, 'contradicted');
  assert.equal(behindTwice.find((c) => c.claim.startsWith('pre-training on CC12M helps'))!.here, 'contradicted');
});
