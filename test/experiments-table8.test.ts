/**
 * CC12M Table 8's computations (src/experiments/cc12m/table8.ts) on tiny inputs: the retrieval set's split by image,
 * batches of distinct images, the matching model trained as an ordinary trainer run (learning a toy matching task,
 * recall far above chance; reused, resumed and fine-tuned like any run), the stage configs read from the Recipe,
 * the paper cells, the table and the claims over seeds. The notebook (notebooks/08-table8-retrieval.ipynb,
 * test/notebooks.test.ts) runs them on the embedded world.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { claimRows } from '../src/experiments/claims';
import * as tf from '@tensorflow/tfjs';

import { RECIPES } from '../src/experiments/recipe';
import { PAD_ID, UNK_ID } from '../src/text/tokens';
import { Vocabulary } from '../src/text/vocab';
import { initBackend } from '../src/tf/backend';
import { readLog, readRunInfo, RUN_FILE } from '../src/runs/layout';
import { listCheckpoints } from '../src/train/checkpoint';
import { DistinctImageStream, type EvalImage } from '../src/train/data';
import { train, type TrainConfig } from '../src/train/trainer';
import type { VisualProvider } from '../src/train/visual';
import { hitsAt } from '../src/metrics/retrieval';
import { paperNumbers } from '../src/report/paper';
import { splitRetrieval, table8Sources, table8TrainConfig, retrievalStage, type Table8Result } from '../src/experiments/cc12m/table8';
import { scoreMatchingRun, tokenRows, type Recalls } from '../src/experiments/retrieval-scoring';
import {
  TABLE8_NO_PAPER,
  table8ClaimList,
  table8Differences,
  table8Figure,
  table8Paper,
  table8Rows,
  table8ZeroShotComparison,
} from '../src/experiments/cc12m/table8-report';

before(async () => {
  await initBackend({ order: ['cpu'], logger: () => undefined });
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-table8-'));

const key = (i: number) => `https://toy.invalid/img${i}.jpg`;
const images = (n: number, captions = 2): EvalImage[] =>
  Array.from({ length: n }, (_, i) => ({ key: key(i), imageId: i, references: Array.from({ length: captions }, (_, c) => `thing${i} view${c}`) }));
const examplesOf = (set: readonly EvalImage[]) => set.flatMap((i) => i.references.map((caption) => ({ key: i.key, caption })));

test('splitRetrieval: disjoint by image, covers every image, seeded', () => {
  const all = images(20);
  const a = splitRetrieval(all, 0.5, 3);
  assert.equal(a.test.length, 10);
  assert.equal(a.train.length, 10);
  const keys = [...a.train, ...a.test].map((i) => i.key).sort();
  assert.deepEqual(keys, all.map((i) => i.key).sort(), 'every image on exactly one side');
  assert.deepEqual(splitRetrieval(all, 0.5, 3), a, 'same seed, same split');
  assert.notDeepEqual(splitRetrieval(all, 0.5, 4).test, a.test, 'another seed, another split');
  assert.equal(splitRetrieval(all, 0.25, 3).test.length, 5);
  assert.throws(() => splitRetrieval(all, 1, 3), /testFraction/);
});

test('DistinctImageStream: distinct images per batch, one of their captions, every image once per epoch, deterministic, resumable', () => {
  const set = images(7, 3);
  const examples = examplesOf(set);
  const captionsOf = new Map(set.map((i) => [i.key, i.references]));
  const stream = new DistinctImageStream(examples, 3, 11);
  assert.equal(stream.images, 7);
  assert.equal(stream.stepsPerEpoch, 3);
  const seen: string[] = [];
  const batches = [];
  for (let b = 0; b < 6; b++) {
    const batch = stream.next();
    batches.push(batch);
    assert.equal(batch.length, 3);
    assert.equal(new Set(batch.map((e) => e.key)).size, 3, `batch ${b}: distinct images`);
    for (const e of batch) assert.ok(captionsOf.get(e.key)!.includes(e.caption), `${e.caption} is a caption of ${e.key}`);
    seen.push(...batch.map((e) => e.key));
  }
  // the first 7 draws are one epoch: each image once
  assert.deepEqual(seen.slice(0, 7).sort(), [...captionsOf.keys()].sort());
  assert.deepEqual(new DistinctImageStream(examples, 3, 11).next(), batches[0], 'same seed, same batches');
  // a resumed stream (its position only) continues with the same batches
  const first = new DistinctImageStream(examples, 3, 11);
  for (let b = 0; b < 3; b++) first.next();
  const resumed = new DistinctImageStream(examples, 3, 11, first.position);
  assert.deepEqual([resumed.next(), resumed.next(), resumed.next()], batches.slice(3));
  // a batch never exceeds the images there are
  assert.equal(new DistinctImageStream(examples, 32, 1).next().length, 7);
  assert.throws(() => new DistinctImageStream([{ key: 'a', caption: 'x' }], 4, 1), /at least two images/);
});

test('tokenRows: PAD to the longest caption, truncated to maxLen, UNK for unknown words', () => {
  const vocab = Vocabulary.build(['a dog runs', 'a dog sits', 'a zebra eats', 'one zebra eats'], 2);
  const rows = tokenRows(vocab, ['a dog', 'zebra', ''], 20);
  assert.deepEqual(
    rows.map((r) => r.length),
    [2, 2, 2],
  );
  assert.deepEqual(rows[1], [vocab.idOf('zebra'), PAD_ID]);
  assert.deepEqual(rows[2], [PAD_ID, PAD_ID]);
  assert.equal(tokenRows(vocab, ['a dog a dog'], 3)[0]!.length, 3, 'truncated to maxLen');
  assert.equal(tokenRows(vocab, ['kangaroo'], 3)[0]![0], UNK_ID);
});

test("table8TrainConfig: the recipe's retrieval stages as matching-model runs with the vlm objective alone", () => {
  const recipe = RECIPES.tiny;
  const pools = [{ kind: 'tsv' as const, path: '/data/cc3m.tsv' }];
  const pre = table8TrainConfig(recipe, 'pretrain', 'cc3m', pools);
  // the recipe's features carry tags, so the image side reads them (CC12M §3.3); without tags it does not
  assert.deepEqual(pre.model, { kind: 'matching', size: recipe.retrieval.model.size, overrides: { tagInputs: true } });
  assert.deepEqual(table8TrainConfig({ ...recipe, features: { ...recipe.features, tags: false } }, 'pretrain', 'cc3m', pools).model, {
    kind: 'matching',
    size: recipe.retrieval.model.size,
  });
  assert.deepEqual(pre.objectives, { vlm: { weight: 1 } });
  // the tiny preset's matching-model stages: the captioner's batch, rate and clipping, their own steps and warm-up
  assert.equal(pre.steps, 400);
  assert.equal(pre.batchSize, 32);
  assert.deepEqual(pre.optimizer, { name: 'adam', lr: 1e-3, warmup: 40, decay: 'linear' });
  assert.equal(pre.checkpointEvery, 100, 'four checkpoints a stage, at least 50 steps apart');
  // a StageRecipe like every table's: the captioner's pre-training with the matching model, the vlm objective alone, no label smoothing
  assert.deepEqual(retrievalStage(recipe, 'pretrain'), {
    ...recipe.pretrain,
    steps: 400,
    warmup: 40,
    objectives: { vlm: { weight: 1 } },
    labelSmoothing: 0,
    model: pre.model,
  });
  assert.equal('labelSmoothing' in pre, false, 'a label smoothing of 0 is left out of the config');
  // one override of the fine-tuning rate reaches the matching model's fine-tuning too
  assert.equal(table8TrainConfig({ ...recipe, finetune: { ...recipe.finetune, lr: 1e-4 } }, 'finetune', 'cc3m', pools).optimizer.lr, 1e-4);
  assert.equal(pre.vocab.minCount, recipe.minCount);
  assert.equal(pre.data.maxCaptionLen, recipe.maxCaptionLen);
  assert.equal(pre.val, undefined, 'the matching model is not validated by captioning');
  assert.equal('init' in pre, false);
  const fine = table8TrainConfig(recipe, 'finetune', 'cc3m', [{ kind: 'coco', path: '/data/train.json' }], { fromRun: '/runs/p', vocab: 'keep' });
  assert.equal(fine.steps, 150);
  assert.deepEqual(fine.optimizer, { name: 'adam', lr: 5e-4, warmup: 15, decay: 'linear' });
  assert.equal(fine.checkpointEvery, 50);
  assert.deepEqual(fine.init, { fromRun: '/runs/p', vocab: 'keep' });
  assert.notEqual(fine.name, pre.name);
});

/** A visual provider over one-hot "features": image i is a vector with a 1 at position i (two positions, the second padding). */
function toyVisual(keys: readonly string[]): VisualProvider {
  const D = keys.length;
  return {
    id: 'toy',
    visualDim: D,
    geometryDim: 0,
    mocClasses: 0,
    async prepare() {},
    encoderInput(batch) {
      const rows = batch.map((k) => {
        const v = new Array<number>(D).fill(0);
        v[keys.indexOf(k)] = 1;
        return [v, new Array<number>(D).fill(0)];
      });
      return {
        visual: tf.tensor3d(rows),
        visualMask: tf.tensor2d(batch.map(() => [1, 0])),
      };
    },
  };
}

