/**
 * Encoder inputs (src/models/types.ts `EncoderInput`) for a batch of images from their cached
 * features, in the papers' three visual settings:
 *
 * - `global` (CC3M 1×1): N = 1, the global vector.
 * - `grid` (CC3M 8×8): N = 64, each cell's vector plus a 2-D sinusoidal position encoding,
 *   ADDED (not concatenated), so visualDim stays D: the first D/2 dimensions encode the row, the
 *   last D/2 the column, each as sin/cos pairs at frequencies 1/10000^(2i/(D/2)) (Transformer
 *   encodings per axis). No geometry.
 * - `regions` (CC12M): N = 1 + 16, the global vector first (geometry [0, 0, 1, 1, 1]) then up to
 *   16 regions with their five geometric numbers; padding positions have visualMask 0 and zero
 *   vectors and geometry. Optional region-permutation augmentation shuffles each image's regions
 *   (the global stays first): the set of (vector, geometry) pairs is kept.
 *
 * Tags (CC12M's tag tokens): each tag phrase is split into words (lowercased, on whitespace),
 * mapped by the trainer's `tokenId`, at most 16 tokens per image in total; PAD_ID pads.
 */
import type * as TF from '@tensorflow/tfjs';
import type { EncoderInput } from './types';
import type { Params } from './params';
import { GLOBAL_GEOMETRY, GEOMETRY_DIM, MAX_REGIONS } from '../vision/regions';
import { GRID_SIZE, MAX_TAGS, type ImageFeatures } from '../vision/features';
import { PAD_ID as PAD } from '../text/tokens';
import { loadTf } from '../tf/backend';

export type VisualMode = 'global' | 'grid' | 'regions';
export const VISUAL_MODES: readonly VisualMode[] = ['global', 'grid', 'regions'];

export interface VisualLayout {
  mode: VisualMode;
  /** Visual positions N. */
  positions: number;
  /** Size of each visual vector (the backbone's D in every mode). */
  visualDim: number;
  /** Numbers per position in `geometry` (5 for regions, 0: no geometry tensor). */
  geometryDim: number;
  /** Tag tokens K when tags are given. */
  maxTags: number;
}

/** The shapes a mode gives, so models can size their input projections. */
export function visualLayout(mode: VisualMode, featureDim: number, maxRegions = MAX_REGIONS, maxTags = MAX_TAGS): VisualLayout {
  switch (mode) {
    case 'global':
      return { mode, positions: 1, visualDim: featureDim, geometryDim: 0, maxTags };
    case 'grid':
      return { mode, positions: GRID_SIZE * GRID_SIZE, visualDim: featureDim, geometryDim: 0, maxTags };
    case 'regions':
      return { mode, positions: 1 + maxRegions, visualDim: featureDim, geometryDim: GEOMETRY_DIM, maxTags };
    default:
      throw new Error(`unknown visual mode "${String(mode)}" (expected ${VISUAL_MODES.join(', ')})`);
  }
}

/** 2-D sinusoidal position encodings of a g×g grid: [g·g, d] row-major (see the module comment). */
export function gridPositionEncoding(g: number, d: number): Float32Array {
  if (d % 4 !== 0) throw new Error(`grid position encoding: D=${d} is not a multiple of 4`);
  const half = d / 2;
  const out = new Float32Array(g * g * d);
  for (let r = 0; r < g; r++) {
    for (let c = 0; c < g; c++) {
      const base = (r * g + c) * d;
      for (let i = 0; i < half / 2; i++) {
        const freq = 1 / Math.pow(10000, (2 * i) / half);
        out[base + 2 * i] = Math.sin(r * freq);
        out[base + 2 * i + 1] = Math.cos(r * freq);
        out[base + half + 2 * i] = Math.sin(c * freq);
        out[base + half + 2 * i + 1] = Math.cos(c * freq);
      }
    }
  }
  return out;
}

const encodings = new Map<string, Float32Array>();
function cachedEncoding(g: number, d: number): Float32Array {
  const key = `${g}x${d}`;
  let e = encodings.get(key);
  if (!e) encodings.set(key, (e = gridPositionEncoding(g, d)));
  return e;
}

/** Words of tag phrases (lowercased, split on whitespace), at most `max` in all. */
export function tagWords(tags: readonly string[], max = MAX_TAGS): string[] {
  const words: string[] = [];
  for (const tag of tags) {
    for (const word of tag.toLowerCase().split(/\s+/)) {
      if (word === '') continue;
      if (words.length >= max) return words;
      words.push(word);
    }
  }
  return words;
}

export interface BatchOptions {
  mode: VisualMode;
  /** Maps a tag word to its token id; without it no `tags` tensor is built. */
  tokenId?: (word: string) => number;
  maxTags?: number;
  maxRegions?: number;
  /** Region-permutation augmentation: a uniform [0, 1) source (e.g. seededRandom(seed)); absent: regions by area. */
  permute?: () => number;
  /** Grid mode: add the 2-D position encodings (default true). */
  positionEncoding?: boolean;
}

