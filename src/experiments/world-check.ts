/**
 * `cckit world check`: how well a built world matches the papers' statistics. It prepares the
 * same inputs the experiments use (`prepareWorldInputs`: the world in
 * `<cache>/world-<preset>-seed<seed>`, both paper pipelines over its web pool, cached and shared
 * with table3), then measures each statistic of src/world/calibration.ts on the kept pools and the
 * world's ground truth, and judges it against the accepted range there.
 *
 * The statistic functions are pure (world-stats.ts), the verdicts and the table are world-verdicts.ts's; `worldCheck`
 * here wires them to a world's files. Nothing measured is stored or hard-coded: the numbers change with the world.
 */
import * as fs from 'fs';
import * as path from 'path';

import { StatsAccumulator } from '../data/stats';
import { readTsv } from '../data/tsv';
import { leaveOneOutCider } from '../metrics/human';
import { readJsonFile } from '../util/json';
import { CALIBRATION } from '../world/calibration';
import { WORLD_PRESETS, WorldPresetName, WorldSplit } from '../world/splits';
import { World } from '../world/world';
import { prepareWorldInputs, worldRoot } from './inputs';
import { RECIPES } from './recipe';
import { judge, type WorldCheckMeasures, type WorldCheckResult } from './world-verdicts';
import {
  captionPrecision,
  conceptCoverage,
  countWords,
  nocapsOutConcepts,
  objectsPerImage,
  personPresence,
  personShare,
  POOLS,
  readWebTruth,
  tokenStats,
  typesAtMinCount,
  type Pool,
} from './world-stats';

// ------------------------------------------------------------------ the check on a world

export interface WorldCheckOptions {
  preset: 'tiny' | 'small';
  seed: number;
  /** World data and filtered pools (default `.cckit-cache`), shared with table3. */
  cacheDir?: string;
  /** Mention thresholds of the coverage statistic (default 1, 5, 10). */
  ks?: readonly number[];
  say?: (line: string) => void;
  progress?: (task: string, done: number, total: number) => void;
}

interface WorldManifest {
  sizes?: Partial<Record<WorldSplit, number>>;
  options?: { zipfExponent?: number };
}

/**
 * A world built in the cache (`<cacheDir>/world-<preset>-seed<seed>`, as prepareWorldInputs leaves it): its folder,
 * its generator (the manifest's Zipf exponent) and its split sizes (the manifest's, else the preset's).
 */
export function openBuiltWorld(cacheDir: string, preset: WorldPresetName, seed: number): { root: string; world: World; sizes: Record<WorldSplit, number> } {
  const root = worldRoot({ preset, seed }, cacheDir);
  const manifestFile = path.join(root, 'world.json');
  const manifest: WorldManifest = fs.existsSync(manifestFile) ? (readJsonFile(manifestFile) as WorldManifest) : {};
  const sizes = { ...WORLD_PRESETS[preset], ...manifest.sizes };
  return { root, world: new World({ seed, zipfExponent: manifest.options?.zipfExponent }), sizes };
}

/** The url and caption of every row of a TSV (either column order). */
export async function readPool(file: string): Promise<{ url: string; caption: string }[]> {
  const rows: { url: string; caption: string }[] = [];
  for await (const row of readTsv(file)) rows.push({ url: row.url, caption: row.caption });
  return rows;
}

