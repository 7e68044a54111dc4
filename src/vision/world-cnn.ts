/**
 * The world's backbone: a small CNN pre-trained on the world's concept labels and then frozen, as
 * the papers' Graph-RISE (CC12M) and Inception-ResNet (CC3M) were pre-trained on image labels.
 *
 * Architecture (64 px default): RGB / 127.5 − 1 → [space-to-depth 2×2 → 3×3 conv → ReLU] per
 * halving down to 8×8 → further 3×3 convs at 8×8 → feature map [8, 8, D]. Space-to-depth
 * (a reshape) replaces strided convolutions, so every conv is a stride-1 "same" 3×3 conv whose
 * gradients run on fast kernels: the input gradient is a forward conv with the flipped filter, the
 * filter gradient one matrix product of the im2col patches with the output gradient. On the wasm
 * backend that trains faster than strided `tf.conv2d` (docs/vision.md), whose filter gradient is a
 * JS kernel (src/tf/wasm-kernels.ts) and whose input gradient is wasm's slow Conv2DBackpropInput.
 *
 * Pre-training (default recipe): multi-label sigmoid cross-entropy over the 600 concepts
 * (summed over labels, mean over the batch) on the global mean of the map through a linear head,
 * plus an attribute loss: every cell an object covers regresses that object's visual signature
 * (shape family, colours, texture, proportions; 32 numbers) through a second linear head. Options:
 * hypernym labels, a dense per-cell concept loss. Images are a labelled corpus of the world drawn
 * for this purpose (like ImageNet / JFT beside the captioning data): scenes from a stream of their
 * own (`mixSeed(seed, PRETRAIN_STREAM)`), clean JPEG-like sizes, concepts drawn uniformly over all
 * 600 (`sampler: 'web'` draws them by web share, i.e. Zipf) — never a nocaps, COCO or web image
 * id. Held-out images come from a second stream. Random horizontal flips.
 *
 * Measured (docs/vision.md): at ~120 steps concept labels alone are learnt too little to help (the
 * region probe is no better than the untrained network's); the attribute loss over 600 steps is.
 *
 * Everything is seeded: weights from mulberry32, batches from a seeded permutation, flips from the
 * same stream, so the same options on the same backend give identical weights. The backend is part
 * of the cache key (floats differ slightly between backends). The library never switches the tfjs
 * backend: it uses the current one (callers run `initBackend` first, as the CLI does).
 */
import * as fs from 'fs';
import * as path from 'path';
import type * as TF from '@tensorflow/tfjs';
import type { Backbone } from './backbone';
import { renderScenePixels } from './pixels';
import { signatureVector, visualSignature } from '../world/render';
import { loadTf } from '../tf/backend';
import type { Progress } from '../util/progress';
import { buildConcepts, fnv1a } from '../world/concepts';
import { conceptSampler, sceneFor, type ConceptSampler, type SceneOptions } from '../world/scene';
import type { Concept, Scene } from '../world/types';
import { WORLD_GENERATION } from '../world/world';
import { writeFileAtomic } from '../util/atomic';
import { mixSeed, seededRandom } from '../util/random';
import { readJsonFile } from '../util/json';
import { WORDNET_TOP_NODES } from '../wordnet/basic-level';

type Tfjs = typeof TF;

/** Bumped when the architecture or the pre-training recipe changes (invalidates cached weights). */
export const WORLD_CNN_VERSION = 1;
const PRETRAIN_STREAM = 0x9e7a1;
/** Numbers of a concept's visual signature (render.ts signatureVector). */
const ATTRIBUTES = 32;
const HELDOUT_STREAM = 0x4e1d0;

export interface WorldCnnConfig {
  /** Square input side: 8 · 2^k (64 default: three halvings to the 8×8 map). */
  inputSize: number;
  /** Output channels of each conv: the first log2(inputSize/8) follow a halving, the rest run at 8×8; the last is D. */
  channels: number[];
}

export const DEFAULT_WORLD_CNN: WorldCnnConfig = { inputSize: 64, channels: [24, 48, 96, 96] };

