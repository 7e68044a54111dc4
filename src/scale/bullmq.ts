/**
 * The BullMQ engine (Redis): a flow whose children are the shards (queue `cckit-shards`) and whose parent
 * is the merge (queue `cckit-merge`); BullMQ runs the parent only when every child completed. Workers
 * (`cckit worker --redis URL`) run each job's cckit command line in a child cckit process tied to the worker
 * by an IPC channel (BullMQ's sandboxed processors orphan their child when the worker is killed; this child
 * exits when the channel closes), while the worker's own event loop stays free to renew the job's lock. With
 * retries and backoff; a job whose worker died is found
 * stalled and handed to another worker. A retried shard may run twice: shards are idempotent (atomic
 * writes, done-markers), so that is safe. The global rate limit is BullMQ's `limiter`; per-host politeness
 * stays in cckit's fetcher.
 */
import { FlowProducer, Job, Queue, Worker } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import { ShardedJob, mergeArgv, shardArgv, writePlan } from './job';

export const SHARD_QUEUE = 'cckit-shards';
export const MERGE_QUEUE = 'cckit-merge';

export interface RedisTarget {
  /** redis://host:port/db, rediss://…, unix:///path/redis.sock or a socket path. */
  redis: string;
  /** Key prefix (separates runs and tests sharing a server; default "cckit"). */
  prefix?: string;
}

/** A connection BullMQ can use (it needs maxRetriesPerRequest: null for blocking commands). */
export function connect(redis: string): Redis {
  const options = { maxRetriesPerRequest: null, enableReadyCheck: true } as const;
  if (redis.startsWith('unix://')) return new IORedis({ path: redis.slice('unix://'.length), ...options });
  if (redis.startsWith('/')) return new IORedis({ path: redis, ...options });
  return new IORedis(redis, options);
}

export interface EnqueueOptions extends RedisTarget {
  /** Tries of one shard before it fails (default 3), with exponential backoff from `backoffMs` (1 s). */
  attempts?: number;
  backoffMs?: number;
}

/** Enqueues the job as a flow; returns the parent (merge) job's id. */
export async function enqueue(job: ShardedJob, options: EnqueueOptions): Promise<string> {
  writePlan(job);
  const connection = connect(options.redis);
  const flows = new FlowProducer({ connection, prefix: options.prefix ?? 'cckit' });
  // one flow per enqueue: a run id, so that a later run over the same folder is a new flow (its shards
  // still skip the work their done-markers say is finished)
  const base = `${Buffer.from(job.out).toString('base64url').slice(-40)}-${Date.now().toString(36)}`;
  const opts = {
    attempts: options.attempts ?? 3,
    backoff: { type: 'exponential', delay: options.backoffMs ?? 1000 },
    removeOnComplete: false,
    removeOnFail: false,
  };
  try {
    const node = await flows.add({
      name: 'merge',
      queueName: MERGE_QUEUE,
      data: { argv: mergeArgv(job), out: job.out },
      opts: { ...opts, jobId: `${base}-merge` },
      children: Array.from({ length: job.shards }, (_, index) => ({
        name: `shard ${index}/${job.shards}`,
        queueName: SHARD_QUEUE,
        data: { argv: shardArgv(job, index), out: job.out, index },
        opts: { ...opts, jobId: `${base}-shard-${index}-of-${job.shards}` },
      })),
    });
    return node.job.id!;
  } finally {
    await flows.close();
    await connection.quit();
  }
}

/** Waits for the merge job; `onProgress` gets the shards completed so far. */
export async function waitForFlow(
  mergeJobId: string,
  options: RedisTarget & { onProgress?: (done: number, total: number) => void; pollMs?: number },
): Promise<void> {
  const connection = connect(options.redis);
  const prefix = options.prefix ?? 'cckit';
  const merges = new Queue(MERGE_QUEUE, { connection, prefix });
  const shards = new Queue(SHARD_QUEUE, { connection, prefix });
  try {
    for (;;) {
      const job = await Job.fromId(merges, mergeJobId);
      if (!job) throw new Error(`bullmq engine: no merge job ${mergeJobId}`);
      const state = await job.getState();
      if (state === 'completed') return;
      if (state === 'failed') throw new Error(`bullmq engine: the merge failed: ${job.failedReason}`);
      const counts = await job.getDependenciesCount();
      const done = counts.processed ?? 0;
      options.onProgress?.(done, done + (counts.unprocessed ?? 0));
      const children = await job.getDependencies({ unprocessed: { count: 1000 } });
      for (const key of children.unprocessed ?? []) {
        const child = await Job.fromId(shards, key.split(':').pop()!);
        if (child && (await child.getState()) === 'failed' && child.attemptsMade >= (child.opts.attempts ?? 1))
          throw new Error(`bullmq engine: ${child.name} failed ${child.attemptsMade} time(s): ${child.failedReason}`);
      }
      await new Promise((r) => setTimeout(r, options.pollMs ?? 500));
    }
  } finally {
    await merges.close();
    await shards.close();
    await connection.quit();
  }
}

export interface WorkerOptions extends RedisTarget {
  /** Runs one job's cckit command line (`cckit worker`: in a child process); rejects when the command failed. */
  run: (argv: string[]) => Promise<void>;
  /** Jobs at once per worker (default 1: a shard uses the process's cores itself). */
  concurrency?: number;
  /** Global rate limit: at most `max` jobs started per `durationMs` over all workers. */
  limiter?: { max: number; duration: number };
  /** How long a job's lock lasts without renewal (default 30 s); a dead worker's job is stalled after it. */
  lockDurationMs?: number;
  /** Serve only these queues (default both). */
  queues?: readonly string[];
  onJob?: (name: string, status: 'started' | 'done' | 'failed', error?: string) => void;
}

/** Workers on the shard and merge queues; resolves with a close() that stops them. */
export async function startWorkers(options: WorkerOptions): Promise<{ close(): Promise<void> }> {
  const connection = connect(options.redis);
  const prefix = options.prefix ?? 'cckit';
  const lockDuration = options.lockDurationMs ?? 30_000;
  const workers = (options.queues ?? [SHARD_QUEUE, MERGE_QUEUE]).map(
    (queueName) =>
      new Worker(
        queueName,
        async (job: Job<{ argv: string[] }>) => {
          options.onJob?.(job.name, 'started');
          try {
            await options.run(job.data.argv);
            options.onJob?.(job.name, 'done');
          } catch (err) {
            options.onJob?.(job.name, 'failed', (err as Error).message);
            throw err;
          }
        },
        {
          connection,
          prefix,
          concurrency: options.concurrency ?? 1,
          lockDuration,
          stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
          maxStalledCount: 3,
          ...(options.limiter ? { limiter: options.limiter } : {}),
        },
      ),
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await connection.quit();
    },
  };
}
