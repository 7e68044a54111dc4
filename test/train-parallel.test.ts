import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import type * as TF from '@tensorflow/tfjs';

import { readLog } from '../src/runs/layout';
import { initBackend, loadTf } from '../src/tf/backend';
import { latestCheckpoint, loadCheckpoint } from '../src/train/checkpoint';
import { createModel, ModelDims, ModelSpec } from '../src/train/models';
import { localGradients, Replicas, shardRows } from '../src/train/parallel';
import { objectiveCounts, objectiveLoss, type BatchTensors } from '../src/train/objectives';
import { train, TrainConfig } from '../src/train/trainer';
import { PAD_ID } from '../src/text/tokens';
import { seededRandom } from '../src/util/random';
import { syntheticConfig, syntheticVisual, writeSyntheticData } from './fixtures/train-synthetic';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-parallel-'));
const data = writeSyntheticData(path.join(tmp, 'data'), 48);
const quiet = { logger: () => {} };
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const spec: ModelSpec = { kind: 'transformer', size: 'tiny', overrides: { dModel: 32, ffn: 64, heads: 2, encoderLayers: 1, decoderLayers: 1, dropout: 0 } };
const dims: ModelDims = { vocabSize: 40, visualDim: 6, geometryDim: 5, mocClasses: 7, seed: 5 };

/** 7 rows (shards of 3 and 4) with ragged captions, geometry, MLM text and MOC masks. */
function batch(tf: typeof TF): BatchTensors {
  const r = seededRandom(9);
  const B = 7;
  const N = 4;
  const T = 6;
  const lengths = [6, 2, 5, 1, 6, 3, 4];
  const row = (len: number) => Array.from({ length: T }, (_, t) => (t < len ? 5 + Math.floor(r() * 35) : PAD_ID));
  const mocMask = Array.from({ length: B }, () => Array.from({ length: N }, () => (r() < 0.4 ? 1 : 0)));
  const visual = tf.tensor3d(Float32Array.from({ length: B * N * 6 }, r), [B, N, 6]);
  return {
    input: {
      visual,
      visualMask: tf.tensor2d(Array.from({ length: B }, (_, b) => [1, 1, b % 2, 0])),
      geometry: tf.tensor3d(Float32Array.from({ length: B * N * 5 }, r), [B, N, 5]),
    },
    tokensIn: tf.tensor2d(lengths.map(row), undefined, 'int32'),
    targets: tf.tensor2d(lengths.map(row), undefined, 'int32'),
    captionTokens: tf.tensor2d(lengths.map(row), undefined, 'int32'),
    maskedText: tf.tensor2d(lengths.map(row), undefined, 'int32'),
    moc: {
      visual: visual.mul(0.5) as TF.Tensor3D,
      labels: tf.tensor2d(
        mocMask.map((m) => m.map((x) => (x ? Math.floor(r() * 7) : 0))),
        undefined,
        'int32',
      ),
      weights: tf.tensor2d(mocMask),
    },
  };
}