function writeTsv(file: string, set: readonly EvalImage[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    examplesOf(set)
      .map((e) => `${e.key}\t${e.caption}\n`)
      .join(''),
  );
  return file;
}

const matchingConfig = (train: string, extra: Partial<TrainConfig> = {}): TrainConfig => ({
  name: 'toy-matching',
  seed: 1,
  model: { kind: 'matching', size: 'tiny', overrides: { dModel: 32, heads: 2, ffn: 64, embedDim: 16, dropout: 0, maxPositions: 8 } },
  data: { train: [{ kind: 'tsv', path: train }], maxCaptionLen: 8 },
  vocab: { minCount: 1 },
  objectives: { vlm: { weight: 1 } },
  optimizer: { name: 'adam', lr: 3e-3, warmup: 5, decay: 'linear' },
  batchSize: 12,
  steps: 60,
  clipNorm: 1,
  checkpointEvery: 20,
  logEvery: 20,
  ...extra,
});

test('a matching run is an ordinary trainer run: it learns a toy matching task, is reused, resumes, and fine-tunes from its whole model', async () => {
  const all = images(14, 2);
  const set = all.slice(0, 12);
  // one provider for both runs: the features do not change between pre-training and fine-tuning
  const visual = toyVisual(all.map((i) => i.key));
  const tsv = writeTsv(path.join(tmp, 'data', 'pairs.tsv'), set);
  const quiet = { visual, logger: () => {} };
  const root = path.join(tmp, 'runs');
  const run = await train(matchingConfig(tsv), { runsRoot: root, ...quiet });
  assert.equal(run.stepsRun, 60);
  assert.equal(readRunInfo(run.dir).status, 'done');
  assert.deepEqual(
    listCheckpoints(run.dir).map((c) => c.step),
    [40, 60],
    'the newest two checkpoints are kept',
  );
  const losses = readLog(run.dir).filter((l) => l.loss);
  assert.deepEqual(
    losses.map((l) => l.step),
    [20, 40, 60],
  );
  assert.ok(
    losses.every((l) => l.loss!.vlm === l.loss!.total),
    'the vlm loss is the whole loss',
  );
  assert.ok(losses[2]!.loss!.vlm! < 0.5 * losses[0]!.loss!.vlm!, `loss falls: ${losses.map((l) => l.loss!.vlm!.toFixed(2)).join(' → ')}`);
  const { recalls: after, ranks, temperature } = await scoreMatchingRun(run.dir, visual, set, 8);
  assert.ok(temperature > 0 && temperature < 1, `temperature ${temperature}`);
  // the per-query ranks behind the recalls: one per image and one per caption, each K's hits averaging to the recall
  assert.deepEqual([ranks.imageToText.length, ranks.textToImage.length], [set.length, set.length * 2]);
  for (const d of ['imageToText', 'textToImage'] as const)
    for (const k of [1, 5, 10])
      assert.equal(100 * (hitsAt(ranks[d], k).reduce((a, b) => a + b, 0) / ranks[d].length), after[d][`R@${k}` as 'R@1'], `${d} R@${k}`);
  // chance: text→image R@1 = 1/12 ≈ 8.3, image→text R@1 = 2/24
  assert.ok(after.textToImage['R@1'] >= 90, `text→image R@1 ${after.textToImage['R@1']}`);
  assert.ok(after.imageToText['R@1'] >= 90, `image→text R@1 ${after.imageToText['R@1']}`);
  for (const d of ['imageToText', 'textToImage'] as const) {
    assert.ok(after[d]['R@1'] <= after[d]['R@5'] && after[d]['R@5'] <= after[d]['R@10'], 'recall grows with K');
    assert.equal(after[d]['R@10'], 100);
  }

  // a second call reuses the finished run
  const again = await train(matchingConfig(tsv), { runsRoot: root, ...quiet });
  assert.equal(again.id, run.id);
  assert.equal(again.stepsRun, 0);

  // interrupted after step 40 (its last checkpoint gone, the run not done): it resumes there and repeats the loss curve
  const info = JSON.parse(fs.readFileSync(path.join(run.dir, RUN_FILE), 'utf8')) as { status: string };
  fs.writeFileSync(path.join(run.dir, RUN_FILE), JSON.stringify({ ...info, status: 'running' }));
  fs.rmSync(listCheckpoints(run.dir).find((c) => c.step === 60)!.dir, { recursive: true });
  const resumed = await train(matchingConfig(tsv), { runsRoot: root, ...quiet });
  assert.equal(resumed.stepsRun, 20);
  assert.deepEqual(
    readLog(run.dir)
      .filter((l) => l.loss)
      .map((l) => [l.step, l.loss!.vlm]),
    losses.map((l) => [l.step, l.loss!.vlm]),
  );

  // fine-tuning starts from the whole matching model (text encoder included): with zero steps it retrieves as its parent does
  const extra = all.slice(12).map((i) => ({ ...i, references: i.references.map((r) => `${r} novel`) }));
  const fineTsv = writeTsv(path.join(tmp, 'data', 'fine.tsv'), [...set, ...extra]);
  const fine = await train(matchingConfig(fineTsv, { name: 'toy-matching-fine', steps: 0, init: { fromRun: run.dir, vocab: 'keep' } }), {
    runsRoot: root,
    ...quiet,
  });
  assert.ok(fine.vocab.has('novel') && fine.vocab.size > run.vocab.size, 'the parent vocabulary, extended');
  for (const w of run.vocab.words) assert.equal(fine.vocab.idOf(w), run.vocab.idOf(w), w);
  assert.equal(readRunInfo(fine.dir).parent, run.id);
  const inherited = await scoreMatchingRun(fine.dir, visual, set, 8);
  assert.deepEqual(inherited.recalls, after);
  assert.equal(inherited.temperature, temperature);
});

