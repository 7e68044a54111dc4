/**
 * Scenes of the embedded world: what image `id` of a world with seed `seed`
 * shows. Everything follows from seededRandom(sceneSeed(seed, id)), so each id
 * is independent of every other and reproducible anywhere.
 *
 * Images look like the web's: mostly JPEG, shorter side 401–720 px, longer
 * side ≤ 1024 px, common aspect ratios (1:1 … 2:1, 70 % landscape), plus configurable shares
 * of PNG and GIF, undersized images (shorter side < 400 px) and
 * extreme-aspect images (aspect > 2.5), so that CC-style image filters
 * (JPEG only, both sides > 400 px, aspect ≤ 2 or 2.5) have work to do.
 * Each image shows 1–4 objects drawn from the concepts by web share (or by a
 * caller's pool or sampler), jittered in position, scale and rotation.
 */

import { visualSignature } from './render';
import type { Box, Concept, ImageFormat, Scene, SceneObject } from './types';
import { seededRandom } from '../util/random';

/** Draws one concept index with the given uniform random source. */
export type ConceptSampler = (random: () => number) => number;

export interface SceneOptions {
  /** Concept indices allowed in scenes (sampled ∝ webShare); default: the whole catalog. */
  pool?: readonly number[];
  /** A ready-made sampler (see conceptSampler); overrides `pool`. Reuse one across many scenes. */
  sampler?: ConceptSampler;
  /** Relative weights of 1, 2, 3, … objects per image (default [0.4, 0.3, 0.2, 0.1]: 1–4). */
  objectCountWeights?: readonly number[];
  /** Share of PNG images (default 0.08). */
  pngShare?: number;
  /** Share of GIF images (default 0.04). */
  gifShare?: number;
  /** Share of undersized images: shorter side 96–399 px, aspect ≤ 2 (default 0.1). */
  undersizedShare?: number;
  /** Share of extreme-aspect images: aspect 2.55–3.5, shorter side 401–460 px (default 0.06). */
  extremeAspectShare?: number;
  /**
   * Share of wide images: aspect 2.05–2.5, shorter side 401–460 px (default 0.05). CC3M's filter
   * (aspect ≤ 2) rejects them, CC12M's (≤ 2.5) keeps them: the relaxed aspect limit is visible.
   */
  wideAspectShare?: number;
  /**
   * Largest shorter side of ordinary images, ≥ 401 (default 720). Lower it
   * (e.g. 520) for a faster-rendering tiny world: render time ∝ pixels.
   */
  maxShortSide?: number;
}

export const DEFAULT_SCENE_OPTIONS = {
  objectCountWeights: [0.4, 0.3, 0.2, 0.1],
  pngShare: 0.08,
  gifShare: 0.04,
  undersizedShare: 0.1,
  extremeAspectShare: 0.06,
  wideAspectShare: 0.05,
  maxShortSide: 720,
} as const;

/** Size class of an image: what the CC image filters will make of it. */
export type SizeClass = 'normal' | 'undersized' | 'wide' | 'extreme';

/** The size class of a scene (undersized: shorter side < 400; wide: aspect in (2, 2.5]; extreme: aspect > 2.5). */
export function sizeClass(scene: Pick<Scene, 'width' | 'height'>): SizeClass {
  const short = Math.min(scene.width, scene.height);
  const long = Math.max(scene.width, scene.height);
  if (long / short > 2.5) return 'extreme';
  if (short < 400) return 'undersized';
  if (long / short > 2) return 'wide';
  return 'normal';
}

