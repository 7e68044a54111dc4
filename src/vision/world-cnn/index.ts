/**
 * The world's backbone: a small CNN pre-trained on the world's concept labels and then frozen, as
 * the papers' Graph-RISE (CC12M) and Inception-ResNet (CC3M) were pre-trained on image labels
 * (docs/vision.md). One concern a file:
 * - model.ts: the network, its pre-training heads and loss;
 * - recipes.ts: pre-training options, the named recipes and the metrics a run reports;
 * - data.ts: the labelled pre-training corpus and its batch tensors;
 * - the training loop (schedule, batch order, flips) and calibration: src/train/world-cnn.ts, a layer above, passed
 *   in as `train` (its `trainedBackbone` does);
 * - evaluate.ts: held-out mAP, top-1 and recall of the concept head;
 * - weights.ts: cache key, id, saving and loading weights;
 * - here: `worldCnn`, loaded from the cache or pre-trained once (by `train`) and saved.
 */
import * as path from 'path';
import { loadTf, numericBackend } from '../../tf/backend';
import type { Progress } from '../../util/progress';
import { DEFAULT_WORLD_CNN, type WorldCnn, type WorldCnnConfig } from './model';
import { PRETRAIN_RECIPES, type PretrainOptions, type PretrainRecipe } from './recipes';
import { loadWorldCnn, saveWorldCnn, worldCnnId } from './weights';

export { DEFAULT_WORLD_CNN, WorldCnn, conv3x3, type LossExtras, type WorldCnnConfig } from './model';
export { DEFAULT_PRETRAIN, PRETRAIN_RECIPES, type PretrainMetrics, type PretrainOptions, type PretrainRecipe } from './recipes';
export { coveredCells, labelSpace, labelledImages, type LabelSpace, type LabelledImages } from './data';
export { evaluateLabels } from './evaluate';
export { WORLD_CNN_VERSION, loadWorldCnn, saveWorldCnn, worldCnnId, worldCnnKey } from './weights';

export interface WorldCnnOptions {
  config?: Partial<WorldCnnConfig>;
  /** Named recipe the `pretrain` overrides apply to (default quick). */
  recipe?: PretrainRecipe;
  pretrain?: Partial<PretrainOptions>;
  /** Cache root (default .cckit-cache); weights go to CACHE/backbones/. */
  cacheDir?: string;
  progress?: Progress;
  /** Receives one line when weights are trained or loaded. */
  log?: (line: string) => void;
  /** Pre-trains a fresh network when the weights are not cached (src/train/world-cnn.ts's `pretrainWorldCnn`). */
  train?: (config: WorldCnnConfig, options: PretrainOptions, progress: Progress | undefined, id: string) => Promise<WorldCnn>;
}

export const DEFAULT_CACHE_DIR = '.cckit-cache';

/** The world CNN for these options: loaded from the cache when present, else pre-trained and saved. */
export async function worldCnn(options: WorldCnnOptions = {}): Promise<WorldCnn> {
  const config = { ...DEFAULT_WORLD_CNN, ...options.config };
  const pretrain: PretrainOptions = { ...PRETRAIN_RECIPES[options.recipe ?? 'quick'], ...options.pretrain };
  const tf = loadTf();
  await tf.ready();
  const id = worldCnnId(config, pretrain, numericBackend());
  const dir = path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'backbones');
  const cached = loadWorldCnn(dir, id);
  if (cached) {
    options.log?.(`world-cnn: loaded ${id} from ${dir}`);
    return cached;
  }
  if (!options.train) throw new Error(`world-cnn: no weights ${id} in ${dir}; load it through trainedBackbone (src/train/world-cnn.ts) to pre-train them`);
  const model = await options.train(config, pretrain, options.progress, id);
  saveWorldCnn(model, dir, pretrain);
  const m = model.metrics!;
  options.log?.(
    `world-cnn: pre-trained ${id} in ${((m.renderMs + m.trainMs) / 1000).toFixed(1)} s (loss ${m.lossStart.toFixed(2)} → ${m.lossEnd.toFixed(2)}; held-out mAP ${m.mAP.toFixed(3)}, top-1 ${m.top1.toFixed(3)})`,
  );
  return model;
}
