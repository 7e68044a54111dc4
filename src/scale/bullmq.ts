/**
 * The BullMQ engine (Redis): a flow whose children are the shards (queue `cckit-shards`) and whose parent
 * is the merge (queue `cckit-merge`); BullMQ runs the parent only when every child completed. Workers
 * (`cckit worker --redis URL`) run each job's cckit command line in a child cckit process tied to the worker
 * by an IPC channel (BullMQ's sandboxed processors orphan their child when the worker is killed; this child
 * exits when the channel closes), while the worker's own event loop stays free to renew the job's lock. With
 * retries and backoff; a job whose worker died is found stalled and handed to another worker. Workers trust
 * no job: each is checked (src/scale/worker-jobs.ts: the engine's stages only, paths under the worker's
 * root), and one that fails the check fails at once, without retries, while the worker goes on with the
 * next. A retried shard may run twice: shards are idempotent (atomic writes, done-markers), so that is safe. The global rate limit is BullMQ's `limiter`; per-host politeness
 * stays in cckit's fetcher.
 */
import * as fs from 'fs';
import type { Job } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { quoteInput } from '../util/untrusted-text';
import { ShardedJob, mergeArgv, shardArgv, writePlan } from './job';
import { JobRefused, checkWorkerJob } from './worker-jobs';

// bullmq and ioredis (about 210 modules) load when an engine first needs them, not with every command
const bullmq = (): typeof import('bullmq') => require('bullmq') as typeof import('bullmq');
const ioredis = (): typeof import('ioredis').default => (require('ioredis') as typeof import('ioredis')).default;

export const SHARD_QUEUE = 'cckit-shards';
export const MERGE_QUEUE = 'cckit-merge';

export interface RedisTarget {
  /** redis://host:port/db, rediss://…, unix:///path/redis.sock or a socket path. */
  redis: string;
  /** Key prefix (separates runs and tests sharing a server; default "cckit"). */
  prefix?: string;
}

/**
 * The environment variables that add to a Redis URL: a password (and ACL user) kept off the command line,
 * and for `rediss://` the TLS files (PEM): a CA for a server certificate no system CA signed, and the
 * client certificate and key that a server with `tls-auth-clients yes` (Redis's default) asks for.
 */
export const REDIS_ENV = {
  username: 'CCKIT_REDIS_USERNAME',
  password: 'CCKIT_REDIS_PASSWORD',
  ca: 'CCKIT_REDIS_TLS_CA',
  cert: 'CCKIT_REDIS_TLS_CERT',
  key: 'CCKIT_REDIS_TLS_KEY',
} as const;

/** The connection options of a Redis URL (ioredis reads the URL itself: user, password, host, port, db; rediss:// turns TLS on). */
export function redisOptions(redis: string, env: NodeJS.ProcessEnv = process.env): RedisOptions {
  const options: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  const password = env[REDIS_ENV.password];
  if (password) {
    options.password = password;
    if (env[REDIS_ENV.username]) options.username = env[REDIS_ENV.username];
  }
  if (/^rediss:\/\//i.test(redis)) {
    const tls: Record<string, Buffer> = {};
    for (const key of ['ca', 'cert', 'key'] as const) {
      const file = env[REDIS_ENV[key]];
      if (file) tls[key] = fs.readFileSync(file);
    }
    if (Object.keys(tls).length > 0) options.tls = tls;
  }
  return options;
}

/** A connection BullMQ can use (it needs maxRetriesPerRequest: null for blocking commands). */
export function connect(redis: string, env: NodeJS.ProcessEnv = process.env): Redis {
  const options = redisOptions(redis, env);
  if (redis.startsWith('unix://')) return new (ioredis())({ path: redis.slice('unix://'.length), ...options });
  if (redis.startsWith('/')) return new (ioredis())({ path: redis, ...options });
  // the URL's own user and password come first (ioredis fills in only what the options leave out)
  const url = /^rediss?:\/\//i.test(redis) ? new URL(redis) : undefined;
  if (url && (url.username || url.password)) {
    delete options.username;
    delete options.password;
  }
  return new (ioredis())(redis, options);
}

