/**
 * One setup call for every notebook: the preset's recipe (with the one switch to real data and any ablation
 * overrides), the seeds, the repository's `runs/` and `.cckit-cache/` (shared with `npm start` and the CLI, so
 * finished runs are found and reused), the backend, and the experiment options. A cell then reads
 *
 *   const nb = await cckit.notebook.setup({ preset: 'tiny', real: null, seeds: [0, 1, 2] });
 *   const results = await nb.overSeeds((recipe) => cckit.cc12m.table3.run(recipe, nb.options()));
 *
 * Status lines ("captioning nocaps-val.step-0000025 …") update one output in place while a cell runs and are
 * appended to `runs/status.log`; what stays in a finished cell is what the cell prints itself.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { RECIPES, recipeAtStepScale, type Inputs, type Recipe } from '../experiments/recipe';
import type { ExperimentOptions } from '../experiments/options';
import type { ResultRow } from '../experiments/runner';
import { readRunInfo } from '../runs/layout';
import { overSeeds } from '../experiments/seeds';
import type { FeatureSpec } from '../experiments/visual';
import { PACKAGE_ROOT } from '../paths';
import { initBackend, type BackendInfo } from '../tf/backend';
import { displayTarget, newDisplayId, publish } from './display';
import { notebookProgress, type Curve } from './runs';

export type PresetName = keyof typeof RECIPES;

/** Sections of the recipe to replace: a plain object merges one level deep into the preset's section. */
export type RecipeOverrides = { [K in keyof Recipe]?: Recipe[K] extends object ? Partial<Recipe[K]> : Recipe[K] };

export interface SetupOptions {
  /** The recipe's size (default `tiny`); `CCKIT_NOTEBOOK_PRESET=tiny` overrides it (the test suite runs every notebook at tiny). */
  preset?: PresetName;
  /** The one switch to real data: the files of `Recipe.data` (null or absent: the embedded world). */
  real?: Inputs | null;
  /** Seeds to run (default `[0]`); `CCKIT_NOTEBOOK_SEEDS=0,1` overrides them (the test suite keeps one). */
  seeds?: number[];
  /**
   * Every training stage's length × this (default 1: the preset's); `CCKIT_NOTEBOOK_STEP_SCALE=0.25` sets it (the
   * test suite's check that every notebook runs and shows what it is for, in a fraction of the time; never a result).
   */
  stepScale?: number;
  /** Ablation values on the preset's recipe, e.g. `{ finetune: { lr: 1e-4 } }`. */
  overrides?: RecipeOverrides;
  /** Repository root holding `runs/` and `.cckit-cache/` (default: this package's). */
  root?: string;
  /** Print the preset and backend lines (default true). */
  quiet?: boolean;
}

export interface NotebookSetup {
  preset: PresetName;
  /** The recipe every cell uses (seed 0's; `recipeFor(seed)` for another). */
  recipe: Recipe;
  seeds: number[];
  real: boolean;
  root: string;
  runsRoot: string;
  cacheDir: string;
  /** The recipe's features with the cache folder (MobileNetV2 on real images). */
  features: FeatureSpec;
  backend: BackendInfo;
  recipeFor(seed: number): Recipe;
  /** Experiment options: runs and cache folders, features, the in-place status line, one progress bar per task. */
  options(extra?: Partial<ExperimentOptions>): ExperimentOptions;
  /** `runs/<id>`. */
  runDir(id: string): string;
  /**
   * One experiment per seed, in order (each seed's finished runs are reused); for results with result rows
   * (Tables 3, 11, 12, Fig. 6, …) one line per row and seed is printed: its runs, trained now or reused, the
   * chosen fine-tuning step.
   */
  overSeeds<R>(run: (recipe: Recipe, seed: number) => Promise<R>): Promise<R[]>;
  /**
   * One line per result row: its runs, each trained now (since the last `overSeeds` began, or since setup) or
   * reused, and the checkpoint chosen on val; `describeRun` for one run.
   */
  runLines(rows: readonly RunRow[], prefix?: string): string[];
  describeRun(id: string): string;
  /** Training curves of result rows (pre-training then fine-tuning; a row without pre-training starts at its length). */
  curves(rows: readonly RunRow[]): Curve[];
  /** The status sink of `options()`: one line updated in place, every line appended to `runs/status.log`. */
  say(line: string): void;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The preset's recipe with `overrides` merged one level deep (a section's fields replace the preset's). */
export function recipeWithOverrides(base: Recipe, overrides: RecipeOverrides = {}): Recipe {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? { ...current, ...value } : value;
  }
  return out as unknown as Recipe;
}

