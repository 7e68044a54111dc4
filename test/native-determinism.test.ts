/**
 * The native kernels' determinism promise (native/sgemm.h, native/ops.h): every kernel path this CPU
 * has (portable, avx2, avx512 on x86-64; portable, neon on arm64) gives the portable path's bits, for
 * the matrix product on random shapes (every transpose, batched, broadcast, bias, ReLU, odd sizes) and
 * for every other native op; cckit's own exp and log stay within a few ulps of the true functions; and a
 * 50-step training run of the real trainer reproduces the committed golden fixture
 * (test/fixtures/golden-train.json: the sha256 of the weights and the loss curve) on every path.
 *
 * `CCKIT_UPDATE_GOLDEN=1` rewrites the fixture instead of comparing (after a deliberate change to the
 * kernels or the trainer; say why in the commit). Skipped where the addon is not built, unless
 * CCKIT_NATIVE=required (CI), where a missing addon fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { readLog } from '../src/runs/layout';
import { BACKEND_ENV_VAR } from '../src/tf/backend';
import { KERNEL_PATH_ENV_VAR, KernelPath, loadNativeAddon, NativeAddon } from '../src/tf/native-kernels';
import { latestCheckpoint } from '../src/train/checkpoint';
import { train } from '../src/train/trainer';
import { seededRandom } from '../src/util/random';
import { syntheticConfig, syntheticVisual, writeSyntheticData } from './fixtures/train-synthetic';

let addon: NativeAddon | undefined;
let missing: string | undefined;
try {
  addon = loadNativeAddon();
} catch (e) {
  missing = (e as Error).message;
  if ((process.env.CCKIT_NATIVE ?? '').toLowerCase() === 'required') throw new Error(`CCKIT_NATIVE=required but the native kernels do not load: ${missing}`);
}
const skip = missing ? `native kernels not built: ${missing}` : false;
const paths = (addon?.kernelPaths().split(',') ?? []) as KernelPath[];
const defaultPath = addon?.kernelPath() as KernelPath | undefined;

const GOLDEN = path.join(__dirname, 'fixtures', 'golden-train.json');
const GOLDEN_STEPS = 50;

/** A heap of seeded values in [−scale, scale); the ops index into it by float offsets, as on the wasm heap. */
function seededHeap(floats: number, seed: number, scale = 1): Float32Array {
  const r = seededRandom(seed);
  return Float32Array.from({ length: floats }, () => (r() * 2 - 1) * scale);
}

