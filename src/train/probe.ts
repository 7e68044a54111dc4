/**
 * A region linear probe: how well a backbone's region vectors name the object in the box — the
 * quick proxy, before training captioners, of which backbone will caption the world better.
 *
 * Region vectors (ROI averages over ground-truth boxes, exactly what the `regions` mode feeds a
 * captioner) of the objects of `train` images fit a softmax linear classifier over the 600
 * concepts (standardised inputs, Adam, full batch, a little L2); accuracy is measured on the
 * objects of `test` images. Two standard probes: COCO (coco-train → coco-val, the 80 common
 * concepts) and nocaps (nocaps-val ids, common and long-tail concepts).
 */
import type { Backbone } from '../vision/backbone';
import { computeFeatures } from '../vision/features';
import { worldFor } from '../data/images';
import { normalizedBox, orderRegions } from '../vision/regions';
import { loadTf } from '../tf/backend';
import { parseWorldUrl, worldUrl } from '../world/url';
import type { WorldSplit } from '../world/splits';

export interface RegionSet {
  vectors: Float32Array[];
  concepts: number[];
}

/** Region vectors of world images' objects, each with its concept. */
export async function worldRegions(backbone: Backbone, urls: readonly string[]): Promise<RegionSet> {
  const vectors: Float32Array[] = [];
  const concepts: number[] = [];
  for await (const { features } of computeFeatures(
    backbone,
    urls.map((key) => ({ key })),
    { batchSize: 32 },
  )) {
    for (const f of features) {
      const ref = parseWorldUrl(f.key);
      const scene = worldFor(ref.seed, ref.zipf).scene(ref.split, ref.id);
      const boxes = scene.objects.map((o) => normalizedBox(o.box, scene.width, scene.height));
      const d = f.global.length;
      orderRegions(boxes).forEach((box, i) => {
        const k = boxes.findIndex((b) => b.every((v, j) => v === box[j]));
        vectors.push(f.regions.slice(i * d, (i + 1) * d));
        concepts.push(scene.objects[k]!.concept);
      });
    }
  }
  return { vectors, concepts };
}

export interface ProbeResult {
  trainAccuracy: number;
  testAccuracy: number;
  trainRegions: number;
  testRegions: number;
}

/** Fits the softmax probe on `train` and scores it on `test` (see the module comment). */
export function linearProbe(train: RegionSet, test: RegionSet, classes = 600, steps = 300): ProbeResult {
  const tf = loadTf();
  const d = train.vectors[0]!.length;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  for (const x of train.vectors) for (let k = 0; k < d; k++) mean[k] += x[k]! / train.vectors.length;
  for (const x of train.vectors) for (let k = 0; k < d; k++) sd[k] += (x[k]! - mean[k]!) ** 2 / train.vectors.length;
  for (let k = 0; k < d; k++) sd[k] = Math.sqrt(sd[k]!) + 1e-6;
  const matrix = (s: RegionSet) => {
    const a = new Float32Array(s.vectors.length * d);
    s.vectors.forEach((x, i) => {
      for (let k = 0; k < d; k++) a[i * d + k] = (x[k]! - mean[k]!) / sd[k]!;
    });
    return tf.tensor2d(a, [s.vectors.length, d]);
  };
  const xTrain = matrix(train);
  const xTest = matrix(test);
  const yTrain = tf.oneHot(tf.tensor1d(train.concepts, 'int32'), classes);
  const w = tf.variable(tf.zeros([d, classes]));
  const b = tf.variable(tf.zeros([classes]));
  const optimizer = tf.train.adam(0.01);
  for (let i = 0; i < steps; i++) {
    const loss = optimizer.minimize(
      () => tf.add(tf.losses.softmaxCrossEntropy(yTrain, tf.add(tf.matMul(xTrain, w), b)), tf.mul(1e-4, tf.sum(tf.square(w)))) as never,
      true,
    );
    loss?.dispose();
  }
  const accuracy = (x: ReturnType<typeof matrix>, truth: number[]) => {
    const predicted = tf.tidy(() => tf.argMax(tf.add(tf.matMul(x, w), b), 1).dataSync());
    return truth.length ? truth.filter((c, i) => predicted[i] === c).length / truth.length : 0;
  };
  const result = {
    trainAccuracy: accuracy(xTrain, train.concepts),
    testAccuracy: accuracy(xTest, test.concepts),
    trainRegions: train.concepts.length,
    testRegions: test.concepts.length,
  };
  tf.dispose([xTrain, xTest, yTrain, w, b]);
  optimizer.dispose();
  return result;
}

/** The COCO and nocaps probes of a backbone (world seed 0; `n` training images each). */
export async function regionProbes(backbone: Backbone, n = 1500, seed = 0): Promise<{ coco: ProbeResult; nocaps: ProbeResult }> {
  const urls = (split: WorldSplit, from: number, count: number) => Array.from({ length: count }, (_, i) => worldUrl({ seed, split, id: from + i }, 'jpeg'));
  const cocoTrain = await worldRegions(backbone, urls('coco-train', 0, n));
  const cocoTest = await worldRegions(backbone, urls('coco-val', 0, 250));
  const nocapsTrain = await worldRegions(backbone, urls('nocaps-val', 0, n));
  const nocapsTest = await worldRegions(backbone, urls('nocaps-val', 5000, 400));
  return { coco: linearProbe(cocoTrain, cocoTest), nocaps: linearProbe(nocapsTrain, nocapsTest) };
}
