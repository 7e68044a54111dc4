/**
 * The world CNN's pre-training loop (the backbone of src/vision/world-cnn/): a fresh seeded network trained on the
 * labelled corpus (vision/world-cnn/data.ts) with Adam,
 * a linear warm-up then cosine decay to a tenth, random horizontal flips; then calibrated (features
 * scaled to RMS ≈ 1) and measured on held-out images.
 *
 * Everything is seeded: weights from mulberry32, batches from a seeded permutation, flips from the
 * same stream, so the same options on the same backend give identical weights. The library never
 * switches the tfjs backend: it uses the current one (callers run `initBackend` first, as the CLI
 * does).
 */
import { loadTf, numericBackend } from '../tf/backend';
import type { Progress } from '../util/progress';
import { mixSeed, seededRandom, shuffled } from '../util/random';
import { loadBackbone, type Backbone, type BackboneName, type LoadBackboneOptions } from '../vision';
import { HELDOUT_STREAM, PRETRAIN_STREAM, batchTensors, labelSpace, labelledImages } from '../vision/world-cnn/data';
import { evaluateLabels } from '../vision/world-cnn/evaluate';
import { WorldCnn, type LossExtras, type WorldCnnConfig } from '../vision/world-cnn/model';
import type { PretrainMetrics, PretrainOptions } from '../vision/world-cnn/recipes';
import { worldCnnId } from '../vision/world-cnn/weights';
import { buildConcepts } from '../world/concepts';
import { signatureVector, visualSignature } from '../world/render';

/**
 * A backbone by name (`loadBackbone`), the world CNN pre-trained here when its weights are not cached yet: what the
 * experiments, the features command and the benches load.
 */
export function trainedBackbone(name: BackboneName, options: LoadBackboneOptions = {}): Promise<Backbone> {
  return loadBackbone(name, { ...options, worldCnn: { ...options.worldCnn, train: pretrainWorldCnn } });
}

/** Trains a fresh world CNN (no cache); returns it calibrated, with its metrics. */
export async function pretrainWorldCnn(config: WorldCnnConfig, options: PretrainOptions, progress?: Progress, id?: string): Promise<WorldCnn> {
  const tf = loadTf();
  const concepts = buildConcepts();
  const C = concepts.length;
  const space = labelSpace(concepts, options.hypernyms);
  const signatures = concepts.map((c) => signatureVector(visualSignature(c)));
  const renderStart = performance.now();
  const data = await labelledImages(
    concepts,
    options.worldSeed,
    PRETRAIN_STREAM,
    options.images,
    config.inputSize,
    options.sampler,
    progress,
    'render backbone images',
  );
  const renderMs = performance.now() - renderStart;
  const model = WorldCnn.init(config, options.seed, space.names.length);
  // tfjs's Adam, not train/optimizers.ts's (epsilon 1e-8 where tfjs uses 1e-7): the cached weights were trained so
  const optimizer = tf.train.adam(options.learningRate);
  const random = seededRandom(mixSeed(options.seed, 0x5eed));
  // not train/data.ts's BatchStream (a stream of its own per epoch, batches that end with the epoch): here
  // permutations share the flips' stream, as the cached weights were trained
  const imageIndices = Array.from({ length: data.pixels.length }, (_, i) => i);
  let order: number[] = [];
  const next = (): number => {
    if (order.length === 0) order = shuffled(random, imageIndices);
    return order.pop()!;
  };
  const losses: number[] = [];
  const trainStart = performance.now();
  for (let step = 0; step < options.steps; step++) {
    (optimizer as unknown as { learningRate: number }).learningRate = pretrainLearningRate(options, step);
    const indices = Array.from({ length: options.batchSize }, next);
    const flips = indices.map(() => random() < 0.5);
    const dense = options.denseWeight > 0 || options.attributeWeight > 0;
    const t = batchTensors(
      tf,
      data,
      indices,
      space,
      flips,
      dense ? model.gridSize : 0,
      options.attributeWeight > 0 ? signatures : undefined,
      options.denseWeight > 0,
    );
    const extras: LossExtras = {
      cellLabels: t.cells,
      denseWeight: options.denseWeight,
      attributes: t.attributes,
      attributeMask: t.attributeMask,
      attributeWeight: options.attributeWeight,
    };
    const loss = optimizer.minimize(() => model.loss(t.x, t.y, extras), true, model.trainableVariables());
    losses.push(loss!.dataSync()[0]!);
    tf.dispose([loss!, t.x, t.y, ...[t.cells, t.attributes, t.attributeMask].filter((v): v is NonNullable<typeof v> => v !== undefined)]);
    progress?.('train backbone', step + 1, options.steps);
  }
  const trainMs = performance.now() - trainStart;
  optimizer.dispose();
  // scale: global vectors of 256 pre-training images
  const calib = batchTensors(
    tf,
    data,
    Array.from({ length: Math.min(256, data.pixels.length) }, (_, i) => i),
    space,
  );
  const scale = model.calibrate(calib.x);
  tf.dispose([calib.x, calib.y]);
  let heldOut = { mAP: 0, top1: 0, recallAtK: 0 };
  if (options.heldOut > 0) {
    const held = await labelledImages(
      concepts,
      options.worldSeed,
      HELDOUT_STREAM,
      options.heldOut,
      config.inputSize,
      options.sampler,
      progress,
      'render held-out',
    );
    heldOut = evaluateLabels(model, held, C);
  }
  const tenth = Math.max(1, Math.floor(losses.length / 10));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const metrics: PretrainMetrics = {
    lossStart: mean(losses.slice(0, tenth)),
    lossEnd: mean(losses.slice(-tenth)),
    losses,
    heldOutImages: options.heldOut,
    ...heldOut,
    renderMs,
    trainMs,
    backend: numericBackend(),
  };
  return model.withIdentity(id ?? worldCnnId(config, options, numericBackend()), scale, metrics);
}

/**
 * Learning rate at `step` (0-based): linear warm-up over the first 5% of the steps, then cosine decay
 * to a tenth of the peak. Not optimizers.ts's learningRateAt: that decays to 0 and counts the cosine from
 * step + 1, not step (either would change the cached weights).
 */
export function pretrainLearningRate(options: Pick<PretrainOptions, 'steps' | 'learningRate'>, step: number): number {
  const warmup = Math.max(1, Math.round(options.steps * 0.05));
  if (step < warmup) return (options.learningRate * (step + 1)) / warmup;
  return options.learningRate * (0.1 + 0.45 * (1 + Math.cos((Math.PI * (step - warmup)) / Math.max(1, options.steps - warmup))));
}
