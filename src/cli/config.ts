/**
 * `cckit train --config FILE` files (configs/*.json): a TrainConfig plus the run's `features`,
 * checked field by field against the types, so a typo or a wrong type names the file and the
 * field ("configs/x.json: optimizer.lr: expected a number, got "0.001"") instead of failing
 * mid-run. Every field of TrainConfig has a check here (the `Shape` types make a new field without
 * one a compile error); unknown fields are rejected.
 */
import * as fs from 'fs';
import type { FeatureSpec } from '../experiments/visual';
import type { DataSource } from '../train/data';
import { MODEL_KINDS, type ModelSpec } from '../train/models';
import type { AdagradConfig, AdamConfig, ScheduleConfig } from '../train/optimizers';
import type { ObjectiveWeights, TrainConfig } from '../train/trainer';
import { BACKBONE_NAMES } from '../vision/backbone';
import type { CropAugmentation } from '../vision/crop';
import { VISUAL_MODES } from '../models/visual-input';
import { quoteInput } from '../util/untrusted-text';

/**
 * `--config FILE` names a file that is there: "config FILE: no such file" (or "is a folder") before the
 * reader would say only ENOENT. Nothing to check when the option is missing (commander says so).
 */
export function checkConfigFile(file: string | undefined): void {
  if (file === undefined) return;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new Error(`config ${quoteInput(file)}: no such file`);
    throw new Error(`config ${quoteInput(file)}: cannot read (${code ?? (err as Error).message})`);
  }
  if (stat.isDirectory()) throw new Error(`config ${quoteInput(file)}: is a folder, not a config file`);
}

export interface TrainFileConfig extends TrainConfig {
  features: FeatureSpec;
}

/** Throws with the field's path; `at` is where the value sits ("optimizer.lr"). */
type Check = (value: unknown, at: string) => void;

/** A check for every key of T (required or optional). */
type Shape<T> = { [K in keyof Required<T>]: Check };

class FieldError extends Error {}

const describe = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));
const fail = (at: string, expected: string, value: unknown): never => {
  throw new FieldError(`${at}: expected ${expected}, got ${describe(value)}`);
};

const number: Check = (v, at) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(at, 'a number', v);
};
const nonNegative: Check = (v, at) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(at, 'a number ≥ 0', v);
};
const positive: Check = (v, at) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(at, 'a number > 0', v);
};
const integer =
  (min: number): Check =>
  (v, at) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(at, `an integer ≥ ${min}`, v);
  };
const fraction: Check = (v, at) => {
  if (typeof v !== 'number' || !(v > 0 && v <= 1)) fail(at, 'a fraction in (0, 1]', v);
};
const string: Check = (v, at) => {
  if (typeof v !== 'string' || v.length === 0) fail(at, 'a non-empty string', v);
};
const boolean: Check = (v, at) => {
  if (typeof v !== 'boolean') fail(at, 'true or false', v);
};
const oneOf =
  (values: readonly string[]): Check =>
  (v, at) => {
    if (typeof v !== 'string' || !values.includes(v)) fail(at, values.map((x) => JSON.stringify(x)).join(' | '), v);
  };
const arrayOf =
  (item: Check, min = 0): Check =>
  (v, at) => {
    if (!Array.isArray(v) || v.length < min) fail(at, min > 0 ? `a list of at least ${min}` : 'a list', v);
    (v as unknown[]).forEach((x, i) => item(x, `${at}[${i}]`));
  };
const recordOf =
  (item: Check): Check =>
  (v, at) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) fail(at, 'an object', v);
    for (const [k, x] of Object.entries(v as object)) item(x, `${at}.${k}`);
  };

/** An object with these fields: `required` must be there; the others may be; nothing else. */
function object<T>(shape: Shape<T>, required: readonly (keyof T & string)[]): Check {
  return (v, at) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) fail(at, 'an object', v);
    const o = v as Record<string, unknown>;
    const field = (k: string) => (at ? `${at}.${k}` : k);
    for (const k of Object.keys(o)) if (!(k in shape)) throw new FieldError(`${field(k)}: unknown field (known: ${Object.keys(shape).join(', ')})`);
    for (const k of required) if (o[k] === undefined) throw new FieldError(`${field(k)}: missing`);
    for (const [k, check] of Object.entries(shape) as [string, Check][]) if (o[k] !== undefined) check(o[k], field(k));
  };
}

/** The variant of a union whose `kind` (or `name`) field says which. */
const tagged =
  (tag: string, variants: Record<string, Check>): Check =>
  (v, at) => {
    const t = v && typeof v === 'object' ? (v as Record<string, unknown>)[tag] : undefined;
    const check = typeof t === 'string' ? variants[t] : undefined;
    if (!check)
      fail(
        at ? `${at}.${tag}` : tag,
        Object.keys(variants)
          .map((x) => JSON.stringify(x))
          .join(' | '),
        t,
      );
    check!(v, at);
  };

