/**
 * The shard contract every heavy stage shares (docs/scale.md): `--shard i/N` selects shard i of N, a
 * deterministic slice of the stage's work units (a download shard, a filter part, a feature part);
 * unit u belongs to shard u mod N, so the slices are disjoint, cover everything, and do not depend on
 * how many units there are. `--shard N` (no index) takes the index from the engine's environment:
 * Slurm's SLURM_ARRAY_TASK_ID, Kubernetes' JOB_COMPLETION_INDEX, or CCKIT_SHARD_INDEX.
 */
import * as fs from 'fs';
import * as path from 'path';

export interface ShardSpec {
  index: number;
  count: number;
}

/** The environment variables that carry an engine's task index, in the order they are read. */
export const SHARD_INDEX_VARIABLES = ['CCKIT_SHARD_INDEX', 'SLURM_ARRAY_TASK_ID', 'JOB_COMPLETION_INDEX'] as const;

const WHOLE = /^\d+$/;

/** Parses `i/N` or `N` (index from the environment); names the flag and the value when it is wrong. */
export function parseShard(value: string, env: NodeJS.ProcessEnv = process.env, flag = '--shard'): ShardSpec {
  const parts = value.trim().split('/');
  if (parts.length > 2 || !parts.every((p) => WHOLE.test(p))) throw new Error(`${flag}: expected i/N or N (index from the environment), got "${value}"`);
  const count = Number(parts[parts.length - 1]);
  if (count < 1) throw new Error(`${flag}: the shard count must be ≥ 1, got "${value}"`);
  let index: number;
  if (parts.length === 2) index = Number(parts[0]);
  else {
    const variable = SHARD_INDEX_VARIABLES.find((name) => env[name] !== undefined && env[name] !== '');
    if (!variable) throw new Error(`${flag} ${value}: no shard index in the environment (${SHARD_INDEX_VARIABLES.join(', ')}); give i/N`);
    if (!WHOLE.test(env[variable]!)) throw new Error(`${flag} ${value}: ${variable}="${env[variable]}" is not a whole number`);
    index = Number(env[variable]);
  }
  if (index >= count) throw new Error(`${flag}: index ${index} is not below the shard count ${count}`);
  return { index, count };
}

/** Whether work unit `unit` belongs to `shard` (every unit when no shard is given). */
export function ownsUnit(shard: ShardSpec | undefined, unit: number): boolean {
  return shard === undefined || unit % shard.count === shard.index;
}

/** `i/N`, as flags and file names spell it. */
export function shardLabel(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The contiguous slice [start, end) of `total` ordered items that shard i of N takes: for stages whose
 * output keeps the input's order (the filter's kept.tsv), so that concatenating the shards in index
 * order gives the one-process output.
 */
export function sliceRange(shard: ShardSpec, total: number): { start: number; end: number } {
  return { start: Math.floor((shard.index * total) / shard.count), end: Math.floor(((shard.index + 1) * total) / shard.count) };
}

/** The folder a sharded stage writes shard i of N to, inside its output folder. */
export function shardFolder(out: string, shard: ShardSpec): string {
  return path.join(out, '.shards', `${shard.index}-of-${shard.count}`);
}

/** The shards of N whose done-marker (shardFolder/summary.json, written last by the stage) is missing. */
export function missingShards(out: string, count: number): number[] {
  const missing: number[] = [];
  for (let index = 0; index < count; index++) if (!fs.existsSync(path.join(shardFolder(out, { index, count }), 'summary.json'))) missing.push(index);
  return missing;
}