/** Seeds from `CCKIT_NOTEBOOK_SEEDS` ("0,1,2"), else the notebook's own. */
export function notebookSeeds(fallback: number[], env: string | undefined = process.env.CCKIT_NOTEBOOK_SEEDS): number[] {
  if (!env) return fallback;
  const seeds = env.split(',').map((s) => Number(s.trim()));
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error(`CCKIT_NOTEBOOK_SEEDS: expected comma-separated seeds, got "${env}"`);
  return seeds;
}

/** The step scale from `CCKIT_NOTEBOOK_STEP_SCALE` ("0.25"), else the notebook's own (1: the preset's steps). */
export function notebookStepScale(fallback: number, env: string | undefined = process.env.CCKIT_NOTEBOOK_STEP_SCALE): number {
  if (!env) return fallback;
  const scale = Number(env);
  if (!(scale > 0 && scale <= 1)) throw new Error(`CCKIT_NOTEBOOK_STEP_SCALE: expected a number in (0, 1], got "${env}"`);
  return scale;
}

/** The preset from `CCKIT_NOTEBOOK_PRESET` ("tiny"), else the notebook's own. */
export function notebookPreset(fallback: PresetName, env: string | undefined = process.env.CCKIT_NOTEBOOK_PRESET): PresetName {
  const preset = env || fallback;
  if (!Object.hasOwn(RECIPES, preset)) {
    const from = env ? `CCKIT_NOTEBOOK_PRESET="${env}"` : `preset "${preset}"`;
    throw new Error(`notebook setup: unknown ${from} (choose ${Object.keys(RECIPES).join(', ')})`);
  }
  return preset as PresetName;
}

/**
 * A status sink: in a notebook one text output that each line replaces (the cell ends with the last one), as a
 * plain line elsewhere; every line is appended, with its time, to `logFile` when given.
 */
export function statusLine(logFile?: string): (line: string) => void {
  const inNotebook = displayTarget() !== 'text';
  let displayId: string | undefined;
  return (line) => {
    if (logFile) {
      fs.mkdirSync(path.dirname(logFile), { recursive: true });
      fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
    }
    if (!inNotebook) {
      process.stdout.write(line + '\n');
      return;
    }
    const first = displayId === undefined;
    displayId ??= newDisplayId();
    publish({ 'text/plain': line }, { displayId, update: !first });
  };
}

/** "pretrain-cc12m-1a2b3c (1500 steps, trained in 312 s)" or "(…, reused)": trained if it finished after `since`. */
export function describeRun(runDir: string, since: Date): string {
  const id = path.basename(runDir);
  let info: ReturnType<typeof readRunInfo>;
  try {
    info = readRunInfo(runDir);
  } catch {
    return `${id} (no run.json)`;
  }
  const steps = (info.config as { steps?: unknown } | undefined)?.steps;
  const created = Date.parse(info.created);
  const updated = Date.parse(info.updated);
  const how = updated >= since.getTime() ? `trained in ${Math.round((updated - created) / 1000)} s` : 'reused';
  return `${id} (${typeof steps === 'number' ? `${steps} steps, ` : ''}${info.status === 'done' ? how : info.status})`;
}

/** A result row (Tables 3, 11, 12, Fig. 6): its label (Table 3: its pre-training data), runs and choice. */
export type RunRow = Pick<ResultRow, 'pretrainRun' | 'finetuneRun' | 'selection'> & { label?: string; pretraining?: string };

/** One line per result row: its pre-training and fine-tuning runs and the checkpoint chosen on val. */
export function resultRowLines(rows: readonly RunRow[], runsRoot: string, since: Date, prefix = ''): string[] {
  return rows.map((r) => {
    const runs = [r.pretrainRun, r.finetuneRun].filter((x): x is string => !!x).map((id) => describeRun(path.join(runsRoot, id), since));
    const rate = r.selection?.rates ? ` at learning rate ${r.selection.lr} (of ${r.selection.rates.map((x) => x.lr).join(', ')})` : '';
    return `${prefix}${r.label ?? r.pretraining}: ${runs.join(' → ')}${r.selection ? `; step ${r.selection.step}${rate} chosen on val` : ''}`;
  });
}

/** Row lines a finished `overSeeds` cell keeps; more rows over all seeds are summarised one line a seed. */
export const MAX_ROW_LINES = 12;