test('the matching model trains with the vlm objective alone; a validation file is not captioned', async () => {
  const set = images(6, 2);
  const visual = toyVisual(set.map((i) => i.key));
  const tsv = writeTsv(path.join(tmp, 'data', 'six.tsv'), set);
  const root = path.join(tmp, 'runs-alone');
  await assert.rejects(
    train(matchingConfig(tsv, { objectives: { ic: 1, vlm: { weight: 1 } } }), { runsRoot: root, visual, logger: () => {} }),
    /vlm objective alone/,
  );
  const val = path.join(tmp, 'data', 'val.json');
  fs.writeFileSync(
    val,
    JSON.stringify({
      images: set.map((img, i) => ({ id: i, coco_url: img.key })),
      annotations: set.map((img, i) => ({ id: i, image_id: i, caption: img.references[0] })),
    }),
  );
  const run = await train(matchingConfig(tsv, { steps: 4, val: { path: val, every: 2 } }), { runsRoot: root, visual, logger: () => {} });
  assert.equal(readRunInfo(run.dir).status, 'done');
  assert.equal(readLog(run.dir).filter((l) => l.val).length, 0);
});

const recalls = (t2i: number, i2t = t2i): Recalls => ({
  imageToText: { 'R@1': i2t, 'R@5': i2t + 10, 'R@10': i2t + 20 },
  textToImage: { 'R@1': t2i, 'R@5': t2i + 10, 'R@10': t2i + 20 },
});

