/**
 * A sharded job: one cckit command line run as N shards (`--shard i/N`, src/util/shard.ts), then once more
 * with `--merge-shards N`. Every engine (local process pool, Slurm array, BullMQ queue) runs exactly these
 * command lines; the stage's done-markers say what finished, so any engine can resume another's work.
 */
import * as fs from 'fs';
import * as path from 'path';
import { PACKAGE_ROOT } from '../paths';
import { writeFileAtomic } from '../util/atomic';
import { missingShards } from '../util/shard';

export const ENGINES = ['local', 'slurm', 'bullmq'] as const;
export type EngineName = (typeof ENGINES)[number];

export interface ShardedJob {
  /** The cckit arguments (after `cckit`), without engine flags, --shard or --merge-shards. */
  argv: string[];
  shards: number;
  /** The stage's output folder: its .shards/ holds the done-markers, the plan and the logs. */
  out: string;
}

/** How to start cckit in another process: this Node and the package's launcher. */
export function cckitCommand(): string[] {
  return [process.execPath, path.join(PACKAGE_ROOT, 'bin', 'cckit.js')];
}

export function shardArgv(job: ShardedJob, index: number | 'env'): string[] {
  return [...job.argv, '--shard', index === 'env' ? String(job.shards) : `${index}/${job.shards}`];
}

export function mergeArgv(job: ShardedJob): string[] {
  return [...job.argv, '--merge-shards', String(job.shards)];
}

export function scaleFolder(out: string): string {
  return path.join(out, '.shards');
}

/** The job as JSON in OUT/.shards/plan.json, so a worker or a Slurm step can pick it up. */
export function writePlan(job: ShardedJob): string {
  const file = path.join(scaleFolder(job.out), 'plan.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify({ ...job, out: path.resolve(job.out) }, null, 2) + '\n');
  return file;
}

export function readPlan(file: string): ShardedJob {
  const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as ShardedJob;
  if (!Array.isArray(plan.argv) || !Number.isInteger(plan.shards) || typeof plan.out !== 'string') throw new Error(`${file}: not a cckit shard plan`);
  return plan;
}

/** The merge's own marker: OUT/.shards/merged.json, written after the merge command succeeded. */
export function mergedMarker(out: string): string {
  return path.join(scaleFolder(out), 'merged.json');
}

export function pendingShards(job: ShardedJob): number[] {
  return missingShards(job.out, job.shards);
}

/**
 * Splits a command line into the engine's flags and the stage's: the engine flags named in `engineFlags`
 * (with their value when `takesValue`) are removed, so that what remains is the stage's own command.
 */
export function stripFlags(argv: readonly string[], engineFlags: Readonly<Record<string, boolean>>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name in engineFlags) {
      if (engineFlags[name] && eq < 0) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}
