/**
 * The pornography detector of the image filter (CC3M §3: "excludes images that trigger
 * pornography … detectors"; CC12M §2.2 keeps that filter). The papers use Google-internal
 * classifiers; cckit uses NSFWJS's MobileNetV2 (5 classes: Drawing, Hentai, Neutral, Porn, Sexy)
 * on TensorFlow.js.
 *
 * - Offline: NSFWJS 4 ships its models as JavaScript modules inside the package
 *   (`nsfwjs/dist/models/…/*.min.js`, topology + base64 weights); `load(modelName)` reads
 *   them through `require`, so nothing is fetched. The wasm backend's `.wasm` binaries are read
 *   from `@tensorflow/tfjs-backend-wasm/dist` on disk (`setWasmPaths` with that folder).
 * - Backend: chosen by `initBackend` (src/tf/backend.ts), the first of `tensorflow` (native,
 *   the optional `@tensorflow/tfjs-node-gpu` / `@tensorflow/tfjs-node`), `wasm`, `cpu` that loads,
 *   or the one `CCKIT_BACKEND` names. The choice is tfjs-global: it applies to every tfjs user in
 *   the process.
 * - Lazy: nothing of tfjs or NSFWJS is loaded until `NsfwDetector.load` (or `sharedNsfwDetector`)
 *   is called; the image filter calls it for the first image that passes the cheap checks.
 * - Model: MobileNetV2Mid (NSFWJS's mid-sized graph model) by default. Measured on the world's
 *   web images (seed 3, the 155 of ids 0–199 that pass CC12M's header checks; none is
 *   pornographic): MobileNetV2 scored two of them ≥ 0.5 (a striped truck 0.85, a bed 0.65, both
 *   flat drawings on grainy backgrounds), MobileNetV2Mid none (max 0.06) and is faster on wasm;
 *   InceptionV3 also none (max 0.23) at several times the cost (times in docs/filters.md).
 * - Score: P(Porn) + P(Hentai), the two explicit classes. "Sexy" (swimwear, lingerie) is not
 *   pornography and counting it would reject ordinary fashion and beach photos; "Drawing" and
 *   "Neutral" are safe.
 */
import type * as TF from '@tensorflow/tfjs';
import type { NSFWJS } from 'nsfwjs';
import * as fs from 'fs';
import * as path from 'path';
import { initBackend, loadTf, type BackendName } from '../tf/backend';
import { loadSharp } from '../util/sharp';

export type NsfwBackend = BackendName;
export type NsfwModelName = 'MobileNetV2' | 'MobileNetV2Mid' | 'InceptionV3';
export type NsfwClass = 'Drawing' | 'Hentai' | 'Neutral' | 'Porn' | 'Sexy';

/** The classes whose probabilities add up to the pornography score. */
export const NSFW_SCORE_CLASSES: readonly NsfwClass[] = ['Porn', 'Hentai'];

/** The default bundled model (see the module comment for the measurements behind the choice). */
export const DEFAULT_NSFW_MODEL: NsfwModelName = 'MobileNetV2Mid';

/** Square input side of each bundled model (NSFWJS: 224, InceptionV3 299). */
export const NSFW_INPUT_SIZE: Record<NsfwModelName, number> = { MobileNetV2: 224, MobileNetV2Mid: 224, InceptionV3: 299 };

export interface NsfwDetectorOptions {
  /** Backends to try, in order (default: tensorflow, wasm, cpu). */
  backends?: NsfwBackend[];
  /** Bundled model (default MobileNetV2Mid). */
  model?: NsfwModelName;
}

export interface NsfwResult {
  /** P(Porn) + P(Hentai), in [0, 1]. */
  score: number;
  probabilities: Record<NsfwClass, number>;
  /** Inference time of this image (tensor in, probabilities out), milliseconds. */
  ms: number;
}

export interface NsfwStats {
  backend: NsfwBackend;
  model: NsfwModelName;
  /** Time to select the backend and load the model (including one warm-up inference), ms. */
  loadMs: number;
  images: number;
  /** Mean inference time per image, ms (decoding not included). */
  meanMs: number;
}

type Tfjs = typeof TF;