function bytesOf(a: Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Runs `fn` on every path over a copy of `heap` and requires each result's bytes to equal the portable path's. */
function sameOnEveryPath(what: string, heap: Float32Array, fn: (native: NativeAddon, heap: Float32Array) => void): Float32Array {
  const native = addon!;
  let portable: Float32Array | undefined;
  try {
    for (const p of paths) {
      native.setKernelPath(p);
      const copy = heap.slice();
      fn(native, copy);
      if (!portable) portable = copy;
      else if (!bytesOf(copy).equals(bytesOf(portable))) {
        const i = copy.findIndex((v, j) => !Object.is(v, portable![j]));
        assert.fail(`${what}: ${p} differs from portable at float ${i}: ${copy[i]} vs ${portable[i]}`);
      }
    }
  } finally {
    native.setKernelPath(defaultPath!);
  }
  return portable!;
}

test('this CPU runs more than the portable path (else the comparisons below compare nothing)', { skip }, () => {
  assert.ok(paths[0] === 'portable' && paths.length >= 2, `paths: ${paths.join(', ')}`);
  const forced = process.env[KERNEL_PATH_ENV_VAR];
  assert.equal(defaultPath, forced || paths.at(-1), forced ? `${KERNEL_PATH_ENV_VAR} chose the path` : 'the fastest supported path is the default');
});

test('gemm: every transpose, batched and broadcast, bias and ReLU, odd sizes: the same bits on every path, within the fma error bound', { skip }, () => {
  const r = seededRandom(11);
  const sizes = [1, 7, 33, 255, 2, 16, 31, 64];
  const pick = () => sizes[Math.floor(r() * sizes.length)]!;
  const cases: [number, number, number][] = [
    [1, 1, 1],
    [7, 33, 255],
    [255, 7, 33],
    [33, 255, 7],
    [1, 255, 7],
    [255, 1, 33],
    [13, 40, 700], // K longer than one K block: the block boundary continues the accumulators
  ];
  for (let i = 0; i < 10; i++) cases.push([pick(), pick(), pick()]);
  let checked = 0;
  for (const [m, n, k] of cases) {
    for (const transA of [0, 1]) {
      for (const transB of [0, 1]) {
        const batch = 1 + Math.floor(r() * 3);
        const broadcast = Math.floor(r() * 3); // 0 none, 1 A shared over the batch, 2 B shared
        const aStride = broadcast === 1 ? 0 : m * k;
        const bStride = broadcast === 2 ? 0 : k * n;
        const withBias = r() < 0.5;
        const relu = r() < 0.5 ? 1 : 0;
        const aOff = 0;
        const bOff = aOff + m * k * batch;
        const biasOff = bOff + k * n * batch;
        const cOff = biasOff + n;
        const heap = seededHeap(cOff + m * n * batch, 100 + checked);
        heap.fill(NaN, cOff); // every output must be written
        const what = `gemm ${batch}×(${m}×${k})${transA ? 'ᵀ' : ''}·(${k}×${n})${transB ? 'ᵀ' : ''} broadcast ${broadcast} bias ${withBias} relu ${relu}`;
        const out = sameOnEveryPath(what, heap, (native, h) =>
          native.gemm(h, batch, m, n, k, transA, transB, aOff, aStride, bOff, bStride, cOff, withBias ? biasOff : -1, relu),
        );
        // float64 reference; a chain of k fused multiply-adds errs by at most γ(k)·Σ|a·b| (+ the bias add's half ulp)
        for (let b = 0; b < batch; b++) {
          for (let i = 0; i < m; i++) {
            for (let j = 0; j < n; j++) {
              let sum = 0;
              let magnitude = 0;
              for (let p = 0; p < k; p++) {
                const a = heap[aOff + b * aStride + (transA ? p * m + i : i * k + p)]!;
                const bv = heap[bOff + b * bStride + (transB ? j * k + p : p * n + j)]!;
                sum += a * bv;
                magnitude += Math.abs(a * bv);
              }
              if (withBias) sum += heap[biasOff + j]!;
              if (relu) sum = Math.max(0, sum);
              const got = out[cOff + b * m * n + i * n + j]!;
              const bound = (k + 1) * 2 ** -24 * (magnitude + Math.abs(sum)) + 1e-30;
              assert.ok(Math.abs(got - sum) <= bound, `${what} [${b}, ${i}, ${j}]: ${got} vs ${sum} (bound ${bound})`);
            }
          }
        }
        checked++;
      }
    }
  }
  assert.equal(checked, cases.length * 4);
});

test('threads split the columns of a large product and change no bit', { skip }, () => {
  const native = addon!;
  const [m, n, k] = [150, 301, 97]; // 4.4 M multiply-adds: above the threshold for threads
  const heap = seededHeap(m * k + k * n + n + m * n, 21);
  const run = (threads: number) => {
    const h = heap.slice();
    native.setThreads(threads);
    try {
      native.gemm(h, 1, m, n, k, 0, 1, 0, 0, m * k, 0, m * k + k * n + n, m * k + k * n, 1);
    } finally {
      native.setThreads(1);
    }
    return bytesOf(h);
  };
  const one = run(1);
  for (const threads of [2, 3, 64]) assert.ok(run(threads).equals(one), `${threads} threads`);
  assert.equal(native.getThreads(), 1);
});

test(
  'softmax, softmax cross-entropy, LayerNorm, their gradients, Adam, Adagrad, sums, segment sums, bias+ReLU, dropout: the same bits on every path',
  { skip },
  () => {
    for (const [rows, width] of [
      [1, 1],
      [3, 7],
      [5, 33],
      [4, 255],
      [2, 2000],
    ] as const) {
      const size = rows * width;
      const xOff = 0;
      const labelsOff = size;
      const gOff = labelsOff + rows;
      const bOff = gOff + width;
      const outOff = bOff + width;
      const heap = seededHeap(outOff + 8 * size + 8 * rows + 4 * width, rows * 1000 + width, 3);
      const labels = new Int32Array(heap.buffer, labelsOff * 4, rows);
      for (let r = 0; r < rows; r++) labels[r] = r === rows - 1 ? -1 : (r * 7) % width; // the last row masked
      const lossOff = outOff;
      const lseOff = lossOff + rows;
      const dyOff = lseOff + rows;
      const dxOff = dyOff + rows;
      for (const smoothing of [0, 0.1]) {
        const out = sameOnEveryPath(`softmax CE ${rows}×${width} s=${smoothing}`, heap, (n, h) => {
          n.softmaxCrossEntropy(h, xOff, labelsOff, rows, width, smoothing, lossOff, lseOff);
          n.softmaxCrossEntropyGrad(h, xOff, labelsOff, lseOff, dyOff, rows, width, smoothing, dxOff);
        });
        // the loss is log-sum-exp minus the label's logit: check one row against float64
        const row0 = Array.from(heap.subarray(0, width));
        const lse = Math.log(row0.reduce((s, v) => s + Math.exp(v), 0));
        const mean = row0.reduce((s, v) => s + v, 0) / width;
        const label = labels[0]!;
        const expected = (1 - smoothing) * (label >= 0 ? lse - row0[label]! : 0) + smoothing * (lse - mean);
        assert.ok(Math.abs(out[lossOff]! - expected) <= 1e-5 * Math.max(1, Math.abs(expected)), `softmax CE loss ${out[lossOff]} vs ${expected}`);
      }
      const yOff = outOff;
      const meanOff = yOff + size;
      const rstdOff = meanOff + rows;
      const dyLnOff = rstdOff + rows;
      const dxLnOff = dyLnOff + size;
      const dgOff = dxLnOff + size;
      const dbOff = dgOff + width;
      sameOnEveryPath(`layer norm ${rows}×${width}`, heap, (n, h) => {
        n.layerNorm(h, xOff, gOff, bOff, rows, width, 1e-5, yOff, meanOff, rstdOff);
        n.layerNormGrad(h, xOff, gOff, meanOff, rstdOff, dyLnOff, rows, width, dxLnOff, dgOff, dbOff);
      });
      const wOff = outOff;
      const mOff = wOff + size;
      const vOff = mOff + size;
      const gradOff = vOff + size;
      for (let i = 0; i < size; i++) heap[vOff + i] = Math.abs(heap[vOff + i]!); // Adam's second moment is non-negative
      sameOnEveryPath(`adam ${size}`, heap, (n, h) => {
        for (let step = 0; step < 3; step++) n.adam(h, size, wOff, mOff, vOff, gradOff, 0.9, 0.999, 1e-3, 1e-8);
      });
      sameOnEveryPath(`adagrad ${size}`, heap, (n, h) => {
        for (let step = 0; step < 3; step++) n.adagrad(h, size, wOff, vOff, gradOff, 0.05, 1e-7);
      });
      sameOnEveryPath(`sums ${rows}×${width}`, heap, (n, h) => {
        n.sumOuter(h, xOff, rows, width, outOff);
        n.sumInner(h, xOff, rows, width, outOff + width);
      });
      const ids = new Int32Array(heap.buffer, labelsOff * 4, rows);
      for (let r = 0; r < rows; r++) ids[r] = r === 1 ? 99 : r % 2; // 99: out of range, dropped
      sameOnEveryPath(`segment sum ${rows}×${width}`, heap, (n, h) => n.unsortedSegmentSum(h, xOff, labelsOff, rows, width, 2, outOff));
      sameOnEveryPath(`bias + relu ${rows}×${width}`, heap, (n, h) => n.biasActivation(h, xOff, rows, width, gOff, 1));
      sameOnEveryPath(`softmax ${rows}×${width}`, heap, (n, h) => n.softmax(h, xOff, rows, width, outOff));
      sameOnEveryPath(`dropout ${size}`, heap, (n, h) => n.dropout(h, xOff, size, 0.1, 7, outOff, outOff + size));
    }
  },
);

/** Distance in units in the last place between two float32 values of one sign. */
function ulps(a: number, b: number): number {
  const f = new Float32Array([a, b]);
  const i = new Int32Array(f.buffer);
  return Math.abs(i[0]! - i[1]!);
}

test("cckit's exp and log: the same bits on every path, within 2 ulps of the true functions, edge cases exact", { skip }, () => {
  const count = 200000;
  const r = seededRandom(5);
  const x = Float32Array.from({ length: count }, (_, i) => (i < count / 2 ? (r() * 2 - 1) * 100 : Math.exp((r() * 2 - 1) * 80)));
  const heap = new Float32Array(3 * count);
  heap.set(x);
  const out = sameOnEveryPath('exp/log', heap, (n, h) => n.expLog(h.subarray(0, count), h.subarray(count, 2 * count), h.subarray(2 * count)));
  let worstExp = 0;
  let worstLog = 0;
  for (let i = 0; i < count; i++) {
    const e = Math.fround(Math.exp(x[i]!));
    if (e > 1.2e-38 && Number.isFinite(e)) worstExp = Math.max(worstExp, ulps(out[count + i]!, e)); // normal results
    if (x[i]! > 0) worstLog = Math.max(worstLog, ulps(out[2 * count + i]!, Math.fround(Math.log(x[i]!))));
  }
  assert.ok(worstExp <= 2, `exp: ${worstExp} ulps at worst`);
  assert.ok(worstLog <= 2, `log: ${worstLog} ulps at worst`);
  const edge = Float32Array.from([0, -0, 1, Infinity, -Infinity, NaN, -200, 100, -1]);
  const e = new Float32Array(edge.length);
  const l = new Float32Array(edge.length);
  addon!.expLog(edge, e, l);
  assert.deepEqual(Array.from(e.subarray(0, 8)), [1, 1, Math.fround(Math.E), Infinity, 0, NaN, 0, Infinity]);
  assert.deepEqual(Array.from(l), [-Infinity, -Infinity, 0, Infinity, NaN, NaN, NaN, Math.fround(Math.log(100)), NaN]);
});

test('CCKIT_KERNEL_PATH forces a path (reported by kernelPath); an unknown one fails the load, naming it', { skip }, () => {
  const load = (value: string) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `try { console.log(require('./src/tf/native-kernels').loadNativeAddon().kernelPath()); } catch (e) { console.log(e.message); }`,
      ],
      { cwd: path.join(__dirname, '..'), encoding: 'utf8', env: { ...process.env, [KERNEL_PATH_ENV_VAR]: value } },
    ).stdout.trim();
  for (const p of paths) assert.equal(load(p), p);
  assert.match(load('sse9'), /CCKIT_KERNEL_PATH=sse9: unknown kernel path \(this CPU runs: portable/);
  const foreign = process.arch === 'arm64' ? 'avx2' : 'neon';
  assert.match(load(foreign), new RegExp(`CCKIT_KERNEL_PATH=${foreign}: not supported by this CPU or build`));
});

