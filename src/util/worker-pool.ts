/**
 * A small pool of worker_threads that run one batch function each, in order: batches are
 * distributed round-robin and results come back in submission order. A worker loads
 * `require(modulePath)[factory](options)` once and applies the returned function to every batch,
 * so heavy state (an NLP model, a WordNet index) is built once per thread.
 *
 * Threads are started by src/util/workers.ts (from the build and from sources under tsx).
 */
import * as os from 'os';

import { startWorker, StartedWorker, WorkerPort } from './workers';

export type BatchFactory<O, I, R> = (options: O) => (batch: I[]) => R[];

interface Job<R> {
  resolve: (results: R[]) => void;
  reject: (error: Error) => void;
}

interface PoolSetup {
  modulePath: string;
  factory: string;
  options: unknown;
}

/** Worker side: build the batch function once, answer each `{id, batch}`. */
export function poolWorker({ modulePath, factory, options }: PoolSetup, port: WorkerPort): void {
  const run = require(modulePath)[factory](options) as (batch: unknown[]) => unknown[];
  port.onMessage(({ id, batch }: { id: number; batch: unknown[] }) => {
    try {
      port.post({ id, results: run(batch) });
    } catch (error) {
      port.post({ id, error: String((error as Error)?.stack ?? error) });
    }
  });
}

export class WorkerPool<I, R> {
  private readonly workers: StartedWorker[] = [];
  private readonly pending = new Map<number, Job<R>>();
  private nextId = 0;
  private nextWorker = 0;
  private failed: Error | undefined;
  private closed = false;

  constructor(modulePath: string, factory: string, options: unknown, size = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8))) {
    const failAll = (error: Error) => {
      if (this.closed) return;
      this.failed ??= error;
      for (const job of this.pending.values()) job.reject(error);
      this.pending.clear();
    };
    for (let i = 0; i < size; i++) {
      const worker = startWorker(__filename, poolWorker, { modulePath, factory, options } satisfies PoolSetup);
      worker.onMessage(({ id, results, error }: { id: number; results?: R[]; error?: string }) => {
        const job = this.pending.get(id);
        if (!job) return;
        this.pending.delete(id);
        if (error !== undefined) job.reject(new Error(error));
        else job.resolve(results!);
      });
      // the factory failed, or the thread died
      worker.done.catch(failAll);
      worker.worker.on('error', failAll);
      this.workers.push(worker);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  run(batch: I[]): Promise<R[]> {
    const id = this.nextId++;
    const worker = this.workers[this.nextWorker];
    this.nextWorker = (this.nextWorker + 1) % this.workers.length;
    return new Promise<R[]>((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.pending.set(id, { resolve, reject });
      worker.post({ id, batch });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
