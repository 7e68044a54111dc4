/**
 * A small pool of worker_threads that run one batch function each, in order: batches are
 * distributed round-robin and results come back in submission order. A worker loads
 * `require(modulePath)[factory](options)` once and applies the returned function to every batch,
 * so heavy state (an NLP model, a WordNet index) is built once per thread.
 *
 * Works from the build (dist/*.js) and from sources under tsx (workers then register tsx's CommonJS hook).
 */
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';

export type BatchFactory<O, I, R> = (options: O) => (batch: I[]) => R[];

interface Job<R> {
  resolve: (results: R[]) => void;
  reject: (error: Error) => void;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
if (workerData.fromSources) require('tsx/cjs');
const run = require(workerData.modulePath)[workerData.factory](workerData.options);
parentPort.on('message', ({ id, batch }) => {
  try { parentPort.postMessage({ id, results: run(batch) }); }
  catch (error) { parentPort.postMessage({ id, error: String(error && error.stack || error) }); }
});
`;

export class WorkerPool<I, R> {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Job<R>>();
  private nextId = 0;
  private nextWorker = 0;

  constructor(modulePath: string, factory: string, options: unknown, size = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8))) {
    const fromSources = path.extname(modulePath) === '.ts';
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { modulePath, factory, options, fromSources },
      });
      worker.on('message', ({ id, results, error }: { id: number; results?: R[]; error?: string }) => {
        const job = this.pending.get(id);
        if (!job) return;
        this.pending.delete(id);
        if (error !== undefined) job.reject(new Error(error));
        else job.resolve(results!);
      });
      worker.on('error', (error) => {
        for (const job of this.pending.values()) job.reject(error);
        this.pending.clear();
      });
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
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, batch });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
