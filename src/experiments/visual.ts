/**
 * The visual side of a run as plain JSON (`FeatureSpec`) → a VisualProvider: a frozen backbone,
 * cached per-image features (src/vision), the feature mode (CC3M: global 1×1 or 8×8 grid; CC12M:
 * global + regions with geometry, plus tags as text), region-permutation augmentation in training,
 * and region object labels for MOC (world images: ground-truth concepts of the boxes).
 */
import { geometry, normalizedBox, orderRegions, RegionBox } from '../vision/regions';
import { buildEncoderInput, regionOrder, visualLayout, VisualMode } from '../models/visual-input';
import { extractFeatures, FeatureStore } from '../vision/cache';
import { ImageFeatures } from '../vision/features';
import { croppedFeatures, randomCropBox, type CropAugmentation } from '../vision/crop';
import { resolveWorldImage, worldFor } from '../data/images';
import type { BackboneName } from '../vision';
import { trainedBackbone } from '../train/world-cnn';
import { initBackend } from '../tf/backend';
import type { VisualProvider } from '../train/visual';
import type { Progress } from '../util/progress';
import { seededRandom } from '../util/random';
import { canonicalJson } from '../runs/run';

export interface FeatureSpec {
  backbone: BackboneName;
  mode: VisualMode;
  /** Give the encoder the image's tags as tokens (CC12M). */
  tags: boolean;
  /** Shuffle region order in training (CC12M's region-permutation augmentation; default true). */
  permuteRegions?: boolean;
  /** Cache root for backbone weights and features (default .cckit-cache). */
  cacheDir?: string;
  /** Random crops of each training image (CC3M §5.2), taken from its stored 8×8 features (global and grid modes). */
  crop?: CropAugmentation;
}

/** Object classes of world region labels: the world's concept catalogue. */
function worldLabels(key: string): number[] | undefined {
  const resolved = resolveWorldImage(key);
  if (!resolved) return undefined;
  const { world, ref } = resolved;
  const scene = world.scene(ref.split, ref.id);
  const boxes = scene.objects.map((o) => normalizedBox(o.box, scene.width, scene.height));
  const ordered = orderRegions(boxes);
  return ordered.map((b) => scene.objects[boxes.indexOf(b)]!.concept);
}

export async function visualFromSpec(spec: FeatureSpec, options: { progress?: Progress } = {}): Promise<VisualProvider> {
  await initBackend({ logger: () => {} });
  const backbone = await trainedBackbone(spec.backbone, { worldCnn: { cacheDir: spec.cacheDir, progress: options.progress } });
  let store: FeatureStore = FeatureStore.open(backbone, { cacheDir: spec.cacheDir });
  const layout = visualLayout(spec.mode, backbone.featureDim);
  if (spec.crop && spec.mode === 'regions') throw new Error('features: crops apply to the global and grid modes (regions keep their boxes)');
  const features = (keys: readonly string[]): ImageFeatures[] =>
    keys.map((k) => {
      const f = store.get(k);
      if (!f) throw new Error(`no features for ${k} (prepare() them first)`);
      return f;
    });
  // The permutation of the last training batch, so MOC labels follow the regions' shuffled order.
  let lastPermutation: { keys: string; seed: number } | undefined;
  const provider: VisualProvider = {
    id: `${backbone.id}:${canonicalJson({ mode: spec.mode, tags: spec.tags, permute: spec.permuteRegions ?? true, ...(spec.crop ? { crop: spec.crop } : {}) })}`,
    spec,
    visualDim: layout.visualDim,
    geometryDim: layout.geometryDim,
    mocClasses: spec.mode === 'regions' ? worldFor(0).concepts.length : 0,
    async prepare(keys) {
      const result = await extractFeatures(
        keys.map((key) => ({ key })),
        { backbone, cacheDir: spec.cacheDir, progress: options.progress },
      );
      if (result.failed.length > 0) {
        const f = result.failed[0]!;
        throw new Error(`features: ${result.failed.length} of ${keys.length} images failed (first: ${f.key}: ${f.reason})`);
      }
      store = result.store;
    },
    encoderInput(keys, batchOptions) {
      const permute = spec.mode === 'regions' && batchOptions.training && (spec.permuteRegions ?? true) && batchOptions.random;
      const seed = permute ? Math.floor(batchOptions.random!() * 2 ** 32) : 0;
      lastPermutation = permute ? { keys: keys.join('\n'), seed } : undefined;
      const crop = batchOptions.training && batchOptions.random ? spec.crop : undefined;
      const random = batchOptions.random;
      const batch = crop && random ? features(keys).map((f) => croppedFeatures(f, randomCropBox(random, crop))) : features(keys);
      return buildEncoderInput(batch, {
        mode: spec.mode,
        tokenId: spec.tags ? batchOptions.wordId : undefined,
        permute: permute ? seededRandom(seed) : undefined,
      });
    },
    regionLabels(keys) {
      const replay = lastPermutation && lastPermutation.keys === keys.join('\n') ? seededRandom(lastPermutation.seed) : undefined;
      return features(keys).map((f) => {
        const labels = worldLabels(f.key);
        const count = f.regions.length / layout.visualDim;
        const order = regionOrder(count, replay);
        // position 0 is the global vector: no label
        return [-1, ...order.map((src) => labels?.[src] ?? -1)];
      });
    },
  };
  return provider;
}

export { geometry, type RegionBox };
