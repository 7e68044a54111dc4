/**
 * Training speed of the TransformerCaptioner (tiny and small presets): ms, CPU ms, samples/s and
 * achieved GFLOP/s of one step (forward + backward + Adam) through the trainer's own step code, for
 * tfjs with cckit's native kernels (its own SGEMM on 1 or 2 threads, or 2 data-parallel replicas; and, where
 * `CCKIT_NATIVE_OPENBLAS=1 npm run build:native` built it, the same addon with its matrix products on
 * OpenBLAS, for comparison), tfjs wasm
 * as shipped with cckit's wasm kernels, and the PyTorch peer (bench/torch_step.py, same
 * architecture, batch and sequence length; a persistent child process on 1 or 2 threads).
 *
 * Interleaved: every round runs one step of every variant, in an order that rotates from round to
 * round, so load on the shared machine falls on all of them alike; medians over the rounds.
 *
 * Fixed synthetic batch: 32 images × 17 visual positions (global + 16 regions) of width 128 plus
 * 5 geometry numbers, 20 caption tokens per row (no padding), vocabulary 2,000, IC loss, dropout
 * as in the preset (0.1). Median of `steps` timed steps after `warmup` untimed ones.
 *
 * FLOPs (analytic, matmuls only): F = Σ 2·m·n·k over the forward pass's matrix products, and a
 * step counts 3·F (the backward pass's two products per forward product). See `stepFlops`.
 *
 */
import { ChildProcessWithoutNullStreams, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as readline from 'readline';

import type * as TF from '@tensorflow/tfjs';

import { EncoderInput } from '../src/models/types';
import { TRANSFORMER_SIZES, TransformerSize } from '../src/models/transformer';
import { BACKEND_ENV_VAR, initBackend, loadTf } from '../src/tf/backend';
import { loadOpenBlasComparison, NativeAddon, nativeKernelsInfo, useNativeKernels } from '../src/tf/native-kernels';
import { captionerStepFlops } from '../src/models/transformer';
import { createModel, ModelDims } from '../src/train/models';
import { Optimizer } from '../src/train/optimizers';
import { localGradients, Replicas, StepGradients } from '../src/train/parallel';
import { BatchTensors, objectiveCounts } from '../src/train/objectives';
import { replicaLoss, TrainConfig } from '../src/train/trainer';
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

/** Matrix-product FLOPs of one step on the benchmark batch (the library's count, forward and backward). */
export function stepFlops(s: Shape): number {
  return captionerStepFlops(s, { batch: BATCH, tokens: TOKENS, positions: POSITIONS, vocab: VOCAB, visualDim: VISUAL_DIM, geometryDim: GEOMETRY_DIM });
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

interface StepTime {
  ms: number;
  cpuMs: number;
}

/** One contender: steps on demand, each timed in wall and CPU time. */
interface Variant {
  key: string;
  label: string;
  params: number;
  step(i: number): Promise<StepTime>;
  /** One profiled step (tfjs variants). */
  profile?(i: number): Promise<void>;
  close(): Promise<void>;
}

type VariantKey = 'native' | 'openblas' | 'native-2t' | 'replicas-2' | 'wasm' | 'torch' | 'torch-2t';
const ALL_VARIANTS: VariantKey[] = ['native', 'openblas', 'native-2t', 'replicas-2', 'wasm', 'torch', 'torch-2t'];

/**
 * A tfjs contender: its own model (same seed, so the same weights as the others), its kernels
 * selected before each of its steps (native with `threads` threads, on `addon` when given, or wasm
 * alone), and `workers` data-parallel replicas.
 */
async function tfjsVariant(key: VariantKey, size: TransformerSize, native: boolean, threads: number, workers: number, addon?: NativeAddon): Promise<Variant> {
  const tf = loadTf();
  const config = benchConfig(size);
  const dims: ModelDims = { vocabSize: VOCAB, visualDim: VISUAL_DIM, geometryDim: GEOMETRY_DIM, mocClasses: 0, seed: 1 };
  const model = createModel(config.model, dims);
  const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
  const params = [...variables.values()].reduce((n, v) => n + v.size, 0);
  const optimizer = new Optimizer(config.optimizer, variables);
  const batch = syntheticBatch(tf);
  // the trainer's own loss (the one its data-parallel replicas use)
  const loss = replicaLoss(model, config);
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
          backend: native ? 'wasm-native' : 'wasm',
          loss,
          counts: objectiveCounts,
        })
      : undefined;
  const run = async (i: number): Promise<number> => {
    useNativeKernels(native, threads, addon);
    const t0 = performance.now();
    model.setDropoutStep?.(i);
    const { grads }: StepGradients = replicas ? await replicas.gradients(i, batch) : localGradients(variables, (parts) => loss(batch, parts));
    // wasm kernels run synchronously: the new weights exist when apply returns
    optimizer.apply(grads, 1e-4);
    return performance.now() - t0;
  };
  const what = native ? `${addon ? 'native, OpenBLAS matmul' : 'native'} ${threads}t` : 'wasm';
  return {
    key,
    label: `tfjs ${what}${workers > 1 ? `, ${workers} replicas` : ''}`,
    params,
    step: async (i) => {
      const cpu0 = process.cpuUsage();
      const ms = await run(i);
      const cpu = process.cpuUsage(cpu0);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
    },
    profile: workers > 1 ? undefined : (i) => profileStep(tf, () => run(i)),
    close: async () => {
      await replicas?.close();
      optimizer.dispose();
      model.dispose();
      tf.dispose([batch.input.visual, batch.input.geometry!, batch.input.visualMask, batch.tokensIn, batch.targets, batch.captionTokens]);
    },
  };
}