export interface PretrainOptions {
  /** World seed (the pre-training scenes are drawn from this world's concepts and seed). */
  worldSeed: number;
  /** Seed of the initial weights, batch order and flips. */
  seed: number;
  /** Pre-training images (rendered once, held in memory: inputSize² · 3 bytes each). */
  images: number;
  steps: number;
  batchSize: number;
  learningRate: number;
  /** How pre-training scenes draw concepts: uniform over all concepts, or by web share (Zipf). */
  sampler: 'uniform' | 'web';
  /** Held-out images for the reported metrics (0: none). */
  heldOut: number;
  /**
   * Weight of the dense loss: every cell of the 8×8 map is classified too, its labels the objects
   * whose box covers ≥ 30% of the cell (0: image-level labels only).
   */
  denseWeight: number;
  /** Also predict each concept's WordNet hypernyms (as the tagger reports them): denser labels. */
  hypernyms: boolean;
  /**
   * Weight of the attribute loss: every cell an object covers regresses that object's visual
   * signature (shape family, colours, texture, proportions: render.ts signatureVector, 32
   * numbers), like attribute labels beside object labels (0: none).
   */
  attributeWeight: number;
}

/**
 * Pre-training recipes (their cost and region-probe accuracy are measured in docs/vision.md):
 * - `quick` (the default): 120 steps of 32 over 3,000 images, once, then cached. Its region probe
 *   is about the untrained network's: too few steps to learn 600 concepts.
 * - `standard`: 600 steps over 6,000 images; clearly better region features.
 */
export const PRETRAIN_RECIPES = {
  quick: {
    worldSeed: 0,
    seed: 1,
    images: 3000,
    steps: 120,
    batchSize: 32,
    learningRate: 2e-3,
    sampler: 'uniform',
    heldOut: 300,
    denseWeight: 0,
    hypernyms: false,
    attributeWeight: 1,
  },
  standard: {
    worldSeed: 0,
    seed: 1,
    images: 6000,
    steps: 600,
    batchSize: 32,
    learningRate: 2e-3,
    sampler: 'uniform',
    heldOut: 300,
    denseWeight: 0,
    hypernyms: false,
    attributeWeight: 1,
  },
} as const satisfies Record<string, PretrainOptions>;

export type PretrainRecipe = keyof typeof PRETRAIN_RECIPES;

export const DEFAULT_PRETRAIN: PretrainOptions = PRETRAIN_RECIPES.quick;

export interface PretrainMetrics {
  /** Mean loss of the first and the last tenth of the steps. */
  lossStart: number;
  lossEnd: number;
  losses: number[];
  /** Held-out: mean average precision over concepts present, precision of the top-1 label, recall at k = objects shown. */
  heldOutImages: number;
  mAP: number;
  top1: number;
  recallAtK: number;
  renderMs: number;
  trainMs: number;
  backend: string;
}

interface Manifest {
  format: 'cckit-world-cnn';
  version: number;
  key: string;
  config: WorldCnnConfig;
  pretrain: PretrainOptions;
  backend: string;
  featureScale: number;
  tensors: { name: string; shape: number[] }[];
  bytes: number;
  checksum: number;
  metrics: PretrainMetrics;
  created: string;
}

// ------------------------------------------------------------------ the network

export interface LossExtras {
  cellLabels?: TF.Tensor4D;
  denseWeight?: number;
  attributes?: TF.Tensor2D;
  attributeMask?: TF.Tensor2D;
  attributeWeight?: number;
}

interface Layer {
  w: TF.Variable;
  b: TF.Variable;
  down: boolean;
}

function halvings(inputSize: number): number {
  const k = Math.log2(inputSize / 8);
  if (!Number.isInteger(k) || k < 0) throw new Error(`world-cnn: inputSize ${inputSize} is not 8·2^k`);
  return k;
}

/** 2×2 space-to-depth: [B, H, W, C] → [B, H/2, W/2, 4C]. */
function spaceToDepth(tf: Tfjs, x: TF.Tensor4D): TF.Tensor4D {
  const [b, h, w, c] = x.shape;
  return tf.reshape(tf.transpose(tf.reshape(x, [b, h / 2, 2, w / 2, 2, c]), [0, 1, 3, 2, 4, 5]), [b, h / 2, w / 2, 4 * c]);
}