/**
 * Starts `fn` with console.info silenced: NSFWJS logs an advertisement synchronously when `load`
 * is called. console.info is restored before the returned promise is awaited, so nothing else in
 * the process is muted while the model loads.
 */
function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const info = console.info;
  console.info = () => undefined;
  try {
    return fn();
  } finally {
    console.info = info;
  }
}

/** Where each bundled model's modules sit inside the package (`nsfwjs/models/<folder>`). */
const BUNDLED_MODEL_FOLDERS: Record<NsfwModelName, string> = { MobileNetV2: 'mobilenet_v2', MobileNetV2Mid: 'mobilenet_v2_mid', InceptionV3: 'inception_v3' };

type ModelDefinition = {
  name: NsfwModelName;
  numOfWeightBundles: number;
  weightBundles: (() => Promise<{ default: string }>)[];
};
type CoreLoad = (model: string, options: { modelDefinitions: ModelDefinition[] }) => Promise<NSFWJS>;

/**
 * A bundled NSFWJS model, offline, on the current tfjs backend. NSFWJS 4.4's own loader imports each weight
 * module (one base64 string of up to 5.6 MB) through TypeScript's `__importStar`, which copies every character
 * of the string into an object as its own property: for MobileNetV2Mid's weights, 42 s and a 1.17 GB peak on a
 * shared 2-core machine. Here the same bundled modules are required plainly and handed to NSFWJS's public
 * `nsfwjs/core` loader as the model's definition: the same weights and scores, 3 s, a 0.2 GB peak. Where the
 * package's layout is not the one expected, NSFWJS's own loader is used (slow but the same model).
 */
export async function loadBundledNsfwModel(modelName: NsfwModelName): Promise<NSFWJS> {
  const folder = BUNDLED_MODEL_FOLDERS[modelName];
  let definition: ModelDefinition | undefined;
  let coreLoad: CoreLoad | undefined;
  try {
    const exported = require(`nsfwjs/models/${folder}`) as Record<string, ModelDefinition>;
    const found = Object.values(exported).find((d) => d?.name === modelName);
    const weightsDir = path.join(path.dirname(require.resolve(`nsfwjs/models/${folder}`)), '..', '..', 'models', folder);
    const count = found?.numOfWeightBundles ?? 0;
    const files = Array.from({ length: count }, (_, i) => path.join(weightsDir, `group1-shard${i + 1}of${count}.min.js`));
    if (found && count > 0 && files.every((f) => fs.existsSync(f))) {
      definition = { ...found, weightBundles: files.map((file) => async () => ({ default: require(file) as string })) };
      coreLoad = (require('nsfwjs/core') as { load: CoreLoad }).load;
    }
  } catch {
    definition = undefined;
  }
  if (definition && coreLoad) {
    const load = coreLoad;
    const modelDefinition = definition;
    return quietly(() => load(modelName, { modelDefinitions: [modelDefinition] }));
  }
  const nsfwjs = require('nsfwjs') as typeof import('nsfwjs');
  // a model *name* makes NSFWJS read its bundled model modules (no URL, no network)
  return quietly(() => nsfwjs.load(modelName));
}

