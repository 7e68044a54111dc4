/**
 * The native kernels (src/tf/native-kernels.ts) and fused ops (src/tf/fused.ts) against the wasm
 * kernels and the reference compositions they replace: forward values and gradients on random
 * shapes, relative tolerance 1e-4 (float32 sums in another order), plus in-place optimiser safety
 * and a short training run's losses. Skipped where the addon is not built, unless
 * CCKIT_NATIVE=required (CI), where a missing addon fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import type * as TF from '@tensorflow/tfjs';

import { BACKEND_ENV_VAR, initBackend, loadTf } from '../src/tf/backend';
import { layerNorm, layerNormReference, seededDropout, softmaxCrossEntropy, softmaxCrossEntropyReference } from '../src/tf/fused';
import { loadNativeAddon, nativeAddonPath, nativeKernelsActive } from '../src/tf/native-kernels';
import { doctorReport } from '../src/cli/doctor';
import { createModel, ModelDims, ModelSpec } from '../src/train/models';
import { Optimizer } from '../src/train/optimizers';
import { localGradients } from '../src/train/parallel';
import { seededRandom } from '../src/util/random';

const TOLERANCE = 1e-4;
const quiet = { logger: () => {} };

let missing: string | undefined;
try {
  loadNativeAddon();
} catch (e) {
  missing = (e as Error).message;
  if ((process.env.CCKIT_NATIVE ?? '').toLowerCase() === 'required') throw new Error(`CCKIT_NATIVE=required but the native kernels do not load: ${missing}`);
}
const skip = missing ? `native kernels not built: ${missing}` : false;

function values(n: number, seed: number, scale = 1): Float32Array {
  const r = seededRandom(seed);
  return Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
}

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string, tol = TOLERANCE): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    assert.ok(Math.abs(a - e) <= tol * Math.max(1, Math.abs(e)), `${what}[${i}]: native ${a}, reference ${e}`);
  }
}

/** `fn`'s flattened outputs with the native kernels off (wasm as shipped + cckit's wasm kernels) and on. */
async function bothWays(fn: (tf: typeof TF) => TF.Tensor | TF.Tensor[]): Promise<{ wasm: Float32Array[]; native: Float32Array[] }> {
  const tf = loadTf();
  const run = () =>
    tf.tidy(() => {
      const out = fn(tf);
      return (Array.isArray(out) ? out : [out]).map((t) => Float32Array.from(t.dataSync()));
    });
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm' }, ...quiet });
  assert.equal(nativeKernelsActive(), false);
  const wasm = run();
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, ...quiet });
  assert.equal(nativeKernelsActive(), true);
  const native = run();
  return { wasm, native };
}

async function sameBothWays(what: string, fn: (tf: typeof TF) => TF.Tensor | TF.Tensor[], tol = TOLERANCE): Promise<void> {
  const { wasm, native } = await bothWays(fn);
  assert.equal(native.length, wasm.length);
  wasm.forEach((w, i) => close(native[i]!, w, `${what} output ${i}`, tol));
}

test('matMul: every transpose, batch and broadcast, with gradients, native = wasm', { skip }, async () => {
  const shapes: { a: number[]; b: number[] }[] = [
    { a: [5, 7], b: [7, 3] },
    { a: [2, 5, 7], b: [2, 7, 3] },
    { a: [1, 5, 7], b: [3, 7, 4] },
    { a: [3, 5, 7], b: [1, 7, 4] },
    { a: [2, 3, 4, 6], b: [2, 3, 6, 5] },
    { a: [33, 65], b: [65, 17] },
  ];
  const t = (s: number[], trans: boolean) => (trans ? [...s.slice(0, -2), s[s.length - 1]!, s[s.length - 2]!] : s);
  let seed = 1;
  for (const { a, b } of shapes) {
    for (const transposeA of [false, true]) {
      for (const transposeB of [false, true]) {
        const as = t(a, transposeA);
        const bs = t(b, transposeB);
        const av = values(
          as.reduce((x, y) => x * y),
          seed++,
        );
        const bv = values(
          bs.reduce((x, y) => x * y),
          seed++,
        );
        // tfjs has no gradient for a broadcast batch: values only there
        const broadcast = a.slice(0, -2).join() !== b.slice(0, -2).join();
        await sameBothWays(`matMul ${as}×${bs} tA=${transposeA} tB=${transposeB}`, (tf) => {
          const product = tf.matMul(tf.tensor(av, as), tf.tensor(bv, bs), transposeA, transposeB);
          if (broadcast) return product;
          const f = (x: TF.Tensor, y: TF.Tensor) => tf.sum(tf.square(tf.matMul(x, y, transposeA, transposeB)));
          const [dx, dy] = tf.grads(f)([tf.tensor(av, as), tf.tensor(bv, bs)]);
          return [product, dx!, dy!];
        });
      }
    }
  }
});