interface Golden {
  what: string;
  command: string;
  steps: number;
  weightsSha256: string;
  losses: number[];
}

/** The synthetic trainer run (test/fixtures/train-synthetic.ts) for GOLDEN_STEPS steps on one kernel path. */
async function goldenRun(kernelPath: KernelPath, root: string): Promise<{ weightsSha256: string; losses: number[] }> {
  const data = writeSyntheticData(path.join(root, 'data'), 64);
  addon!.setKernelPath(kernelPath);
  const saved = process.env[BACKEND_ENV_VAR];
  process.env[BACKEND_ENV_VAR] = 'wasm-native';
  try {
    const run = await train(syntheticConfig(data.tsv, data.coco, { steps: GOLDEN_STEPS }), {
      runsRoot: path.join(root, 'runs'),
      visual: syntheticVisual(),
      logger: () => {},
    });
    const checkpoint = latestCheckpoint(run.dir);
    assert.ok(checkpoint, 'the run wrote a checkpoint');
    const weights = fs.readFileSync(path.join(checkpoint, 'weights.bin'));
    const losses = readLog(run.dir)
      .filter((l) => l.loss)
      .map((l) => l.loss!.total!);
    assert.equal(losses.length, GOLDEN_STEPS);
    return { weightsSha256: crypto.createHash('sha256').update(weights).digest('hex'), losses };
  } finally {
    addon!.setKernelPath(defaultPath!);
    if (saved === undefined) delete process.env[BACKEND_ENV_VAR];
    else process.env[BACKEND_ENV_VAR] = saved;
  }
}