/** 3×3 stride-1 "same" convolution whose gradients use fast kernels (see the module comment). */
export function conv3x3(tf: Tfjs, x: TF.Tensor4D, w: TF.Tensor4D): TF.Tensor4D {
  const f = tf.customGrad(((xi: TF.Tensor4D, wi: TF.Tensor4D, save: (t: TF.Tensor[]) => void) => {
    save([xi, wi]);
    return {
      value: tf.conv2d(xi, wi, 1, 'same'),
      gradFunc: (dy: TF.Tensor4D, saved: TF.Tensor[]) => {
        const [xs, ws] = saved as [TF.Tensor4D, TF.Tensor4D];
        const [kh, kw, cin, cout] = ws.shape;
        const [b, h, wd] = dy.shape;
        const flipped = tf.transpose(tf.reverse(ws, [0, 1]), [0, 1, 3, 2]) as TF.Tensor4D;
        const dx = tf.conv2d(dy, flipped, 1, 'same');
        const padded = tf.pad(xs, [
          [0, 0],
          [1, 1],
          [1, 1],
          [0, 0],
        ]);
        const parts: TF.Tensor4D[] = [];
        for (let ky = 0; ky < kh; ky++) for (let kx = 0; kx < kw; kx++) parts.push(tf.slice(padded, [0, ky, kx, 0], [b, h, wd, cin]));
        const patches = tf.reshape(tf.concat(parts, 3), [b * h * wd, kh * kw * cin]);
        const dw = tf.reshape(tf.matMul(patches, tf.reshape(dy, [b * h * wd, cout]), true, false), [kh, kw, cin, cout]);
        return [dx, dw];
      },
    };
  }) as unknown as Parameters<Tfjs['customGrad']>[0]);
  return (f as unknown as (a: TF.Tensor, b: TF.Tensor) => TF.Tensor)(x, w) as TF.Tensor4D;
}