test('fused matMul with bias and relu, native = wasm', { skip }, async () => {
  for (const activation of ['linear', 'relu', 'elu'] as const) {
    await sameBothWays(`fused ${activation}`, (tf) =>
      tf.fused.matMul({ a: tf.tensor(values(6 * 9, 3), [6, 9]), b: tf.tensor(values(9 * 4, 4), [9, 4]), bias: tf.tensor(values(4, 5), [4]), activation }),
    );
  }
});

test('Softmax over the last axis (attention), values and gradients, native = wasm', { skip }, async () => {
  for (const shape of [[1], [3, 7], [2, 4, 33], [2, 3, 5, 20]]) {
    const n = shape.reduce((a, b) => a * b, 1);
    const x = values(n, 8, 6);
    const dy = values(n, 9);
    await sameBothWays(`softmax [${shape}]`, (tf) => {
      const t = tf.tensor(x, shape);
      const grad = tf.grad((v: TF.Tensor) => tf.sum(tf.mul(tf.softmax(v), tf.tensor(dy, shape))))(t);
      return [tf.softmax(t), grad];
    });
  }
});

test('Sum over leading, trailing, all and middle axes, native = wasm', { skip }, async () => {
  const shape = [4, 5, 6];
  const v = values(120, 7);
  for (const axis of [0, [0, 1], 2, [1, 2], -1, [0, 1, 2], 1, [0, 2]]) {
    for (const keepDims of [false, true]) {
      await sameBothWays(`sum axis ${JSON.stringify(axis)} keepDims ${keepDims}`, (tf) => tf.sum(tf.tensor(v, shape), axis, keepDims));
    }
  }
  await sameBothWays('int32 sum', (tf) => tf.sum(tf.tensor([1, 2, 3, 4], [2, 2], 'int32'), 0).toFloat());
});

test('SplitV, Concat, Transpose and UnsortedSegmentSum (float32 and int32), native = wasm', { skip }, async () => {
  const v = values(2 * 3 * 4 * 5, 8);
  const shape = [2, 3, 4, 5];
  for (const axis of [0, 1, 3, -2]) {
    await sameBothWays(`split axis ${axis}`, (tf) => tf.split(tf.tensor(v, shape), shape.at(axis)! === 2 ? 2 : [1, shape.at(axis)! - 1], axis));
    await sameBothWays(`concat axis ${axis}`, (tf) => tf.concat([tf.tensor(v, shape), tf.tensor(v, shape).mul(2), tf.tensor(v, shape).add(1)], axis));
  }
  await sameBothWays('split int32', (tf) => tf.split(tf.tensor([1, 2, 3, 4, 5, 6], [2, 3], 'int32'), [1, 2], 1).map((t) => t.toFloat()));
  await sameBothWays('concat with an empty input', (tf) => tf.concat([tf.tensor(v.slice(0, 6), [2, 3]), tf.zeros([2, 0]), tf.ones([2, 2])], 1));
  for (const perm of [
    [1, 0, 2, 3],
    [0, 2, 1, 3],
    [3, 2, 1, 0],
    [0, 1, 3, 2],
    [2, 0, 3, 1],
  ]) {
    await sameBothWays(`transpose ${perm}`, (tf) => tf.transpose(tf.tensor(v, shape), perm));
  }
  await sameBothWays('transpose int32', (tf) => tf.transpose(tf.tensor([1, 2, 3, 4, 5, 6], [2, 3], 'int32')).toFloat());
  await sameBothWays('unsortedSegmentSum', (tf) =>
    tf.unsortedSegmentSum(tf.tensor2d(values(7 * 5, 9), [7, 5]), tf.tensor1d([0, 3, 3, 1, 0, 9, 3], 'int32'), 4),
  );
  // the gradient of gather, as an embedding's backward pass computes it
  await sameBothWays('gather gradient', (tf) =>
    tf.grad((e: TF.Tensor) => tf.sum(tf.mul(tf.gather(e, tf.tensor1d([2, 0, 2, 5], 'int32')), tf.tensor2d(values(4 * 3, 10), [4, 3]))))(
      tf.tensor2d(values(6 * 3, 11), [6, 3]),
    ),
  );
});