/** Kernel time by kernel name (and by input shapes) for one step (tf.profile), against the step's wall time. */
async function profileStep(tf: typeof TF, run: () => Promise<number>): Promise<void> {
  tf.env().set('CHECK_COMPUTATION_FOR_ERRORS', false);
  let wall = 0;
  const info = await tf.profile(async () => {
    wall = await run();
  });
  const tally = (key: (k: (typeof info.kernels)[number]) => string) => {
    const by = new Map<string, { ms: number; calls: number }>();
    for (const k of info.kernels) {
      const e = by.get(key(k)) ?? { ms: 0, calls: 0 };
      e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
      e.calls++;
      by.set(key(k), e);
    }
    return [...by].sort((a, b) => b[1].ms - a[1].ms);
  };
  const byName = tally((k) => k.name);
  const kernelMs = byName.reduce((s, [, e]) => s + e.ms, 0);
  console.log(`  profile: ${info.kernels.length} kernel calls, ${kernelMs.toFixed(0)} ms in kernels of a ${wall.toFixed(0)} ms step (profiled); top kernels:`);
  for (const [name, e] of byName.slice(0, 12)) console.log(`    ${name.padEnd(30)} ${e.ms.toFixed(1).padStart(8)} ms ${String(e.calls).padStart(5)} calls`);
  console.log(
    `    and: ${byName
      .slice(12)
      .map(([name, e]) => `${name} ${e.calls}×`)
      .join(', ')}`,
  );
  console.log('  top kernel calls by input shapes:');
  for (const [key, e] of tally((k) => `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join(' ')}`).slice(0, 16)) {
    console.log(`    ${key.padEnd(64)} ${e.ms.toFixed(1).padStart(8)} ms ${String(e.calls).padStart(5)} calls`);
  }
}

function torchScript(): string {
  for (const p of [path.join(__dirname, 'torch_step.py'), path.join(__dirname, '..', '..', 'bench', 'torch_step.py')]) if (fs.existsSync(p)) return p;
  throw new Error('bench/torch_step.py not found');
}