function result(seed: number, r1: Record<string, number>, zero: Record<string, number>): Table8Result {
  return {
    seed,
    rows: Object.entries(r1).map(([row, v]) => ({
      pretraining: row as never,
      run: `table8-${row}-x`,
      finetuned: recalls(v),
      ...(zero[row] !== undefined ? { zeroShot: recalls(zero[row]!) } : {}),
      finalLoss: { finetune: 1 },
      pretrainPairs: 0,
      trained: false,
    })),
    sizes: { trainImages: 50, trainCaptions: 250, testImages: 50, testCaptions: 250, pools: { cc3m: 10, cc12m: 20 } },
    seconds: 0,
  };
}

test('table8Paper: the fine-tuned rows and the CC3M zero-shot figure at text→image R@1; n/a everywhere else', () => {
  const p = paperNumbers().cc12m.table8_retrieval as { localized_narratives_flickr_R1: Record<string, number>; flickr30k_zero_shot_R1: Record<string, number> };
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m'])
    assert.equal(table8Paper(row, 'finetuned', 'textToImage', 'R@1'), p.localized_narratives_flickr_R1[row]);
  assert.equal(table8Paper('cc3m', 'zeroShot', 'textToImage', 'R@1'), p.flickr30k_zero_shot_R1.cc3m_only_model);
  assert.equal(table8Paper('cc12m', 'zeroShot', 'textToImage', 'R@1'), undefined);
  assert.equal(table8Paper('cc3m', 'finetuned', 'imageToText', 'R@1'), undefined);
  assert.equal(table8Paper('cc3m', 'finetuned', 'textToImage', 'R@5'), undefined);
  assert.deepEqual(table8Sources('cc3m+cc12m'), ['cc3m', 'cc12m']);
  assert.deepEqual(table8Sources('none'), []);
  assert.deepEqual(RECIPES.tiny.rows, ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']);
});

test('table8Rows / table8Claims: mean ± std over seeds, paper cells or n/a, verdicts decided over seeds', () => {
  const seeds = [
    result(0, { none: 10, cc3m: 20, cc12m: 30, 'cc3m+cc12m': 30 }, { cc3m: 5, cc12m: 8, 'cc3m+cc12m': 7 }),
    result(1, { none: 12, cc3m: 18, cc12m: 34, 'cc3m+cc12m': 32 }, { cc3m: 25, cc12m: 6, 'cc3m+cc12m': 9 }),
  ];
  const rows = table8Rows(seeds);
  assert.equal(rows.length, 8, 'four fine-tuned rows, three zero-shot rows, chance');
  const chance = rows.at(-1)!;
  assert.equal(chance['pre-training'], 'chance');
  const { testImages, testCaptions } = seeds[0]!.sizes;
  assert.equal(chance['text→image R@1'], (100 / testImages).toFixed(1), 'one image of the test set');
  assert.equal(chance['image→text R@1'], ((100 * testCaptions) / testImages / testCaptions).toFixed(1), "one of an image's captions on top");
  const none = rows.find((r) => r['pre-training'] === 'none' && r.setting === 'fine-tuned')!;
  assert.equal(none['text→image R@1'], '11.0 ± 1.4');
  assert.equal(none['image→text R@10'], '31.0 ± 1.4');
  assert.equal(none['paper text→image R@1'], '54.5');
  const zero12 = rows.find((r) => r['pre-training'] === 'cc12m' && r.setting === 'zero-shot')!;
  assert.equal(zero12['paper text→image R@1'], TABLE8_NO_PAPER);
  assert.equal(rows.find((r) => r['pre-training'] === 'cc3m' && r.setting === 'zero-shot')!['paper text→image R@1'], '35.4');

  assert.deepEqual(table8Differences(seeds, 'cc12m', 'cc3m'), [10, 16]);
  const claims = claimRows(table8ClaimList(seeds));
  const verdict = (c: string) => claims.find((x) => x.claim === c)?.here;
  // two seeds: t(1) = 12.7, so +10 and +6 do not decide "CC3M > none"
  assert.equal(verdict('fine-tuned, text→image R@1: CC3M > none'), 'undecided');
  assert.equal(verdict('fine-tuned, text→image R@1: CC12M > CC3M'), 'undecided');
  // +0 on seed 0, −2 on seed 1
  assert.equal(verdict('fine-tuned, text→image R@1: CC3M+CC12M ≥ CC12M'), 'undecided');
  assert.equal(verdict('zero-shot, text→image R@1: CC12M > CC3M'), 'undecided');
  // fine-tuned − zero-shot for CC3M: +15, −7
  assert.equal(verdict('fine-tuning helps the CC3M model (fine-tuned > zero-shot, text→image R@1)'), 'undecided');
  const third = result(2, { none: 11, cc3m: 19, cc12m: 32, 'cc3m+cc12m': 31 }, { cc3m: 6, cc12m: 7, 'cc3m+cc12m': 8 });
  const three = claimRows(table8ClaimList([...seeds, third]));
  assert.equal(three.find((x) => x.claim === 'fine-tuned, text→image R@1: CC3M > none')!.here, 'holds', '+10, +6, +8');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC12M > CC3M')!['measured (per seed)'], '+10.0, +16.0');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC12M > CC3M')!.paper, '70.2 vs 61.1');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC3M+CC12M ≥ CC12M')!.paper, '71.0 vs 70.2');
  // the paper reports text→image R@1 only: the image→text check cites them as what the claim rests on, not as its own
  assert.equal(
    claims.find((x) => x.claim === 'fine-tuned, image→text R@1: CC12M > CC3M')!.paper,
    `${TABLE8_NO_PAPER} (the paper's claim: text→image 70.2 vs 61.1)`,
  );
  const reversed = claimRows(table8ClaimList([result(0, { none: 30, cc3m: 20, cc12m: 10, 'cc3m+cc12m': 5 }, { cc3m: 5, cc12m: 1 })]));
  assert.equal(reversed.find((x) => x.claim === 'fine-tuned, image→text R@1: CC12M > CC3M')!.here, 'not measured', 'one seed, no per-image evidence');

  const zs = table8ZeroShotComparison(seeds);
  assert.equal(zs.paperCc3m, 35.4);
  assert.equal(zs.vilbert, 31.9);
  assert.equal(zs.paperHolds, true, "the paper's own comparison");
  assert.equal(zs.measured, '15.0 ± 14.1');
  assert.equal(zs.measuredChance, 2, 'chance R@1 of 50 test images');

  const figure = table8Figure(seeds);
  assert.equal(figure.data.length, 14, '(4 fine-tuned + 3 zero-shot) × 2 directions');
  const first = figure.data[0] as { name: string; x: string[]; y: number[]; error_y: { array: number[] } };
  assert.equal(first.name, 'none');
  assert.deepEqual(first.x, ['R@1', 'R@5', 'R@10']);
  assert.deepEqual(first.y, [11, 21, 31]);
  assert.deepEqual(first.error_y.array, [1.4, 1.4, 1.4]);
});
