/**
 * The pre-training corpus: a labelled set of the world's scenes drawn for this purpose (like
 * ImageNet / JFT beside the captioning data), from a stream of their own
 * (`mixSeed(worldSeed, PRETRAIN_STREAM)`), clean JPEG-like sizes, concepts drawn uniformly over all
 * 600 (`sampler: 'web'` draws them by web share, i.e. Zipf): never a nocaps, COCO or web image id.
 * Held-out images come from a second stream. Batches become label, cell-label and attribute
 * tensors here, with horizontal flips applied.
 */
import type * as TF from '@tensorflow/tfjs';
import { renderScenePixels } from '../pixels';
import type { Progress } from '../../util/progress';
import { conceptSampler, sceneFor, type ConceptSampler, type SceneOptions } from '../../world/scene';
import type { Concept, Scene } from '../../world/types';
import { mixSeed } from '../../util/random';
import { WORDNET_TOP_NODES } from '../../wordnet/basic-level';
import { ATTRIBUTES } from './model';

type Tfjs = typeof TF;

/** Streams of the pre-training and the held-out scenes (mixed with the world seed). */
export const PRETRAIN_STREAM = 0x9e7a1;
export const HELDOUT_STREAM = 0x4e1d0;

/** Clean scenes (JPEG, ordinary sizes), as the world's captioned splits use. */
const PRETRAIN_SCENES: SceneOptions = { pngShare: 0, gifShare: 0, undersizedShare: 0, extremeAspectShare: 0, wideAspectShare: 0.05, maxShortSide: 520 };

/** Pre-training labels: the concepts, then (with hypernyms) the hypernym names a tagger would report. */
export interface LabelSpace {
  names: string[];
  /** Label indices of each concept: itself first, then its hypernyms' labels. */
  ofConcept: number[][];
}

export function labelSpace(concepts: readonly Concept[], hypernyms: boolean, depth = 4): LabelSpace {
  const names = concepts.map((c) => c.name);
  const index = new Map<string, number>();
  names.forEach((n, i) => {
    if (!index.has(n)) index.set(n, i);
  });
  const ofConcept = concepts.map((c, i) => {
    const labels = [i];
    if (hypernyms) {
      for (const h of c.hypernyms.slice(0, depth)) {
        if (WORDNET_TOP_NODES.has(h)) continue;
        let k = index.get(h);
        if (k === undefined) {
          k = names.length;
          names.push(h);
          index.set(h, k);
        }
        if (!labels.includes(k)) labels.push(k);
      }
    }
    return labels;
  });
  return { names, ofConcept };
}

export interface LabelledImages {
  pixels: Uint8Array[];
  /** Concept indices shown in each image. */
  concepts: number[][];
  /** Per image: [cell, concept] pairs, the cells (row-major on the gridSize² map) each object's box covers ≥ 30% of, in drawing order (later objects lie on top). */
  cells: [number, number][][];
  size: number;
}

/** Cells of a g×g grid (row-major) that a box (fractions of the image) covers at least `min` of. */
export function coveredCells(x1: number, y1: number, x2: number, y2: number, g: number, min = 0.3): number[] {
  const out: number[] = [];
  for (let r = 0; r < g; r++) {
    const oy = Math.max(0, Math.min(y2, (r + 1) / g) - Math.max(y1, r / g)) * g;
    if (oy <= 0) continue;
    for (let c = 0; c < g; c++) {
      const ox = Math.max(0, Math.min(x2, (c + 1) / g) - Math.max(x1, c / g)) * g;
      if (ox * oy >= min) out.push(r * g + c);
    }
  }
  return out;
}