/** The PyTorch peer as a persistent child stepping on request; a string says why it cannot run. */
async function torchVariant(key: VariantKey, size: TransformerSize, threads: number): Promise<Variant | string> {
  const python = process.env.CCKIT_PYTHON ?? '/usr/bin/python3';
  const args = [torchScript(), '--serve', '--preset', size, '--threads', String(threads), '--batch', String(BATCH), '--tokens', String(TOKENS)];
  args.push('--positions', String(POSITIONS), '--visual-dim', String(VISUAL_DIM), '--geometry-dim', String(GEOMETRY_DIM), '--vocab', String(VOCAB));
  // the thread count is set in the script; keep OpenMP from pinning or spinning beyond it
  const child: ChildProcessWithoutNullStreams = spawn(python, args, {
    env: { ...process.env, OMP_NUM_THREADS: String(threads), MKL_NUM_THREADS: String(threads) },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown> | undefined> => {
    const r = await lines.next();
    return r.done ? undefined : (JSON.parse(r.value) as Record<string, unknown>);
  };
  const spawned = await new Promise<string | undefined>((resolve) => {
    child.once('error', (e) => resolve(`${python}: ${e.message}`));
    child.once('spawn', () => resolve(undefined));
  });
  if (spawned) return spawned;
  const ready = await next();
  if (!ready) {
    await new Promise((r) => child.once('close', r));
    if (/No module named ['"]?torch/.test(stderr))
      return `PyTorch is not installed for ${python} (Debian: apt-get install -y python3-torch); no PyTorch comparison`;
    return `torch_step.py failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
  }
  return {
    key,
    label: `torch ${String(ready.torch)} ${String(ready.threads)}t`,
    params: Number(ready.params),
    step: async () => {
      child.stdin.write('step\n');
      const r = await next();
      if (!r) throw new Error(`torch_step.py ended: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
      return { ms: Number(r.ms), cpuMs: Number(r.cpu_ms) };
    },
    close: async () => {
      child.stdin.end('quit\n');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('close', r)));
    },
  };
}

async function main(): Promise<void> {
  const presets = arg('presets', 'tiny,small').split(',') as TransformerSize[];
  const steps = Number(arg('steps', '9'));
  const warmup = Number(arg('warmup', '2'));
  const keys = arg('variants', ALL_VARIANTS.join(',')).split(',') as VariantKey[];
  for (const k of keys) if (!ALL_VARIANTS.includes(k)) throw new Error(`--variants: unknown ${k} (expected ${ALL_VARIANTS.join(', ')})`);
  const json = process.argv.includes('--json');
  const profile = process.argv.includes('--profile');
  const say = json ? () => {} : (line: string) => console.log(line);
  const info = await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, logger: () => {} });
  const kernels = nativeKernelsInfo().description;
  const openblas = keys.includes('openblas') ? loadOpenBlasComparison() : {};
  if (openblas.why) say(`  no OpenBLAS comparison: ${openblas.why}`);
  say(
    `training step: batch ${BATCH}, ${TOKENS} caption tokens, ${POSITIONS} visual positions × ${VISUAL_DIM} (+${GEOMETRY_DIM} geometry), vocabulary ${VOCAB}, IC loss, Adam`,
  );
  say(
    `tfjs ${info.version} on wasm (${info.threads} thread) with cckit's native kernels (${kernels}) or without; ${steps} interleaved rounds after ${warmup} warm-up, medians; FLOPs = 3 × Σ 2·m·n·k over the forward matmuls`,
  );
  for (const size of presets) {
    const shape = TRANSFORMER_SIZES[size];
    if (!shape) throw new Error(`unknown preset ${size}`);
    const flops = stepFlops(shape);
    say(`\n${size}: d ${shape.dModel}, ffn ${shape.ffn}, ${shape.encoderLayers}+${shape.decoderLayers} layers; ${(flops / 1e9).toFixed(2)} GFLOP per step`);
    const variants: Variant[] = [];
    for (const key of keys) {
      if (key === 'native') variants.push(await tfjsVariant(key, size, true, 1, 1));
      else if (key === 'openblas') {
        if (openblas.addon) variants.push(await tfjsVariant(key, size, true, 1, 1, openblas.addon));
      } else if (key === 'native-2t') variants.push(await tfjsVariant(key, size, true, 2, 1));
      else if (key === 'replicas-2') variants.push(await tfjsVariant(key, size, true, 1, 2));
      else if (key === 'wasm') variants.push(await tfjsVariant(key, size, false, 1, 1));
      else {
        const t = await torchVariant(key, size, key === 'torch' ? 1 : 2);
        if (typeof t === 'string') say(`  ${t}`);
        else variants.push(t);
      }
    }
    const params = variants.find((v) => v.key !== 'torch' && v.key !== 'torch-2t')?.params;
    for (const v of variants) if (params !== undefined && v.params !== params) say(`  WARNING: ${v.label} has ${v.params} parameters, tfjs ${params}`);
    const times = new Map<string, StepTime[]>(variants.map((v) => [v.key, []]));
    try {
      for (let round = 0; round < warmup + steps; round++) {
        for (let j = 0; j < variants.length; j++) {
          const v = variants[(round + j) % variants.length]!;
          const t = await v.step(round);
          if (round >= warmup) times.get(v.key)!.push(t);
        }
      }
      if (profile) for (const v of variants) if (v.profile && v.key === 'native') await v.profile(warmup + steps);
    } finally {
      for (const v of variants) await v.close();
    }
    const med = (key: string) => {
      const t = times.get(key);
      return t && t.length ? { ms: median(t.map((x) => x.ms)), cpuMs: median(t.map((x) => x.cpuMs)) } : undefined;
    };
    const torch = med('torch');
    for (const v of variants) {
      const m = med(v.key)!;
      const viaOpenBlas = med('openblas');
      const ratio =
        (torch ? `  ${(torch.ms / m.ms).toFixed(2)}× torch 1t` : '') +
        (viaOpenBlas && v.key !== 'openblas' ? `  ${(viaOpenBlas.ms / m.ms).toFixed(2)}× OpenBLAS` : '');
      say(
        `  ${v.label.padEnd(26)} ${m.ms.toFixed(0).padStart(6)} ms/step (CPU ${m.cpuMs.toFixed(0).padStart(5)} ms) ${((BATCH * 1000) / m.ms).toFixed(1).padStart(7)} samples/s ${(flops / m.ms / 1e6).toFixed(1).padStart(6)} GFLOP/s${ratio}`,
      );
    }
    if (json) {
      const line: Record<string, unknown> = { preset: size };
      const native = med('native');
      const wasm = med('wasm');
      line.tfjs_native_ms = native?.ms ?? null;
      const viaOpenBlas = med('openblas');
      line.tfjs_openblas_ms = viaOpenBlas?.ms ?? null;
      line.ratio_native_vs_openblas = native && viaOpenBlas ? viaOpenBlas.ms / native.ms : null;
      line.tfjs_wasm_ms = wasm?.ms ?? null;
      line.torch_ms = torch?.ms ?? null;
      line.ratio_native_vs_torch = native && torch ? torch.ms / native.ms : null;
      line.ratio_wasm_vs_torch = wasm && torch ? torch.ms / wasm.ms : null;
      for (const key of ['native-2t', 'replicas-2', 'torch-2t']) {
        const m = med(key);
        if (m) line[`${key.replace(/-/g, '_')}_ms`] = m.ms;
      }
      for (const v of variants) line[`${v.key.replace(/-/g, '_')}_cpu_ms`] = med(v.key)!.cpuMs;
      console.log(JSON.stringify(line));
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
