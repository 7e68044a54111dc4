/**
 * Training speed of the TransformerCaptioner (tiny and small presets): samples/s and achieved
 * GFLOP/s of one step (forward + backward + Adam) through the trainer's own step code, with 1 and
 * 2 data-parallel replicas (src/train/parallel.ts), side by side with the PyTorch peer
 * (bench/torch_step.py, same architecture, batch and sequence length) on 1 and 2 threads.
 *
 * Fixed synthetic batch: 32 images × 17 visual positions (global + 16 regions) of width 128 plus
 * 5 geometry numbers, 20 caption tokens per row (no padding), vocabulary 2,000, IC loss, dropout
 * as in the preset (0.1). Median of `steps` timed steps after `warmup` untimed ones.
 *
 * FLOPs (analytic, matmuls only): F = Σ 2·m·n·k over the forward pass's matrix products, and a
 * step counts 3·F (the backward pass's two products per forward product). See `stepFlops`.
 *
 * Run: npm run bench:train -- [--presets tiny,small] [--steps 7] [--warmup 2] [--workers 1,2]
 *      [--no-torch] [--profile]   (or npx tsx bench/train.ts …)
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import type * as TF from '@tensorflow/tfjs';

import { EncoderInput } from '../src/models/types';
import { TRANSFORMER_SIZES, TransformerSize } from '../src/models/transformer';
import { initBackend, loadTf } from '../src/tf/backend';
import { createModel, ModelDims } from '../src/train/models';
import { Optimizer } from '../src/train/optimizers';
import { localGradients, Replicas, StepGradients, StepTiming } from '../src/train/parallel';
import { BatchTensors, objectiveCounts, objectiveLoss, TrainConfig } from '../src/train/trainer';
import { seededRandom } from '../src/util/random';

const BATCH = 32;
const TOKENS = 20;
const POSITIONS = 17;
const VISUAL_DIM = 128;
const GEOMETRY_DIM = 5;
const VOCAB = 2000;

interface Shape {
  encoderLayers: number;
  decoderLayers: number;
  dModel: number;
  ffn: number;
}

/**
 * Forward matmul FLOPs of one step on the benchmark batch (B rows, T decoder tokens, S encoder
 * positions, width d, FFN width f, vocabulary V); the step is 3× this.
 */
export function forwardFlops(s: Shape, B = BATCH, T = TOKENS, S = POSITIONS, V = VOCAB, Dv = VISUAL_DIM, G = GEOMETRY_DIM): number {
  const d = s.dModel;
  const f = s.ffn;
  const mm = (m: number, k: number, n: number): number => 2 * m * k * n;
  const input = mm(B * S, Dv, d) + mm(B * S, G, d);
  // self-attention over L positions of rows attending to L keys: QKV, scores, probs·V, output
  const selfAttn = (L: number): number => mm(B * L, d, 3 * d) + 2 * mm(B * L, d, L) + mm(B * L, d, d);
  const crossAttn = mm(B * T, d, d) + mm(B * S, d, 2 * d) + 2 * mm(B * T, d, S) + mm(B * T, d, d);
  const ffnOf = (L: number): number => mm(B * L, d, f) + mm(B * L, f, d);
  const encoder = s.encoderLayers * (selfAttn(S) + ffnOf(S));
  const decoder = s.decoderLayers * (selfAttn(T) + crossAttn + ffnOf(T));
  const output = mm(B * T, d, V);
  return input + encoder + decoder + output;
}

