/**
 * Data-parallel gradients over worker_threads, so training uses more than one core (the wasm
 * backend computes on one thread).
 *
 * Each step the batch's rows are split into `workers` contiguous shards. The main thread computes
 * the gradients of shard 0; worker r (a thread with its own tfjs and its own copy of the model,
 * built by `createModel` from the same config) computes shard r. The main thread sends each worker
 * its shard's tensors (typed arrays, batch rows already built, so visual providers never enter a
 * worker); weights go main → workers and gradients workers → main through SharedArrayBuffers.
 *
 * Exactness: every objective is a mean over a count (caption tokens, masked regions). A shard's
 * loss is its own mean times its share of the batch's count (`scales`), so the shards' losses and
 * gradients *sum* to the full batch's, up to float rounding. Sums run in rank order, so a run is
 * reproducible. Dropout masks: shard 0 draws the full batch's masks for its rows; other shards
 * draw their own seeded stream (`replicaDropoutStep`), so with dropout > 0 a multi-worker run is
 * deterministic but not the same trajectory as a 1-worker run; with dropout 0 it is (up to rounding).
 *
 * Not shardable: the VLM objective's contrastive loss couples every pair of rows in the batch.
 */
import type * as TF from '@tensorflow/tfjs';

import { mixSeed } from '../util/random';
import { startWorker, StartedWorker, WorkerPort } from '../util/workers';
import { BackendName, initBackend, loadTf, BACKEND_ENV_VAR } from '../tf/backend';
import type { ModelDims, ModelSpec } from './models';

/** A batch's tensors: nested plain objects whose leaves are tensors with the batch as axis 0. */
export type TensorTree = { [key: string]: TF.Tensor | TensorTree | undefined };

/** Per objective (by name), the number its loss is a mean over. */
export type Counts = Record<string, number>;

/** Losses by objective plus `total`, as numbers. */
export type Losses = Record<string, number>;

export interface StepGradients {
  losses: Losses;
  /** Gradients by variable name (the names of the map given to the replicas); caller disposes. */
  grads: Map<string, TF.Tensor>;
  /** Multi-replica steps: where the step's wall time went, ms (benchmarks report it). */
  timing?: StepTiming;
}

export interface StepTiming {
  /** Slicing shards, copying weights and shards out to the workers. */
  send: number;
  /** Shard 0 on this thread. */
  local: number;
  /** Waiting for the workers after shard 0 was done. */
  wait: number;
  /** Adding the workers' gradients. */
  combine: number;
  /** Each worker's own time for its shard (weights in, gradients, gradients out). */
  workers: number[];
}

/** The loss of a batch (or shard): fills `parts` with each objective's (scaled) loss. */
export type LossFn<T> = (tensors: T, parts: Record<string, TF.Scalar>, scales?: Counts) => TF.Scalar;

/**
 * Gradients of `loss` with respect to `variables` on this thread (the 1-worker step), named by
 * the map's keys. Variables the loss does not reach get no entry (as with tf.variableGrads).
 */
export function localGradients(variables: Map<string, TF.Variable>, loss: (parts: Record<string, TF.Scalar>) => TF.Scalar): StepGradients {
  const tf = loadTf();
  const parts: Record<string, TF.Scalar> = {};
  const { value, grads } = tf.variableGrads(() => loss(parts), [...variables.values()]);
  const byTfName = new Map([...variables].map(([name, v]) => [v.name, name]));
  const named = new Map<string, TF.Tensor>();
  for (const [tfName, g] of Object.entries(grads)) named.set(byTfName.get(tfName)!, g);
  const losses: Losses = { total: value.dataSync()[0]! };
  value.dispose();
  for (const [name, t] of Object.entries(parts)) {
    losses[name] = t.dataSync()[0]!;
    t.dispose();
  }
  return { losses, grads: named };
}

/** Dropout stream of replica `rank` at `step`: rank 0 keeps the 1-worker stream (its rows' masks match). */
export function replicaDropoutStep(step: number, rank: number): number {
  return rank === 0 ? step : mixSeed(step, rank, 0xd9a7);
}

/** Row ranges [start, end) of `workers` contiguous shards of `rows` rows (sizes differ by at most 1). */
export function shardRows(rows: number, workers: number): [number, number][] {
  return Array.from({ length: workers }, (_, r) => [Math.floor((r * rows) / workers), Math.floor(((r + 1) * rows) / workers)]);
}