/** Renders `count` labelled scenes of a stream at `size` px, a few at a time (sharp works off the main thread). */
export async function labelledImages(
  concepts: readonly Concept[],
  worldSeed: number,
  stream: number,
  count: number,
  size: number,
  sampler: 'uniform' | 'web',
  progress?: Progress,
  task = 'render',
  gridSize = 8,
): Promise<LabelledImages> {
  const draw: ConceptSampler = sampler === 'uniform' ? (random) => Math.floor(random() * concepts.length) : conceptSampler(concepts);
  const seed = mixSeed(worldSeed, stream);
  const scenes: Scene[] = [];
  for (let id = 0; id < count; id++) scenes.push(sceneFor(seed, id, concepts, { ...PRETRAIN_SCENES, sampler: draw }));
  const pixels: Uint8Array[] = new Array(count);
  const inFlight = 6;
  for (let start = 0; start < count; start += inFlight) {
    const end = Math.min(count, start + inFlight);
    const done = await Promise.all(scenes.slice(start, end).map((scene) => renderScenePixels(scene, concepts, size)));
    done.forEach((p, k) => (pixels[start + k] = p.rgb));
    progress?.(task, end, count);
  }
  return {
    pixels,
    concepts: scenes.map((s) => [...new Set(s.objects.map((o) => o.concept))]),
    cells: scenes.map((s) =>
      s.objects.flatMap((o) =>
        coveredCells(o.box.x / s.width, o.box.y / s.height, (o.box.x + o.box.width) / s.width, (o.box.y + o.box.height) / s.height, gridSize).map(
          (cell): [number, number] => [cell, o.concept],
        ),
      ),
    ),
    size,
  };
}

/** Tensors of a batch: images (flipped where `flips` says), labels and, with `gridSize`, cell labels and attribute targets. */
export function batchTensors(
  tf: Tfjs,
  data: LabelledImages,
  indices: readonly number[],
  space: LabelSpace,
  flips?: readonly boolean[],
  gridSize = 0,
  signatures?: readonly (readonly number[])[],
  withCellLabels = true,
): { x: TF.Tensor4D; y: TF.Tensor2D; cells?: TF.Tensor4D; attributes?: TF.Tensor2D; attributeMask?: TF.Tensor2D } {
  const s = data.size;
  const L = space.names.length;
  const x = new Float32Array(indices.length * s * s * 3);
  const y = new Float32Array(indices.length * L);
  const g = gridSize;
  const cells = g > 0 && withCellLabels ? new Float32Array(indices.length * g * g * L) : undefined;
  const attributes = g > 0 && signatures ? new Float32Array(indices.length * g * g * ATTRIBUTES) : undefined;
  const attributeMask = attributes ? new Float32Array(indices.length * g * g) : undefined;
  indices.forEach((index, b) => {
    const src = data.pixels[index]!;
    const base = b * s * s * 3;
    const flip = flips?.[b] ?? false;
    if (flip) {
      for (let r = 0; r < s; r++) {
        for (let c = 0; c < s; c++) {
          const from = (r * s + (s - 1 - c)) * 3;
          const to = base + (r * s + c) * 3;
          x[to] = src[from]!;
          x[to + 1] = src[from + 1]!;
          x[to + 2] = src[from + 2]!;
        }
      }
    } else for (let i = 0; i < src.length; i++) x[base + i] = src[i]!;
    for (const c of data.concepts[index]!) for (const l of space.ofConcept[c]!) y[b * L + l] = 1;
    if (cells) {
      for (const [cell, c] of data.cells[index]!) {
        const r = Math.floor(cell / g);
        const col = flip ? g - 1 - (cell % g) : cell % g;
        for (const l of space.ofConcept[c]!) cells[((b * g + r) * g + col) * L + l] = 1;
      }
    }
    if (attributes && attributeMask) {
      // later objects are drawn on top: the last one covering a cell sets its target
      for (const [cell, c] of data.cells[index]!) {
        const r = Math.floor(cell / g);
        const col = flip ? g - 1 - (cell % g) : cell % g;
        const at = (b * g + r) * g + col;
        attributes.set(signatures![c]!, at * ATTRIBUTES);
        attributeMask[at] = 1;
      }
    }
  });
  return {
    x: tf.tensor4d(x, [indices.length, s, s, 3]),
    y: tf.tensor2d(y, [indices.length, L]),
    cells: cells ? tf.tensor4d(cells, [indices.length, g, g, L]) : undefined,
    attributes: attributes ? tf.tensor2d(attributes, [indices.length * g * g, ATTRIBUTES]) : undefined,
    attributeMask: attributeMask ? tf.tensor2d(attributeMask, [indices.length * g * g, 1]) : undefined,
  };
}
