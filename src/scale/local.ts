/**
 * The local engine: a pool of cckit processes on this machine, one per shard at a time, over the shard
 * contract; a shard that fails (its process died, or exited non-zero) runs again up to `attempts` times.
 * Each shard's output goes to OUT/.shards/logs/shard-i.log.
 */
import { spawn, type StdioOptions } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { writeFileAtomic } from '../util/atomic';
import { ShardedJob, cckitCommand, mergeArgv, mergedMarker, pendingShards, scaleFolder, shardArgv, writePlan } from './job';

export interface LocalEngineOptions {
  /** Shards running at once (default 2). */
  processes?: number;
  /** Runs of one shard before the job fails (default 2). */
  attempts?: number;
  onShard?: (index: number, status: 'started' | 'done' | 'failed', attempt: number) => void;
}

export interface EngineResult {
  shards: number;
  /** Shards found done before this run. */
  alreadyDone: number;
  /** Shard runs this engine started (retries included). */
  runs: number;
  seconds: number;
}

/** The variable that tells a cckit process to exit when the process that started it is gone (src/cli/main.ts). */
export const EXIT_WITH_PARENT = 'CCKIT_EXIT_WITH_PARENT';

export interface RunCckitOptions {
  env?: NodeJS.ProcessEnv;
  /**
   * Tie the child to this process by an IPC channel: when this process dies (even by SIGKILL) the channel
   * closes and the child exits, so a killed BullMQ worker leaves no orphan writing its shard.
   */
  exitWithParent?: boolean;
}

/** Runs `cckit ARGV` as a child process; resolves with its exit code, output appended to `log` (or this process's when undefined). */
export function runCckit(argv: readonly string[], log: string | undefined, options: RunCckitOptions = {}): Promise<number> {
  let fd: number | undefined;
  if (log !== undefined) {
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fd = fs.openSync(log, 'a');
  }
  const output = fd ?? 'inherit';
  const [node, ...launcher] = cckitCommand();
  const env = { ...(options.env ?? process.env), ...(options.exitWithParent ? { [EXIT_WITH_PARENT]: '1' } : {}) };
  const stdio: StdioOptions = options.exitWithParent ? ['ignore', output, output, 'ipc'] : ['ignore', output, output];
  return new Promise((resolve, reject) => {
    const child = spawn(node, [...launcher, ...argv], { stdio, env });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (fd !== undefined) fs.closeSync(fd);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

export async function runLocal(job: ShardedJob, options: LocalEngineOptions = {}): Promise<EngineResult> {
  const started = Date.now();
  const processes = Math.max(1, options.processes ?? 2);
  const attempts = Math.max(1, options.attempts ?? 2);
  writePlan(job);
  const logs = path.join(scaleFolder(job.out), 'logs');
  const pending = pendingShards(job);
  const alreadyDone = job.shards - pending.length;
  let runs = 0;
  const queue = pending.map((index) => ({ index, attempt: 0 }));
  const failures: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      next.attempt++;
      runs++;
      options.onShard?.(next.index, 'started', next.attempt);
      const code = await runCckit(shardArgv(job, next.index), path.join(logs, `shard-${next.index}.log`), { exitWithParent: true });
      if (code === 0 && !pendingShards(job).includes(next.index)) {
        options.onShard?.(next.index, 'done', next.attempt);
        continue;
      }
      options.onShard?.(next.index, 'failed', next.attempt);
      if (next.attempt < attempts) queue.push(next);
      else failures.push(`shard ${next.index} failed ${next.attempt} time(s), exit ${code} (log: ${path.join(logs, `shard-${next.index}.log`)})`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(processes, Math.max(queue.length, 1)) }, worker));
  if (failures.length > 0) throw new Error(`local engine: ${failures.join('; ')}`);
  const code = await runCckit(mergeArgv(job), path.join(logs, 'merge.log'));
  if (code !== 0) throw new Error(`local engine: the merge failed, exit ${code} (log: ${path.join(logs, 'merge.log')})`);
  writeFileAtomic(mergedMarker(job.out), JSON.stringify({ engine: 'local', shards: job.shards, at: new Date().toISOString() }) + '\n');
  return { shards: job.shards, alreadyDone, runs, seconds: (Date.now() - started) / 1000 };
}
