/**
 * The paper experiments' recipes without training: the TrainConfig every row of Table 3 (tiny and
 * small), Table 11, Fig. 6 and Table 12 would train, hashed as a run id hashes it (canonical JSON of
 * the portable config). The digests were recorded when the tiny recipe became 1,500 pre-training
 * steps and a fine-tuning checkpoint chosen on val (issue 14; the small preset's pre-training is
 * unchanged; its fine-tuning became tiny's passes over the COCO-like captions in issue #26), so a change
 * here means different run ids, i.e. different numbers: finished runs would not be reused.
 */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { test } from 'node:test';

import { fig6Variants } from '../src/experiments/cc12m/fig6';
import { Inputs, Recipe, RECIPES } from '../src/experiments/recipe';
import { finetuneConfig, pretrainConfig, Variant } from '../src/experiments/runner';
import { table11Variants } from '../src/experiments/cc12m/table11';
import { table12Variants } from '../src/experiments/cc12m/table12';
import { table3Variants } from '../src/experiments/cc12m/table3';
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

test('Table 3 (tiny and small): the TrainConfigs the recorded run ids hash', () => {
  assert.deepEqual(digests(RECIPES.tiny, table3Variants(RECIPES.tiny)), {
    'finetune-coco-from-none': 'f211809a85630efd',
    'pretrain-cc3m': '958491334da17bc8',
    'finetune-coco-from-cc3m': '05a7acb2301782a1',
    'pretrain-cc12m': '3087ff25da126126',
    'finetune-coco-from-cc12m': '5a7dcdb4ef4fdccd',
    'pretrain-cc3m+cc12m': 'aab283afd1288349',
    'finetune-coco-from-cc3m+cc12m': '87de5c707d3c4e35',
  });
  assert.deepEqual(digests(RECIPES.small, table3Variants(RECIPES.small)), {
    'finetune-coco-from-none': '95cab52e894072a4',
    'pretrain-cc3m': 'd55adfb755c7614d',
    'finetune-coco-from-cc3m': '986247bfa4d624e3',
    'pretrain-cc12m': '0a8ac11414103ce0',
    'finetune-coco-from-cc12m': '9e656894274b03e4',
    'pretrain-cc3m+cc12m': '7df0c24f7cd0497c',
    'finetune-coco-from-cc3m+cc12m': 'f2432c4a2955b597',
  });
});

test("Table 11 and Fig. 6: the notebook's former variants, the same runs (IC / 100% / CC3M = Table 3's)", () => {
  assert.deepEqual(digests(RECIPES.tiny, table11Variants(RECIPES.tiny.ablations)), {
    'pretrain-cc12m': '3087ff25da126126',
    'finetune-coco-from-cc12m': '5a7dcdb4ef4fdccd',
    'pretrain-mlm-0.2': '557e7e8cea2646c7',
    'finetune-coco-from-mlm-0.2': '9d8e4e914c630abc',
    'pretrain-mlm-0.4': '598a43233652aedb',
    'finetune-coco-from-mlm-0.4': '8f8ee3e0d6240d7a',
    'pretrain-mlm-0.8': '928479c1bc10efc3',
    'finetune-coco-from-mlm-0.8': 'ba3b5f7ea08bc013',
  });
  assert.deepEqual(digests(RECIPES.tiny, fig6Variants(RECIPES.tiny.ablations)), {
    'pretrain-cc3m': '958491334da17bc8',
    'finetune-coco-from-cc3m': '05a7acb2301782a1',
    'pretrain-25-cc12m': '58f3bfede5475bd5',
    'finetune-coco-from-25-cc12m': '33fea7383e4a7c68',
    'pretrain-50-cc12m': 'f19457138779cc1a',
    'finetune-coco-from-50-cc12m': '5dbb17517746b094',
    'pretrain-cc12m': '3087ff25da126126',
    'finetune-coco-from-cc12m': '5a7dcdb4ef4fdccd',
  });
});

test("Table 12: IC is Table 3's cc12m row; IC+MOC and IC+VLM change only the pre-training objectives", () => {
  const variants = table12Variants(RECIPES.tiny.ablations);
  assert.deepEqual(
    variants.map((v) => v.label),
    ['cc12m', 'ic+moc', 'ic+vlm'],
  );
  const ic = pretrainConfig(RECIPES.tiny, variants[0]!, inputs)!;
  assert.equal(digest(ic), '3087ff25da126126');
  for (const v of variants.slice(1)) {
    const config = pretrainConfig(RECIPES.tiny, v, inputs)!;
    assert.equal(config.objectives.ic, 1);
    assert.ok(config.objectives.moc || config.objectives.vlm, v.label);
    assert.deepEqual({ ...config, name: ic.name, objectives: ic.objectives }, ic, `${v.label}: only the objectives differ`);
  }
});