test('native dropout: deterministic per seed, the rate kept, scaled by 1/(1−rate), gradient through the same mask', { skip }, async () => {
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, ...quiet });
  const tf = loadTf();
  const x = tf.ones([200, 100]);
  const rate = 0.3;
  const a = seededDropout(tf, x, rate, 1234, true);
  const b = seededDropout(tf, x, rate, 1234, true);
  const c = seededDropout(tf, x, rate, 1235, true);
  const av = a.dataSync();
  assert.deepEqual(Array.from(av), Array.from(b.dataSync()), 'same seed, same mask');
  assert.notDeepEqual(Array.from(av), Array.from(c.dataSync()), 'another seed, another mask');
  const dropped = av.filter((e) => e === 0).length / av.length;
  assert.ok(Math.abs(dropped - rate) < 0.01, `dropped fraction ${dropped}`);
  assert.ok(
    av.every((e) => e === 0 || Math.abs(e - 1 / (1 - rate)) < 1e-6),
    'kept values scaled',
  );
  const grad = tf.grad((t: TF.Tensor) => tf.sum(tf.mul(seededDropout(tf, t, rate, 1234, true), 2)))(x);
  close(
    grad.dataSync(),
    Float32Array.from(av, (e) => 2 * e),
    'dropout gradient',
  );
  tf.dispose([x, a, b, c, grad]);
});

test('fused layer norm = the reference composition, values and gradients of x, gamma and beta', { skip }, async () => {
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, ...quiet });
  const tf = loadTf();
  for (const shape of [
    [3, 8],
    [2, 5, 16],
    [7, 1, 33],
  ]) {
    const d = shape[shape.length - 1]!;
    const x = tf.tensor(
      values(
        shape.reduce((a, b) => a * b),
        11,
        3,
      ),
      shape,
    );
    const g = tf.tensor(values(d, 12), [d]);
    const b = tf.tensor(values(d, 13), [d]);
    const w = tf.tensor(
      values(
        shape.reduce((a, b) => a * b),
        14,
      ),
      shape,
    );
    const run = (fused: boolean) =>
      tf.tidy(() => {
        const f = (xi: TF.Tensor, gi: TF.Tensor, bi: TF.Tensor) =>
          tf.sum(tf.mul(fused ? layerNorm(tf, xi, gi, bi, 1e-5, true) : layerNormReference(tf, xi, gi, bi, 1e-5), w));
        const grads = tf.grads(f)([x, g, b]);
        return [fused ? layerNorm(tf, x, g, b, 1e-5, true) : layerNormReference(tf, x, g, b, 1e-5), ...grads].map((t) => Float32Array.from(t.dataSync()));
      });
    const reference = run(false);
    const fused = run(true);
    reference.forEach((r, i) => close(fused[i]!, r, `layerNorm ${shape} output ${i}`, 2e-4));
    tf.dispose([x, g, b, w]);
  }
});

test('fused softmax cross-entropy = the reference, with and without label smoothing, values and gradients', { skip }, async () => {
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, ...quiet });
  const tf = loadTf();
  const [N, C] = [9, 37];
  const logits = tf.tensor2d(values(N * C, 21, 6), [N, C]);
  const labels = tf.tensor1d([0, 5, 36, 1, 1, 20, 0, 7, 33], 'int32');
  const rowWeights = tf.tensor1d(values(N, 22));
  for (const smoothing of [0, 0.1]) {
    const run = (fused: boolean) =>
      tf.tidy(() => {
        const loss = (x: TF.Tensor) =>
          fused ? softmaxCrossEntropy(tf, x as TF.Tensor2D, labels, smoothing, true) : softmaxCrossEntropyReference(tf, x as TF.Tensor2D, labels, smoothing);
        const grad = tf.grad((x: TF.Tensor) => tf.sum(tf.mul(loss(x), rowWeights)))(logits);
        return [loss(logits), grad].map((t) => Float32Array.from(t.dataSync()));
      });
    const reference = run(false);
    const fused = run(true);
    reference.forEach((r, i) => close(fused[i]!, r, `softmax CE smoothing ${smoothing} output ${i}`));
  }
  tf.dispose([logits, labels, rowWeights]);
});

