/**
 * Does a longer run undo the CC3M captioners' collapse (notebook 05)? Trains one variant of the grid with CC3M's
 * settings to a longer cap, logs dev CIDEr every `every` steps (the recipe's dev choice), then captions the first
 * Flickr-like images (beam 4) with every kept checkpoint and prints how many distinct captions each writes.
 *
 *   node --import tsx scripts/cc3m-dev-curve.ts [variant] [steps] [every] [images] [seed]
 *   (default: T2T8x8_conceptual 6000 500 100 0; about 8 minutes on one core at tiny)
 *
 * The run goes to runs/ like any other (its id hashes the longer cap), so a second call only captions.
 */
import { captionerFeatureSpec, captionerTrainConfig } from '../src/experiments/cc3m/tables4-7';
import { captionerVariants, prepareCaptionerInputs, testImages } from '../src/experiments/cc3m/tables4-7-grid';
import { decodeSplit } from '../src/experiments/evaluate';
import { RECIPES } from '../src/experiments/recipe';
import { visualFromSpec } from '../src/experiments/visual';
import { readLog } from '../src/runs/layout';
import { listCheckpoints } from '../src/train/checkpoint';
import { train } from '../src/train/trainer';

async function main(): Promise<void> {
  const [label = 'T2T8x8_conceptual', steps = '6000', every = '500', images = '100', seed = '0'] = process.argv.slice(2);
  const variant = captionerVariants().find((v) => v.label === label);
  if (!variant)
    throw new Error(
      `no variant ${label}; one of ${captionerVariants()
        .map((v) => v.label)
        .join(', ')}`,
    );
  const base = RECIPES.tiny;
  const recipe = {
    ...base,
    seed: Number(seed),
    captioners: { ...base.captioners, stage: { ...base.captioners.stage, steps: Number(steps), select: { every: Number(every) } } },
  };
  const inputs = await prepareCaptionerInputs(recipe, { say: (line) => console.error(line) });
  const visual = await visualFromSpec(captionerFeatureSpec(recipe, variant.features));
  const run = await train(captionerTrainConfig(recipe, variant, inputs), { runsRoot: 'runs', visual, logger: (line) => console.error(line) });
  const dev = new Map(readLog(run.dir).flatMap((l) => (l.val?.CIDEr !== undefined ? [[l.step, l.val.CIDEr] as const] : [])));
  const flickr = testImages(inputs, 'flickr').slice(0, Number(images));
  console.log(`${label}, seed ${seed}: step, dev CIDEr ×100, distinct beam-4 captions of ${flickr.length} Flickr-like images`);
  for (const checkpoint of listCheckpoints(run.dir)) {
    const captions = await decodeSplit(run.dir, flickr, visual, { decode: recipe.captioners.decode, checkpoint: checkpoint.dir });
    const cider = dev.get(checkpoint.step);
    console.log(`${checkpoint.step}\t${cider === undefined ? '—' : (100 * cider).toFixed(1)}\t${new Set(captions.values()).size}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