/** The URL as it may be printed: a password in it replaced by ***. */
export function redactRedisUrl(redis: string): string {
  if (!/^rediss?:\/\//i.test(redis)) return quoteInput(redis);
  try {
    const url = new URL(redis);
    if (url.password) url.password = '***';
    return quoteInput(url.toString());
  } catch {
    return '(an unreadable Redis URL)';
  }
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
  const flows = new (bullmq().FlowProducer)({ connection, prefix: options.prefix ?? 'cckit' });
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
  const merges = new (bullmq().Queue)(MERGE_QUEUE, { connection, prefix });
  const shards = new (bullmq().Queue)(SHARD_QUEUE, { connection, prefix });
  try {
    for (;;) {
      const job = await bullmq().Job.fromId(merges, mergeJobId);
      if (!job) throw new Error(`bullmq engine: no merge job ${mergeJobId}`);
      const state = await job.getState();
      if (state === 'completed') return;
      if (state === 'failed') throw new Error(`bullmq engine: the merge failed: ${job.failedReason}`);
      const counts = await job.getDependenciesCount();
      const done = counts.processed ?? 0;
      options.onProgress?.(done, done + (counts.unprocessed ?? 0));
      const children = await job.getDependencies({ unprocessed: { count: 1000 } });
      for (const key of children.unprocessed ?? []) {
        const child = await bullmq().Job.fromId(shards, key.split(':').pop()!);
        // failed is final: a job with tries left waits (delayed) instead; one a worker refused has none
        if (child && (await child.getState()) === 'failed')
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
  /** Runs one job's checked cckit command line (`cckit worker`: in a child process); rejects when the command failed. */
  run: (argv: string[], queue: 'shard' | 'merge') => Promise<void>;
  /**
   * The folder every path of a job must lie in (resolved, symlinks followed); a job naming a path outside,
   * or a stage or flag the engine does not enqueue, fails without retries (src/scale/worker-jobs.ts).
   */
  root: string;
  /** Jobs at once per worker (default 1: a shard uses the process's cores itself). */
  concurrency?: number;
  /** Global rate limit: at most `max` jobs started per `durationMs` over all workers. */
  limiter?: { max: number; duration: number };
  /** How long a job's lock lasts without renewal (default 30 s); a dead worker's job is stalled after it. */
  lockDurationMs?: number;
  /** Serve only these queues (default both). */
  queues?: readonly string[];
  /** A job's name (as the queue holds it: quote it before printing), and what became of it. */
  onJob?: (name: string, status: 'started' | 'done' | 'failed' | 'refused', error?: string) => void;
}

/** Workers on the shard and merge queues; resolves with a close() that stops them. */
export async function startWorkers(options: WorkerOptions): Promise<{ close(): Promise<void> }> {
  const root = fs.realpathSync(options.root);
  if (!fs.statSync(root).isDirectory()) throw new Error(`--root: ${root} is not a folder`);
  const connection = connect(options.redis);
  const prefix = options.prefix ?? 'cckit';
  const lockDuration = options.lockDurationMs ?? 30_000;
  const workers = (options.queues ?? [SHARD_QUEUE, MERGE_QUEUE]).map(
    (queueName) =>
      new (bullmq().Worker)(
        queueName,
        async (job: Job<unknown>) => {
          let argv: string[];
          const queue = queueName === MERGE_QUEUE ? 'merge' : 'shard';
          try {
            argv = checkWorkerJob(job.data, { root, queue }).argv;
          } catch (err) {
            if (!(err instanceof JobRefused)) throw err;
            options.onJob?.(job.name, 'refused', err.message);
            // no retries: the same job would be refused again
            throw new (bullmq().UnrecoverableError)(`refused by the worker: ${err.message}`);
          }
          options.onJob?.(job.name, 'started');
          try {
            await options.run(argv, queue);
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
