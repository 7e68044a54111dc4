/**
 * Which frozen backbone captions better on the world: the same captioner (tiny Transformer, COCO-like
 * training only: Table 3's "none" row, so no pre-training pool is featurised) on world-cnn features
 * and on NSFWJS's ImageNet MobileNetV2 features, scored on nocaps-val (CIDEr ×100 per domain).
 *
 *   npx tsx bench/backbones.ts [--steps 150] [--mode regions|grid|global]
 */
import * as path from 'path';

import { Recipe, RECIPES } from '../src/experiments/recipe';
import { experimentImageKeys, prepareWorldInputs } from '../src/experiments/inputs';
import { runVariant } from '../src/experiments/runner';
import { FeatureSpec, visualFromSpec } from '../src/experiments/visual';
import { formatTable } from '../src/report/table';
import { PACKAGE_ROOT } from '../src/paths';

async function main(): Promise<void> {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1]! : fallback;
  };
  const steps = Number(arg('steps', '150'));
  const mode = arg('mode', 'regions') as FeatureSpec['mode'];
  const cacheDir = path.join(PACKAGE_ROOT, '.cckit-cache');
  const runsRoot = path.join(cacheDir, 'bench-runs');
  const config: Recipe = { ...RECIPES.tiny, finetune: { ...RECIPES.tiny.finetune, steps }, zeroShot: false };
  const rows: (string | number)[][] = [];
  for (const backbone of ['world-cnn', 'mobilenet'] as const) {
    const features: FeatureSpec = { backbone, mode, tags: mode === 'regions', cacheDir };
    const options = { features, runsRoot, cacheDir, concurrency: 1, say: (l: string) => process.stderr.write(l + '\n') };
    const inputs = await prepareWorldInputs(config, options);
    const visual = await visualFromSpec(features);
    const keys = (await experimentImageKeys({ ...inputs, pools: {} as never })).filter((k) => !k.includes('/web/'));
    const t0 = Date.now();
    await visual.prepare(keys);
    const featureSeconds = (Date.now() - t0) / 1000;
    const r = await runVariant(config, { label: `none-${backbone}`, sources: [] }, inputs, visual, options);
    rows.push([
      backbone,
      mode,
      String(keys.length),
      featureSeconds.toFixed(1),
      r.finetuned.in.toFixed(1),
      r.finetuned.near.toFixed(1),
      r.finetuned.out.toFixed(1),
      r.finetuned.overall.toFixed(1),
    ]);
  }
  console.log(`tiny Transformer trained ${steps} steps on COCO-like only, nocaps-val CIDEr (beam 5); features for COCO train/val + nocaps val`);
  console.log(formatTable(['backbone', 'mode', 'images', 'feature s (this run; 0 when cached)', 'in', 'near', 'out', 'overall'], rows));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
