import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { BACKEND_ENV_VAR, initBackend, resetBackendSelection, type BackendName } from '../src/tf/backend';
import { loadNativeAddon } from '../src/tf/native-kernels';
import { ADDED_WASM_KERNELS, originalWasmKernel, registerWasmKernels } from '../src/tf/wasm-kernels';

const quiet = { logger: () => undefined };
const noNative = (id: string): unknown => {
  if (id.startsWith('@tensorflow/tfjs-node')) throw new Error(`Cannot find module '${id}'`);
  return require(id);
};

/** Deterministic values in [-1, 1) (LCG), so cpu and wasm start from the same numbers. */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

async function on<T>(backend: 'cpu' | 'wasm', fn: () => T): Promise<T> {
  if (backend === 'wasm') {
    await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm' }, ...quiet });
  } else {
    await tf.setBackend('cpu');
    await tf.ready();
  }
  assert.equal(tf.getBackend(), backend);
  return tf.tidy(fn as () => tf.TensorContainer) as T;
}

/** Runs `fn` (returning one tensor) on cpu and on wasm and compares the values. */
async function sameOnBoth(fn: () => tf.Tensor, tol = 1e-5): Promise<void> {
  const cpu = await on('cpu', () => fn().arraySync());
  const cpuShape = await on('cpu', () => fn().shape);
  const wasm = await on('wasm', () => fn().arraySync());
  const wasmShape = await on('wasm', () => fn().shape);
  assert.deepEqual(wasmShape, cpuShape);
  const a = [cpu].flat(Infinity as 1) as number[];
  const b = [wasm].flat(Infinity as 1) as number[];
  assert.equal(b.length, a.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= tol * Math.max(1, Math.abs(a[i])), `element ${i}: cpu ${a[i]} wasm ${b[i]}`);
}