const cropFields = object<CropAugmentation>({ minArea: fraction, maxArea: fraction, aspect: arrayOf(positive, 2) }, ['minArea', 'maxArea', 'aspect']);
const crop: Check = (v, at) => {
  cropFields(v, at);
  const c = v as CropAugmentation;
  if (c.aspect.length !== 2 || c.aspect[0]! > c.aspect[1]!) fail(`${at}.aspect`, '[min, max] with min ≤ max', c.aspect);
  if (c.minArea > c.maxArea) fail(`${at}.minArea`, `at most maxArea (${c.maxArea})`, c.minArea);
};

const features = object<FeatureSpec>(
  { backbone: oneOf(BACKBONE_NAMES), mode: oneOf(VISUAL_MODES), tags: boolean, permuteRegions: boolean, cacheDir: string, crop },
  ['backbone', 'mode', 'tags'],
);

const model = object<ModelSpec>(
  {
    kind: oneOf(Object.keys(MODEL_KINDS)),
    size: string,
    overrides: recordOf((v, at) => {
      if (typeof v !== 'number' && typeof v !== 'boolean') fail(at, 'a number or true/false', v);
    }),
  },
  ['kind', 'size'],
);

const source = tagged('kind', {
  tsv: object<Extract<DataSource, { kind: 'tsv' }>>({ kind: string, path: string, layout: oneOf(['caption-url', 'url-caption']) }, ['kind', 'path']),
  coco: object<Extract<DataSource, { kind: 'coco' }>>({ kind: string, path: string, imageRoot: string, limit: integer(1) }, ['kind', 'path']),
});

const schedule: Shape<ScheduleConfig> = {
  lr: positive,
  warmup: nonNegative,
  warmupUnit: oneOf(['steps', 'epochs']),
  decay: oneOf(['none', 'linear', 'cosine', 'rsqrt', 'exponential']),
  decayUnit: oneOf(['steps', 'epochs']),
  decayRate: positive,
  decayEvery: positive,
};

const optimizer = tagged('name', {
  adam: object<AdamConfig>({ ...schedule, name: string, beta1: number, beta2: number, epsilon: positive }, ['name', 'lr']),
  adagrad: object<AdagradConfig>({ ...schedule, name: string, initialAccumulator: nonNegative, epsilon: positive }, ['name', 'lr']),
});

const weightRate = object<{ weight: number; rate: number }>({ weight: nonNegative, rate: fraction }, ['weight', 'rate']);
const objectives = object<ObjectiveWeights>(
  { ic: nonNegative, mlm: weightRate, moc: weightRate, vlm: object<{ weight: number }>({ weight: nonNegative }, ['weight']) },
  [],
);

const trainFile = object<TrainFileConfig>(
  {
    name: string,
    seed: integer(0),
    features,
    model,
    data: object<TrainConfig['data']>({ train: arrayOf(source, 1), subsample: fraction, maxCaptionLen: integer(1) }, ['train', 'maxCaptionLen']),
    val: object<NonNullable<TrainConfig['val']>>({ path: string, imageRoot: string, limit: integer(1), every: integer(1), maxLen: integer(1) }, [
      'path',
      'every',
    ]),
    vocab: object<TrainConfig['vocab']>({ minCount: integer(1) }, ['minCount']),
    objectives,
    optimizer,
    batchSize: integer(1),
    steps: integer(0),
    epochs: positive,
    clipNorm: positive,
    labelSmoothing: (v, at) => {
      if (typeof v !== 'number' || !(v >= 0 && v < 1)) fail(at, 'a number in [0, 1)', v);
    },
    checkpointEvery: integer(1),
    keepCheckpoints: integer(1),
    logEvery: integer(1),
    init: object<NonNullable<TrainConfig['init']>>({ fromRun: string, vocab: oneOf(['keep', 'fresh']) }, ['fromRun', 'vocab']),
    workers: integer(1),
  },
  ['seed', 'features', 'model', 'data', 'vocab', 'objectives', 'optimizer', 'batchSize', 'checkpointEvery'],
);

/** The file's config, checked; throws `<file>: <field>: <what is wrong>`. */
export function validateTrainFile(value: unknown, file: string): TrainFileConfig {
  if (!value || typeof value !== 'object' || !(value as TrainFileConfig).features || !(value as TrainFileConfig).model || !(value as TrainFileConfig).data) {
    throw new Error(`${file}: a train config needs "features", "model", "data", "optimizer", … (see docs/training.md)`);
  }
  try {
    trainFile(value, '');
    const config = value as TrainFileConfig;
    if (config.steps === undefined && config.epochs === undefined) throw new FieldError('steps: missing (or give epochs)');
  } catch (e) {
    if (e instanceof FieldError) throw new Error(`${file}: ${e.message}`);
    throw e;
  }
  return value as TrainFileConfig;
}