export class NsfwDetector {
  private images = 0;
  private totalMs = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly tf: Tfjs,
    private readonly model: NSFWJS,
    readonly backend: NsfwBackend,
    readonly modelName: NsfwModelName,
    readonly loadMs: number,
  ) {}

  /** Square side the detector's input is resized to. */
  get inputSize(): number {
    return NSFW_INPUT_SIZE[this.modelName];
  }

  /** Selects the first backend that loads and loads the bundled model, offline. */
  static async load(options: NsfwDetectorOptions = {}): Promise<NsfwDetector> {
    const start = performance.now();
    const tf = loadTf();
    let backend: NsfwBackend;
    try {
      backend = (await initBackend({ order: options.backends })).name;
    } catch (e) {
      throw new Error(`nsfw: ${e instanceof Error ? e.message : String(e)}`);
    }
    const modelName = options.model ?? DEFAULT_NSFW_MODEL;
    const model = await loadBundledNsfwModel(modelName);
    return new NsfwDetector(tf, model, backend, modelName, performance.now() - start);
  }

  /**
   * Scores one image given as packed RGB bytes (`width × height × 3`, row-major), ideally already
   * `inputSize` square (NSFWJS resizes anything else bilinearly).
   */
  classifyRgb(rgb: Uint8Array, width: number, height: number): Promise<NsfwResult> {
    if (rgb.length !== width * height * 3) return Promise.reject(new Error(`nsfw: expected ${width * height * 3} RGB bytes, got ${rgb.length}`));
    // one image at a time: concurrent callers queue, so tensors stay few and `ms` is this image's
    const run = this.queue.then(() => this.classifyNow(rgb, width, height));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async classifyNow(rgb: Uint8Array, width: number, height: number): Promise<NsfwResult> {
    const start = performance.now();
    const input = this.tf.tensor3d(rgb, [height, width, 3], 'int32');
    let predictions: Awaited<ReturnType<NSFWJS['classify']>>;
    try {
      predictions = await this.model.classify(input, 5);
    } finally {
      input.dispose();
    }
    const probabilities: Record<NsfwClass, number> = { Drawing: 0, Hentai: 0, Neutral: 0, Porn: 0, Sexy: 0 };
    for (const p of predictions) probabilities[p.className as NsfwClass] = p.probability;
    const score = NSFW_SCORE_CLASSES.reduce((s, c) => s + probabilities[c], 0);
    const ms = performance.now() - start;
    this.images++;
    this.totalMs += ms;
    return { score: Math.min(1, score), probabilities, ms };
  }

  /** Decodes an image with sharp to the model's input size and scores it. */
  async classifyImage(bytes: Buffer, decode: DecodeOptions = {}): Promise<NsfwResult> {
    const rgb = await decodeRgb(bytes, this.inputSize, decode);
    return this.classifyRgb(rgb, this.inputSize, this.inputSize);
  }

  stats(): NsfwStats {
    return { backend: this.backend, model: this.modelName, loadMs: this.loadMs, images: this.images, meanMs: this.images ? this.totalMs / this.images : 0 };
  }

  dispose(): void {
    this.model.dispose();
  }
}

const shared = new Map<string, Promise<NsfwDetector>>();

/**
 * One detector per (model, backends) per process, loaded on the first call; concurrent callers
 * share the same load. A failed load is not cached, so a later call retries.
 */
export function sharedNsfwDetector(options: NsfwDetectorOptions = {}): Promise<NsfwDetector> {
  const key = `${options.model ?? DEFAULT_NSFW_MODEL}|${(options.backends ?? []).join(',')}`;
  let pending = shared.get(key);
  if (!pending) {
    pending = NsfwDetector.load(options);
    pending.catch(() => shared.delete(key));
    shared.set(key, pending);
  }
  return pending;
}

// ---- decoding (sharp) ---------------------------------------------------------------------------

export interface DecodeOptions {
  /** Refuse to decode images with more pixels than this (sharp's `limitInputPixels`; default 50 MP). */
  maxPixels?: number;
  /**
   * How bad pixel data must be to fail (sharp `failOn`, least to most sensitive): `truncated`
   * (cut-off files), `error`, `warning` (any libjpeg warning: corrupt entropy data, scans that end
   * early, extraneous bytes; sharp's own default). Default `warning`.
   */
  failOn?: 'truncated' | 'error' | 'warning';
}

/**
 * Decodes a whole image and resizes it to `size × size` packed sRGB bytes (EXIF orientation
 * applied, alpha dropped, grey and CMYK converted). Throws on truncated or corrupt data
 * (sharp `failOn`, default `warning`), so this doubles as the "does it decode" check. JPEG
 * shrink-on-load keeps it cheap for large images.
 */
export async function decodeRgb(bytes: Buffer, size: number, options: DecodeOptions = {}): Promise<Uint8Array> {
  const sharp = loadSharp();
  const { data, info } = await sharp(bytes, { failOn: options.failOn ?? 'warning', limitInputPixels: options.maxPixels ?? 50_000_000, sequentialRead: true })
    .rotate()
    .resize(size, size, { fit: 'fill' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 || data.length !== size * size * 3) throw new Error(`decoded to ${info.channels} channels, ${data.length} bytes`);
  return new Uint8Array(data.buffer, data.byteOffset, data.length);
}
