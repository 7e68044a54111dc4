/**
 * The Slurm engine: the shards as one `sbatch --array=0-(N-1)` job whose tasks run `cckit … --shard N`
 * (each task's index from SLURM_ARRAY_TASK_ID), and a finishing job that depends on the array
 * (`--dependency=afterany`): it checks the done-markers, resubmits the shards without one (a new array
 * and a new finishing job, up to `attempts` rounds), and runs the merge when all are done. So the work
 * completes with no cckit process waiting on a login node; `--wait` only watches for the merge's marker.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { writeFileAtomic } from '../util/atomic';
import { ShardedJob, cckitCommand, mergeArgv, mergedMarker, pendingShards, readPlan, scaleFolder, shardArgv, writePlan } from './job';
import { runCckit } from './local';

export interface SlurmOptions {
  partition?: string;
  /** Per task, as sbatch --time (e.g. 01:00:00). */
  time?: string;
  cpusPerTask?: number;
  /** Per task, as sbatch --mem (e.g. 4G). */
  memory?: string;
  /** Rounds of shard submissions before the job is given up (default 3). */
  attempts?: number;
  /** Extra `#SBATCH` lines, e.g. ["--account=abc"]. */
  extra?: string[];
  /** The environment sbatch runs with (SLURM_CONF for a test cluster). */
  env?: NodeJS.ProcessEnv;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

function header(job: ShardedJob, name: string, options: SlurmOptions, log: string): string[] {
  const lines = ['#!/bin/bash', `#SBATCH --job-name=${name}`, `#SBATCH --output=${log}`, `#SBATCH --chdir=${process.cwd()}`];
  if (options.partition) lines.push(`#SBATCH --partition=${options.partition}`);
  if (options.time) lines.push(`#SBATCH --time=${options.time}`);
  if (options.cpusPerTask) lines.push(`#SBATCH --cpus-per-task=${options.cpusPerTask}`);
  if (options.memory) lines.push(`#SBATCH --mem=${options.memory}`);
  for (const extra of options.extra ?? []) lines.push(`#SBATCH ${extra}`);
  return lines;
}

/** The array script: each task runs one shard, its index from the environment. */
export function arrayScript(job: ShardedJob, options: SlurmOptions, tasks: readonly number[]): string {
  const logs = path.join(scaleFolder(path.resolve(job.out)), 'logs');
  return (
    [
      ...header(job, 'cckit-shards', options, path.join(logs, 'slurm-%A_%a.log')),
      `#SBATCH --array=${tasks.join(',')}`,
      'set -euo pipefail',
      [...cckitCommand(), ...shardArgv(job, 'env')].map(quote).join(' '),
    ].join('\n') + '\n'
  );
}

/** The finishing script: `cckit scale finish` decides between resubmitting and merging. */
export function finishScript(job: ShardedJob, options: SlurmOptions, plan: string, round: number): string {
  const logs = path.join(scaleFolder(path.resolve(job.out)), 'logs');
  const args = ['scale', 'finish', '--plan', plan, '--round', String(round), '--attempts', String(options.attempts ?? 3)];
  for (const [flag, value] of [
    ['--slurm-partition', options.partition],
    ['--slurm-time', options.time],
    ['--slurm-cpus', options.cpusPerTask === undefined ? undefined : String(options.cpusPerTask)],
    ['--slurm-mem', options.memory],
  ] as const)
    if (value !== undefined) args.push(flag, value);
  return (
    [
      ...header(job, 'cckit-finish', options, path.join(logs, `slurm-finish-${round}.log`)),
      'set -euo pipefail',
      [...cckitCommand(), ...args].map(quote).join(' '),
    ].join('\n') + '\n'
  );
}

function sbatch(script: string, file: string, args: string[], env: NodeJS.ProcessEnv | undefined): string {
  writeFileAtomic(file, script);
  const output = execFileSync('sbatch', ['--parsable', ...args, file], { env: env ?? process.env, encoding: 'utf8' });
  return output.trim().split(';')[0];
}

/** Submits round `round`: the array over `tasks` and the finishing job after it; returns both job ids. */
export function submitRound(job: ShardedJob, options: SlurmOptions, tasks: readonly number[], round: number): { array: string; finish: string } {
  const plan = writePlan(job);
  const folder = scaleFolder(path.resolve(job.out));
  fs.mkdirSync(path.join(folder, 'logs'), { recursive: true });
  const array = sbatch(arrayScript(job, options, tasks), path.join(folder, `slurm-array-${round}.sh`), [], options.env);
  const finish = sbatch(
    finishScript(job, options, plan, round),
    path.join(folder, `slurm-finish-${round}.sh`),
    [`--dependency=afterany:${array}`],
    options.env,
  );
  return { array, finish };
}

export function failedMarker(out: string): string {
  return path.join(scaleFolder(out), 'failed.json');
}

/** What `--engine slurm` does: submit, and with `wait` watch for the merge's (or the failure's) marker. */
export async function runSlurm(job: ShardedJob, options: SlurmOptions & { wait?: boolean; pollMs?: number } = {}): Promise<{ array: string; finish: string }> {
  for (const marker of [mergedMarker(job.out), failedMarker(job.out)]) fs.rmSync(marker, { force: true });
  const pending = pendingShards(job);
  const ids = submitRound(job, options, pending.length > 0 ? pending : [0], 1);
  if (!options.wait) return ids;
  for (;;) {
    if (fs.existsSync(mergedMarker(job.out))) return ids;
    if (fs.existsSync(failedMarker(job.out))) throw new Error(`slurm engine: ${fs.readFileSync(failedMarker(job.out), 'utf8').trim()}`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
  }
}

/** `cckit scale finish` (the finishing job): resubmit what is missing, or merge. */
export async function finishRound(planFile: string, round: number, options: SlurmOptions): Promise<'merged' | 'resubmitted' | 'failed'> {
  const job = readPlan(planFile);
  const pending = pendingShards(job);
  const attempts = options.attempts ?? 3;
  if (pending.length > 0) {
    if (round < attempts) {
      const ids = submitRound(job, options, pending, round + 1);
      console.log(`round ${round}: ${pending.length} shard(s) without a done-marker (${pending.join(',')}): resubmitted as job ${ids.array}`);
      return 'resubmitted';
    }
    writeFileAtomic(failedMarker(job.out), JSON.stringify({ reason: `shards ${pending.join(',')} not done after ${round} round(s)` }) + '\n');
    return 'failed';
  }
  const code = await runCckit(mergeArgv(job), path.join(scaleFolder(job.out), 'logs', 'merge.log'));
  if (code !== 0) {
    writeFileAtomic(
      failedMarker(job.out),
      JSON.stringify({ reason: `the merge exited ${code} (log: ${path.join(scaleFolder(job.out), 'logs', 'merge.log')})` }) + '\n',
    );
    return 'failed';
  }
  writeFileAtomic(mergedMarker(job.out), JSON.stringify({ engine: 'slurm', shards: job.shards, rounds: round, at: new Date().toISOString() }) + '\n');
  return 'merged';
}