/** What a replica thread needs to build the model and its loss; plain data. */
export interface ReplicaSetup<C> {
  model: ModelSpec;
  dims: ModelDims;
  /** Given to the loss factory (the trainer passes its TrainConfig). */
  lossConfig: C;
  /** Module and export of `(model, lossConfig) => LossFn` run inside each worker. */
  lossModule: string;
  lossFactory: string;
  backend: BackendName;
}

export interface ReplicasOptions<T, C> extends ReplicaSetup<C> {
  workers: number;
  /** The main thread's trainable variables by name; workers' models must have the same names and shapes as `model/<name>`. */
  variables: Map<string, TF.Variable>;
  /** This thread's loss (shard 0). */
  loss: LossFn<T>;
  /** Per objective, the count its mean is over, for a batch or shard. */
  counts: (tensors: T) => Counts;
}

interface Slot {
  name: string;
  shape: number[];
  offset: number;
  size: number;
}

interface Leaf {
  path: string[];
  shape: number[];
  dtype: TF.DataType;
  data: Float32Array | Int32Array | Uint8Array;
}

interface StepReply {
  losses?: Losses;
  present?: boolean[];
  ms?: number;
  error?: string;
}

/** Worker threads holding model replicas; `gradients` computes a batch's gradients across them and this thread. */
export class Replicas<T extends object, C> {
  private readonly workers: StartedWorker[] = [];
  private readonly slots: Slot[];
  private readonly weights: Float32Array;
  private readonly grads: Float32Array[];
  /** The job waiting for each worker's next message. */
  private readonly waiting: ({ resolve: (reply: StepReply) => void; reject: (e: Error) => void } | undefined)[] = [];
  private failed: Error | undefined;
  private closed = false;

  private constructor(private readonly options: ReplicasOptions<T, C>) {
    let offset = 0;
    this.slots = [...options.variables].map(([name, v]) => {
      const slot = { name, shape: v.shape, offset, size: v.size };
      offset += v.size;
      return slot;
    });
    const floats = offset;
    this.weights = new Float32Array(new SharedArrayBuffer(floats * 4));
    this.grads = [];
    for (let rank = 1; rank < options.workers; rank++) {
      const grads = new Float32Array(new SharedArrayBuffer(floats * 4));
      this.grads.push(grads);
      const setup: ReplicaSetup<C> = {
        model: options.model,
        dims: options.dims,
        lossConfig: options.lossConfig,
        lossModule: options.lossModule,
        lossFactory: options.lossFactory,
        backend: options.backend,
      };
      const worker = startWorker(__filename, runReplica, {
        rank,
        setup,
        slots: this.slots.map(({ name, shape, offset, size }) => ({ name, shape, offset, size })),
        weights: this.weights,
        grads,
      } satisfies ReplicaData<C>);
      const index = rank - 1;
      worker.onMessage((reply: StepReply) => {
        const job = this.waiting[index];
        this.waiting[index] = undefined;
        if (!job) return;
        if (reply.error !== undefined) job.reject(new Error(`replica ${rank}: ${reply.error}`));
        else job.resolve(reply);
      });
      worker.worker.on('error', (e) => this.fail(e instanceof Error ? e : new Error(String(e))));
      worker.worker.on('exit', (code) => {
        if (!this.closed) this.fail(new Error(`replica ${rank} exited (code ${code})`));
      });
      // idle workers must not keep the process alive (a caller that throws mid-run never closes them)
      worker.worker.unref();
      this.workers.push(worker);
    }
  }

  /** Starts `workers − 1` threads and waits until each has built its model. */
  static async start<T extends object, C>(options: ReplicasOptions<T, C>): Promise<Replicas<T, C>> {
    if (!Number.isInteger(options.workers) || options.workers < 2) throw new Error(`parallel: workers must be an integer ≥ 2, got ${options.workers}`);
    const replicas = new Replicas(options);
    try {
      await Promise.all(replicas.workers.map((_, i) => replicas.next(i)));
    } catch (e) {
      await replicas.close();
      throw e;
    }
    return replicas;
  }

  get size(): number {
    return this.workers.length + 1;
  }

