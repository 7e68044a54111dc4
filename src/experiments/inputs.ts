/**
 * An experiment's inputs: the world (built once in `<cacheDir>/world-<preset>-seed<seed>`, rebuilt when stale) and the
 * two paper pipelines over its web pool (run once; the CC12M-like pool without the CC3M-like pool's images), or the
 * recipe's real files; and what they hold (pairs per pool, every image key they name).
 */
import * as fs from 'fs';
import * as path from 'path';

import { filterPool } from '../filters/run';
import { filterOutputState } from '../filters/outputs';
import { overlap } from '../filters/overlap';
import { readEvalImages, readExamples } from '../train/data';
import { buildWorld, type BuildManifest } from '../data/build-world';
import { WORLD_PRESETS } from '../world/splits';
import { worldCatalog } from '../world/catalog';
import { WORLD_GENERATION } from '../world/world';
import { readJsonFile } from '../util/json';
import { writeJsonAtomic } from '../util/atomic';
import type { ExperimentOptions } from './options';
import type { Inputs, WorldSpec } from './recipe';
import { profiled } from '../util/profile';

/** The folder a world is built in (`<cacheDir>/world-<preset>-seed<seed>`). */
export function worldRoot(spec: Pick<WorldSpec, 'preset' | 'seed'>, cacheDir = '.cckit-cache'): string {
  return path.join(cacheDir, `world-${spec.preset}-seed${spec.seed}`);
}

/** The world (built once) and the two paper pipelines over its web pool (run once); or the spec's real data. */
export async function prepareWorldInputs(recipe: WorldSpec, options: ExperimentOptions): Promise<Inputs> {
  if (recipe.data) {
    const d = recipe.data;
    return {
      pools: { cc3m: d.pools.cc3m, cc12m: d.pools.cc12m },
      cocoTrain: d.cocoTrain,
      cocoVal: d.cocoVal,
      nocapsVal: d.nocapsVal,
      ...(d.nocapsTest ? { nocapsTest: d.nocapsTest } : {}),
      imageRoot: d.imageRoot,
    };
  }
  const say = options.say ?? (() => {});
  const root = worldRoot(recipe, options.cacheDir);
  const manifest = path.join(root, 'world.json');
  if (fs.existsSync(manifest)) {
    const stale = staleWorld(readJsonFile(manifest) as Partial<BuildManifest>, recipe.preset);
    if (stale) {
      // every split is drawn from its own seed: unchanged splits (and so the pools and the runs over them) come out the same
      say(`${root} ${stale}: rebuilding it and its filtered pools`);
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  if (!fs.existsSync(manifest)) {
    say(`building the ${recipe.preset} world (seed ${recipe.seed}) in ${root}`);
    await profiled('world', `${recipe.preset} seed ${recipe.seed}`, () => buildWorld({ out: root, preset: recipe.preset, seed: recipe.seed }));
  }
  const pools = {} as Record<'cc3m' | 'cc12m', string>;
  // The two pipelines run side by side (one core each) rather than one after the other on both.
  const both = ['cc3m', 'cc12m'] as const;
  await Promise.all(
    both.map(async (preset) => {
      const out = path.join(root, 'filtered', `${preset}${recipe.filters.nsfw ? '' : '-no-nsfw'}`);
      pools[preset] = path.join(out, 'kept.tsv');
      if (filterOutputState(out).done) return;
      say(`filtering the web pool with the ${preset} pipeline${recipe.filters.nsfw ? '' : ' (pornography detector off)'}`);
      await profiled('filter', `${preset} pipeline`, () =>
        filterPool({
          preset,
          input: path.join(root, 'web', preset === 'cc3m' ? 'cc3m.tsv' : 'cc12m.tsv'),
          out,
          nsfw: recipe.filters.nsfw,
          catalog: worldCatalog(),
          // the world's words are its own: counted over the pool, threshold scaled (docs/filters.md)
          vocabulary: 'input',
          workers: Math.max(1, Math.floor(recipe.filters.workers / both.length)),
          progress: options.progress ? (task, done, total) => options.progress!(`${preset} ${task}`, done, total) : undefined,
        }),
      );
    }),
  );
  // CC12M was built disjoint from CC3M (CC12M §3; its README: ~63K of 12.4M URLs shared): the CC12M-like pool is
  // the relaxed pipeline's pairs minus the strict pipeline's images, and "both" is their union.
  pools.cc12m = await profiled('filter', 'cc12m minus cc3m images', () => withoutStrictImages(pools.cc3m, pools.cc12m, say));
  return {
    pools,
    cocoTrain: path.join(root, 'coco', 'captions_train.json'),
    cocoVal: path.join(root, 'coco', 'captions_val.json'),
    nocapsVal: path.join(root, 'nocaps', 'nocaps_val.json'),
    nocapsTest: path.join(root, 'nocaps', 'nocaps_test.json'),
    worldRoot: root,
  };
}

/**
 * Why a cached world must be rebuilt for `preset` (an older generator; a preset's world whose sizes are no longer the
 * preset's), or undefined. A world built with custom sizes (`preset: 'custom'`, e.g. a test's) is used as it is.
 */
export function staleWorld(built: Partial<BuildManifest>, preset: WorldSpec['preset']): string | undefined {
  if (built.generation !== WORLD_GENERATION) return 'was written by an older world generator';
  if (built.preset === 'custom') return undefined;
  const want = WORLD_PRESETS[preset];
  const differ = (Object.keys(want) as (keyof typeof want)[]).filter((split) => built.sizes?.[split] !== want[split]);
  return differ.length > 0 ? `has other split sizes than the ${preset} preset's (${differ.join(', ')})` : undefined;
}

/** The file name of the relaxed pool without the strict pool's images, beside the relaxed pipeline's own output. */
export const DISJOINT_POOL_FILE = 'kept-minus-cc3m.tsv';

/**
 * Writes the relaxed pool's pairs whose image the strict pool does not have (once; `overlap.json` beside it
 * records how many were removed, so no row leaves silently) and returns that file.
 */
async function withoutStrictImages(strict: string, relaxed: string, say: (line: string) => void): Promise<string> {
  const out = path.join(path.dirname(relaxed), DISJOINT_POOL_FILE);
  const report = path.join(path.dirname(relaxed), 'overlap.json');
  if (fs.existsSync(report) && fs.existsSync(out)) return out;
  const shared = await overlap(strict, relaxed, out);
  writeJsonAtomic(report, { ...shared, removed: shared.b.rows - (shared.written ?? 0), why: 'CC12M is disjoint from CC3M (CC12M §3)' });
  say(`cc12m pool: ${shared.written} pairs after removing the ${shared.shared} images the cc3m pool has`);
  return out;
}

/** Pairs per pool file. */
export function poolSizes(inputs: Inputs): Record<string, number> {
  const pools: Record<string, number> = {};
  for (const [name, file] of Object.entries(inputs.pools)) pools[name] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  return pools;
}

/** Every image the experiment touches: pools, COCO train/val, nocaps val. */
export async function experimentImageKeys(inputs: Inputs): Promise<string[]> {
  const keys = new Set<string>();
  for (const file of Object.values(inputs.pools)) for (const e of await readExamples({ kind: 'tsv', path: file })) keys.add(e.key);
  for (const file of [inputs.cocoTrain, inputs.cocoVal, inputs.nocapsVal])
    for (const img of readEvalImages({ path: file, imageRoot: inputs.imageRoot })) keys.add(img.key);
  return [...keys];
}
