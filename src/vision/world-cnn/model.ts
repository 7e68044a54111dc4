/**
 * The world CNN's network (64 px default): RGB / 127.5 − 1 → [space-to-depth 2×2 → 3×3 conv → ReLU]
 * per halving down to 8×8 → further 3×3 convs at 8×8 → feature map [8, 8, D], plus the two linear
 * pre-training heads (concepts on the global mean, attributes per cell).
 *
 * Space-to-depth (a reshape) replaces strided convolutions, so every conv is a stride-1 "same" 3×3
 * conv whose gradients run on fast kernels: the input gradient is a forward conv with the flipped
 * filter, the filter gradient one matrix product of the im2col patches with the output gradient. On
 * the wasm backend that trains faster than strided `tf.conv2d` (docs/vision.md), whose filter
 * gradient is a JS kernel (src/tf/wasm-kernels.ts) and whose input gradient is wasm's slow
 * Conv2DBackpropInput. Initial weights are seeded (mulberry32).
 */
import type * as TF from '@tensorflow/tfjs';
import type { Backbone } from '../backbone';
import { loadTf } from '../../tf/backend';
import { mixSeed, seededRandom } from '../../util/random';
import type { PretrainMetrics } from './recipes';

type Tfjs = typeof TF;

/** Numbers of a concept's visual signature (render.ts signatureVector): the attribute head's width. */
export const ATTRIBUTES = 32;

export interface WorldCnnConfig {
  /** Square input side: 8 · 2^k (64 default: three halvings to the 8×8 map). */
  inputSize: number;
  /** Output channels of each conv: the first log2(inputSize/8) follow a halving, the rest run at 8×8; the last is D. */
  channels: number[];
}

export const DEFAULT_WORLD_CNN: WorldCnnConfig = { inputSize: 64, channels: [24, 48, 96, 96] };

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

/** 3×3 stride-1 "same" convolution whose gradients use fast kernels (see the file comment). */
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