  /**
   * The batch's losses and gradients: shard 0 here, the others in the workers, summed in rank
   * order. `step` picks the workers' dropout streams (`replicaDropoutStep`).
   */
  async gradients(step: number, tensors: T): Promise<StepGradients> {
    if (this.failed) throw this.failed;
    if (this.closed) throw new Error('parallel: replicas are closed');
    const tf = loadTf();
    const t0 = performance.now();
    const leaves = flattenTree(tensors as unknown as TensorTree);
    const rows = leaves[0]?.tensor.shape[0] ?? 0;
    for (const { path: p, tensor } of leaves)
      if (tensor.shape[0] !== rows) throw new Error(`parallel: ${p.join('.')} has ${tensor.shape[0]} rows, expected ${rows}`);
    const ranges = shardRows(rows, this.size);
    const totals = this.options.counts(tensors);
    const shards = ranges.map(([start, end]) => sliceTree(tensors as unknown as TensorTree, start, end) as unknown as T);
    try {
      const scales = shards.map((shard) => shareOf(this.options.counts(shard), totals));
      this.writeWeights();
      // post every worker's shard first, then compute shard 0 while they run
      const pending: (Promise<StepReply> | undefined)[] = [];
      for (let r = 1; r < this.size; r++) {
        const [start, end] = ranges[r]!;
        if (end === start) {
          pending.push(undefined);
          continue;
        }
        const shardLeaves: Leaf[] = flattenTree(shards[r] as unknown as TensorTree).map(({ path: p, tensor }) => ({
          path: p,
          shape: tensor.shape,
          dtype: tensor.dtype,
          data: tensor.dataSync() as Leaf['data'],
        }));
        const worker = this.workers[r - 1]!;
        pending.push(this.next(r - 1));
        worker.post(
          { step, leaves: shardLeaves, scales: scales[r] },
          shardLeaves.map((l) => l.data.buffer as ArrayBuffer),
        );
      }
      const t1 = performance.now();
      const local = localGradients(this.options.variables, (parts) => this.options.loss(shards[0]!, parts, scales[0]));
      const losses = local.losses;
      const grads = local.grads;
      const t2 = performance.now();
      const replies = await Promise.all(pending);
      const t3 = performance.now();
      for (let r = 1; r < this.size; r++) {
        const reply = replies[r - 1];
        if (!reply) continue;
        for (const [name, value] of Object.entries(reply.losses!)) losses[name] = (losses[name] ?? 0) + value;
        const buffer = this.grads[r - 1]!;
        this.slots.forEach((slot, i) => {
          if (!reply.present![i]) return;
          const theirs = tf.tensor(buffer.subarray(slot.offset, slot.offset + slot.size), slot.shape, 'float32');
          const mine = grads.get(slot.name);
          grads.set(slot.name, mine ? tf.add(mine, theirs) : theirs.clone());
          mine?.dispose();
          theirs.dispose();
        });
      }
      const timing = { send: t1 - t0, local: t2 - t1, wait: t3 - t2, combine: performance.now() - t3, workers: replies.map((r) => r?.ms ?? 0) };
      return { losses, grads, timing };
    } finally {
      for (const shard of shards) tf.dispose(flattenTree(shard as unknown as TensorTree).map((l) => l.tensor));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private writeWeights(): void {
    for (const slot of this.slots) this.weights.set(this.options.variables.get(slot.name)!.dataSync() as Float32Array, slot.offset);
  }

  /** The next message of worker `index`; the worker keeps the process alive only while awaited. */
  private next(index: number): Promise<StepReply> {
    if (this.failed) return Promise.reject(this.failed);
    const worker = this.workers[index]!.worker;
    worker.ref();
    return new Promise<StepReply>((resolve, reject) => {
      this.waiting[index] = { resolve, reject };
    }).finally(() => worker.unref());
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    for (const [i, job] of this.waiting.entries()) {
      this.waiting[i] = undefined;
      job?.reject(error);
    }
  }
}

/** Per objective, shard count ÷ batch count (0 when the batch has none: its loss is 0 either way). */
function shareOf(shard: Counts, total: Counts): Counts {
  const out: Counts = {};
  for (const [name, n] of Object.entries(total)) out[name] = n > 0 ? (shard[name] ?? 0) / n : 0;
  return out;
}

function isTensor(x: unknown): x is TF.Tensor {
  return x instanceof loadTf().Tensor;
}

/** Tensor leaves of a tree with their key paths, in key order. */
export function flattenTree(tree: TensorTree, prefix: string[] = []): { path: string[]; tensor: TF.Tensor }[] {
  const out: { path: string[]; tensor: TF.Tensor }[] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (value === undefined) continue;
    if (isTensor(value)) out.push({ path: [...prefix, key], tensor: value });
    else out.push(...flattenTree(value, [...prefix, key]));
  }
  return out;
}

/** The same tree with every tensor cut to rows [start, end) (new tensors). */
export function sliceTree(tree: TensorTree, start: number, end: number): TensorTree {
  const out: TensorTree = {};
  for (const [key, value] of Object.entries(tree)) {
    if (value === undefined) continue;
    if (isTensor(value)) {
      const begin = value.shape.map((_, i) => (i === 0 ? start : 0));
      const size = value.shape.map((d, i) => (i === 0 ? end - start : d));
      out[key] = value.slice(begin, size);
    } else out[key] = sliceTree(value, start, end);
  }
  return out;
}

function unflatten(leaves: Leaf[]): TensorTree {
  const tf = loadTf();
  const root: TensorTree = {};
  for (const leaf of leaves) {
    let node = root;
    for (const key of leaf.path.slice(0, -1)) node = (node[key] ??= {}) as TensorTree;
    node[leaf.path.at(-1)!] = tf.tensor(leaf.data, leaf.shape, leaf.dtype);
  }
  return root;
}

// ------------------------------------------------------------------ worker side

interface ReplicaData<C> {
  rank: number;
  setup: ReplicaSetup<C>;
  slots: Slot[];
  weights: Float32Array;
  grads: Float32Array;
}

/** A replica thread's main (started by src/util/workers.ts): builds the model, then answers one message per step. */
export async function runReplica<C>(data: ReplicaData<C>, port: WorkerPort): Promise<void> {
  try {
    await initBackend({ env: { [BACKEND_ENV_VAR]: data.setup.backend }, threads: 1, logger: () => {} });
    const tf = loadTf();
    const { createModel } = require('./models') as typeof import('./models');
    const model = createModel(data.setup.model, data.setup.dims);
    const factory = require(data.setup.lossModule)[data.setup.lossFactory] as (model: unknown, config: C) => LossFn<TensorTree>;
    const loss = factory(model, data.setup.lossConfig);
    const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
    for (const slot of data.slots) {
      const v = variables.get(slot.name);
      if (!v || v.shape.join('x') !== slot.shape.join('x'))
        throw new Error(`replica ${data.rank}: variable ${slot.name} is ${v ? v.shape.join('×') : 'missing'} here, ${slot.shape.join('×')} on the main thread`);
    }
    if (variables.size !== data.slots.length)
      throw new Error(`replica ${data.rank}: ${variables.size} variables here, ${data.slots.length} on the main thread`);
    const ordered = new Map(data.slots.map((s) => [s.name, variables.get(s.name)!]));
    port.post({});
    port.onMessage((msg: { step: number; leaves: Leaf[]; scales: Counts }) => {
      try {
        const t0 = performance.now();
        for (const slot of data.slots) {
          tf.tidy(() => ordered.get(slot.name)!.assign(tf.tensor(data.weights.subarray(slot.offset, slot.offset + slot.size), slot.shape, 'float32')));
        }
        model.setDropoutStep?.(replicaDropoutStep(msg.step, data.rank));
        const shard = unflatten(msg.leaves);
        const { losses, grads } = localGradients(ordered, (parts) => loss(shard, parts, msg.scales));
        tf.dispose(flattenTree(shard).map((l) => l.tensor));
        const present = data.slots.map((slot) => {
          const g = grads.get(slot.name);
          if (!g) return false;
          data.grads.set(g.dataSync() as Float32Array, slot.offset);
          g.dispose();
          return true;
        });
        port.post({ losses, present, ms: performance.now() - t0 } satisfies StepReply);
      } catch (e) {
        port.post({ error: String((e as Error)?.stack ?? e) } satisfies StepReply);
      }
    });
  } catch (e) {
    port.post({ error: String((e as Error)?.stack ?? e) } satisfies StepReply);
  }
}
