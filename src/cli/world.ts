import { buildWorld } from '../data/build-world';
import { HOSTILE_ROUTES, serveWorld } from '../world/server';
import { WORLD_PRESETS, WORLD_SPLITS, WorldPresetName, WorldSplit } from '../world/splits';
import { World } from '../world/world';
import { terminalProgress } from '../util/progress';
import { formatTable } from '../report/table';
import { RECIPES } from '../experiments/recipe';
import { worldCheck } from '../experiments/world-check';
import { formatWorldCheck } from '../experiments/world-verdicts';
import { parseChoice, parsePositiveNumber, parseWholeNumber } from './options';

export interface WorldBuildFlags {
  preset: string;
  seed: string;
  out: string;
  render: boolean;
  size?: string[];
  zipf?: string;
}

/** `--size web=20000` (repeatable) overrides one split's size. */
function parseSizes(values: readonly string[] = []): Partial<Record<WorldSplit, number>> | undefined {
  if (values.length === 0) return undefined;
  const sizes: Partial<Record<WorldSplit, number>> = {};
  for (const value of values) {
    const [split, count] = value.split('=');
    if (!(WORLD_SPLITS as readonly string[]).includes(split) || count === undefined) {
      throw new Error(`--size: "${value}" should be SPLIT=COUNT with SPLIT one of ${WORLD_SPLITS.join(', ')}`);
    }
    sizes[split as WorldSplit] = parseWholeNumber('--size', count);
  }
  return sizes;
}

export async function runWorldBuild(flags: WorldBuildFlags): Promise<void> {
  parseChoice('--preset', flags.preset, Object.keys(WORLD_PRESETS));
  const zipfExponent = flags.zipf === undefined ? undefined : parsePositiveNumber('--zipf', flags.zipf);
  const started = Date.now();
  const progress = terminalProgress();
  try {
    const manifest = await buildWorld({
      seed: parseWholeNumber('--seed', flags.seed),
      preset: flags.preset as WorldPresetName,
      out: flags.out,
      render: flags.render,
      sizes: parseSizes(flags.size),
      zipfExponent,
      progress,
    });
    progress.stop();
    console.log(
      formatTable(
        ['split', 'images'],
        WORLD_SPLITS.map((s) => [s, String(manifest.sizes[s])]),
      ),
    );
    console.log(`\nworld seed ${manifest.seed} (${manifest.preset}) written to ${flags.out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    progress.stop();
  }
}

export async function runWorldServe(flags: { seed: string; port: string; hostile: boolean }): Promise<void> {
  const world = new World({ seed: parseWholeNumber('--seed', flags.seed) });
  const server = await serveWorld(world, { port: parseWholeNumber('--port', flags.port), hostile: flags.hostile });
  console.log(`serving world seed ${world.seed} at ${server.url}/${world.seed}/web/0.jpg … (Ctrl-C stops)`);
  if (flags.hostile) for (const [kind, what] of Object.entries(HOSTILE_ROUTES)) console.log(`  ${server.url}/hostile/${kind}/N.jpg  ${what}`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await server.close();
}

export interface WorldCheckFlags {
  preset: string;
  seed: string;
  cache: string;
  k: string;
  json: boolean;
}

/** `cckit world check`: the world's statistics against the papers' (src/world/calibration.ts). */
export async function runWorldCheck(flags: WorldCheckFlags): Promise<void> {
  const preset = parseChoice('--preset', flags.preset, Object.keys(RECIPES) as (keyof typeof RECIPES)[]);
  const seed = parseWholeNumber('--seed', flags.seed);
  const ks = flags.k.split(',').map((k) => parseWholeNumber('--k', k, 1));
  const progress = terminalProgress();
  try {
    const result = await worldCheck({
      preset,
      seed,
      cacheDir: flags.cache,
      ks,
      say: (line) => {
        progress.stop();
        process.stderr.write(`${line}\n`);
      },
      progress,
    });
    progress.stop();
    if (flags.json) process.stdout.write(JSON.stringify(result) + '\n');
    else console.log(formatWorldCheck(result));
  } finally {
    progress.stop();
  }
}