/** One seed's rows in one line: how many runs were trained now or reused, and each row's step chosen on val. */
export function seedSummaryLine(seed: number, rows: readonly RunRow[], runsRoot: string, since: Date): string {
  const runs = rows.flatMap((r) => [r.pretrainRun, r.finetuneRun].filter((x): x is string => !!x));
  const trained = runs.filter((id) => /trained in/.test(describeRun(path.join(runsRoot, id), since))).length;
  const steps = rows.map((r) => `${r.label ?? r.pretraining} ${r.selection ? r.selection.step : '—'}`).join(', ');
  return `seed ${seed}: ${rows.length} rows, ${trained} of ${runs.length} runs trained now (the rest reused); steps chosen on val: ${steps} (every run: runs/status.log)`;
}

const resultRowsOf = (result: unknown): RunRow[] | undefined => {
  const rows = (result as { rows?: unknown } | null)?.rows;
  return Array.isArray(rows) && rows.every((r) => typeof (r as RunRow | null)?.finetuneRun === 'string') ? (rows as RunRow[]) : undefined;
};

export async function setup(options: SetupOptions = {}): Promise<NotebookSetup> {
  const preset = notebookPreset(options.preset ?? 'tiny');
  const real = options.real ?? null;
  const stepScale = notebookStepScale(options.stepScale ?? 1);
  const recipe = recipeAtStepScale(recipeWithOverrides({ ...RECIPES[preset], ...(real ? { data: real } : {}) }, options.overrides), stepScale);
  const seeds = notebookSeeds(options.seeds ?? [0]);
  const root = options.root ?? PACKAGE_ROOT;
  const runsRoot = path.join(root, 'runs');
  const cacheDir = path.join(root, '.cckit-cache');
  const features: FeatureSpec = { ...recipe.features, ...(real ? { backbone: 'mobilenet' as const } : {}), cacheDir };
  const backend = await initBackend({ logger: () => {} });
  const say = statusLine(path.join(runsRoot, 'status.log'));
  if (!options.quiet) {
    console.log(`preset: ${preset} (${real ? 'real data' : `embedded world, seed${seeds.length > 1 ? 's' : ''} ${seeds.join(', ')}`})`);
    console.log(`backend: tfjs ${backend.name} ${backend.version}, ${backend.threads} thread(s); Node ${process.version}, ${os.cpus().length} CPU(s)`);
    if (stepScale !== 1)
      console.log(`steps: × ${stepScale} of the preset's in every training stage (a check that the notebook runs; its numbers are not results)`);
  }
  const recipeFor = (seed: number): Recipe => ({ ...recipe, seed });
  let since = new Date();
  return {
    preset,
    recipe,
    seeds,
    real: real !== null,
    root,
    runsRoot,
    cacheDir,
    features,
    backend,
    recipeFor,
    options: (extra = {}) => ({ runsRoot, cacheDir, features, say, progress: notebookProgress(), ...extra }),
    runDir: (id) => path.join(runsRoot, id),
    curves: (rows) =>
      rows.map((r) => ({
        label: r.label ?? r.pretraining ?? r.finetuneRun,
        runs: [r.pretrainRun, r.finetuneRun].filter((x): x is string => !!x).map((id) => path.join(runsRoot, id)),
        startStep: r.pretrainRun ? 0 : recipe.pretrain.steps,
      })),
    runLines: (rows, prefix = '') => resultRowLines(rows, runsRoot, since, prefix),
    describeRun: (id) => describeRun(path.join(runsRoot, id), since),
    overSeeds: async (run) => {
      since = new Date();
      const results = await overSeeds(seeds, (seed: number) => run(recipeFor(seed), seed), say);
      const perSeed = results.map((result, i) => ({ seed: seeds[i]!, rows: resultRowsOf(result) }));
      const rowCount = perSeed.reduce((n, r) => n + (r.rows?.length ?? 0), 0);
      for (const { seed, rows } of perSeed) {
        if (!rows) continue;
        const lines = resultRowLines(rows, runsRoot, since, `seed ${seed} · `);
        // every row's line goes to runs/status.log; the cell keeps them while they are few, else one line a seed
        for (const line of lines) say(line);
        if (rowCount <= MAX_ROW_LINES) for (const line of lines) console.log(line);
        else console.log(seedSummaryLine(seed, rows, runsRoot, since));
      }
      return results;
    },
    say,
  };
}
