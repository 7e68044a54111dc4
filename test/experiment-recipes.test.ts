/**
 * The paper experiments' recipes without training: the TrainConfig every row of Table 3 (tiny and
 * small), Table 11, Fig. 6 and Table 12 would train, hashed as a run id hashes it (canonical JSON of
 * the portable config). The digests were recorded from the code before the recipe refactor, so a
 * change here means different run ids, i.e. different numbers: finished runs would not be reused.
 */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';

import { fig6Variants } from '../src/experiments/fig6';
import { Inputs, Recipe, RECIPES } from '../src/experiments/recipe';
import { finetuneConfig, pretrainConfig, Variant } from '../src/experiments/runner';
import { table11Variants } from '../src/experiments/table11';
import { table12Variants } from '../src/experiments/table12';
import { table3Variants } from '../src/experiments/table3';
import { canonicalJson } from '../src/runs/run';
import { portableConfig, TrainConfig } from '../src/train/trainer';

const world = '.cckit-cache/world-tiny-seed0';
const inputs: Inputs = {
  pools: { cc3m: `${world}/filtered/cc3m-no-nsfw/kept.tsv`, cc12m: `${world}/filtered/cc12m-no-nsfw/kept.tsv` },
  cocoTrain: `${world}/coco/captions_train.json`,
  cocoVal: `${world}/coco/captions_val.json`,
  nocapsVal: `${world}/nocaps/nocaps_val.json`,
};

const digest = (config: TrainConfig): string =>
  crypto
    .createHash('sha256')
    .update(canonicalJson(portableConfig(config)))
    .digest('hex')
    .slice(0, 16);

/** Run name → digest of every config the variants train (the pre-training run's folder named after its run name). */
function digests(recipe: Recipe, variants: readonly Variant[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of variants) {
    const pre = pretrainConfig(recipe, v, inputs);
    if (pre) out[pre.name!] = digest(pre);
    const fine = finetuneConfig(recipe, v, inputs, pre ? `runs/${pre.name}` : undefined);
    out[fine.name!] = digest(fine);
  }
  return out;
}

test('Table 3 (tiny and small): the same TrainConfigs as before the recipe refactor', () => {
  assert.deepEqual(digests(RECIPES.tiny, table3Variants(RECIPES.tiny)), {
    'finetune-coco-from-none': '36273e21d370d5f7',
    'pretrain-cc3m': 'e2d837ded3bd44bc',
    'finetune-coco-from-cc3m': 'bbf38d74ea4a5f15',
    'pretrain-cc12m': '51a639fa3317b26f',
    'finetune-coco-from-cc12m': '36fb3560c556a56f',
    'pretrain-cc3m+cc12m': '7e3a74b04bed1452',
    'finetune-coco-from-cc3m+cc12m': '0f8f0837a38968cb',
  });
  assert.deepEqual(digests(RECIPES.small, table3Variants(RECIPES.small)), {
    'finetune-coco-from-none': 'ca185c267aaac783',
    'pretrain-cc3m': 'd55adfb755c7614d',
    'finetune-coco-from-cc3m': 'f984a71c84eeca64',
    'pretrain-cc12m': '0a8ac11414103ce0',
    'finetune-coco-from-cc12m': 'a2888dc2b5f113ef',
    'pretrain-cc3m+cc12m': '7df0c24f7cd0497c',
    'finetune-coco-from-cc3m+cc12m': 'ddc9e86a61a7504c',
  });
});

test("Table 11 and Fig. 6: the notebook's former variants, the same runs (IC / 100% / CC3M = Table 3's)", () => {
  assert.deepEqual(digests(RECIPES.tiny, table11Variants()), {
    'pretrain-cc12m': '51a639fa3317b26f',
    'finetune-coco-from-cc12m': '36fb3560c556a56f',
    'pretrain-mlm-0.2': 'fb7b751fa2e7b9a6',
    'finetune-coco-from-mlm-0.2': '723479b8b46a00f9',
    'pretrain-mlm-0.4': 'e2be52692c9c5d52',
    'finetune-coco-from-mlm-0.4': '3a9d810de33552c9',
    'pretrain-mlm-0.8': '5d198bd07353cf1d',
    'finetune-coco-from-mlm-0.8': '4ab94a7c34fb4aa0',
  });
  assert.deepEqual(digests(RECIPES.tiny, fig6Variants()), {
    'pretrain-cc3m': 'e2d837ded3bd44bc',
    'finetune-coco-from-cc3m': 'bbf38d74ea4a5f15',
    'pretrain-25-cc12m': 'c84d6425ba45fe17',
    'finetune-coco-from-25-cc12m': '10859d4bb5ac149b',
    'pretrain-50-cc12m': 'a9319e2d0decb9df',
    'finetune-coco-from-50-cc12m': 'cfb49e173bb78da1',
    'pretrain-cc12m': '51a639fa3317b26f',
    'finetune-coco-from-cc12m': '36fb3560c556a56f',
  });
});

test("Table 12: IC is Table 3's cc12m row; IC+MOC and IC+VLM change only the pre-training objectives", () => {
  const variants = table12Variants();
  assert.deepEqual(
    variants.map((v) => v.label),
    ['cc12m', 'ic+moc', 'ic+vlm'],
  );
  const ic = pretrainConfig(RECIPES.tiny, variants[0]!, inputs)!;
  assert.equal(digest(ic), '51a639fa3317b26f');
  for (const v of variants.slice(1)) {
    const config = pretrainConfig(RECIPES.tiny, v, inputs)!;
    assert.equal(config.objectives.ic, 1);
    assert.ok(config.objectives.moc || config.objectives.vlm, v.label);
    assert.deepEqual({ ...config, name: ic.name, objectives: ic.objectives }, ic, `${v.label}: only the objectives differ`);
  }
});
