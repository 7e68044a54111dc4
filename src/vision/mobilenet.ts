/**
 * The ImageNet-derived backbone: NSFWJS's bundled MobileNetV2Mid (a TF-Hub MobileNetV2 feature
 * extractor fine-tuned for NSFWJS's five classes; the same model the image filter loads offline,
 * src/filters/nsfw.ts), read from the package's JavaScript modules, so nothing is fetched.
 *
 * Features: the 7×7×1792 output (MobileNetV2 at width 1.4) of the last 1×1 conv (`MobilenetV2/Conv_1/Relu6`, the map the
 * classifier's average pool reads), projected to D = 256 by a fixed seeded Gaussian matrix
 * (Johnson–Lindenstrauss: distances and linear structure survive; the captioner's first layer is
 * linear anyway), then scaled so a global vector has RMS ≈ 1 per dimension. Storing 1792 dims
 * would cost 460 KB per image for the grid alone. Input: 224×224 RGB / 255 (as NSFWJS feeds it).
 * The map is 7×7; features.ts resamples it to the 8×8 grid.
 */
import type * as TF from '@tensorflow/tfjs';
import type { GraphModel } from '@tensorflow/tfjs';
import type { Backbone } from './backbone';
import { loadTf } from '../tf/backend';
import { loadBundledNsfwModel } from '../filters/nsfw';
import { mixSeed, seededRandom } from '../util/random';

type Tfjs = typeof TF;

export const MOBILENET_MODEL = 'MobileNetV2Mid';
export const MOBILENET_NODE =
  'StatefulPartitionedCall/sequential/keras_layer/StatefulPartitionedCall/StatefulPartitionedCall/StatefulPartitionedCall/predict/MobilenetV2/Conv_1/Relu6';
export const MOBILENET_CHANNELS = 1792;

export interface MobilenetOptions {
  /** Output dimensions after the fixed projection (default 256; 1792 keeps the raw channels). */
  featureDim?: number;
  /** Seed of the projection matrix (default 0). */
  seed?: number;
}

/**
 * RMS per dimension of the unscaled global vector (projection included), measured on the 250
 * coco-val images of the tiny world (seed 0) on wasm; dividing by it gives RMS ≈ 1.
 */
const RAW_GLOBAL_RMS = 1.184;

export class MobilenetBackbone implements Backbone {
  readonly name = 'mobilenet' as const;
  readonly inputSize = 224;
  readonly gridSize = 7;
  readonly featureDim: number;
  readonly id: string;
  private readonly tf: Tfjs;

  private constructor(
    private readonly model: GraphModel,
    private readonly projection: TF.Tensor2D | undefined,
    featureDim: number,
    seed: number,
    private readonly scale: number,
  ) {
    this.tf = loadTf();
    this.featureDim = featureDim;
    this.id = `mobilenet-v2-mid-d${featureDim}${projection ? `-p${seed}` : ''}`;
  }

  /** Loads the bundled model (offline) on the current tfjs backend. */
  static async load(options: MobilenetOptions = {}): Promise<MobilenetBackbone> {
    const tf = loadTf();
    await tf.ready();
    const wrapper = await loadBundledNsfwModel(MOBILENET_MODEL);
    const model = (wrapper as unknown as { model: GraphModel }).model;
    const featureDim = options.featureDim ?? 256;
    const seed = options.seed ?? 0;
    let projection: TF.Tensor2D | undefined;
    if (featureDim !== MOBILENET_CHANNELS) {
      const random = seededRandom(mixSeed(seed, 0x3b11));
      const values = new Float32Array(MOBILENET_CHANNELS * featureDim);
      for (let i = 0; i < values.length; i += 2) {
        const u = Math.max(random(), 1e-12);
        const v = random();
        const r = Math.sqrt(-2 * Math.log(u)) / Math.sqrt(featureDim);
        values[i] = r * Math.cos(2 * Math.PI * v);
        if (i + 1 < values.length) values[i + 1] = r * Math.sin(2 * Math.PI * v);
      }
      projection = tf.tensor2d(values, [MOBILENET_CHANNELS, featureDim]);
    }
    return new MobilenetBackbone(model, projection, featureDim, seed, 1 / RAW_GLOBAL_RMS);
  }

  /** The unprojected, unscaled 7×7×1792 map. */
  rawMap(images: TF.Tensor4D): TF.Tensor4D {
    const tf = this.tf;
    return tf.tidy(() => this.model.execute(tf.div(images, 255), MOBILENET_NODE) as TF.Tensor4D);
  }

  featureMap(images: TF.Tensor4D): TF.Tensor4D {
    if (images.shape[1] !== this.inputSize || images.shape[2] !== this.inputSize || images.shape[3] !== 3) {
      throw new Error(`mobilenet: expected images [B, 224, 224, 3], got [${images.shape.join(', ')}]`);
    }
    const tf = this.tf;
    return tf.tidy(() => {
      const raw = this.rawMap(images);
      const [b, g, , c] = raw.shape;
      const projected = this.projection ? tf.reshape(tf.matMul(tf.reshape(raw, [b * g * g, c]), this.projection), [b, g, g, this.featureDim]) : raw;
      return tf.mul(projected, this.scale) as TF.Tensor4D;
    });
  }

  dispose(): void {
    this.model.dispose();
    this.projection?.dispose();
  }
}