export function stepFlops(s: Shape): number {
  return 3 * forwardFlops(s);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** The benchmark batch, built as the trainer builds one (BOS + caption in, caption + EOS out). */
function syntheticBatch(tf: typeof TF): BatchTensors {
  const r = seededRandom(2);
  const words = Array.from({ length: BATCH }, () => Array.from({ length: TOKENS }, () => 5 + Math.floor(r() * (VOCAB - 5))));
  const input: EncoderInput = {
    visual: tf.tensor3d(Float32Array.from({ length: BATCH * POSITIONS * VISUAL_DIM }, r), [BATCH, POSITIONS, VISUAL_DIM]),
    geometry: tf.tensor3d(Float32Array.from({ length: BATCH * POSITIONS * GEOMETRY_DIM }, r), [BATCH, POSITIONS, GEOMETRY_DIM]),
    visualMask: tf.ones([BATCH, POSITIONS]) as TF.Tensor2D,
  };
  return {
    input,
    tokensIn: tf.tensor2d(
      words.map((w) => [1, ...w.slice(0, -1)]),
      undefined,
      'int32',
    ),
    targets: tf.tensor2d(
      words.map((w) => [...w.slice(0, -1), 2]),
      undefined,
      'int32',
    ),
    captionTokens: tf.tensor2d(
      words.map((w) => w.slice(0, -1)),
      undefined,
      'int32',
    ),
  };
}

function benchConfig(size: TransformerSize): TrainConfig {
  return {
    seed: 1,
    model: { kind: 'transformer', size },
    data: { train: [], maxCaptionLen: TOKENS - 1 },
    vocab: { minCount: 1 },
    objectives: { ic: 1 },
    optimizer: { name: 'adam', lr: 1e-4 },
    batchSize: BATCH,
    checkpointEvery: Number.MAX_SAFE_INTEGER,
  };
}

interface TfjsResult {
  ms: number;
  times: number[];
  params: number;
  /** Multi-replica steps: medians of where the time went. */
  timing?: StepTiming;
}

/** Median ms of the trainer's step (gradients on `workers` replicas, then Adam) on the fixed batch. */
async function timeTfjs(size: TransformerSize, workers: number, steps: number, warmup: number, backend: string, profile: boolean): Promise<TfjsResult> {
  const tf = loadTf();
  const config = benchConfig(size);
  const dims: ModelDims = { vocabSize: VOCAB, visualDim: VISUAL_DIM, geometryDim: GEOMETRY_DIM, mocClasses: 0, seed: 1 };
  const model = createModel(config.model, dims);
  const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
  const params = [...variables.values()].reduce((n, v) => n + v.size, 0);
  const optimizer = new Optimizer(config.optimizer, variables);
  const batch = syntheticBatch(tf);
  const loss = (t: BatchTensors, parts: Record<string, TF.Scalar>, scales?: Record<string, number>) =>
    objectiveLoss(tf, model, undefined, t, config, parts, scales);
  const replicas =
    workers > 1
      ? await Replicas.start<BatchTensors, TrainConfig>({
          workers,
          variables,
          model: config.model,
          dims,
          lossConfig: config,
          lossModule: require.resolve('../src/train/trainer'),
          lossFactory: 'replicaLoss',
          backend: backend as 'wasm',
          loss,
          counts: objectiveCounts,
        })
      : undefined;
  const timings: StepTiming[] = [];
  const step = async (i: number): Promise<number> => {
    const t0 = performance.now();
    model.setDropoutStep?.(i);
    const { grads, timing }: StepGradients = replicas ? await replicas.gradients(i, batch) : localGradients(variables, (parts) => loss(batch, parts));
    if (timing && i >= warmup) timings.push(timing);
    // wasm (and tfjs-node) kernels run synchronously: the new weights exist when apply returns
    optimizer.apply(grads, 1e-4);
    return performance.now() - t0;
  };
  try {
    for (let i = 0; i < warmup; i++) await step(i);
    const times: number[] = [];
    for (let i = 0; i < steps; i++) times.push(await step(warmup + i));
    if (profile && workers === 1) await profileStep(tf, () => step(warmup + steps));
    const timing = timings.length
      ? {
          send: median(timings.map((t) => t.send)),
          local: median(timings.map((t) => t.local)),
          wait: median(timings.map((t) => t.wait)),
          combine: median(timings.map((t) => t.combine)),
          workers: timings[0]!.workers.map((_, w) => median(timings.map((t) => t.workers[w]!))),
        }
      : undefined;
    return { ms: median(times), times, params, timing };
  } finally {
    await replicas?.close();
    optimizer.dispose();
    model.dispose();
    tf.dispose([batch.input.visual, batch.input.geometry!, batch.input.visualMask, batch.tokensIn, batch.targets, batch.captionTokens]);
  }
}

/** Kernel time by kernel name for one step (tf.profile), against the step's wall time. */
async function profileStep(tf: typeof TF, run: () => Promise<number>): Promise<void> {
  tf.env().set('CHECK_COMPUTATION_FOR_ERRORS', false);
  let wall = 0;
  const info = await tf.profile(async () => {
    wall = await run();
  });
  const byKernel = new Map<string, { ms: number; calls: number }>();
  for (const k of info.kernels) {
    const e = byKernel.get(k.name) ?? { ms: 0, calls: 0 };
    e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    e.calls++;
    byKernel.set(k.name, e);
  }
  const kernelMs = [...byKernel.values()].reduce((s, e) => s + e.ms, 0);
  const calls = info.kernels.length;
  console.log(`  profile: ${calls} kernel calls, ${kernelMs.toFixed(0)} ms in kernels of a ${wall.toFixed(0)} ms step (profiled); top kernels:`);
  for (const [name, e] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
    console.log(`    ${name.padEnd(22)} ${e.ms.toFixed(1).padStart(8)} ms ${String(e.calls).padStart(5)} calls`);
  }
  const byShape = new Map<string, { ms: number; calls: number }>();
  for (const k of info.kernels) {
    const key = `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join(' ')}`;
    const e = byShape.get(key) ?? { ms: 0, calls: 0 };
    e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    e.calls++;
    byShape.set(key, e);
  }
  console.log('  top kernel calls by input shapes:');
  for (const [key, e] of [...byShape].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20)) {
    console.log(`    ${key.padEnd(60)} ${e.ms.toFixed(1).padStart(8)} ms ${String(e.calls).padStart(5)} calls`);
  }
}

interface TorchResult {
  ms: number;
  params: number;
  threads: number;
  torch: string;
}

