/**
 * The shard and engine flags every heavy stage shares (docs/scale.md), `cckit worker` (BullMQ) and
 * `cckit scale finish` (Slurm's finishing job).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Command } from 'commander';
import {
  ENGINES,
  EngineName,
  ShardedJob,
  JobRefused,
  arrayScript,
  checkWorkerJob,
  enqueue,
  finishRound,
  finishScript,
  redactRedisUrl,
  runCckit,
  runLocal,
  runSlurm,
  startWorkers,
  stripFlags,
  waitForFlow,
} from '../scale';
import type { SlurmOptions } from '../scale/slurm';
import { parseShard, type ShardSpec } from '../util/shard';
import { quoteInput } from '../util/untrusted-text';
import { parseChoice, parseWholeNumber } from './options';

export interface ShardFlags {
  shard?: string;
  mergeShards?: string;
  engine?: string;
  shards?: string;
  engineProcesses: string;
  slurmPartition?: string;
  slurmTime?: string;
  slurmCpus?: string;
  slurmMem?: string;
  redis?: string;
  queuePrefix?: string;
  dryRun?: boolean;
  wait: boolean;
}

/** The engine flags with whether each takes a value: removed from the command line each shard runs. */
const ENGINE_FLAGS: Record<string, boolean> = {
  '--engine': true,
  '--shards': true,
  '--engine-processes': true,
  '--slurm-partition': true,
  '--slurm-time': true,
  '--slurm-cpus': true,
  '--slurm-mem': true,
  '--redis': true,
  '--queue-prefix': true,
  '--dry-run': false,
  '--no-wait': false,
};

export function addShardOptions(command: Command): Command {
  return command
    .option('--shard <i/N>', 'run only shard i of N (N alone: the index from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or CCKIT_SHARD_INDEX)')
    .option('--merge-shards <N>', 'combine N done shards of this output folder (the step after the shards)')
    .option('--engine <name>', `run as --shards N shards on an engine: ${ENGINES.join(', ')} (docs/scale.md)`)
    .option('--shards <N>', 'shards for --engine', '4')
    .option('--engine-processes <n>', 'local engine: shards at once', '2')
    .option('--slurm-partition <name>', 'slurm engine: sbatch --partition')
    .option('--slurm-time <limit>', 'slurm engine: sbatch --time per task (e.g. 02:00:00)')
    .option('--slurm-cpus <n>', 'slurm engine: sbatch --cpus-per-task')
    .option('--slurm-mem <size>', 'slurm engine: sbatch --mem per task (e.g. 8G)')
    .option('--redis <url>', 'bullmq engine: redis://[user:password@]host:port, rediss://… (TLS), unix:///path/redis.sock')
    .option('--queue-prefix <prefix>', 'bullmq engine: key prefix of the queues', 'cckit')
    .option('--dry-run', 'slurm engine: print the sbatch scripts, submit nothing', false)
    .option('--no-wait', 'slurm / bullmq engines: submit and return (the merge runs when the shards are done)');
}

/** The --shard / --merge-shards of a stage, validated. */
export function shardOptions(flags: ShardFlags): { shard?: ShardSpec; mergeShards?: number } {
  if (flags.shard !== undefined && flags.mergeShards !== undefined) throw new Error('--shard and --merge-shards: give one');
  return {
    ...(flags.shard !== undefined ? { shard: parseShard(flags.shard) } : {}),
    ...(flags.mergeShards !== undefined ? { mergeShards: parseWholeNumber('--merge-shards', flags.mergeShards, 1) } : {}),
  };
}

function slurmOptions(flags: { slurmPartition?: string; slurmTime?: string; slurmCpus?: string; slurmMem?: string }): SlurmOptions {
  return {
    ...(flags.slurmPartition ? { partition: flags.slurmPartition } : {}),
    ...(flags.slurmTime ? { time: flags.slurmTime } : {}),
    ...(flags.slurmCpus ? { cpusPerTask: parseWholeNumber('--slurm-cpus', flags.slurmCpus, 1) } : {}),
    ...(flags.slurmMem ? { memory: flags.slurmMem } : {}),
  };
}

/**
 * With --engine, runs the stage's command line (this command's, minus the engine flags) as shards on the
 * engine and returns true; without, returns false and the stage runs here.
 */