test('backend selection: tensorflow first, from tfjs-node-gpu then tfjs-node', async () => {
  resetBackendSelection();
  const required: string[] = [];
  const fakeNative = (id: string): unknown => {
    required.push(id);
    if (id === '@tensorflow/tfjs-node-gpu') throw new Error(`Cannot find module '${id}'`);
    if (id === '@tensorflow/tfjs-node') {
      // stands in for the native package: registers a backend named "tensorflow"
      tf.registerBackend('tensorflow', () => new MathBackendCPU());
      return { version: { 'tfjs-node': '9.9.9' } };
    }
    return noNative(id);
  };
  const lines: string[] = [];
  try {
    const info = await initBackend({ requireFn: fakeNative, logger: (l) => lines.push(l), env: {} });
    assert.equal(info.name, 'tensorflow');
    assert.equal(info.version, '9.9.9');
    assert.deepEqual(required, ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']);
    assert.equal(tf.getBackend(), 'tensorflow');
    assert.equal(lines.length, 1);
    assert.match(lines[0], /backend tensorflow/);
  } finally {
    tf.removeBackend('tensorflow');
    resetBackendSelection();
  }
});

test('backend selection: wasm-native (or wasm without the addon) when no native package, then cpu; idempotent', async () => {
  resetBackendSelection();
  const lines: string[] = [];
  const info = await initBackend({ requireFn: noNative, logger: (l) => lines.push(l), env: {} });
  let addon: string | undefined;
  try {
    loadNativeAddon();
  } catch (e) {
    addon = (e as Error).message;
  }
  assert.equal(info.name, addon ? 'wasm' : 'wasm-native');
  assert.equal(tf.getBackend(), 'wasm');
  assert.ok(info.threads >= 1);
  assert.match(info.version, /^\d+\.\d+\.\d+/);
  assert.deepEqual(
    info.skipped.map((s) => s.name),
    addon ? ['tensorflow', 'wasm-native'] : ['tensorflow'],
  );
  assert.match(info.skipped[0].error, /tfjs-node-gpu.*tfjs-node/);
  const again = await initBackend({ requireFn: noNative, logger: (l) => lines.push(l), env: {} });
  assert.equal(again, info);
  assert.equal(lines.length, 1, 'one log line for one selection');
  if (addon) assert.match(lines[0], /^cckit: tfjs backend wasm .*native kernels: .*not built/);
  else assert.match(lines[0], /^cckit: tfjs backend wasm-native .*native kernels: cckit (portable|avx2|avx512|neon), \d+ threads?/);

  const failingWasm = (id: string): unknown => {
    if (id === '@tensorflow/tfjs-backend-wasm') throw new Error('no wasm here');
    return noNative(id);
  };
  resetBackendSelection();
  const cpu = await initBackend({ requireFn: failingWasm, env: {}, ...quiet });
  assert.equal(cpu.name, 'cpu');
  assert.deepEqual(
    cpu.skipped.map((s) => s.name),
    ['tensorflow', 'wasm-native', 'wasm'],
  );
  resetBackendSelection();
});

test(`${BACKEND_ENV_VAR} overrides the order`, async () => {
  resetBackendSelection();
  for (const name of ['cpu', 'wasm', 'cpu'] as BackendName[]) {
    const info = await initBackend({ env: { [BACKEND_ENV_VAR]: name }, ...quiet });
    assert.equal(info.name, name);
    assert.equal(tf.getBackend(), name);
    assert.deepEqual(info.skipped, []);
  }
  await assert.rejects(initBackend({ env: { [BACKEND_ENV_VAR]: 'tensorflow' }, requireFn: noNative, ...quiet }), new RegExp(`${BACKEND_ENV_VAR}=tensorflow`));
  await assert.rejects(initBackend({ env: { [BACKEND_ENV_VAR]: 'gpu' }, ...quiet }), new RegExp(`${BACKEND_ENV_VAR}=gpu`));
  resetBackendSelection();
});

test('wasm kernels are registered', async () => {
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm' }, ...quiet });
  registerWasmKernels(); // idempotent
  for (const k of ADDED_WASM_KERNELS) assert.ok(tf.getKernel(k, 'wasm'), k);
  assert.notEqual(tf.getKernel('BatchMatMul', 'wasm'), originalWasmKernel('BatchMatMul'));
});

test('UnsortedSegmentSum on wasm matches cpu', async () => {
  await sameOnBoth(() => tf.unsortedSegmentSum(tf.tensor2d(values(7 * 5, 1), [7, 5]), tf.tensor1d([0, 3, 3, 1, 0, 9, 3], 'int32'), 4));
  await sameOnBoth(() => tf.unsortedSegmentSum(tf.tensor1d([1, 2, 3, 4], 'int32'), tf.tensor1d([1, 1, 0, 2], 'int32'), 3));
  // the gradient of gather, as an embedding's backward pass computes it
  await sameOnBoth(() =>
    tf.grad((e: tf.Tensor) => tf.sum(tf.mul(tf.gather(e, tf.tensor1d([2, 0, 2, 5], 'int32')), tf.tensor2d(values(4 * 3, 2), [4, 3]))))(
      tf.tensor2d(values(6 * 3, 3), [6, 3]),
    ),
  );
});

test('Conv2DBackpropFilter on wasm matches cpu', async () => {
  const cases: { x: [number, number, number, number]; f: [number, number, number, number]; stride: number | [number, number]; pad: 'same' | 'valid' }[] = [
    { x: [2, 7, 6, 3], f: [3, 3, 3, 4], stride: 1, pad: 'same' },
    { x: [1, 9, 8, 2], f: [3, 2, 2, 5], stride: [2, 3], pad: 'valid' },
    { x: [2, 8, 8, 2], f: [3, 3, 2, 3], stride: 2, pad: 'same' },
    { x: [3, 5, 5, 6], f: [1, 1, 6, 7], stride: 1, pad: 'valid' },
  ];
  for (const c of cases) {
    await sameOnBoth(() => {
      const x = tf.tensor4d(
        values(
          c.x.reduce((a, b) => a * b),
          4,
        ),
        c.x,
      );
      const f = tf.tensor4d(
        values(
          c.f.reduce((a, b) => a * b),
          5,
        ),
        c.f,
      );
      return tf.grad((w: tf.Tensor) => tf.sum(tf.square(tf.conv2d(x, w as tf.Tensor4D, c.stride, c.pad))))(f);
    });
  }
});

test('depthwise conv2d gradients on wasm match cpu', async () => {
  await sameOnBoth(() => {
    const x = tf.tensor4d(values(2 * 7 * 6 * 3, 6), [2, 7, 6, 3]);
    const f = tf.tensor4d(values(3 * 3 * 3 * 2, 7), [3, 3, 3, 2]);
    const [dx, df] = tf.grads((a: tf.Tensor, w: tf.Tensor) => tf.sum(tf.square(tf.depthwiseConv2d(a as tf.Tensor4D, w as tf.Tensor4D, 2, 'same'))))([x, f]);
    return tf.concat([dx.flatten(), df.flatten()]);
  });
});

test('BatchMatMul on wasm matches cpu for all transposes and batch dims', async () => {
  const shapes: { a: number[]; b: number[] }[] = [
    { a: [5, 7], b: [7, 3] },
    { a: [2, 5, 7], b: [2, 7, 3] },
    { a: [1, 5, 7], b: [3, 7, 4] }, // broadcast batch
    { a: [2, 3, 4, 6], b: [2, 3, 6, 5] },
  ];
  const t = (s: number[], trans: boolean) => (trans ? [...s.slice(0, -2), s[s.length - 1], s[s.length - 2]] : s);
  for (const { a, b } of shapes) {
    for (const transposeA of [false, true]) {
      for (const transposeB of [false, true]) {
        const as = t(a, transposeA);
        const bs = t(b, transposeB);
        await sameOnBoth(() =>
          tf.matMul(
            tf.tensor(
              values(
                as.reduce((x, y) => x * y),
                8,
              ),
              as,
            ),
            tf.tensor(
              values(
                bs.reduce((x, y) => x * y),
                9,
              ),
              bs,
            ),
            transposeA,
            transposeB,
          ),
        );
      }
    }
  }
  // the fused product (dense layers), with bias and activation
  for (const transposeA of [false, true]) {
    for (const transposeB of [false, true]) {
      await sameOnBoth(() =>
        tf.fused.matMul({
          a: tf.tensor2d(values(30, 10), transposeA ? [6, 5] : [5, 6]),
          b: tf.tensor2d(values(24, 11), transposeB ? [4, 6] : [6, 4]),
          transposeA,
          transposeB,
          bias: tf.tensor1d(values(4, 12)),
          activation: 'relu',
        }),
      );
    }
  }
});

/** Five Adam steps of a tiny embedding + dense + softmax model; returns the losses. */
function trainTiny(): number[] {
  const vocab = 17;
  const dim = 8;
  const hidden = 12;
  const classes = 5;
  const emb = tf.variable(tf.tensor2d(values(vocab * dim, 21), [vocab, dim]).mul(0.5));
  const w1 = tf.variable(tf.tensor2d(values(2 * dim * hidden, 22), [2 * dim, hidden]).mul(0.3));
  const b1 = tf.variable(tf.zeros([hidden]));
  const w2 = tf.variable(tf.tensor2d(values(hidden * classes, 23), [hidden, classes]).mul(0.3));
  const ids = tf.tensor2d(
    [
      [1, 4],
      [3, 3],
      [16, 0],
      [7, 2],
      [4, 4],
      [9, 11],
    ],
    [6, 2],
    'int32',
  );
  const labels = tf.oneHot(tf.tensor1d([0, 1, 2, 3, 4, 1], 'int32'), classes);
  const opt = tf.train.adam(0.05);
  const losses: number[] = [];
  for (let step = 0; step < 5; step++) {
    const loss = opt.minimize(() => {
      const e = tf.gather(emb, ids).reshape([6, 2 * dim]);
      const h = tf.relu(tf.add(tf.matMul(e, w1), b1));
      return tf.losses.softmaxCrossEntropy(labels, tf.matMul(h, w2)) as tf.Scalar;
    }, true)!;
    losses.push(loss.dataSync()[0]);
    loss.dispose();
  }
  opt.dispose();
  for (const v of [emb, w1, b1, w2]) v.dispose();
  return losses;
}

test('a tiny embedding + dense model trains with Adam on wasm like on cpu', async () => {
  const cpu = await on('cpu', trainTiny);
  const wasm = await on('wasm', trainTiny);
  for (let i = 1; i < wasm.length; i++) assert.ok(wasm[i] < wasm[i - 1], `loss decreases: ${wasm.join(', ')}`);
  for (let i = 0; i < wasm.length; i++) assert.ok(Math.abs(wasm[i] - cpu[i]) <= 1e-4, `step ${i}: cpu ${cpu[i]} wasm ${wasm[i]}`);
});