/** Mixes a world seed and an image id into one 32-bit seed (murmur3-style finaliser). */
export function sceneSeed(seed: number, id: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x85ebca6b) >>> 0;
  // ids may exceed 2^32: mix both halves
  const lo = id >>> 0;
  const hi = Math.floor(id / 4294967296) >>> 0;
  for (const k of [lo, hi]) {
    h ^= Math.imul(k, 0xcc9e2d51);
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const defaultSamplers = new WeakMap<readonly Concept[], ConceptSampler>();

/**
 * A sampler of concept indices ∝ webShare, over `pool` (indices) or over the
 * whole catalog. Build it once and pass it as `options.sampler` when making
 * many scenes from a subset (COCO-only, long-tail-only, …).
 */
export function conceptSampler(concepts: readonly Concept[], pool?: readonly number[]): ConceptSampler {
  if (pool === undefined) {
    const hit = defaultSamplers.get(concepts);
    if (hit) return hit;
  }
  const ids = pool ? [...pool] : concepts.map((c) => c.index);
  if (ids.length === 0) throw new Error('conceptSampler: empty pool');
  const cumulative = new Float64Array(ids.length);
  let total = 0;
  for (let i = 0; i < ids.length; i++) {
    const c = concepts[ids[i]!];
    if (c === undefined) throw new Error(`conceptSampler: no concept ${ids[i]}`);
    total += c.webShare;
    cumulative[i] = total;
  }
  const sampler: ConceptSampler = (random) => {
    const target = random() * total;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! <= target) lo = mid + 1;
      else hi = mid;
    }
    return ids[lo]!;
  };
  if (pool === undefined) defaultSamplers.set(concepts, sampler);
  return sampler;
}

function pickWeighted(weights: readonly number[], random: () => number): number {
  const total = weights.reduce((s, w) => s + w, 0);
  let t = random() * total;
  for (let i = 0; i < weights.length; i++) {
    t -= weights[i]!;
    if (t < 0) return i;
  }
  return weights.length - 1;
}

/** Longest side of ordinary images (px). */
const MAX_LONG_SIDE = 1024;

/** Common web aspect ratios (long / short) for ordinary images. */
const ASPECTS = [1, 4 / 3, 3 / 2, 16 / 9, 5 / 4, 2] as const;
const ASPECT_WEIGHTS = [0.15, 0.35, 0.25, 0.15, 0.06, 0.04] as const;

function imageSize(random: () => number, undersized: number, extreme: number, wide: number, maxShort: number): { width: number; height: number } {
  const u = random();
  let short: number;
  let aspect: number;
  if (u < undersized) {
    short = 96 + Math.floor(random() * 304); // 96..399
    aspect = 1 + random();
  } else if (u < undersized + extreme) {
    short = 401 + Math.floor(random() * 60); // 401..460
    aspect = 2.55 + 0.95 * random(); // 2.55..3.5
  } else if (u < undersized + extreme + wide) {
    short = 401 + Math.floor(random() * 60); // 401..460
    aspect = 2.05 + 0.4 * random(); // 2.05..2.45: between CC3M's and CC12M's limits
  } else {
    short = 401 + Math.floor(random() * Math.max(1, maxShort - 400)); // 401..maxShort
    aspect = ASPECTS[pickWeighted(ASPECT_WEIGHTS, random)]! * (0.97 + 0.03 * random());
    aspect = Math.max(1, Math.min(2, aspect));
  }
  if (u >= undersized + extreme + wide) short = Math.max(401, Math.min(short, Math.floor(MAX_LONG_SIDE / aspect)));
  const long = Math.round(short * aspect);
  return random() < 0.7 ? { width: long, height: short } : { width: short, height: long };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Axis-aligned bounds of a w×h frame centred at (cx, cy), rotated by deg, clipped to the image, in whole pixels. */
export function rotatedBox(cx: number, cy: number, w: number, h: number, deg: number, width: number, height: number): Box {
  const r = (deg * Math.PI) / 180;
  const bw = Math.abs(w * Math.cos(r)) + Math.abs(h * Math.sin(r));
  const bh = Math.abs(w * Math.sin(r)) + Math.abs(h * Math.cos(r));
  const x0 = Math.max(0, Math.floor(cx - bw / 2));
  const y0 = Math.max(0, Math.floor(cy - bh / 2));
  const x1 = Math.min(width, Math.ceil(cx + bw / 2));
  const y1 = Math.min(height, Math.ceil(cy + bh / 2));
  return { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) };
}

