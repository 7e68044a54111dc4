/** `cckit table <paper>/<table>`: any table of either paper from the command line, over one or more seeds. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Command } from 'commander';

import { claimsSummary } from '../experiments/claims';
import { RECIPES, withSetting, type Recipe } from '../experiments/recipe';
import { formatRows } from '../experiments/report';
import { overSeeds } from '../experiments/seeds';
import { TABLES, tableClaims, tableJson, tableNamed } from '../experiments/tables';
import { profileMarkdown, readProfile, summariseProfile } from '../report/profile';
import { denseProductGflops } from '../tf/dense-rate';
import { PROFILE_ENV, profiled, startCoreSampler } from '../util/profile';
import { terminalProgress } from '../util/progress';
import { parseChoice, parseWholeNumber } from './options';

export const PROFILE_HELP =
  "record where the time goes (every stage's wall and CPU time, each training run's rate, cores in use each second) as JSON lines in <file>; print the summary and write it to <file>.md";

export interface TableFlags {
  preset: string;
  seed: string;
  seeds?: string;
  runs: string;
  cache: string;
  set?: string[];
  force: boolean;
  json: boolean;
  profile?: string;
}

export function registerTableCommand(program: Command): void {
  const names = Object.entries(TABLES).map(([name, t]) => `  ${name.padEnd(17)} ${t.title}`);
  program
    .command('table')
    .description("run one table of either paper end to end on the embedded world (or the recipe's real data), over one or more seeds")
    .argument('<name>', 'the table, <paper>/<table> (listed below)')
    .option('-p, --preset <name>', 'tiny (minutes on a CPU) or small', 'tiny')
    .option('-s, --seed <n>', 'world and training seed', '0')
    .option('--seeds <list>', 'several seeds, e.g. 0,1,2 (overrides --seed): the table as mean ± std, claims over them')
    .option('--runs <dir>', 'runs root', 'runs')
    .option('--cache <dir>', 'world data, filtered pools, backbone and features', '.cckit-cache')
    .option('--set <key=value>', 'change one recipe value, e.g. finetune.lr=1e-4 or ablations.maskingRates=[0.1,0.3] (repeatable)', collect)
    .option('--force', 'retrain every run', false)
    .option('--json', "print rows, claims and each seed's result as JSON", false)
    .option('--profile <file>', PROFILE_HELP)
    .addHelpText(
      'after',
      `\nTables:\n${names.join('\n')}\n\nThe recipe's values are src/experiments/recipe.ts's presets; cckit table3 is cckit table cc12m/table3.`,
    )
    .action(runTableCommand);
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The preset's recipe with each `--set key=value` applied (the value read as JSON where it parses, else as text). */
export function recipeFromFlags(preset: string, sets: readonly string[]): Recipe {
  let recipe: Recipe = RECIPES[parseChoice('--preset', preset, Object.keys(RECIPES) as (keyof typeof RECIPES)[])];
  for (const set of sets) {
    const eq = set.indexOf('=');
    if (eq <= 0) throw new Error(`--set ${set}: expected key=value (e.g. finetune.lr=1e-4)`);
    const text = set.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // not JSON: the text itself (a string setting)
    }
    recipe = withSetting(recipe, set.slice(0, eq), value);
  }
  return recipe;
}

/** `--seeds 0,1,2` (whole numbers, no repeats) or the one `--seed`. */
export function seedsFromFlags(flags: Pick<TableFlags, 'seed' | 'seeds'>): number[] {
  if (flags.seeds === undefined) return [parseWholeNumber('--seed', flags.seed)];
  const seeds = flags.seeds.split(',').map((s) => parseWholeNumber('--seeds', s.trim()));
  if (new Set(seeds).size !== seeds.length) throw new Error(`--seeds ${flags.seeds}: a seed is named twice`);
  return seeds;
}

/** Cells as the tables computed them (a count stays a whole number, a score keeps its own rounding). */
const asText = (rows: readonly object[]): Record<string, string>[] =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === undefined || v === null ? '—' : String(v)])));

export async function runTableCommand(name: string, flags: TableFlags): Promise<void> {
  const table = tableNamed(name);
  const recipe = recipeFromFlags(flags.preset, flags.set ?? []);
  const seeds = seedsFromFlags(flags);
  const progress = terminalProgress();
  const say = (line: string) => {
    progress.stop();
    process.stderr.write(line + '\n');
  };
  const started = Date.now();
  const stopProfile = flags.profile ? startProfile(flags.profile) : undefined;
  const options = { runsRoot: flags.runs, cacheDir: flags.cache, force: flags.force, say, progress };
  const perSeed = await overSeeds(seeds, (seed) => table.run({ ...recipe, seed }, options), seeds.length > 1 ? say : undefined);
  progress.stop();
  if (flags.json) {
    console.log(JSON.stringify(tableJson(table, recipe, seeds, perSeed), null, 1));
    stopProfile?.();
    return;
  }
  await profiled('report', table.name, async () => printTable(table, recipe, seeds, perSeed));
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s; runs in ${flags.runs}/ (open them in the VS Code sidebar)`);
  stopProfile?.();
}

/**
 * Starts recording into `file` (emptied first; worker threads started from now on append to it too) and returns
 * the function that stops, prints the summary and writes it to `<file>.md`.
 */
export function startProfile(file: string): () => void {
  const target = path.resolve(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, '');
  process.env[PROFILE_ENV] = target;
  const stopSampler = startCoreSampler();
  return () => {
    stopSampler();
    delete process.env[PROFILE_ENV];
    const summary = summariseProfile(readProfile(target), { cores: os.cpus().length, denseGflops: denseProductGflops() });
    const markdown = profileMarkdown(summary);
    fs.writeFileSync(`${target}.md`, markdown + '\n');
    console.log(`\nprofile (${file}, summary in ${file}.md):\n\n${markdown}`);
  };
}

function printTable(table: ReturnType<typeof tableNamed>, recipe: Recipe, seeds: number[], perSeed: unknown[]): void {
  const over = seeds.length > 1 ? `seeds ${seeds.join(', ')} (mean ± std)` : `seed ${seeds[0]}`;
  console.log(`\n${table.name} — ${table.title}\n${recipe.preset} preset, ${over}`);
  for (const [part, rows] of Object.entries(table.tables(perSeed))) {
    if (!rows || rows.length === 0) continue;
    console.log(`\n${part}:\n${formatRows(asText(rows))}`);
  }
  const { rows: claimRows, claims } = tableClaims(table, perSeed);
  if (claimRows.length > 0) console.log(`\nclaims:\n${formatRows(asText(claimRows))}`);
  if (claims && claims.length > 0)
    console.log(
      claimsSummary(
        claims.map((c) => c.verdict),
        seeds.length,
      ),
    );
}