/** Measures every calibration statistic on the preset's world (built and filtered if needed). */
export async function worldCheck(options: WorldCheckOptions): Promise<WorldCheckResult> {
  const say = options.say ?? (() => {});
  const progress = options.progress ?? (() => {});
  const ks = options.ks ?? [1, 5, 10];
  const cacheDir = options.cacheDir ?? '.cckit-cache';
  const recipe = { ...RECIPES[options.preset], seed: options.seed };
  const inputs = await prepareWorldInputs(recipe, { cacheDir, say, progress: options.progress });
  const { root, world, sizes } = openBuiltWorld(cacheDir, recipe.preset, recipe.seed);

  say('measuring the kept pools');
  const webTruth = readWebTruth(path.join(root, 'web', 'truth.jsonl'));
  const truth = new Map([...webTruth].map(([url, t]) => [url, t.describesImage]));
  const rows = {} as Record<Pool, { url: string; caption: string }[]>;
  for (const pool of POOLS) rows[pool] = await readPool(inputs.pools[pool]);

  const outConcepts = nocapsOutConcepts(world, sizes['nocaps-val']);
  const rareWords = Object.keys(CALIBRATION.find((t) => t.id === 'rare-words')?.paper ?? {});
  const measures = {
    pairs: {},
    precision: {},
    personShare: {},
    tokens: {},
    rareWords: {},
    coverage: {},
    outConcepts: outConcepts.length,
  } as WorldCheckMeasures;
  POOLS.forEach((pool, i) => {
    const captions = rows[pool].map((r) => r.caption);
    measures.pairs[pool] = rows[pool].length;
    measures.precision[pool] = captionPrecision(
      rows[pool].map((r) => r.url),
      truth,
    );
    measures.personShare[pool] = personShare(captions);
    measures.tokens[pool] = tokenStats(captions);
    measures.rareWords[pool] = countWords(captions, rareWords);
    measures.coverage[pool] = conceptCoverage(captions, outConcepts, ks);
    progress('check pools', i + 1, POOLS.length);
  });
  // CC12M's first captions holding as many tokens as all of CC3M (one pass, the accumulator's own counts)
  const cc3mTokens = measures.tokens.cc3m.tokens;
  const counter = new StatsAccumulator({ tokenizer: 'fast', rareWords: [] });
  for (const r of rows.cc12m) {
    if (counter.result().tokens >= cc3mTokens) break;
    counter.add(r.caption);
  }
  measures.cc12mTokenTypeAtCc3mTokens = counter.result().tokenTypeRatio;

  const cocoCaptions = (readJsonFile(inputs.cocoTrain) as { annotations: { caption: string }[] }).annotations.map((a) => a.caption);
  measures.preset = recipe.preset;
  measures.cocoTrainCaptions = cocoCaptions.length;
  const cc12mUrls = new Set(rows.cc12m.map((r) => r.url));
  measures.sharedPairs = rows.cc3m.filter((r) => cc12mUrls.has(r.url)).length;
  measures.types = { coco: typesAtMinCount(cocoCaptions), cc3m: typesAtMinCount(rows.cc3m.map((r) => r.caption)) };
  measures.personPresence = personPresence(webTruth.values());
  // COCO counts its own categories per image: the non-COCO objects of a COCO-like image are left out
  const cocoNames = new Set(world.concepts.filter((c) => c.coco).map((c) => c.name));
  const cocoImages = (['coco-train', 'coco-val'] as const).flatMap((split) =>
    Array.from({ length: sizes[split] }, (_, id) => ({ concepts: world.captionedImage(split, id).truth.concepts.filter((c) => cocoNames.has(c)) })),
  );
  measures.cocoObjects = objectsPerImage(cocoImages);

  say('leave-one-out CIDEr-D of the references');
  const nocaps = Array.from({ length: sizes['nocaps-val'] }, (_, id) => world.captionedImage('nocaps-val', id));
  measures.humanNocaps = leaveOneOutCider(nocaps);
  const coco = Array.from({ length: sizes['coco-val'] }, (_, id) => world.captionedImage('coco-val', id));
  measures.humanCoco = leaveOneOutCider(coco.map((image) => ({ references: image.references })));

  return {
    preset: recipe.preset,
    seed: recipe.seed,
    pools: { cc3m: { file: inputs.pools.cc3m, pairs: measures.pairs.cc3m }, cc12m: { file: inputs.pools.cc12m, pairs: measures.pairs.cc12m } },
    statistics: judge(measures),
  };
}