test('2 replicas give the 1-replica gradients and losses (IC + MLM + MOC, ragged rows, odd batch); repeated steps are identical', async () => {
  await initBackend({ logger: () => {} });
  const tf = loadTf();
  const config = syntheticConfig(data.tsv, data.coco, {
    model: spec,
    objectives: { ic: 1, mlm: { weight: 0.5, rate: 0.3 }, moc: { weight: 0.3, rate: 0.5 } },
    labelSmoothing: 0.1,
  });
  const model = createModel(spec, dims);
  const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
  const tensors = batch(tf);
  const loss = (t: BatchTensors, parts: Record<string, TF.Scalar>, scales?: Record<string, number>) =>
    objectiveLoss(tf, { model }, t, { objectives: config.objectives, maxCaptionLen: config.data.maxCaptionLen, labelSmoothing: 0.1 }, parts, scales);
  const one = localGradients(variables, (parts) => loss(tensors, parts));
  const replicas = await Replicas.start<BatchTensors, TrainConfig>({
    workers: 2,
    variables,
    model: spec,
    dims,
    lossConfig: config,
    lossModule: require.resolve('../src/train/trainer'),
    lossFactory: 'replicaLoss',
    backend: 'wasm',
    loss,
    counts: objectiveCounts,
  });
  try {
    const two = await replicas.gradients(0, tensors);
    const again = await replicas.gradients(0, tensors);
    assert.deepEqual(Object.keys(two.losses).sort(), ['ic', 'mlm', 'moc', 'total']);
    for (const [name, value] of Object.entries(one.losses)) assert.ok(Math.abs(two.losses[name]! - value) < 1e-5, `${name}: ${two.losses[name]} vs ${value}`);
    assert.deepEqual([...two.grads.keys()].sort(), [...one.grads.keys()].sort());
    assert.ok(one.grads.size > 20);
    for (const [name, g] of one.grads) {
      const a = g.dataSync();
      const b = two.grads.get(name)!.dataSync();
      const c = again.grads.get(name)!.dataSync();
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      assert.ok(worst <= 1e-5, `${name}: max |Δ| ${worst}`);
      assert.deepEqual(c, b, `${name}: a repeated 2-replica step differs`);
    }
    assert.deepEqual(again.losses, two.losses);
    for (const r of [one, two, again]) tf.dispose([...r.grads.values()]);
  } finally {
    await replicas.close();
    model.dispose();
  }
  assert.deepEqual(shardRows(7, 2), [
    [0, 3],
    [3, 7],
  ]);
  assert.deepEqual(shardRows(1, 2), [
    [0, 0],
    [0, 1],
  ]);
});

function weightsOf(runDir: string): Map<string, Float32Array> {
  const ckpt = loadCheckpoint(latestCheckpoint(runDir)!, { optimizer: false });
  const out = new Map([...ckpt.weights].map(([k, t]) => [k, t.dataSync() as Float32Array]));
  for (const t of ckpt.weights.values()) t.dispose();
  return out;
}

test('training with workers: 2 follows the 1-worker run without dropout and repeats itself exactly with dropout', async () => {
  const noDropout = { model: spec, val: undefined, steps: 4, checkpointEvery: 4 };
  const w1 = await train(syntheticConfig(data.tsv, data.coco, noDropout), { runsRoot: path.join(tmp, 'w1'), visual: syntheticVisual(), ...quiet });
  const w2 = await train(syntheticConfig(data.tsv, data.coco, { ...noDropout, workers: 2 }), {
    runsRoot: path.join(tmp, 'w2'),
    visual: syntheticVisual(),
    ...quiet,
  });
  const losses = (dir: string) =>
    readLog(dir)
      .filter((l) => l.loss)
      .map((l) => l.loss!.total!);
  const l1 = losses(w1.dir);
  const l2 = losses(w2.dir);
  assert.equal(l2.length, 4);
  l1.forEach((v, i) => assert.ok(Math.abs(v - l2[i]!) < 1e-4, `step ${i + 1}: ${v} vs ${l2[i]}`));
  const a = weightsOf(w1.dir);
  const b = weightsOf(w2.dir);
  for (const [name, wa] of a) {
    const wb = b.get(name)!;
    for (let i = 0; i < wa.length; i++) assert.ok(Math.abs(wa[i]! - wb[i]!) < 1e-4, `${name}[${i}]: ${wa[i]} vs ${wb[i]}`);
  }

  const dropout = { model: { ...spec, overrides: { ...spec.overrides, dropout: 0.1 } }, val: undefined, steps: 4, checkpointEvery: 4, workers: 2 };
  const x = await train(syntheticConfig(data.tsv, data.coco, dropout), { runsRoot: path.join(tmp, 'x'), visual: syntheticVisual(), ...quiet });
  const y = await train(syntheticConfig(data.tsv, data.coco, dropout), { runsRoot: path.join(tmp, 'y'), visual: syntheticVisual(), ...quiet });
  assert.deepEqual(losses(x.dir), losses(y.dir));
  assert.deepEqual(weightsOf(x.dir), weightsOf(y.dir));
});

test('workers > 1 refuses the vlm objective', async () => {
  await assert.rejects(
    train(syntheticConfig(data.tsv, data.coco, { model: spec, val: undefined, steps: 1, workers: 2, objectives: { ic: 1, vlm: { weight: 1 } } }), {
      runsRoot: path.join(tmp, 'vlm'),
      visual: syntheticVisual(),
      ...quiet,
    }),
    /vlm objective cannot be split/,
  );
});