/** The order of an image's regions: by area, or a Fisher–Yates shuffle with `permute`. */
export function regionOrder(count: number, permute?: () => number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  if (permute) {
    for (let i = count - 1; i > 0; i--) {
      const j = Math.floor(permute() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
  }
  return order;
}

/** Plain arrays of a batch (what `buildEncoderInput` turns into tensors). */
export interface EncoderArrays {
  layout: VisualLayout;
  batch: number;
  visual: Float32Array;
  visualMask: Float32Array;
  geometry?: Float32Array;
  tags?: Int32Array;
}

export function encoderArrays(features: readonly ImageFeatures[], options: BatchOptions): EncoderArrays {
  if (features.length === 0) throw new Error('encoder input: empty batch');
  const d = features[0]!.global.length;
  const maxRegions = options.maxRegions ?? MAX_REGIONS;
  const maxTags = options.maxTags ?? MAX_TAGS;
  const layout = visualLayout(options.mode, d, maxRegions, maxTags);
  const B = features.length;
  const N = layout.positions;
  const visual = new Float32Array(B * N * d);
  const visualMask = new Float32Array(B * N);
  const geometry = layout.geometryDim > 0 ? new Float32Array(B * N * layout.geometryDim) : undefined;
  features.forEach((f, b) => {
    if (f.global.length !== d) throw new Error(`encoder input: ${f.key} has D=${f.global.length}, the batch D=${d}`);
    const at = b * N * d;
    switch (options.mode) {
      case 'global':
        visual.set(f.global, at);
        visualMask[b] = 1;
        break;
      case 'grid': {
        visual.set(f.grid, at);
        if (options.positionEncoding ?? true) {
          const pe = cachedEncoding(GRID_SIZE, d);
          for (let i = 0; i < N * d; i++) visual[at + i] += pe[i]!;
        }
        visualMask.fill(1, b * N, (b + 1) * N);
        break;
      }
      case 'regions': {
        visual.set(f.global, at);
        visualMask[b * N] = 1;
        geometry!.set(GLOBAL_GEOMETRY, b * N * GEOMETRY_DIM);
        const r = Math.min(f.regions.length / d, maxRegions);
        regionOrder(r, options.permute).forEach((src, k) => {
          const pos = b * N + 1 + k;
          visual.set(f.regions.subarray(src * d, (src + 1) * d), pos * d);
          geometry!.set(f.boxes.subarray(src * GEOMETRY_DIM, (src + 1) * GEOMETRY_DIM), pos * GEOMETRY_DIM);
          visualMask[pos] = 1;
        });
        break;
      }
    }
  });
  let tags: Int32Array | undefined;
  if (options.tokenId) {
    tags = new Int32Array(B * maxTags).fill(PAD);
    features.forEach((f, b) => tagWords(f.tags, maxTags).forEach((w, k) => (tags![b * maxTags + k] = options.tokenId!(w))));
  }
  return { layout, batch: B, visual, visualMask, geometry, tags };
}

/** `EncoderInput` tensors of a batch (the caller disposes them). */
export function buildEncoderInput(features: readonly ImageFeatures[], options: BatchOptions): EncoderInput {
  const tf = loadTf();
  const a = encoderArrays(features, options);
  const { positions: N, visualDim: d, geometryDim: G, maxTags: K } = a.layout;
  const input: EncoderInput = {
    visual: tf.tensor3d(a.visual, [a.batch, N, d]),
    visualMask: tf.tensor2d(a.visualMask, [a.batch, N]),
  };
  if (a.geometry) input.geometry = tf.tensor3d(a.geometry, [a.batch, N, G]);
  if (a.tags) input.tags = tf.tensor2d(a.tags, [a.batch, K], 'int32') as TF.Tensor2D;
  return input;
}

/** The token runs an encoder reads after the visual positions, in this order. */
export type TokenSegment = 'tags' | 'text';

/** How a model builds its encoder's input sequence (`encoderSequence`). */
export interface EncoderSequenceSpec {
  /** Width of the sequence (the model's embedding or model width). */
  width: number;
  /** The dense layer that projects visual vectors to `width`. */
  visualProjection: string;
  /** The dense layer that projects geometry to `width`; absent: the model has none, and geometry is ignored. */
  geometryProjection?: string;
  /** What the model adds to the projected visual positions (e.g. a segment embedding); absent: nothing. */
  markVisual?: (visual: TF.Tensor3D) => TF.Tensor3D;
  /** Embeds one non-empty token run [B, L] → [B, L, width]; `offset` counts the token positions before it. */
  embedTokens: (tokens: TF.Tensor2D, segment: TokenSegment, offset: number) => TF.Tensor3D;
}

/**
 * An encoder's input sequence and its mask, built the same way by every model: the N projected
 * visual positions (plus projected geometry), then the tag tokens, then the text tokens, each run
 * skipped when absent or empty; the mask is `visualMask`, then 1 at each non-PAD token. Call inside tf.tidy.
 */
export function encoderSequence(tf: typeof TF, params: Params, input: EncoderInput, spec: EncoderSequenceSpec): { x: TF.Tensor3D; mask: TF.Tensor2D } {
  const [B, N, Dv] = input.visual.shape;
  const w = spec.width;
  let visual = params.linear(spec.visualProjection, input.visual.reshape([B * N, Dv])).reshape([B, N, w]) as TF.Tensor3D;
  if (input.geometry && spec.geometryProjection) {
    const g = input.geometry;
    visual = visual.add(params.linear(spec.geometryProjection, g.reshape([B * N, g.shape[2]])).reshape([B, N, w]));
  }
  if (spec.markVisual) visual = spec.markVisual(visual);
  const parts: TF.Tensor3D[] = [visual];
  const masks: TF.Tensor2D[] = [input.visualMask.toFloat()];
  let offset = 0;
  for (const [tokens, segment] of [
    [input.tags, 'tags'],
    [input.text, 'text'],
  ] as const) {
    if (!tokens || tokens.shape[1] === 0) continue;
    parts.push(spec.embedTokens(tokens, segment, offset));
    masks.push(tokens.notEqual(PAD).toFloat() as TF.Tensor2D);
    offset += tokens.shape[1];
  }
  const x = parts.length > 1 ? (tf.concat(parts, 1) as TF.Tensor3D) : parts[0]!;
  const mask = masks.length > 1 ? (tf.concat(masks, 1) as TF.Tensor2D) : masks[0]!;
  return { x, mask };
}