test('zero-copy Identity and in-place Adam: a variable never changes a tensor it shares a buffer with', { skip }, async () => {
  await initBackend({ env: { [BACKEND_ENV_VAR]: 'wasm-native' }, ...quiet });
  const tf = loadTf();
  const loaded = tf.tensor1d([1, 2, 3, 4]);
  // as loading a checkpoint does: the variable starts from a (zero-copy) clone of a tensor that stays alive
  const w = tf.variable(loaded.clone(), true, 'shared-w');
  const copy = w.clone();
  const optimizer = new Optimizer({ name: 'adam', lr: 0.1 }, new Map([['w', w]]));
  optimizer.apply(new Map([['w', tf.tensor1d([1, -1, 1, -1])]]), 0.1);
  assert.deepEqual(Array.from(loaded.dataSync()), [1, 2, 3, 4], 'the loaded tensor is unchanged');
  assert.deepEqual(Array.from(copy.dataSync()), [1, 2, 3, 4], 'a clone taken before the update is unchanged');
  close(w.dataSync(), [0.9, 2.1, 2.9, 4.1], 'w after one Adam step', 1e-5);
  optimizer.dispose();
  tf.dispose([loaded, copy, w]);
});

test('native Adam and Adagrad match the tfjs formulas over several steps', { skip }, async () => {
  const tf = loadTf();
  for (const config of [
    { name: 'adam' as const, lr: 0.01 },
    { name: 'adagrad' as const, lr: 0.05 },
  ]) {
    const run = async (backend: 'wasm' | 'wasm-native') => {
      await initBackend({ env: { [BACKEND_ENV_VAR]: backend }, ...quiet });
      const w = tf.variable(tf.tensor2d(values(12, 31), [3, 4]));
      const optimizer = new Optimizer(config, new Map([['w', w]]));
      for (let step = 0; step < 5; step++) optimizer.apply(new Map([['w', tf.tensor2d(values(12, 40 + step), [3, 4])]]), config.lr);
      const out = [Float32Array.from(w.dataSync()), ...[...optimizer.state().values()].map((s) => Float32Array.from(s.dataSync()))];
      optimizer.dispose();
      w.dispose();
      return out;
    };
    const wasm = await run('wasm');
    const native = await run('wasm-native');
    wasm.forEach((r, i) => close(native[i]!, r, `${config.name} tensor ${i}`, 1e-5));
  }
});