export async function runOnEngine(flags: ShardFlags & { out: string; in?: string; ckpt?: string }, command: Command): Promise<boolean> {
  if (flags.engine === undefined) return false;
  const engine = parseChoice('--engine', flags.engine, ENGINES) as EngineName;
  if (flags.shard !== undefined || flags.mergeShards !== undefined) throw new Error('--engine runs the shards itself: drop --shard / --merge-shards');
  // a dry run launches nothing: its scripts may be written before the data exists
  if (!flags.dryRun) checkEngineInputs({ '--in': flags.in, '--ckpt': flags.ckpt });
  // commander keeps the command line it parsed on the root program (untyped)
  let root: Command = command;
  while (root.parent) root = root.parent;
  const raw = ((root as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv).slice(2);
  const job: ShardedJob = { argv: stripFlags(raw, ENGINE_FLAGS), shards: parseWholeNumber('--shards', flags.shards ?? '4', 1), out: flags.out };
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (engine === 'local') {
    const result = await runLocal(job, {
      processes: parseWholeNumber('--engine-processes', flags.engineProcesses, 1),
      onShard: (index, status, attempt) => say(`shard ${index}/${job.shards}: ${status}${attempt > 1 ? ` (attempt ${attempt})` : ''}`),
    });
    say(`local engine: ${result.shards} shards (${result.alreadyDone} already done, ${result.runs} runs) and the merge in ${result.seconds.toFixed(1)} s`);
  } else if (engine === 'slurm') {
    const options = slurmOptions(flags);
    if (flags.dryRun) {
      console.log(
        arrayScript(
          job,
          options,
          Array.from({ length: job.shards }, (_, i) => i),
        ),
      );
      console.log(finishScript(job, options, '<OUT>/.shards/plan.json', 1));
      return true;
    }
    const ids = await runSlurm(job, { ...options, wait: flags.wait });
    say(
      `slurm engine: array job ${ids.array}, finishing job ${ids.finish}${flags.wait ? ': merged' : ' (submitted; the merge marker is OUT/.shards/merged.json)'}`,
    );
  } else {
    if (!flags.redis) throw new Error('--engine bullmq needs --redis URL');
    const target = { redis: flags.redis, prefix: flags.queuePrefix };
    const id = await enqueue(job, target);
    const shown = redactRedisUrl(flags.redis);
    say(`bullmq engine: ${job.shards} shard jobs and the merge (job ${id}) on ${shown}; workers: cckit worker --redis ${shown} --root FOLDER`);
    if (flags.wait) {
      let last = -1;
      await waitForFlow(id, {
        ...target,
        onProgress: (done, total) => {
          if (done !== last) say(`bullmq engine: ${done}/${total} shards done`);
          last = done;
        },
      });
      say('bullmq engine: merged');
    }
  }
  return true;
}

/**
 * An engine starts nothing on an input that is not there: the error a run without an engine gives at once, before
 * any process, job, script or shard folder exists (a world split, `world:PRESET:SPLIT`, is built, not read).
 */
function checkEngineInputs(inputs: Record<string, string | undefined>): void {
  for (const [flag, input] of Object.entries(inputs)) {
    if (input === undefined || input.startsWith('world:')) continue;
    try {
      fs.accessSync(input, fs.constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`${flag} ${quoteInput(input)}: ${code === 'ENOENT' ? 'no such file or folder' : `cannot be read (${code})`}; nothing was launched`);
    }
    if (plansNothing(input))
      throw new Error(`${flag} ${quoteInput(input)}: ${fs.statSync(input).isDirectory() ? 'an empty folder' : 'holds no rows'}; nothing was launched`);
  }
}

/** An input that would plan zero work: an empty folder, or a file of nothing but white space (read up to 64 KiB). */
function plansNothing(input: string): boolean {
  const stat = fs.statSync(input);
  if (stat.isDirectory()) return fs.readdirSync(input).length === 0;
  if (!stat.isFile() || stat.size > 1 << 16) return false;
  return fs.readFileSync(input, 'utf8').trim() === '';
}

/** Set by a worker for the job's own process, which checks its command line against the root again. */
const WORKER_ROOT_ENV = 'CCKIT_WORKER_ROOT';
const WORKER_QUEUE_ENV = 'CCKIT_WORKER_QUEUE';

/**
 * In a job's own process (a worker set CCKIT_WORKER_ROOT): the job's command line checked again, as the worker
 * checked it, now that the process is about to open its paths: a symlink swapped in between the worker's check
 * and this process's start is refused. Returns why it is refused, or undefined (also outside a worker).
 */
export function workerJobRecheck(args: readonly string[]): string | undefined {
  const root = process.env[WORKER_ROOT_ENV];
  if (root === undefined) return undefined;
  const queue = process.env[WORKER_QUEUE_ENV];
  try {
    const { argv } = checkWorkerJob({ argv: [...args] }, { root, ...(queue === 'shard' || queue === 'merge' ? { queue } : {}) });
    if (argv.length !== args.length || argv.some((arg, i) => arg !== args[i])) return 'the command line is not the one the worker checked';
    return undefined;
  } catch (err) {
    if (err instanceof JobRefused) return err.message;
    throw err;
  }
}

/**
 * A job's command line runs in its own cckit process, tied to the worker: this process only holds the
 * job's lock (renewed on its event loop, which a CPU-bound stage would starve: features blocked it past
 * the lock and the job was taken over while it still ran), and a killed worker's child exits with it.
 */
async function runJobInChild(argv: string[], root: string, queue: string): Promise<void> {
  const env = { ...process.env, [WORKER_ROOT_ENV]: root, [WORKER_QUEUE_ENV]: queue };
  const code = await runCckit(argv, undefined, { exitWithParent: true, env });
  if (code !== 0) throw new Error(`cckit ${argv.find((a) => !a.startsWith('-')) ?? ''} exited ${code}`);
}

export function registerScaleCommands(program: Command): void {
  program
    .command('worker')
    .description(
      "a BullMQ worker: runs the shard and merge jobs of `--engine bullmq` commands until stopped (SIGINT / SIGTERM); only the engine's stages, with paths under --root",
    )
    .requiredOption('--redis <url>', 'redis://[user:password@]host:port, rediss://… (TLS) or unix:///path/redis.sock (docs/scale.md)')
    .option('--root <dir>', "every path a job names (inputs, outputs, caches, checkpoints) must lie in this folder (default: the worker's working folder)")
    .option('--queue-prefix <prefix>', 'key prefix of the queues', 'cckit')
    .option('--concurrency <n>', 'jobs at once in this worker', '1')
    .option('--rate-max <n>', 'global rate limit: at most this many jobs started …')
    .option('--rate-duration <ms>', '… per this many milliseconds, over all workers', '1000')
    .option('--lock-ms <ms>', "a job's lock; a dead worker's job is retried after it", '30000')
    .action(
      async (flags: { redis: string; root?: string; queuePrefix: string; concurrency: string; rateMax?: string; rateDuration: string; lockMs: string }) => {
        const root = path.resolve(flags.root ?? process.cwd());
        if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`--root: ${quoteInput(root)} is not a folder`);
        const realRoot = fs.realpathSync(root);
        const workers = await startWorkers({
          redis: flags.redis,
          root,
          prefix: flags.queuePrefix,
          run: (argv, queue) => runJobInChild(argv, realRoot, queue),
          concurrency: parseWholeNumber('--concurrency', flags.concurrency, 1),
          lockDurationMs: parseWholeNumber('--lock-ms', flags.lockMs, 1000),
          ...(flags.rateMax
            ? { limiter: { max: parseWholeNumber('--rate-max', flags.rateMax, 1), duration: parseWholeNumber('--rate-duration', flags.rateDuration, 1) } }
            : {}),
          // the job's name and reason come from the queue: quoted, so they cannot forge a log line
          onJob: (name, status, error) =>
            process.stderr.write(`worker ${process.pid}: ${quoteInput(name)} ${status}${error ? `: ${quoteInput(error, 2000)}` : ''}\n`),
        });
        process.stderr.write(`worker ${process.pid}: ready on ${redactRedisUrl(flags.redis)}, paths under ${quoteInput(fs.realpathSync(root))}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await workers.close();
      },
    );

  program
    .command('scale')
    .description('engine steps run by the engines themselves')
    .command('finish')
    .description("Slurm's finishing job: resubmit shards without a done-marker, or merge when all are done")
    .requiredOption('--plan <file>', 'OUT/.shards/plan.json')
    .option('--round <n>', 'this submission round', '1')
    .option('--attempts <n>', 'rounds before giving up', '3')
    .option('--slurm-partition <name>')
    .option('--slurm-time <limit>')
    .option('--slurm-cpus <n>')
    .option('--slurm-mem <size>')
    .action(
      async (flags: { plan: string; round: string; attempts: string; slurmPartition?: string; slurmTime?: string; slurmCpus?: string; slurmMem?: string }) => {
        const outcome = await finishRound(flags.plan, parseWholeNumber('--round', flags.round, 1), {
          ...slurmOptions(flags),
          attempts: parseWholeNumber('--attempts', flags.attempts, 1),
        });
        console.log(`scale finish: ${outcome}`);
        if (outcome === 'failed') throw new Error('scale finish: the job failed (OUT/.shards/failed.json)');
      },
    );
}
