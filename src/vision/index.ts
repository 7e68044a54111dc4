/**
 * Frozen visual features (docs/vision.md): backbones, per-image features and the on-disk store
 * (the encoder inputs built from them are src/models/visual-input.ts).
 */
import type { Backbone, BackboneName } from './backbone';
import type { MobilenetOptions } from './mobilenet';
import type { WorldCnnOptions } from './world-cnn';

export * from './backbone';
export * from './cache';
export * from './features';
export * from './pixels';
export * from './regions';
export {
  DEFAULT_CACHE_DIR,
  DEFAULT_PRETRAIN,
  DEFAULT_WORLD_CNN,
  PRETRAIN_RECIPES,
  WorldCnn,
  worldCnn,
  type PretrainMetrics,
  type PretrainOptions,
  type PretrainRecipe,
  type WorldCnnConfig,
  type WorldCnnOptions,
} from './world-cnn';
export { MobilenetBackbone, type MobilenetOptions } from './mobilenet';

export interface LoadBackboneOptions {
  /** world-cnn: architecture, pre-training recipe, cache folder, progress and log. */
  worldCnn?: WorldCnnOptions;
  mobilenet?: MobilenetOptions;
}

/**
 * A backbone by name, on the current tfjs backend (call `initBackend` first to pick the fastest).
 * world-cnn loads its cached weights, or pre-trains them once with `options.worldCnn.train` (src/train/world-cnn.ts's
 * `trainedBackbone` passes it); mobilenet loads the bundled model.
 */
export async function loadBackbone(name: BackboneName, options: LoadBackboneOptions = {}): Promise<Backbone> {
  switch (name) {
    case 'world-cnn':
      return (await import('./world-cnn/index')).worldCnn(options.worldCnn);
    case 'mobilenet':
      return (await import('./mobilenet')).MobilenetBackbone.load(options.mobilenet);
    default:
      throw new Error(`unknown backbone "${String(name)}" (expected world-cnn or mobilenet)`);
  }
}
