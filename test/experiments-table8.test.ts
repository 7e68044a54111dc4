/**
 * CC12M Table 8's computations (src/experiments/cc12m/table8.ts) on tiny inputs: the retrieval set's split by image,
 * batches of distinct images, the vocabulary extended for fine-tuning, the contrastive training stage learning
 * a toy matching task (recall far above chance), the paper cells, the table and the claims over seeds. The
 * notebook (notebooks/08-table8-retrieval.ipynb, test/notebooks.test.ts) runs them on the embedded world.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';

import { DEFAULT_MATCHING, MatchingModel } from '../src/models/matching';
import { PAD_ID, UNK_ID } from '../src/text/tokens';
import { initBackend } from '../src/tf/backend';
import type { EvalImage } from '../src/train/data';
import type { VisualProvider } from '../src/train/visual';
import { paperNumbers } from '../src/report/paper';
import {
  PairBatches,
  TABLE8_NO_PAPER,
  TABLE8_RECIPES,
  groupPairs,
  retrievalScores,
  splitRetrieval,
  table8Claims,
  table8Differences,
  table8Figure,
  table8Paper,
  table8Rows,
  table8Sources,
  table8Vocabulary,
  table8ZeroShotComparison,
  tokenRows,
  trainMatchingStage,
  type Recalls,
  type Table8Result,
} from '../src/experiments/cc12m/table8';

before(async () => {
  await initBackend({ order: ['cpu'], logger: () => undefined });
});

const images = (n: number, captions = 2): EvalImage[] =>
  Array.from({ length: n }, (_, i) => ({ key: `img${i}`, imageId: i, references: Array.from({ length: captions }, (_, c) => `thing${i} view${c}`) }));

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

test('PairBatches: distinct images per batch, one of their captions, every image once per epoch, deterministic', () => {
  const pairs = groupPairs(images(7, 3).flatMap((i) => i.references.map((caption) => ({ key: i.key, caption }))));
  assert.equal(pairs.keys.length, 7);
  assert.deepEqual(pairs.captions.get('img2'), ['thing2 view0', 'thing2 view1', 'thing2 view2']);
  const batches = new PairBatches(pairs, 3, 11);
  const seen: string[] = [];
  for (let b = 0; b < 6; b++) {
    const { keys, captions } = batches.next();
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 3, `batch ${b}: distinct images`);
    keys.forEach((k, i) => assert.ok(pairs.captions.get(k)!.includes(captions[i]!), `${captions[i]} is a caption of ${k}`));
    seen.push(...keys);
  }
  // the first 7 draws are one epoch: each image once
  assert.deepEqual([...seen.slice(0, 7)].sort(), pairs.keys.slice().sort());
  const again = new PairBatches(pairs, 3, 11);
  assert.deepEqual(again.next(), new PairBatches(pairs, 3, 11).next());
  // a batch never exceeds the images there are
  assert.equal(new PairBatches(pairs, 32, 1).next().keys.length, 7);
  assert.throws(() => new PairBatches(groupPairs([{ key: 'a', caption: 'x' }]), 4, 1), /at least two images/);
});

test('table8Vocabulary: the pre-training words keep their ids; fine-tuning words are appended', () => {
  const base = table8Vocabulary(['a dog runs', 'a dog sits'], [], 2);
  const both = table8Vocabulary(['a dog runs', 'a dog sits'], ['a zebra eats', 'one zebra eats'], 2);
  for (const w of base.words) assert.equal(both.idOf(w), base.idOf(w), w);
  assert.ok(!base.has('zebra') && both.has('zebra') && both.has('eats'));
  assert.ok(both.idOf('zebra') >= base.size, 'appended after the pre-training words');
  assert.ok(!both.has('runs'), 'min count applies');
  const rows = tokenRows(both, ['a dog', 'zebra', ''], 20);
  assert.deepEqual(
    rows.map((r) => r.length),
    [2, 2, 2],
  );
  assert.deepEqual(rows[1], [both.idOf('zebra'), PAD_ID]);
  assert.deepEqual(rows[2], [PAD_ID, PAD_ID]);
  assert.equal(tokenRows(both, ['a dog a dog'], 3)[0]!.length, 3, 'truncated to maxLen');
  assert.equal(tokenRows(both, ['kangaroo'], 3)[0]![0], UNK_ID);
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

test('trainMatchingStage: the contrastive stage learns a toy matching task; retrieval is scored both ways', () => {
  const set = images(12, 2);
  const visual = toyVisual(set.map((i) => i.key));
  const vocab = table8Vocabulary(
    set.flatMap((i) => i.references),
    [],
    1,
  );
  const model = new MatchingModel({
    ...DEFAULT_MATCHING,
    dModel: 32,
    heads: 2,
    ffn: 64,
    embedDim: 16,
    dropout: 0,
    maxPositions: 8,
    vocabSize: vocab.size,
    visualDim: visual.visualDim,
    geometryDim: 0,
    seed: 5,
  });
  const before: Recalls = retrievalScores(model, visual, vocab, set, 8);
  const logs = trainMatchingStage(
    model,
    visual,
    vocab,
    groupPairs(set.flatMap((i) => i.references.map((caption) => ({ key: i.key, caption })))),
    { steps: 60, batchSize: 12, lr: 3e-3, warmup: 5, clipNorm: 1 },
    { seed: 1, maxCaptionLen: 8, name: 'pretrain', logEvery: 20 },
  );
  assert.deepEqual(
    logs.map((l) => l.step),
    [20, 40, 60],
  );
  assert.ok(logs.every((l) => l.stage === 'pretrain' && l.temperature > 0));
  assert.ok(logs[2]!.loss < 0.5 * logs[0]!.loss, `loss falls: ${logs.map((l) => l.loss.toFixed(2)).join(' → ')}`);
  const after = retrievalScores(model, visual, vocab, set, 8);
  // chance: text→image R@1 = 1/12 ≈ 8.3, image→text R@1 = 2/24
  assert.ok(after.textToImage['R@1'] >= 90, `text→image R@1 ${after.textToImage['R@1']} (before ${before.textToImage['R@1']})`);
  assert.ok(after.imageToText['R@1'] >= 90, `image→text R@1 ${after.imageToText['R@1']}`);
  for (const d of ['imageToText', 'textToImage'] as const) {
    assert.ok(after[d]['R@1'] <= after[d]['R@5'] && after[d]['R@5'] <= after[d]['R@10'], 'recall grows with K');
    assert.equal(after[d]['R@10'], 100);
  }
  model.dispose();
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
  assert.deepEqual(TABLE8_RECIPES.tiny.rows, ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']);
});

test('table8Rows / table8Claims: mean ± std over seeds, paper cells or n/a, verdicts from every seed', () => {
  const seeds = [
    result(0, { none: 10, cc3m: 20, cc12m: 30, 'cc3m+cc12m': 30 }, { cc3m: 5, cc12m: 8, 'cc3m+cc12m': 7 }),
    result(1, { none: 12, cc3m: 18, cc12m: 34, 'cc3m+cc12m': 32 }, { cc3m: 25, cc12m: 6, 'cc3m+cc12m': 9 }),
  ];
  const rows = table8Rows(seeds);
  assert.equal(rows.length, 7, 'four fine-tuned rows, three zero-shot rows');
  const none = rows.find((r) => r['pre-training'] === 'none' && r.setting === 'fine-tuned')!;
  assert.equal(none['text→image R@1'], '11.0 ± 1.4');
  assert.equal(none['image→text R@10'], '31.0 ± 1.4');
  assert.equal(none['paper text→image R@1'], '54.5');
  const zero12 = rows.find((r) => r['pre-training'] === 'cc12m' && r.setting === 'zero-shot')!;
  assert.equal(zero12['paper text→image R@1'], TABLE8_NO_PAPER);
  assert.equal(rows.find((r) => r['pre-training'] === 'cc3m' && r.setting === 'zero-shot')!['paper text→image R@1'], '35.4');

  assert.deepEqual(table8Differences(seeds, 'cc12m', 'cc3m'), [10, 16]);
  const claims = table8Claims(seeds);
  const verdict = (c: string) => claims.find((x) => x.claim === c)?.here;
  assert.equal(verdict('fine-tuned, text→image R@1: CC3M > none'), 'holds');
  assert.equal(verdict('fine-tuned, text→image R@1: CC12M > CC3M'), 'holds');
  // +0 on seed 0, −2 on seed 1: "≥" holds on one seed only
  assert.equal(verdict('fine-tuned, text→image R@1: CC3M+CC12M ≥ CC12M'), 'within noise');
  assert.equal(verdict('zero-shot, text→image R@1: CC12M > CC3M'), 'within noise');
  // fine-tuned − zero-shot for CC3M: +15, −7
  assert.equal(verdict('fine-tuning helps the CC3M model (fine-tuned > zero-shot, text→image R@1)'), 'within noise');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC12M > CC3M')!['measured (per seed)'], '+10.0, +16.0');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC12M > CC3M')!.paper, '70.2 vs 61.1');
  assert.equal(claims.find((x) => x.claim === 'fine-tuned, text→image R@1: CC3M+CC12M ≥ CC12M')!.paper, '71.0 vs 70.2');
  const reversed = table8Claims([result(0, { none: 30, cc3m: 20, cc12m: 10, 'cc3m+cc12m': 5 }, { cc3m: 5, cc12m: 1 })]);
  assert.equal(reversed.find((x) => x.claim === 'fine-tuned, image→text R@1: CC12M > CC3M')!.here, 'does not hold');
  assert.equal(reversed.find((x) => x.claim === 'fine-tuned, text→image R@1: CC3M+CC12M ≥ CC12M')!.here, 'does not hold');

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
