/**
 * matMul throughput on the wasm backend, GFLOP/s for the four transpose cases of a 640×256 by
 * 256×1024 product (the shapes of a dense layer's forward and backward passes), with
 * tfjs-backend-wasm's own BatchMatMul ("before") and with cckit's wrapper that transposes the
 * operand explicitly ("after", src/tf/wasm-kernels.ts), and with cckit's native kernels (OpenBLAS
 * on the wasm heap, src/tf/native-kernels.ts, where the addon is built). Medians of several timed runs.
 *
 * Run: npm run bench:matmul -- [M K N] [runs]   (or npx tsx bench/matmul.ts …)
 */
import * as tf from '@tensorflow/tfjs';
import { initBackend, BACKEND_ENV_VAR } from '../src/tf/backend';
import { loadNativeAddon, useNativeKernels } from '../src/tf/native-kernels';
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

async function main(): Promise<void> {
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
