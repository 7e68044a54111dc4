/**
 * Frozen visual features of one image, as both papers used them:
 *
 * - `global`: one vector (CC3M's 1×1 setting; CC12M's global feature), the mean of the feature map.
 * - `grid`: the 8×8 map, 64 vectors row-major (CC3M's 8×8 setting). Backbones whose map is not
 *   8×8 (MobileNetV2: 7×7) are resampled by area-weighted averaging.
 * - `regions` + `boxes`: up to 16 region vectors with five geometric numbers each (CC12M's
 *   "1 global + 16 regions"). World images use their ground-truth object boxes; images without
 *   boxes get none by default (`regions: 'tiles'` gives the nine tiles of a 3×3 partition).
 *   Regions are ordered by area, largest first; see regions.ts for the geometry and pooling.
 * - `tags`: up to 16 image tags (CC12M's tag tokens): the world's simulated tagger for world
 *   images (web images: the very tags in web/truth.jsonl; other splits: the same tagger seeded
 *   per image), else whatever the caller passes (a tags column, a shard's json `tags`).
 *
 * Image sources: `world://` URLs (rendered straight at the input size, see pixels.ts),
 * http(s) URLs and file paths (src/data/images.ts ImageSource), or bytes in hand (webdataset
 * samples, `readSamples`).
 */
import type * as TF from '@tensorflow/tfjs';
import type { Backbone } from './backbone';
import { decodePixels, renderScenePixels, type SquarePixels } from './pixels';
import { MAX_REGIONS, geometry, normalizedBox, orderRegions, roiAverage, tileBoxes, type RegionBox } from './regions';
import { ImageSource, resolveWorldImage } from '../data/images';
import { loadTf } from '../tf/backend';
import type { Progress } from '../util/progress';
import { tagsFor } from '../world/tags';
import { isWorldUrl } from '../world/url';
import { splitNumber } from '../world/splits';
import { mixSeed, seededRandom } from '../util/random';

export const GRID_SIZE = 8;
export const MAX_TAGS = 16;

/** One image to featurise. */
export interface ImageRef {
  /**
   * The image's name (a world:// or http(s) URL, a file path, SHARD#KEY …); also the source when `url` and `bytes` are
   * absent. The store keys features by content (cache.ts) and remembers this name as one way to reach them.
   */
  key: string;
  url?: string;
  /** Encoded image bytes already in hand (shard members). */
  bytes?: Buffer;
  /** Region boxes as fractions [x1, y1, x2, y2]; world images get their ground truth when absent. */
  boxes?: RegionBox[];
  /** Image tags; world images get the simulated tagger's when absent. */
  tags?: string[];
  /** Why this image cannot be read (a shard sample rejected as it was read): it fails with this reason. */
  error?: string;
}

export interface ImageFeatures {
  key: string;
  /** D floats. */
  global: Float32Array;
  /** 64·D floats: the 8×8 map, row-major. */
  grid: Float32Array;
  /** R·D floats, R ≤ 16. */
  regions: Float32Array;
  /** R·5 floats: [x1/W, y1/H, x2/W, y2/H, area/(W·H)] per region. */
  boxes: Float32Array;
  /** ≤ 16 tag phrases. */
  tags: string[];
}

export type RegionPolicy = 'boxes' | 'tiles';

export interface FeatureOptions {
  /** Images per backbone call (default 32). */
  batchSize?: number;
  /** Images without boxes: no regions ('boxes', default) or the nine 3×3 tiles ('tiles'). */
  regions?: RegionPolicy;
  progress?: Progress;
  /** Fetches http(s) URLs and files (default: a fresh ImageSource). */
  source?: ImageSource;
}

/** Ground-truth boxes (fractions) and tagger tags of a world image. */
export function worldImageInfo(url: string): { boxes: RegionBox[]; tags: string[]; width: number; height: number } {
  const resolved = resolveWorldImage(url);
  if (!resolved) throw new Error(`not a world image URL: "${url}"`);
  const { world, ref } = resolved;
  const scene = world.scene(ref.split, ref.id);
  const boxes = scene.objects.map((o) => normalizedBox(o.box, scene.width, scene.height));
  let tags: string[];
  if (ref.split === 'web') tags = world.webPair(ref.id).tags;
  else {
    // the same simulated tagger as the web pool's, seeded per image of the split
    const random = seededRandom(mixSeed(ref.seed, splitNumber(ref.split), ref.id, 0x7a65));
    const shown = scene.objects.map((o) => world.concepts[o.concept]!);
    tags = tagsFor(random, shown, () => world.concepts[Math.floor(random() * world.concepts.length)]!).labels;
  }
  return { boxes, tags, width: scene.width, height: scene.height };
}

