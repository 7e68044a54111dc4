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
import { firstControlCharacter, quoteInput } from '../util/untrusted-text';
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

/** A word of the script's command line, quoted for bash: single quotes unless it is made of safe characters only. */
const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * A value on an `#SBATCH` line, quoted for sbatch's own parser (get_argument in Slurm's sbatch/opt.c): it
 * splits the line at blanks and ends it at an unquoted `#`; in double quotes blanks, `'` and `#` are kept,
 * and a backslash keeps the character after it (so `\"` and `\\`). A backslash before a blank outside
 * quotes does not keep the blank: that ends the argument.
 */
export function sbatchValue(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** `--output`'s file name: sbatch reads `%` as the start of a pattern (%A, %a, %j), `%%` as a `%`. */
function sbatchFileName(file: string): string {
  return file.replace(/%/g, '%%');
}

/**
 * Refuses a value that enters a generated script when it holds a control character: on an `#SBATCH` line a
 * newline ends the line and what follows it runs as a command on the compute node. `what` names the value
 * (the option it came from); `where` says why it would matter.
 */
export function refuseControlCharacters(what: string, value: string, where = 'it would end the #SBATCH line'): void {
  const found = firstControlCharacter(value);
  if (!found) return;
  throw new Error(
    `${what} holds a control character (${found.name}) at position ${found.position}: refused, since ${where} (the value: "${quoteInput(value)}")`,
  );
}

/**
 * Every value of the job and the options that a Slurm script carries, checked before anything is written
 * or submitted: the option values, the folders (`--out`, the working folder, the plan) and each argument of
 * the cckit command line.
 */
export function checkSlurmJob(job: ShardedJob, options: SlurmOptions, plan?: string): void {
  for (const [flag, value] of [
    ['--slurm-partition', options.partition],
    ['--slurm-time', options.time],
    ['--slurm-mem', options.memory],
  ] as const)
    if (value !== undefined) {
      if (typeof value !== 'string') throw new Error(`${flag}: not a string`);
      refuseControlCharacters(flag, value);
    }
  if (options.cpusPerTask !== undefined && !(Number.isInteger(options.cpusPerTask) && options.cpusPerTask > 0))
    throw new Error(`--slurm-cpus: ${quoteInput(String(options.cpusPerTask))} is not a whole number of at least 1`);
  if (options.attempts !== undefined && !(Number.isInteger(options.attempts) && options.attempts > 0))
    throw new Error(`--attempts: ${quoteInput(String(options.attempts))} is not a whole number of at least 1`);
  (options.extra ?? []).forEach((line, i) => refuseControlCharacters(`extra #SBATCH line ${i + 1}`, line));
  refuseControlCharacters('--out (the output folder, in #SBATCH --output)', job.out);
  // Slurm reads a backslash in --output as "no % patterns" and drops it: the log would go to another folder
  if (path.resolve(job.out).includes('\\'))
    throw new Error(`--out: "${quoteInput(job.out)}" holds a backslash, which Slurm's #SBATCH --output cannot name: use a folder without one`);
  refuseControlCharacters('the working folder (#SBATCH --chdir)', process.cwd());
  if (plan !== undefined) refuseControlCharacters('--plan (the shard plan)', plan, "the script's command line would carry it");
  if (!Number.isInteger(job.shards) || job.shards < 1) throw new Error(`--shards: ${quoteInput(String(job.shards))} is not a whole number of at least 1`);
  job.argv.forEach((arg, i) =>
    refuseControlCharacters(`argument ${i + 1} of the command line ("${quoteInput(arg, 40)}")`, arg, "the script's command line would carry it"),
  );
  for (const part of cckitCommand()) refuseControlCharacters("cckit's own path", part, "the script's command line would carry it");
}

function header(job: ShardedJob, name: string, options: SlurmOptions, log: string): string[] {
  const lines = ['#!/bin/bash', `#SBATCH --job-name=${name}`, `#SBATCH --output=${sbatchValue(log)}`, `#SBATCH --chdir=${sbatchValue(process.cwd())}`];
  if (options.partition) lines.push(`#SBATCH --partition=${sbatchValue(options.partition)}`);
  if (options.time) lines.push(`#SBATCH --time=${sbatchValue(options.time)}`);
  if (options.cpusPerTask) lines.push(`#SBATCH --cpus-per-task=${options.cpusPerTask}`);
  if (options.memory) lines.push(`#SBATCH --mem=${sbatchValue(options.memory)}`);
  // extra lines are sbatch's own syntax (e.g. --account=abc), as the caller wrote them
  for (const extra of options.extra ?? []) lines.push(`#SBATCH ${extra}`);
  return lines;
}

/** The array script: each task runs one shard, its index from the environment. */
export function arrayScript(job: ShardedJob, options: SlurmOptions, tasks: readonly number[]): string {
  checkSlurmJob(job, options);
  if (tasks.length === 0 || !tasks.every((t) => Number.isInteger(t) && t >= 0))
    throw new Error(`slurm engine: the array's task indices ${tasks.join(',')} are not whole numbers`);
  const logs = sbatchFileName(path.join(scaleFolder(path.resolve(job.out)), 'logs'));
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
  checkSlurmJob(job, options, plan);
  const logs = sbatchFileName(path.join(scaleFolder(path.resolve(job.out)), 'logs'));
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
  checkSlurmJob(job, options);
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
  // before anything is written: a value that would end an #SBATCH line is refused here, not on the cluster
  checkSlurmJob(job, options);
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
