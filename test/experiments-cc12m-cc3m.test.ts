import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { claimRows } from '../src/experiments/claims';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  benchmarkImages,
  table7ClaimList,
  table7Files,
  table7FinetuneConfig,
  table7PretrainConfig,
  table7Rows,
  withoutHeldOut,
  type Table7Result,
} from '../src/experiments/cc12m/table7';
import { splitOf } from '../src/experiments/cc3m-dataset';
import { RECIPES, type Inputs } from '../src/experiments/recipe';
import type { EvalImage } from '../src/train/data';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-cc12m-cc3m-'));
const readTsv = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t') as [string, string]);

/** Two pools over 200 world-style URLs: CC3M with a hypernymised caption, CC12M with the raw one (and 20 URLs of its own). */
function pools(dir: string): Inputs {
  const cc3m = Array.from({ length: 200 }, (_, i) => `a dog number ${i}\tworld://img/${i}.jpg\n`).join('');
  const cc12m = Array.from({ length: 220 }, (_, i) => `Rex the puppy ${i}\tworld://img/${i}.jpg\n`).join('');
  fs.writeFileSync(path.join(dir, 'cc3m.tsv'), cc3m);
  fs.writeFileSync(path.join(dir, 'cc12m.tsv'), cc12m);
  return {
    pools: { cc3m: path.join(dir, 'cc3m.tsv'), cc12m: path.join(dir, 'cc12m.tsv') },
    cocoTrain: 'coco-train.json',
    cocoVal: 'coco-val.json',
    nocapsVal: 'nocaps.json',
  };
}

test('table7Files: the CC3M pool split by URL hash; dev and test images leave both pre-training pools; objects from the truth', async () => {
  const dir = tmp();
  const inputs = pools(dir);
  const truth = path.join(dir, 'truth.jsonl');
  fs.writeFileSync(
    truth,
    Array.from({ length: 220 }, (_, i) => JSON.stringify({ url: `world://img/${i}.jpg`, concepts: ['dog'], describesImage: true })).join('\n') + '\n',
  );
  const files = await table7Files(inputs, path.join(dir, 'out'), { truthFile: truth });
  const expected = { train: 0, validation: 0, test: 0 };
  for (let i = 0; i < 200; i++) expected[splitOf(`world://img/${i}.jpg`)]++;
  assert.deepEqual(
    { train: files.counts.train, dev: files.counts.dev, test: files.counts.test },
    { train: expected.train, dev: expected.validation, test: expected.test },
  );
  assert.ok(files.counts.dev > 5 && files.counts.test > 5, 'about 10% each of 200');

  const dev = JSON.parse(fs.readFileSync(files.dev, 'utf8')) as EvalImage[];
  const test_ = JSON.parse(fs.readFileSync(files.test, 'utf8')) as EvalImage[];
  const heldOut = new Set([...dev, ...test_].map((i) => i.key));
  for (const img of [...dev, ...test_]) {
    assert.equal(img.references.length, 1, 'one reference each, as CC3M');
    assert.deepEqual(img.objects, ['dog']);
  }
  // the train split is the rest of the CC3M pool
  const train = readTsv(files.train);
  assert.equal(train.length, expected.train);
  assert.ok(train.every(([, url]) => splitOf(url) === 'train'));
  // neither cut pool holds a held-out image; nothing else was dropped
  const cut3 = readTsv(files.pools.cc3m);
  const cut12 = readTsv(files.pools.cc12m);
  assert.ok([...cut3, ...cut12].every(([, url]) => !heldOut.has(url)));
  assert.equal(cut3.length + files.counts.droppedFromPools.cc3m, 200);
  assert.equal(cut12.length + files.counts.droppedFromPools.cc12m, 220);
  assert.equal(files.counts.droppedFromPools.cc3m, heldOut.size);
  assert.equal(files.counts.droppedFromPools.cc12m, heldOut.size, 'every held-out image is in the CC12M pool too, under its raw caption');
  // the CC12M pool's own images (200-219) stay unless their URL is held out
  assert.equal(cut12.filter(([, url]) => Number(/(\d+)\.jpg/.exec(url)![1]) >= 200).length, 20);

  // a second call writes the same files (run ids hash their contents)
  const before = fs.statSync(files.pools.cc12m).mtimeMs;
  await table7Files(inputs, path.join(dir, 'out'), { truthFile: truth });
  assert.equal(fs.statSync(files.pools.cc12m).mtimeMs, before);
});

test('table7Files with real splits: their dev and test URLs leave the pools; an image in train and test is an error', async () => {
  const dir = tmp();
  const inputs = pools(dir);
  const write = (name: string, ids: number[]) => {
    fs.writeFileSync(path.join(dir, name), ids.map((i) => `caption ${i}\tworld://img/${i}.jpg\n`).join(''));
    return path.join(dir, name);
  };
  const real = { train: write('train.tsv', [0, 1, 2, 3]), dev: write('dev.tsv', [4, 5]), test: write('test.tsv', [6, 6, 7]) };
  const files = await table7Files(inputs, path.join(dir, 'out'), { real });
  assert.deepEqual(files.counts, { train: 4, dev: 2, test: 2, droppedFromPools: { cc3m: 4, cc12m: 4 } });
  const test_ = JSON.parse(fs.readFileSync(files.test, 'utf8')) as EvalImage[];
  assert.deepEqual(
    test_.map((i) => i.references),
    [['caption 6', 'caption 6'], ['caption 7']],
    'one image per URL, every caption a reference',
  );
  assert.ok(
    test_.every((i) => i.objects === undefined),
    'no truth, no objects',
  );
  await assert.rejects(
    table7Files(inputs, path.join(dir, 'out2'), { real: { ...real, test: write('test2.tsv', [3]) } }),
    /image world:\/\/img\/3\.jpg is in train and in dev or test/,
  );
});