test(`golden: ${GOLDEN_STEPS} steps of the synthetic trainer run give the committed weights sha256 and loss curve on every path`, { skip }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-golden-'));
  try {
    const results = new Map<KernelPath, { weightsSha256: string; losses: number[] }>();
    // the default (fastest) path first, then the others: each must give the same bits
    for (const p of [defaultPath!, ...paths.filter((q) => q !== defaultPath)]) results.set(p, await goldenRun(p, path.join(tmp, p)));
    const first = results.get(defaultPath!)!;
    if (process.env.CCKIT_UPDATE_GOLDEN === '1') {
      const golden: Golden = {
        what: `the synthetic trainer run of test/fixtures/train-synthetic.ts (syntheticConfig, steps ${GOLDEN_STEPS}) on the wasm-native backend: sha256 of the last checkpoint's weights.bin and the total loss of every step`,
        command: 'CCKIT_UPDATE_GOLDEN=1 node --test --import tsx test/native-determinism.test.ts',
        steps: GOLDEN_STEPS,
        ...first,
      };
      fs.writeFileSync(GOLDEN, JSON.stringify(golden, null, 2) + '\n');
    }
    const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Golden;
    for (const [p, result] of results) {
      assert.deepEqual(result.losses, golden.losses, `${p}: the loss curve to the last bit`);
      assert.equal(result.weightsSha256, golden.weightsSha256, `${p}: the weights to the last bit`);
    }
    assert.ok(golden.losses.at(-1)! < golden.losses[0]! * 0.5, `the golden run learns (${golden.losses[0]} → ${golden.losses.at(-1)})`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