/** Seeded normal draws (Box–Muller over mulberry32). */
function normals(n: number, std: number, random: () => number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

export class WorldCnn implements Backbone {
  readonly name = 'world-cnn' as const;
  readonly gridSize = 8;
  readonly inputSize: number;
  readonly featureDim: number;
  private readonly tf: Tfjs;

  private constructor(
    readonly id: string,
    readonly config: WorldCnnConfig,
    private readonly layers: Layer[],
    private readonly head: { w: TF.Variable; b: TF.Variable },
    private readonly attributes: { w: TF.Variable; b: TF.Variable },
    private featureScale: number,
    readonly metrics: PretrainMetrics | undefined,
  ) {
    this.tf = loadTf();
    this.inputSize = config.inputSize;
    this.featureDim = config.channels[config.channels.length - 1]!;
  }

  /** Fresh seeded weights (He-normal convs, zero biases, head bias at the label prior). */
  static init(config: WorldCnnConfig, seed: number, concepts: number, id = 'world-cnn-untrained'): WorldCnn {
    const tf = loadTf();
    const down = halvings(config.inputSize);
    if (config.channels.length < down) throw new Error(`world-cnn: ${config.channels.length} convs cannot halve ${config.inputSize} px down to 8`);
    const random = seededRandom(mixSeed(seed, 0xc0ffee));
    const layers: Layer[] = [];
    let cin = 3;
    config.channels.forEach((c, i) => {
      const isDown = i < down;
      const fanIn = 9 * (isDown ? 4 * cin : cin);
      const shape: [number, number, number, number] = [3, 3, isDown ? 4 * cin : cin, c];
      layers.push({
        w: tf.variable(tf.tensor4d(normals(9 * shape[2] * c, Math.sqrt(2 / fanIn), random), shape)),
        b: tf.variable(tf.zeros([c])),
        down: isDown,
      });
      cin = c;
    });
    const prior = Math.log(2.2 / concepts / (1 - 2.2 / concepts));
    const head = {
      w: tf.variable(tf.tensor2d(normals(cin * concepts, Math.sqrt(1 / cin) * 0.1, random), [cin, concepts])),
      b: tf.variable(tf.fill([concepts], prior)),
    };
    const attributes = {
      w: tf.variable(tf.tensor2d(normals(cin * ATTRIBUTES, Math.sqrt(1 / cin), random), [cin, ATTRIBUTES])),
      b: tf.variable(tf.zeros([ATTRIBUTES])),
    };
    return new WorldCnn(id, config, layers, head, attributes, 1, undefined);
  }

  /** Unscaled feature map (ReLU outputs of the last conv). */
  private rawMap(images: TF.Tensor4D): TF.Tensor4D {
    const tf = this.tf;
    let h = tf.sub(tf.div(images, 127.5), 1) as TF.Tensor4D;
    for (const layer of this.layers) {
      if (layer.down) h = spaceToDepth(tf, h);
      h = tf.relu(tf.add(conv3x3(tf, h, layer.w as unknown as TF.Tensor4D), layer.b)) as TF.Tensor4D;
    }
    return h;
  }

  featureMap(images: TF.Tensor4D): TF.Tensor4D {
    if (images.shape[1] !== this.inputSize || images.shape[2] !== this.inputSize || images.shape[3] !== 3) {
      throw new Error(`world-cnn: expected images [B, ${this.inputSize}, ${this.inputSize}, 3], got [${images.shape.join(', ')}]`);
    }
    return this.tf.tidy(() => this.tf.mul(this.rawMap(images), this.featureScale) as TF.Tensor4D);
  }

  /** Concept logits [B, concepts] (the pre-training head). */
  logits(images: TF.Tensor4D): TF.Tensor2D {
    const tf = this.tf;
    return tf.tidy(() => tf.add(tf.matMul(tf.mean(this.rawMap(images), [1, 2]) as TF.Tensor2D, this.head.w), this.head.b) as TF.Tensor2D);
  }

  /**
   * Pre-training loss of a batch, per image: sigmoid cross-entropy summed over labels; plus
   * `denseWeight` × the same loss of every cell's logits against `cellLabels` [B, g, g, L] (the
   * image's logits are the mean of its cells' logits: the head is linear); plus
   * `attributeWeight` × the squared error of the attribute head on covered cells
   * (`attributes` [B·g·g, 32], `attributeMask` [B·g·g, 1]), summed over attributes, mean over cells.
   */
  loss(images: TF.Tensor4D, labels: TF.Tensor2D, extra: LossExtras = {}): TF.Scalar {
    const tf = this.tf;
    const bce = (z: TF.Tensor, y: TF.Tensor) => tf.sum(tf.add(tf.sub(tf.relu(z), tf.mul(z, y)), tf.log1p(tf.exp(tf.neg(tf.abs(z))))));
    const map = this.rawMap(images);
    const [b, g, , d] = map.shape;
    const flat = tf.reshape(map, [b * g * g, d]);
    let total: TF.Tensor;
    if (extra.cellLabels && extra.denseWeight) {
      const cells = tf.add(tf.matMul(flat, this.head.w), this.head.b);
      const z = tf.mean(tf.reshape(cells, [b, g * g, -1]), 1);
      const dense = tf.div(bce(cells, tf.reshape(extra.cellLabels, [b * g * g, -1])), g * g);
      total = tf.add(bce(z, labels), tf.mul(dense, extra.denseWeight));
    } else {
      total = bce(tf.add(tf.matMul(tf.mean(map, [1, 2]) as TF.Tensor2D, this.head.w), this.head.b), labels);
    }
    if (extra.attributes && extra.attributeMask && extra.attributeWeight) {
      const predicted = tf.add(tf.matMul(flat, this.attributes.w), this.attributes.b);
      const err = tf.sum(tf.mul(tf.square(tf.sub(predicted, extra.attributes)), extra.attributeMask));
      const covered = tf.maximum(tf.sum(extra.attributeMask), 1);
      total = tf.add(total, tf.mul(tf.div(tf.mul(err, b), covered), extra.attributeWeight));
    }
    return tf.div(total, b) as TF.Scalar;
  }

  trainableVariables(): TF.Variable[] {
    return [...this.layers.flatMap((l) => [l.w, l.b]), this.head.w, this.head.b, this.attributes.w, this.attributes.b];
  }

  /** Named tensors in a fixed order (what the weights file holds). */
  namedTensors(): { name: string; tensor: TF.Variable }[] {
    return [
      ...this.layers.flatMap((l, i) => [
        { name: `conv${i}/w`, tensor: l.w },
        { name: `conv${i}/b`, tensor: l.b },
      ]),
      { name: 'head/w', tensor: this.head.w },
      { name: 'head/b', tensor: this.head.b },
      { name: 'attributes/w', tensor: this.attributes.w },
      { name: 'attributes/b', tensor: this.attributes.b },
    ];
  }

  /** Sets the feature scale so global vectors have RMS ≈ 1 per dimension over `images`. */
  calibrate(images: TF.Tensor4D): number {
    const tf = this.tf;
    const rms = tf.tidy(() => Math.sqrt(tf.mean(tf.square(tf.mean(this.rawMap(images), [1, 2]))).dataSync()[0]!));
    this.featureScale = rms > 0 ? 1 / rms : 1;
    return this.featureScale;
  }

  get scale(): number {
    return this.featureScale;
  }

  withIdentity(id: string, featureScale: number, metrics: PretrainMetrics | undefined): WorldCnn {
    return new WorldCnn(id, this.config, this.layers, this.head, this.attributes, featureScale, metrics);
  }

  dispose(): void {
    for (const t of this.trainableVariables()) t.dispose();
  }
}

// ------------------------------------------------------------------ pre-training data

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

function batchTensors(
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

/** Held-out metrics of the pre-training head: mAP over concepts present, top-1 precision, recall@k. */
export function evaluateLabels(model: WorldCnn, data: LabelledImages, concepts: number, batchSize = 64): { mAP: number; top1: number; recallAtK: number } {
  const tf = loadTf();
  const n = data.pixels.length;
  const scores = new Float32Array(n * concepts);
  const onlyConcepts: LabelSpace = { names: Array.from({ length: concepts }, String), ofConcept: Array.from({ length: concepts }, (_, c) => [c]) };
  for (let start = 0; start < n; start += batchSize) {
    const idx = Array.from({ length: Math.min(batchSize, n - start) }, (_, k) => start + k);
    const { x, y } = batchTensors(tf, data, idx, onlyConcepts);
    const logits = model.logits(x);
    const all = logits.dataSync();
    const width = logits.shape[1];
    for (let k = 0; k < idx.length; k++) scores.set(all.subarray(k * width, k * width + concepts), (start + k) * concepts);
    tf.dispose([x, y, logits]);
  }
  let top1 = 0;
  let recall = 0;
  for (let i = 0; i < n; i++) {
    const truth = new Set(data.concepts[i]);
    const row = Array.from(scores.subarray(i * concepts, (i + 1) * concepts), (v, c) => [v, c] as const).sort((a, b) => b[0] - a[0]);
    if (truth.has(row[0]![1])) top1++;
    const k = truth.size;
    recall += row.slice(0, k).filter(([, c]) => truth.has(c)).length / k;
  }
  // average precision per concept over the held-out images, for concepts with ≥ 1 positive
  let apSum = 0;
  let apCount = 0;
  for (let c = 0; c < concepts; c++) {
    const positives = data.concepts.reduce((s, l) => s + (l.includes(c) ? 1 : 0), 0);
    if (positives === 0) continue;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b * concepts + c]! - scores[a * concepts + c]! || a - b);
    let hits = 0;
    let ap = 0;
    order.forEach((i, rank) => {
      if (data.concepts[i]!.includes(c)) {
        hits++;
        ap += hits / (rank + 1);
      }
    });
    apSum += ap / positives;
    apCount++;
  }
  return { mAP: apCount ? apSum / apCount : 0, top1: n ? top1 / n : 0, recallAtK: n ? recall / n : 0 };
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
  const optimizer = tf.train.adam(options.learningRate);
  const random = seededRandom(mixSeed(options.seed, 0x5eed));
  let order: number[] = [];
  const next = (): number => {
    if (order.length === 0) {
      order = Array.from({ length: data.pixels.length }, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
    }
    return order.pop()!;
  };
  const losses: number[] = [];
  const trainStart = performance.now();
  const warmup = Math.max(1, Math.round(options.steps * 0.05));
  for (let step = 0; step < options.steps; step++) {
    // linear warm-up, then cosine decay to a tenth
    const lr =
      step < warmup
        ? (options.learningRate * (step + 1)) / warmup
        : options.learningRate * (0.1 + 0.45 * (1 + Math.cos((Math.PI * (step - warmup)) / Math.max(1, options.steps - warmup))));
    (optimizer as unknown as { learningRate: number }).learningRate = lr;
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
    backend: tf.getBackend(),
  };
  return model.withIdentity(id ?? worldCnnId(config, options, tf.getBackend()), scale, metrics);
}

// ------------------------------------------------------------------ cache

/** The cache key of a configuration: a hash of everything that changes the weights. */
export function worldCnnKey(config: WorldCnnConfig, options: PretrainOptions, backend: string): string {
  // fixed key order (not the caller's), held-out size left out: it does not change the weights
  const o = options;
  const recipe = {
    worldSeed: o.worldSeed,
    seed: o.seed,
    images: o.images,
    steps: o.steps,
    batchSize: o.batchSize,
    learningRate: o.learningRate,
    sampler: o.sampler,
    denseWeight: o.denseWeight,
    hypernyms: o.hypernyms,
    attributeWeight: o.attributeWeight,
  };
  const arch = { inputSize: config.inputSize, channels: config.channels };
  return fnv1a(JSON.stringify({ v: WORLD_CNN_VERSION, config: arch, recipe, backend }))
    .toString(16)
    .padStart(8, '0');
}

export function worldCnnId(config: WorldCnnConfig, options: PretrainOptions, backend: string): string {
  // the world's generation is part of the id: features cached under it belong to that world's images
  return `world-cnn-${config.inputSize}px-d${config.channels[config.channels.length - 1]}-g${WORLD_GENERATION}-${worldCnnKey(config, options, backend)}`;
}

function checksum(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** Writes a file atomically: a temporary sibling, fsync, then rename. */
/** Saves weights: the .bin first, then the manifest that names its size and checksum (a half-written pair never loads). */
export function saveWorldCnn(model: WorldCnn, dir: string, pretrain: PretrainOptions): { json: string; bin: string } {
  const named = model.namedTensors();
  const arrays = named.map((t) => t.tensor.dataSync() as Float32Array);
  const total = arrays.reduce((s, a) => s + a.length, 0);
  const flat = new Float32Array(total);
  let offset = 0;
  for (const a of arrays) {
    flat.set(a, offset);
    offset += a.length;
  }
  const bytes = new Uint8Array(flat.buffer);
  const bin = path.join(dir, `${model.id}.bin`);
  const json = path.join(dir, `${model.id}.json`);
  writeFileAtomic(bin, bytes);
  const manifest: Manifest = {
    format: 'cckit-world-cnn',
    version: WORLD_CNN_VERSION,
    key: model.id,
    config: model.config,
    pretrain,
    backend: model.metrics?.backend ?? loadTf().getBackend(),
    featureScale: model.scale,
    tensors: named.map((t) => ({ name: t.name, shape: t.tensor.shape })),
    bytes: bytes.length,
    checksum: checksum(bytes),
    metrics: model.metrics!,
    created: new Date().toISOString(),
  };
  writeFileAtomic(json, JSON.stringify(manifest, null, 1) + '\n');
  return { json, bin };
}

/** Loads saved weights, or undefined when absent or incomplete (size or checksum mismatch). */
export function loadWorldCnn(dir: string, id: string): WorldCnn | undefined {
  const json = path.join(dir, `${id}.json`);
  const bin = path.join(dir, `${id}.bin`);
  if (!fs.existsSync(json) || !fs.existsSync(bin)) return undefined;
  let manifest: Manifest;
  try {
    manifest = readJsonFile(json) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.format !== 'cckit-world-cnn' || manifest.version !== WORLD_CNN_VERSION) return undefined;
  const buffer = fs.readFileSync(bin);
  if (buffer.length !== manifest.bytes || checksum(buffer) !== manifest.checksum) return undefined;
  const flat = new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
  const concepts = manifest.tensors.find((t) => t.name === 'head/b')!.shape[0]!;
  const model = WorldCnn.init(manifest.config, 0, concepts, id);
  let offset = 0;
  const byName = new Map(model.namedTensors().map((t) => [t.name, t.tensor]));
  const tf = loadTf();
  for (const spec of manifest.tensors) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const variable = byName.get(spec.name);
    if (!variable || variable.shape.join() !== spec.shape.join())
      throw new Error(`world-cnn ${id}: tensor ${spec.name} [${spec.shape}] does not fit the architecture`);
    variable.assign(tf.tensor(flat.subarray(offset, offset + size), spec.shape));
    offset += size;
  }
  return model.withIdentity(id, manifest.featureScale, manifest.metrics);
}

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
}

