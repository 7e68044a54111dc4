/**
 * matMul throughput on the wasm backend, GFLOP/s for the four transpose cases of a 640×256 by
 * 256×1024 product (the shapes of a dense layer's forward and backward passes), with
 * tfjs-backend-wasm's own BatchMatMul ("before") and with cckit's wrapper that transposes the
 * operand explicitly ("after", src/tf/wasm-kernels.ts), and with cckit's native kernels (its own SGEMM
 * on the wasm heap, src/tf/native-kernels.ts, where the addon is built). Medians of several timed runs.
 *
 * Run: npm run bench:matmul -- [M K N] [runs]   (or npx tsx bench/matmul.ts …)
 *
 * `--step tiny|small`: every matrix product of one training step of that preset (bench/train.ts's batch:
 * the forward products and, per product, the backward pass's dA = dC·Bᵀ and dB = Aᵀ·dC) straight on the
 * addon, GFLOP/s of each kernel path this CPU has and of the OpenBLAS comparison build (where
 * `CCKIT_NATIVE_OPENBLAS=1 npm run build:native` made it), interleaved, medians; and the share of a
 * nominal peak: lanes × 2 FMA pipes × 2 flops × `--ghz` (default 2.45, the issue's figure for this Xeon/EPYC).
 */
import * as tf from '@tensorflow/tfjs';
import { initBackend, BACKEND_ENV_VAR } from '../src/tf/backend';
import { KernelPath, loadNativeAddon, loadOpenBlasComparison, NativeAddon, useNativeKernels } from '../src/tf/native-kernels';
import { TRANSFORMER_SIZES, TransformerSize } from '../src/models/transformer';
import { restoreOriginalMatMul, useFastMatMul } from '../src/tf/wasm-kernels';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function gflops(m: number, k: number, n: number, transposeA: boolean, transposeB: boolean, runs: number): number {
  const a = tf.randomNormal(transposeA ? [k, m] : [m, k]);
  const b = tf.randomNormal(transposeB ? [n, k] : [k, n]);
  const once = (): number => {
    const t0 = performance.now();
    const c = tf.matMul(a, b, transposeA, transposeB);
    c.dataSync();
    const ms = performance.now() - t0;
    c.dispose();
    return ms;
  };
  once(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(once());
  a.dispose();
  b.dispose();
  return (2 * m * k * n) / (median(times) * 1e6);
}

/** The forward matrix products of one training step (bench/train.ts's batch; src/models/transformer.ts's captionerStepFlops), with how often each occurs. */
function stepProducts(size: TransformerSize): { m: number; k: number; n: number; batch: number; count: number; what: string }[] {
  const { dModel: d, ffn: f, heads, encoderLayers, decoderLayers } = TRANSFORMER_SIZES[size];
  const [B, T, S, V, Dv, G] = [32, 20, 17, 2000, 128, 5];
  const h = d / heads;
  const list: { m: number; k: number; n: number; batch: number; count: number; what: string }[] = [];
  const add = (what: string, m: number, k: number, n: number, count: number, batch = 1) => {
    const same = list.find((p) => p.m === m && p.k === k && p.n === n && p.batch === batch);
    if (same) {
      same.count += count;
      same.what += `, ${what}`;
    } else list.push({ m, k, n, batch, count, what });
  };
  add('visual in', B * S, Dv, d, 1);
  add('geometry in', B * S, G, d, 1);
  for (const [L, layers, where] of [
    [S, encoderLayers, 'enc'],
    [T, decoderLayers, 'dec'],
  ] as const) {
    add(`${where} qkv`, B * L, d, 3 * d, layers);
    add(`${where} scores`, L, h, L, layers, B * heads);
    add(`${where} probs·v`, L, L, h, layers, B * heads);
    add(`${where} out`, B * L, d, d, layers);
    add(`${where} ffn up`, B * L, d, f, layers);
    add(`${where} ffn down`, B * L, f, d, layers);
  }
  add('cross q, out', B * T, d, d, 2 * decoderLayers);
  add('cross kv', B * S, d, 2 * d, decoderLayers);
  add('cross scores', T, h, S, decoderLayers, B * heads);
  add('cross probs·v', T, S, h, decoderLayers, B * heads);
  add('vocab', B * T, d, V, 1);
  return list;
}

/** Per-product GFLOP/s of every kernel path and OpenBLAS, interleaved: each round times every contender once. */
function stepBench(size: TransformerSize, rounds: number, ghz: number): void {
  const own = loadNativeAddon();
  const paths = own.kernelPaths().split(',') as KernelPath[];
  const openblas = loadOpenBlasComparison();
  const contenders: { label: string; addon: NativeAddon; path: KernelPath }[] = paths
    .filter((p) => p !== 'portable')
    .map((p) => ({ label: `cckit ${p}`, addon: own, path: p }));
  if (openblas.addon) contenders.push({ label: 'OpenBLAS', addon: openblas.addon, path: paths.at(-1)! });
  else console.log(`no OpenBLAS column: ${openblas.why}`);
  const lanes: Record<string, number> = { avx2: 8, avx512: 16, neon: 4 };
  const peakOf = (p: KernelPath) => (lanes[p] ?? 1) * 2 * 2 * ghz;
  console.log(
    `${size} step products (batch 32, 20 tokens, 17 positions, vocabulary 2000), 1 thread, median of ${rounds} interleaved rounds, GFLOP/s; ` +
      `nominal peak ${paths
        .filter((p) => p !== 'portable')
        .map((p) => `${p} ${peakOf(p).toFixed(1)}`)
        .join(', ')} at ${ghz} GHz`,
  );
  const heap = new Float32Array(1 << 23);
  for (let i = 0; i < heap.length; i++) heap[i] = Math.sin(i) * 0.5;
  for (const c of contenders) c.addon.setThreads(1);
  const header = `${'product'.padEnd(34)} ${'m×k·k×n'.padEnd(22)} ${'case'.padEnd(6)}${contenders.map((c) => c.label.padStart(15)).join('')}`;
  console.log(header);
  const totals = contenders.map(() => 0);
  let totalFlops = 0;
  for (const p of stepProducts(size)) {
    // forward C = A·B, then dA = dC·Bᵀ (m×n · (k×n)ᵀ) and dB = Aᵀ·dC ((m×k)ᵀ · m×n)
    for (const [label, m, k, n, tA, tB] of [
      ['A·B', p.m, p.k, p.n, 0, 0],
      ['dC·Bᵀ', p.m, p.n, p.k, 0, 1],
      ['Aᵀ·dC', p.k, p.m, p.n, 1, 0],
    ] as const) {
      const flops = 2 * m * k * n * p.batch;
      const reps = Math.max(1, Math.round(2e7 / flops));
      const aOff = 0;
      const bOff = 3_000_000;
      const cOff = 6_000_000;
      const times = contenders.map(() => [] as number[]);
      for (let r = 0; r < rounds + 1; r++) {
        contenders.forEach((c, i) => {
          c.addon.setKernelPath(c.path);
          const t0 = performance.now();
          for (let j = 0; j < reps; j++) c.addon.gemm(heap, p.batch, m, n, k, tA, tB, aOff, m * k, bOff, k * n, cOff, -1, 0);
          if (r > 0) times[i]!.push((performance.now() - t0) / reps); // round 0 warms up
        });
      }
      own.setKernelPath(paths.at(-1)!);
      const shape = `${p.batch > 1 ? `${p.batch}×` : ''}${m}×${k}·${k}×${n}`;
      const cells = times.map((t, i) => {
        totals[i]! += median(t) * p.count;
        return ((flops / median(t)) * 1e-6).toFixed(1).padStart(15);
      });
      totalFlops += flops * p.count;
      console.log(`${(label === 'A·B' ? `${p.what} ×${p.count}` : '').slice(0, 34).padEnd(34)} ${shape.padEnd(22)} ${label.padEnd(6)}${cells.join('')}`);
    }
  }
  console.log(
    `${'all products of a step'.padEnd(63)}${totals.map((ms) => `${ms.toFixed(1)} ms`.padStart(15)).join('')}  (${(totalFlops / 1e9).toFixed(2)} GFLOP)`,
  );
  console.log(`${'GFLOP/s over the step'.padEnd(63)}${totals.map((ms) => ((totalFlops / ms) * 1e-6).toFixed(1).padStart(15)).join('')}`);
}

async function main(): Promise<void> {
  const stepAt = process.argv.indexOf('--step');
  if (stepAt >= 0) {
    const size = process.argv[stepAt + 1] as TransformerSize;
    if (!TRANSFORMER_SIZES[size]) throw new Error(`--step: unknown preset ${size}`);
    const roundsAt = process.argv.indexOf('--rounds');
    const ghzAt = process.argv.indexOf('--ghz');
    stepBench(size, roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 9, ghzAt >= 0 ? Number(process.argv[ghzAt + 1]) : 2.45);
    return;
  }
  const args = process.argv.slice(2).map(Number);
  const [m, k, n] = args.length >= 3 ? args : [640, 256, 1024];
  const runs = args[3] ?? 7;
  const info = await initBackend({ env: { ...process.env, [BACKEND_ENV_VAR]: 'wasm' } });
  console.log(`matMul ${m}×${k} · ${k}×${n} on ${info.name} ${info.version} (${info.threads} thread(s)), median of ${runs} runs, GFLOP/s`);
  let native = true;
  try {
    loadNativeAddon();
  } catch (e) {
    native = false;
    console.log(`no native column: ${(e as Error).message}`);
  }
  console.log(`case        before   after${native ? '  native' : ''}`);
  for (const [transposeA, transposeB] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    restoreOriginalMatMul();
    const before = gflops(m, k, n, transposeA, transposeB, runs);
    useFastMatMul();
    const after = gflops(m, k, n, transposeA, transposeB, runs);
    let nativeCell = '';
    if (native) {
      useNativeKernels(true, 1);
      nativeCell = gflops(m, k, n, transposeA, transposeB, runs).toFixed(1).padStart(8);
      useNativeKernels(false);
    }
    const label = `${transposeA ? 'Aᵀ' : 'A'}·${transposeB ? 'Bᵀ' : 'B'}`;
    console.log(`${label.padEnd(10)} ${before.toFixed(1).padStart(7)} ${after.toFixed(1).padStart(7)}${nativeCell}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