/**
 * The scene of image `id` in the world `seed`: size, format, background and
 * 1–4 objects (concept index, pixel box, rotation, unrotated frame).
 */
export function sceneFor(seed: number, id: number, concepts: readonly Concept[], options: SceneOptions = {}): Scene {
  const random = seededRandom(sceneSeed(seed, id));
  const d = DEFAULT_SCENE_OPTIONS;
  const o = {
    objectCountWeights: options.objectCountWeights ?? d.objectCountWeights,
    pngShare: options.pngShare ?? d.pngShare,
    gifShare: options.gifShare ?? d.gifShare,
    undersizedShare: options.undersizedShare ?? d.undersizedShare,
    extremeAspectShare: options.extremeAspectShare ?? d.extremeAspectShare,
    wideAspectShare: options.wideAspectShare ?? d.wideAspectShare,
    maxShortSide: options.maxShortSide ?? d.maxShortSide,
  };
  const sampler = options.sampler ?? conceptSampler(concepts, options.pool);

  const { width, height } = imageSize(random, o.undersizedShare, o.extremeAspectShare, o.wideAspectShare, o.maxShortSide);
  const f = random();
  const format: ImageFormat = f < o.pngShare ? 'png' : f < o.pngShare + o.gifShare ? 'gif' : 'jpeg';
  const background = {
    hue: Math.floor(random() * 360),
    saturation: round2(random() * 0.6),
    lightness: round2(0.2 + 0.7 * random()),
    noise: round2(random() < 0.25 ? 0 : random()),
    pattern: Math.floor(random() * 6),
  };

  const n = 1 + pickWeighted(o.objectCountWeights, random);
  const objects: SceneObject[] = [];
  const used = new Set<number>();
  const m = Math.min(width, height);
  for (let k = 0; k < n; k++) {
    let concept = sampler(random);
    // Prefer distinct concepts per image (a few redraws, then accept a repeat).
    for (let tries = 0; tries < 4 && used.has(concept); tries++) concept = sampler(random);
    used.add(concept);
    const c = concepts[concept];
    if (c === undefined) throw new Error(`sceneFor: sampler returned unknown concept ${concept}`);
    const aspect = visualSignature(c).aspect;
    // Frame size: the larger the object count, the smaller the objects.
    const size = (m * (0.3 + 0.45 * random())) / Math.sqrt(1 + 0.35 * (n - 1));
    let w = size * Math.sqrt(aspect);
    let h = size / Math.sqrt(aspect);
    const fit = Math.min(1, (0.95 * width) / w, (0.95 * height) / h);
    w = round2(w * fit);
    h = round2(h * fit);
    const rotation = round2(random() < 0.8 ? (random() - 0.5) * 30 : (random() - 0.5) * 120);
    const r = (rotation * Math.PI) / 180;
    const bw = Math.abs(w * Math.cos(r)) + Math.abs(h * Math.sin(r));
    const bh = Math.abs(w * Math.sin(r)) + Math.abs(h * Math.cos(r));
    // Centre keeps at least ~70 % of the rotated frame inside the image.
    const mx = Math.min(0.35 * bw, width / 2);
    const my = Math.min(0.35 * bh, height / 2);
    const cx = round2(mx + random() * (width - 2 * mx));
    const cy = round2(my + random() * (height - 2 * my));
    objects.push({
      concept,
      box: rotatedBox(cx, cy, w, h, rotation, width, height),
      rotation,
      shape: { cx, cy, width: w, height: h },
    });
  }
  return { width, height, format, objects, background };
}

/** Scenes ids from..to−1 (convenience for tests and benchmarks). */
export function scenesFor(seed: number, from: number, to: number, concepts: readonly Concept[], options: SceneOptions = {}): Scene[] {
  const sampler = options.sampler ?? conceptSampler(concepts, options.pool);
  const out: Scene[] = [];
  for (let id = from; id < to; id++) out.push(sceneFor(seed, id, concepts, { ...options, sampler }));
  return out;
}