export const DEFAULT_CACHE_DIR = '.cckit-cache';

/** The world CNN for these options: loaded from the cache when present, else pre-trained and saved. */
export async function worldCnn(options: WorldCnnOptions = {}): Promise<WorldCnn> {
  const config = { ...DEFAULT_WORLD_CNN, ...options.config };
  const pretrain: PretrainOptions = { ...PRETRAIN_RECIPES[options.recipe ?? 'quick'], ...options.pretrain };
  const tf = loadTf();
  await tf.ready();
  const id = worldCnnId(config, pretrain, tf.getBackend());
  const dir = path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'backbones');
  const cached = loadWorldCnn(dir, id);
  if (cached) {
    options.log?.(`world-cnn: loaded ${id} from ${dir}`);
    return cached;
  }
  const model = await pretrainWorldCnn(config, pretrain, options.progress, id);
  saveWorldCnn(model, dir, pretrain);
  const m = model.metrics!;
  options.log?.(
    `world-cnn: pre-trained ${id} in ${((m.renderMs + m.trainMs) / 1000).toFixed(1)} s (loss ${m.lossStart.toFixed(2)} → ${m.lossEnd.toFixed(2)}; held-out mAP ${m.mAP.toFixed(3)}, top-1 ${m.top1.toFixed(3)})`,
  );
  return model;
}