/** The backbone-input pixels of one image. */
export async function imagePixels(ref: ImageRef, size: number, source: ImageSource): Promise<SquarePixels> {
  if (ref.error !== undefined) throw new Error(ref.error);
  if (ref.bytes) return decodePixels(ref.bytes, size);
  const url = ref.url ?? ref.key;
  const worldImage = resolveWorldImage(url);
  if (worldImage) return renderScenePixels(worldImage.world.scene(worldImage.ref.split, worldImage.ref.id), worldImage.world.concepts, size);
  const fetched = await source.fetch(url);
  if (!fetched.ok) throw new Error(fetched.detail ? `${fetched.reason} (${fetched.detail})` : fetched.reason);
  return decodePixels(fetched.bytes, size);
}

/** Resamples a g×g map (row-major [g, g, D]) to t×t by area-weighted averaging. */
export function resampleGrid(map: Float32Array, g: number, d: number, t: number): Float32Array {
  if (g === t) return map;
  const out = new Float32Array(t * t * d);
  tileBoxes(t).forEach((box, i) => roiAverage(map, g, d, box, out, i * d));
  return out;
}

/** Features of one image from its feature map (g×g×D floats). */
export function featuresFromMap(key: string, map: Float32Array, g: number, d: number, boxes: readonly RegionBox[], tags: readonly string[]): ImageFeatures {
  const grid = resampleGrid(map, g, d, GRID_SIZE);
  const global = new Float32Array(d);
  const cells = GRID_SIZE * GRID_SIZE;
  for (let c = 0; c < cells; c++) for (let k = 0; k < d; k++) global[k] += grid[c * d + k]!;
  for (let k = 0; k < d; k++) global[k] /= cells;
  const ordered = orderRegions(boxes, MAX_REGIONS);
  const regions = new Float32Array(ordered.length * d);
  const geo = new Float32Array(ordered.length * 5);
  ordered.forEach((box, i) => {
    roiAverage(map, g, d, box, regions, i * d);
    geo.set(geometry(box), i * 5);
  });
  return { key, global, grid, regions, boxes: geo, tags: tags.slice(0, MAX_TAGS) };
}

export interface FeatureFailure {
  key: string;
  reason: string;
}

/**
 * Features of `refs`, in batches through the backbone; yields each batch's features (in input
 * order) and failures (images that could not be fetched or decoded).
 */
export async function* computeFeatures(
  backbone: Backbone,
  refs: readonly ImageRef[],
  options: FeatureOptions = {},
): AsyncGenerator<{ features: ImageFeatures[]; failures: FeatureFailure[] }> {
  const tf = loadTf();
  const batchSize = options.batchSize ?? 32;
  const source = options.source ?? new ImageSource();
  const size = backbone.inputSize;
  let done = 0;
  for (let start = 0; start < refs.length; start += batchSize) {
    const batch = refs.slice(start, start + batchSize);
    const loaded = await Promise.all(
      batch.map(async (ref) => {
        try {
          return { ref, pixels: await imagePixels(ref, size, source) };
        } catch (err) {
          return { ref, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
    const ok = loaded.filter((l): l is { ref: ImageRef; pixels: SquarePixels } => 'pixels' in l);
    const failures = loaded.filter((l): l is { ref: ImageRef; error: string } => 'error' in l).map((l) => ({ key: l.ref.key, reason: l.error }));
    const features: ImageFeatures[] = [];
    if (ok.length > 0) {
      const x = new Float32Array(ok.length * size * size * 3);
      ok.forEach((l, b) => x.set(l.pixels.rgb, b * size * size * 3));
      const input = tf.tensor4d(x, [ok.length, size, size, 3]);
      let map: TF.Tensor4D | undefined;
      let values: Float32Array;
      try {
        map = backbone.featureMap(input);
        values = (await map.data()) as Float32Array;
      } finally {
        input.dispose();
        map?.dispose();
      }
      const g = backbone.gridSize;
      const d = backbone.featureDim;
      ok.forEach((l, b) => {
        const one = values.subarray(b * g * g * d, (b + 1) * g * g * d);
        const world = isWorldUrl(l.ref.url ?? l.ref.key) && (!l.ref.boxes || !l.ref.tags) ? worldImageInfo(l.ref.url ?? l.ref.key) : undefined;
        const boxes = l.ref.boxes ?? world?.boxes ?? (options.regions === 'tiles' ? tileBoxes(3) : []);
        features.push(featuresFromMap(l.ref.key, one, g, d, boxes, l.ref.tags ?? world?.tags ?? []));
      });
    }
    done += batch.length;
    options.progress?.('features', done, refs.length);
    yield { features, failures };
  }
}