test('benchmarkImages and withoutHeldOut', () => {
  const rows = [
    { caption: 'a', url: 'u1' },
    { caption: 'b', url: 'u2' },
    { caption: 'c', url: 'u1' },
  ];
  assert.deepEqual(benchmarkImages(rows, new Map([['u2', ['cat']]])), [
    { key: 'u1', imageId: 0, references: ['a', 'c'] },
    { key: 'u2', imageId: 1, references: ['b'], objects: ['cat'] },
  ]);
  assert.deepEqual(withoutHeldOut(rows, new Set(['u1'])), { kept: [{ caption: 'b', url: 'u2' }], dropped: 2 });
});

test('table7 configs: pre-training on the cut pools (none: no run); fine-tuning on CC3M-like train from the pre-training run, no COCO validation', async () => {
  const dir = tmp();
  const inputs = pools(dir);
  const files = await table7Files(inputs, path.join(dir, 'out'));
  const recipe = RECIPES.tiny;
  assert.equal(table7PretrainConfig(recipe, 'none', files, inputs), undefined);
  const both = table7PretrainConfig(recipe, 'cc3m+cc12m', files, inputs)!;
  assert.equal(both.name, 'table7-pretrain-cc3m+cc12m');
  assert.deepEqual(
    both.data.train.map((s) => s.path),
    [files.pools.cc3m, files.pools.cc12m],
  );
  assert.equal(both.steps, recipe.pretrain.steps);
  const fine = table7FinetuneConfig(recipe, 'cc12m', files, inputs, '/runs/pre');
  assert.deepEqual(fine.data.train, [{ kind: 'tsv', path: files.train }]);
  assert.deepEqual(fine.init, { fromRun: '/runs/pre', vocab: 'keep' });
  assert.equal(fine.val, undefined);
  assert.equal(fine.steps, recipe.finetune.steps);
  assert.equal(fine.checkpointEvery, recipe.finetune.select!.every, 'a checkpoint per choice on dev');
  assert.equal(table7FinetuneConfig(recipe, 'none', files, inputs).init, undefined);
  assert.throws(() => table7FinetuneConfig(recipe, 'none', files, inputs, '/runs/pre'), /row none: no pre-training run expected/);
  assert.throws(() => table7FinetuneConfig(recipe, 'cc3m', files, inputs), /row cc3m: a pre-training run expected/);
});

const split = (cider: number) => ({ scores: { CIDEr: cider, 'ROUGE-L': 20, SPICE: 5, 'BLEU-4': 3, METEOR: 9 }, images: 50, recall: 0.5, chairS: 0.25 });
const result = (seed: number, test: Record<string, number>): Table7Result => ({
  seed,
  counts: { train: 400, dev: 50, test: 50, droppedFromPools: { cc3m: 100, cc12m: 90 } },
  pools: { cc3m: 400, cc12m: 900 },
  seconds: 1,
  rows: Object.keys(test).map((p) => ({
    pretraining: p as 'none',
    run: `ft-${p}`,
    candidates: [
      { step: 25, cider: 10 },
      { step: 50, cider: test[p]! - 1 },
    ],
    step: 50,
    dev: split(test[p]! - 1),
    test: split(test[p]!),
  })),
});

test('table7Claims and table7Rows: verdicts decided over seeds; mean ± std; the paper column is n/a', () => {
  const perSeed = [result(0, { none: 30, cc3m: 35, cc12m: 40 }), result(1, { none: 30, cc3m: 28, cc12m: 33 })];
  const claims = claimRows(table7ClaimList(perSeed));
  assert.deepEqual(
    claims.map((c) => [c.claim, c['measured (per seed)'], c.here]),
    [
      ['pre-training on cc3m beats no pre-training on CC3M-like test (CIDEr)', '+5.0, -2.0', 'undecided'],
      ['pre-training on cc12m beats no pre-training on CC3M-like test (CIDEr)', '+10.0, +3.0', 'undecided'],
      ['CC12M pre-training beats CC3M pre-training on CC3M-like test (CIDEr)', '+5.0, +5.0', 'holds'],
    ],
  );
  const rows = table7Rows(perSeed);
  assert.deepEqual(
    rows.map((r) => r['pre-training']),
    ['none', 'cc3m', 'cc12m'],
  );
  assert.equal(rows[2]!['test CIDEr'], '36.5 ± 4.9');
  assert.equal(rows[2]!['dev CIDEr'], '35.5 ± 4.9');
  assert.equal(rows[0]!['test CHAIR_s %'], '25.0 ± 0.0');
  assert.equal(rows[0]!['chosen step'], '50, 50');
  assert.equal(rows[0]!['paper test CIDEr'], 'n/a');
});