function torchScript(): string {
  for (const p of [path.join(__dirname, 'torch_step.py'), path.join(__dirname, '..', '..', 'bench', 'torch_step.py')]) if (fs.existsSync(p)) return p;
  throw new Error('bench/torch_step.py not found');
}

/** Runs the PyTorch peer; undefined (with the reason printed once) when torch is missing. */
function timeTorch(size: TransformerSize, threads: number, steps: number, warmup: number): TorchResult | string {
  const python = process.env.CCKIT_PYTHON ?? '/usr/bin/python3';
  const args = [
    torchScript(),
    '--preset',
    size,
    '--threads',
    String(threads),
    '--steps',
    String(steps),
    '--warmup',
    String(warmup),
    '--batch',
    String(BATCH),
    '--tokens',
    String(TOKENS),
    '--positions',
    String(POSITIONS),
    '--visual-dim',
    String(VISUAL_DIM),
    '--geometry-dim',
    String(GEOMETRY_DIM),
    '--vocab',
    String(VOCAB),
  ];
  // the thread count is set in the script; keep OpenMP from pinning or spinning beyond it
  const out = spawnSync(python, args, { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: String(threads), MKL_NUM_THREADS: String(threads) } });
  if (out.error) return `${python}: ${out.error.message}`;
  if (out.status !== 0) {
    if (/No module named ['"]?torch/.test(out.stderr))
      return `PyTorch is not installed for ${python} (Debian: apt-get install -y python3-torch); skipping the comparison`;
    return `torch_step.py failed: ${out.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  }
  return JSON.parse(out.stdout.trim().split('\n').at(-1)!) as TorchResult;
}

async function main(): Promise<void> {
  const presets = arg('presets', 'tiny,small').split(',') as TransformerSize[];
  const steps = Number(arg('steps', '7'));
  const warmup = Number(arg('warmup', '2'));
  const workerCounts = arg('workers', '1,2').split(',').map(Number);
  const withTorch = !process.argv.includes('--no-torch');
  const profile = process.argv.includes('--profile');
  const info = await initBackend({ logger: () => {} });
  console.log(
    `training step: batch ${BATCH}, ${TOKENS} caption tokens, ${POSITIONS} visual positions × ${VISUAL_DIM} (+${GEOMETRY_DIM} geometry), vocabulary ${VOCAB}, IC loss, Adam`,
  );
  console.log(
    `tfjs ${info.name} ${info.version} (${info.threads} thread per replica); median of ${steps} steps after ${warmup} warm-up; FLOPs = 3 × Σ 2·m·n·k over the forward matmuls`,
  );
  let torchNote: string | undefined;
  for (const size of presets) {
    const shape = TRANSFORMER_SIZES[size];
    if (!shape) throw new Error(`unknown preset ${size}`);
    const flops = stepFlops(shape);
    console.log(
      `\n${size}: d ${shape.dModel}, ffn ${shape.ffn}, ${shape.encoderLayers}+${shape.decoderLayers} layers; ${(flops / 1e9).toFixed(2)} GFLOP per step`,
    );
    const rows: { label: string; ms: number }[] = [];
    let params = 0;
    for (const workers of workerCounts) {
      const r = await timeTfjs(size, workers, steps, warmup, info.name, profile);
      params = r.params;
      rows.push({ label: `tfjs-${info.name}, ${workers} replica${workers === 1 ? '' : 's'}`, ms: r.ms });
      console.log(
        `  ${rows.at(-1)!.label.padEnd(26)} ${r.ms.toFixed(0).padStart(6)} ms/step ${((BATCH * 1000) / r.ms).toFixed(1).padStart(7)} samples/s ${(flops / r.ms / 1e6).toFixed(1).padStart(6)} GFLOP/s   [${r.times.map((t) => t.toFixed(0)).join(' ')}]`,
      );
      const t = r.timing;
      if (t)
        console.log(
          `    (medians, ms: send ${t.send.toFixed(0)}, shard 0 here ${t.local.toFixed(0)}, then waiting ${t.wait.toFixed(0)}, combine ${t.combine.toFixed(0)}; worker shards ${t.workers.map((w) => w.toFixed(0)).join(', ')}; the rest is Adam)`,
        );
    }
    const bestTfjs = Math.min(...rows.map((r) => r.ms));
    if (!withTorch || torchNote) continue;
    for (const threads of [1, 2]) {
      const t = timeTorch(size, threads, steps, warmup);
      if (typeof t === 'string') {
        torchNote = t;
        console.log(`  ${t}`);
        break;
      }
      if (t.params !== params) console.log(`  WARNING: PyTorch model has ${t.params} parameters, tfjs ${params}`);
      console.log(
        `  ${`torch ${t.torch}, ${t.threads} thread${t.threads === 1 ? '' : 's'}`.padEnd(26)} ${t.ms.toFixed(0).padStart(6)} ms/step ${((BATCH * 1000) / t.ms).toFixed(1).padStart(7)} samples/s ${(flops / t.ms / 1e6).toFixed(1).padStart(6)} GFLOP/s   ratio (best tfjs ÷ torch samples/s) ${(t.ms / bestTfjs).toFixed(2)}`,
      );
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