test('a short training run: native losses follow the wasm losses; same seed, same curve on native', { skip }, async () => {
  const dims: ModelDims = { vocabSize: 50, visualDim: 6, geometryDim: 5, mocClasses: 0, seed: 3 };
  // dropout masks differ between the paths (another generator), so the paths are compared without dropout
  const curve = async (backend: 'wasm' | 'wasm-native', dropout: number): Promise<number[]> => {
    const spec: ModelSpec = { kind: 'transformer', size: 'tiny', overrides: { dModel: 32, ffn: 64, heads: 2, encoderLayers: 1, decoderLayers: 1, dropout } };
    await initBackend({ env: { [BACKEND_ENV_VAR]: backend }, ...quiet });
    const tf = loadTf();
    const model = createModel(spec, dims);
    const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
    const optimizer = new Optimizer({ name: 'adam', lr: 3e-3 }, variables);
    const r = seededRandom(4);
    const B = 6;
    const T = 7;
    const tokens = Array.from({ length: B }, () => Array.from({ length: T }, () => 3 + Math.floor(r() * 47)));
    const visual = tf.tensor3d(values(B * 4 * 6, 5), [B, 4, 6]);
    const geometry = tf.tensor3d(values(B * 4 * 5, 6), [B, 4, 5]);
    const mask = tf.ones([B, 4]) as TF.Tensor2D;
    const tokensIn = tf.tensor2d(tokens, undefined, 'int32');
    const targets = tf.tensor2d(
      tokens.map((row) => [...row.slice(1), 2]),
      undefined,
      'int32',
    );
    const losses: number[] = [];
    for (let step = 0; step < 8; step++) {
      model.setDropoutStep?.(step);
      const { grads, losses: parts } = localGradients(variables, () => {
        const logits = model.decode(model.encode({ visual, geometry, visualMask: mask }, true), tokensIn, true);
        const [b, t, v] = logits.shape;
        const loss = tf.mean(softmaxCrossEntropy(tf, logits.reshape([b * t, v]), targets.reshape([b * t]), 0)) as TF.Scalar;
        return loss;
      });
      losses.push(parts.total);
      optimizer.apply(grads, 3e-3);
    }
    optimizer.dispose();
    model.dispose();
    tf.dispose([visual, geometry, mask, tokensIn, targets]);
    return losses;
  };
  const wasm = await curve('wasm', 0);
  close(await curve('wasm-native', 0), wasm, 'loss curve native vs wasm, no dropout', 1e-3);
  const native = await curve('wasm-native', 0.1);
  const again = await curve('wasm-native', 0.1);
  assert.deepEqual(again, native, 'same seed, same kernels: the same loss curve to the last bit');
  assert.ok(native[7]! < native[0]!, `the loss falls with dropout too (${native[0]} → ${native[7]})`);
});

test('cckit doctor names every backend, whether it loads, and the one runs use', { skip }, () => {
  const report = doctorReport();
  for (const name of ['tensorflow', 'wasm-native', 'wasm', 'cpu']) assert.match(report, new RegExp(`[✓✗] ${name} `));
  assert.match(report, /✓ wasm-native +loads: .*cckit (portable|avx2|avx512|neon), \d+ threads?/);
  assert.match(report, /✗ tensorflow .*(not installed|native addon)/);
  assert.match(report, /runs use: wasm-native/);
});

test('without the addon: wasm with one line saying why, and wasm-native forced fails naming the variable', () => {
  const script = `
    const { initBackend } = require('./src/tf/backend');
    initBackend({ requireFn: (id) => { if (id.startsWith('@tensorflow/tfjs-node')) throw new Error('absent'); return require(id); } })
      .then((info) => initBackend({ env: { CCKIT_BACKEND: 'wasm-native' }, logger: () => {} }).then(
        () => console.log('forced: loaded'),
        (e) => console.log('forced: ' + e.message),
      ).then(() => console.log('chosen: ' + info.name)));`;
  const out = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: path.join(__dirname, '..'),
    encoding: 'utf8',
    env: { ...process.env, CCKIT_NATIVE_ADDON: path.join(os.tmpdir(), 'no-such-addon.node'), CCKIT_BACKEND: '' },
  });
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /chosen: wasm\n/);
  assert.match(out.stdout, /forced: CCKIT_BACKEND=wasm-native: the wasm-native backend could not be loaded \(.*no-such-addon\.node is not built/);
  const lines = out.stderr.split('\n').filter((l) => l.startsWith('cckit: tfjs backend'));
  assert.equal(lines.length, 1, out.stderr);
  assert.match(lines[0]!, /^cckit: tfjs backend wasm .*skipped tensorflow, wasm-native; native kernels: .*no-such-addon\.node is not built/);
});

test('an addon built from other native sources is refused with the command that rebuilds it', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-stale-'));
  try {
    fs.mkdirSync(path.join(dir, 'build'));
    fs.copyFileSync(nativeAddonPath(), path.join(dir, 'build', 'cckit_kernels.node'));
    fs.writeFileSync(path.join(dir, 'kernels.c'), '/* another version */\n');
    const script = `try { require('./src/tf/native-kernels').loadNativeAddon(); console.log('loaded'); } catch (e) { console.log(e.message); }`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: path.join(__dirname, '..'),
      encoding: 'utf8',
      env: { ...process.env, CCKIT_NATIVE_ADDON: path.join(dir, 'build', 'cckit_kernels.node') },
    });
    assert.match(out.stdout, /was built from other native\/ sources \(rebuild: npm run build:native\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
