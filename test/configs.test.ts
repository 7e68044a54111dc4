/**
 * configs/*.json: each file is a valid `cckit train` config (every field checked against the
 * TrainConfig / FeatureSpec types, src/cli/config.ts), mistakes name the file and the field, and
 * the CC12M tiny examples carry the tiny recipe's hyper-parameters (src/experiments/recipe.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { validateTrainFile } from '../src/cli/config';
import { RECIPES, trainConfigFor } from '../src/experiments/recipe';
import { PACKAGE_ROOT } from '../src/paths';

const CONFIGS = path.join(PACKAGE_ROOT, 'configs');
const files = fs
  .readdirSync(CONFIGS)
  .filter((f) => f.endsWith('.json'))
  .sort();
const load = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(CONFIGS, file), 'utf8'));

test('every configs/*.json is a valid train config', () => {
  assert.ok(files.length >= 3, `configs: ${files.join(', ')}`);
  for (const file of files) validateTrainFile(load(file), `configs/${file}`);
});

test('a wrong field is named with its file', () => {
  const good = load('pretrain-cc12m-tiny.json') as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const bad = (edit: (c: any) => void): string => {
    const c = structuredClone(good);
    edit(c);
    try {
      validateTrainFile(c, 'configs/x.json');
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };
  assert.equal(
    bad((c) => (c.optimizer.lr = '0.001')),
    'configs/x.json: optimizer.lr: expected a number > 0, got "0.001"',
  );
  assert.equal(
    bad((c) => (c.optimizer.name = 'sgd')),
    'configs/x.json: optimizer.name: expected "adam" | "adagrad", got "sgd"',
  );
  assert.match(
    bad((c) => (c.batchsize = 32)),
    /^configs\/x\.json: batchsize: unknown field/,
  );
  assert.equal(
    bad((c) => delete c.checkpointEvery),
    'configs/x.json: checkpointEvery: missing',
  );
  assert.equal(
    bad((c) => (c.data.train[0].kind = 'parquet')),
    'configs/x.json: data.train[0].kind: expected "tsv" | "coco", got "parquet"',
  );
  assert.equal(
    bad((c) => (c.features.mode = 'boxes')),
    'configs/x.json: features.mode: expected "global" | "grid" | "regions", got "boxes"',
  );
  assert.equal(
    bad((c) => (c.features.crop = { minArea: 0.5, maxArea: 1, aspect: [0.75, 4 / 3] })),
    'accepted',
  );
  assert.equal(
    bad((c) => (c.features.crop = { minArea: 0.5, maxArea: 1.5, aspect: [0.75, 4 / 3] })),
    'configs/x.json: features.crop.maxArea: expected a fraction in (0, 1], got 1.5',
  );
  assert.equal(
    bad((c) => (c.features.crop = { minArea: 0.5, maxArea: 1, aspect: [4 / 3, 0.75] })),
    'configs/x.json: features.crop.aspect: expected [min, max] with min ≤ max, got [1.3333333333333333,0.75]',
  );
  assert.equal(
    bad((c) => (c.objectives.mlm = { weight: 1, rate: 2 })),
    'configs/x.json: objectives.mlm.rate: expected a fraction in (0, 1], got 2',
  );
  assert.equal(
    bad((c) => (c.data.subsample = 0)),
    'configs/x.json: data.subsample: expected a fraction in (0, 1], got 0',
  );
  assert.equal(
    bad((c) => delete c.steps),
    'configs/x.json: steps: missing (or give epochs)',
  );
  assert.match(
    bad((c) => delete c.features),
    /^configs\/x\.json: a train config needs "features"/,
  );
});

test("the CC12M tiny examples are the tiny recipe's stages (hyper-parameters, features)", () => {
  const recipe = RECIPES.tiny;
  const inputs = { pools: { cc3m: 'cc3m.tsv', cc12m: 'cc12m.tsv' }, cocoTrain: 'train.json', cocoVal: 'val.json', nocapsVal: 'nocaps.json' };
  for (const [file, stage] of [
    ['pretrain-cc12m-tiny.json', recipe.pretrain],
    ['finetune-coco-tiny.json', recipe.finetune],
  ] as const) {
    const config = validateTrainFile(load(file), `configs/${file}`);
    const expected = trainConfigFor(recipe, stage, { name: config.name!, train: config.data.train }, inputs);
    for (const key of [
      'seed',
      'model',
      'vocab',
      'objectives',
      'optimizer',
      'batchSize',
      'steps',
      'clipNorm',
      'labelSmoothing',
      'checkpointEvery',
      'keepCheckpoints',
    ] as const) {
      assert.deepEqual(config[key], expected[key], `configs/${file}: ${key} differs from RECIPES.tiny`);
    }
    assert.equal(config.data.maxCaptionLen, expected.data.maxCaptionLen, `configs/${file}: data.maxCaptionLen`);
    assert.equal(config.val?.limit, expected.val?.limit, `configs/${file}: val.limit`);
    assert.deepEqual(config.features, recipe.features, `configs/${file}: features`);
  }
});
