/**
 * cckit's native kernels under tfjs's wasm backend: matrix products on cckit's own SGEMM, fused ops and
 * in-place optimiser updates, computed by an N-API addon (native/, built by `npm run build:native` with
 * the system C compiler alone) directly on the wasm heap, plus zero-copy `Identity` and same-dtype
 * `Cast` (tfjs clones every tensor it saves for backprop through `Identity`; the wasm kernel copies).
 * The addon picks its kernel path (portable, avx2, avx512, neon) from the CPU, or `CCKIT_KERNEL_PATH`;
 * every path gives the same bits (native/sgemm.h, native/ops.h).
 *
 * The wasm kernels these replace stay registered underneath: `useNativeKernels(false)` puts them
 * back, so a run (or a benchmark) can compare both in one process, and any case the native code does
 * not cover (another dtype, a broadcast it does not know, an activation other than linear/relu) is
 * handed to the original kernel.
 */
import type * as TF from '@tensorflow/tfjs';
import * as fs from 'fs';
import * as path from 'path';

import { PACKAGE_ROOT } from '../paths';

type Tfjs = typeof TF;
type TensorInfo = TF.TensorInfo;
type KernelConfig = NonNullable<ReturnType<Tfjs['getKernel']>>;
type KernelFuncArgs = Parameters<KernelConfig['kernelFunc']>[0];

/** What the addon exports (see native/kernels.c for the arguments). */
export interface NativeAddon {
  gemm(
    heap: Float32Array,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: number,
    transB: number,
    aOff: number,
    aStride: number,
    bOff: number,
    bStride: number,
    cOff: number,
    biasOff: number,
    activation: number,
  ): void;
  biasActivation(heap: Float32Array, cOff: number, rows: number, n: number, biasOff: number, activation: number): void;
  adam(
    heap: Float32Array,
    count: number,
    wOff: number,
    mOff: number,
    vOff: number,
    gOff: number,
    beta1: number,
    beta2: number,
    stepSize: number,
    eps: number,
  ): void;
  adagrad(heap: Float32Array, count: number, wOff: number, aOff: number, gOff: number, lr: number, eps: number): void;
  softmaxCrossEntropy(
    heap: Float32Array,
    xOff: number,
    labelsOff: number,
    rows: number,
    classes: number,
    smoothing: number,
    lossOff: number,
    lseOff: number,
  ): void;
  softmaxCrossEntropyGrad(
    heap: Float32Array,
    xOff: number,
    labelsOff: number,
    lseOff: number,
    dyOff: number,
    rows: number,
    classes: number,
    smoothing: number,
    dxOff: number,
  ): void;
  layerNorm(
    heap: Float32Array,
    xOff: number,
    gOff: number,
    bOff: number,
    rows: number,
    dim: number,
    eps: number,
    yOff: number,
    meanOff: number,
    rstdOff: number,
  ): void;
  layerNormGrad(
    heap: Float32Array,
    xOff: number,
    gOff: number,
    meanOff: number,
    rstdOff: number,
    dyOff: number,
    rows: number,
    dim: number,
    dxOff: number,
    dgOff: number,
    dbOff: number,
  ): void;
  sumOuter(heap: Float32Array, xOff: number, outer: number, inner: number, outOff: number): void;
  sumInner(heap: Float32Array, xOff: number, outer: number, inner: number, outOff: number): void;
  unsortedSegmentSum(heap: Float32Array, xOff: number, idsOff: number, rows: number, inner: number, segments: number, outOff: number): void;
  copyBlocks(heap: Float32Array, srcOff: number, srcStride: number, dstOff: number, dstStride: number, blocks: number, length: number): void;
  transpose(heap: Float32Array, xOff: number, outOff: number, shape: Int32Array, perm: Int32Array): void;
  dropout(heap: Float32Array, xOff: number, count: number, rate: number, seed: number, yOff: number, maskOff: number): void;
  gatherRows(heap: Float32Array, xOff: number, rows: number, rowLength: number, indicesOff: number, count: number, outOff: number): number;
  softmax(heap: Float32Array, xOff: number, rows: number, cols: number, yOff: number): void;
  /** cckit's exp and log element by element (what the softmax kernels use). */
  expLog(x: Float32Array, expOut: Float32Array, logOut: Float32Array): void;
  /** Threads a large matrix product is split over (by columns; the results do not depend on it). */
  setThreads(n: number): void;
  getThreads(): number;
  /** Switches the kernel path; throws when this CPU or build lacks it. */
  setKernelPath(name: KernelPath): void;
  /** The path in use (the OpenBLAS comparison build says `openblas+<path>`). */
  kernelPath(): string;
  /** The paths this CPU and build support, comma-separated, portable first. */
  kernelPaths(): string;
  /** sha256 of native/'s sources as built (see nativeSourceDigest). */
  sourceSha256: string;
}

/** cckit's kernel paths; all give the same bits, the vector ones faster. */
export const KERNEL_PATHS = ['portable', 'avx2', 'avx512', 'neon'] as const;
export type KernelPath = (typeof KERNEL_PATHS)[number];
/** Forces a kernel path when the addon loads (an unsupported one fails the load, naming it). */
export const KERNEL_PATH_ENV_VAR = 'CCKIT_KERNEL_PATH';

/** What these kernels use of tfjs-backend-wasm's BackendWasm. */
interface WasmBackendLike {
  wasm: { HEAPF32: Float32Array };
  dataIdMap: { get(dataId: object): { memoryOffset: number; refCount: number } | undefined };
  makeOutput(shape: number[], dtype: TF.DataType, memoryOffset?: number): TensorInfo;
  incRef(dataId: object): void;
  refCount(dataId: object): number;
}

const BACKEND = 'wasm';
export const NATIVE_THREADS_ENV_VAR = 'CCKIT_NATIVE_THREADS';

function loadTf(): Tfjs {
  return require('@tensorflow/tfjs') as Tfjs;
}

/** `CCKIT_NATIVE_ADDON` overrides where the addon is looked for (tests use it to take it away). */
export const NATIVE_ADDON_ENV_VAR = 'CCKIT_NATIVE_ADDON';

/** native/build/cckit_kernels.node of this package, from src/tf (tsx) or dist/src/tf (built). */
export function nativeAddonPath(): string {
  const forced = process.env[NATIVE_ADDON_ENV_VAR];
  if (forced) return path.resolve(forced);
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'native', 'build', 'cckit_kernels.node');
    if (fs.existsSync(candidate)) return candidate;
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'native'))) return candidate;
    dir = path.dirname(dir);
  }
  return path.join(__dirname, '..', '..', 'native', 'build', 'cckit_kernels.node');
}

let addon: NativeAddon | undefined;
let addonError: string | undefined;

/** sha256 over native/*.c and *.h (native/source-digest.cjs: scripts/build-native.mjs compiles the same digest into the addon). */
export function nativeSourceDigest(nativeDir: string): string {
  // this package's digest code, applied to any native/ folder (a stale copy elsewhere has none of its own)
  return (require(path.join(PACKAGE_ROOT, 'native', 'source-digest.cjs')) as { nativeSourceDigest(dir: string): string }).nativeSourceDigest(
    path.resolve(nativeDir),
  );
}

/** The addon, or throws with why it cannot load (not built, built from other sources, a forced path this CPU lacks, …). */
export function loadNativeAddon(): NativeAddon {
  if (addon) return addon;
  if (addonError) throw new Error(addonError);
  const file = nativeAddonPath();
  if (!fs.existsSync(file)) {
    addonError = `${path.relative(process.cwd(), file) || file} is not built (npm run build:native; it needs a C compiler, Debian: apt-get install -y gcc)`;
    throw new Error(addonError);
  }
  let loaded: NativeAddon;
  try {
    loaded = require(file) as NativeAddon;
  } catch (e) {
    addonError = `${file}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`;
    throw new Error(addonError);
  }
  // a build of older sources lacks kernels this code calls or computes other bits: refuse it rather than fail mid-run
  const nativeDir = path.dirname(path.dirname(file));
  if (fs.existsSync(path.join(nativeDir, 'kernels.c'))) {
    const digest = nativeSourceDigest(nativeDir);
    if (loaded.sourceSha256 !== digest) {
      addonError = `${file} was built from other native/ sources (rebuild: npm run build:native)`;
      throw new Error(addonError);
    }
  }
  addon = loaded;
  return addon;
}

/** Threads of a large matrix product: `CCKIT_NATIVE_THREADS`, else 1 (the measured best on 2 cores, docs/training.md). */
export function nativeThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[NATIVE_THREADS_ENV_VAR];
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${NATIVE_THREADS_ENV_VAR}=${raw}: expected a positive integer`);
  return n;
}

/** Float offset of a tensor's data on the wasm heap. */
function offsetOf(backend: WasmBackendLike, t: TensorInfo): number {
  const data = backend.dataIdMap.get(t.dataId);
  if (!data) throw new Error('native kernels: tensor is not on the wasm backend');
  return data.memoryOffset / 4;
}

function size(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * The product of `a` [..., m, k] (or [..., k, m] transposed) and `b` [..., k, n] (or [..., n, k]),
 * batch dimensions equal or one side 1; undefined when the shapes need more general broadcasting.
 */
function matMulPlan(a: TensorInfo, b: TensorInfo, transposeA: boolean, transposeB: boolean) {
  const ra = a.shape.length;
  const rb = b.shape.length;
  if (ra < 2 || rb < 2 || a.dtype !== 'float32' || b.dtype !== 'float32') return undefined;
  const m = transposeA ? a.shape[ra - 1]! : a.shape[ra - 2]!;
  const k = transposeA ? a.shape[ra - 2]! : a.shape[ra - 1]!;
  const kb = transposeB ? b.shape[rb - 1]! : b.shape[rb - 2]!;
  const n = transposeB ? b.shape[rb - 2]! : b.shape[rb - 1]!;
  if (k !== kb) return undefined;
  const batchA = a.shape.slice(0, -2);
  const batchB = b.shape.slice(0, -2);
  const na = size(batchA);
  const nb = size(batchB);
  let outBatch: number[];
  if (na === nb && (batchA.length === batchB.length || na === 1)) outBatch = batchA.length >= batchB.length ? batchA : batchB;
  else if (na === 1) outBatch = batchB;
  else if (nb === 1) outBatch = batchA;
  else return undefined;
  const batch = Math.max(na, nb);
  return { m, n, k, batch, aStride: na === 1 ? 0 : m * k, bStride: nb === 1 ? 0 : k * n, shape: [...outBatch, m, n] };
}

interface MatMulArgs {
  inputs: Record<string, TensorInfo | undefined>;
  backend: WasmBackendLike;
  attrs?: Record<string, unknown>;
}

/** BatchMatMul / _FusedMatMul on cckit's SGEMM, bias and ReLU fused; undefined where the original kernel should run instead. */
function nativeMatMul(native: NativeAddon, args: MatMulArgs, fused: boolean): TensorInfo | undefined {
  const { a, b, bias, preluActivationWeights } = args.inputs;
  if (!a || !b) return undefined;
  const attrs = args.attrs ?? {};
  const activation = fused ? ((attrs.activation as string | undefined) ?? 'linear') : 'linear';
  if (activation !== 'linear' && activation !== 'relu') return undefined;
  if (preluActivationWeights) return undefined;
  const plan = matMulPlan(a, b, attrs.transposeA === true, attrs.transposeB === true);
  if (!plan) return undefined;
  // a bias is added along the last dimension only
  if (bias && (bias.dtype !== 'float32' || size(bias.shape) !== plan.n || bias.shape[bias.shape.length - 1] !== plan.n)) return undefined;
  const backend = args.backend;
  const out = backend.makeOutput(plan.shape, 'float32');
  // read the heap view after allocating: the heap may have grown
  const heap = backend.wasm.HEAPF32;
  const cOff = offsetOf(backend, out);
  native.gemm(
    heap,
    plan.batch,
    plan.m,
    plan.n,
    plan.k,
    attrs.transposeA ? 1 : 0,
    attrs.transposeB ? 1 : 0,
    offsetOf(backend, a),
    plan.aStride,
    offsetOf(backend, b),
    plan.bStride,
    cOff,
    bias ? offsetOf(backend, bias) : -1,
    activation === 'relu' ? 1 : 0,
  );
  return out;
}

/** Shares the input's buffer instead of copying it (tensors are immutable; variables swap buffers on assign). */
function zeroCopyIdentity(original: KernelConfig): KernelConfig['kernelFunc'] {
  return ((args: { inputs: { x: TensorInfo }; backend: WasmBackendLike }) => {
    const { x } = args.inputs;
    if (x.dtype === 'string') return original.kernelFunc(args as unknown as KernelFuncArgs);
    args.backend.incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  }) as unknown as KernelConfig['kernelFunc'];
}

function zeroCopyCast(original: KernelConfig): KernelConfig['kernelFunc'] {
  return ((args: { inputs: { x: TensorInfo }; backend: WasmBackendLike; attrs: { dtype: TF.DataType } }) => {
    const { x } = args.inputs;
    if (x.dtype !== args.attrs.dtype || x.dtype === 'string') return original.kernelFunc(args as unknown as KernelFuncArgs);
    args.backend.incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  }) as unknown as KernelConfig['kernelFunc'];
}

/**
 * Sum over a run of leading or trailing axes (bias gradients reduce [B, T, d] over B and T, where
 * the wasm kernel transposes first); undefined for other axes or dtypes.
 */
function nativeSum(native: NativeAddon, args: { inputs: { x: TensorInfo }; backend: WasmBackendLike; attrs: { axis: number | number[]; keepDims: boolean } }) {
  const { x } = args.inputs;
  if (x.dtype !== 'float32' || x.shape.length === 0) return undefined;
  const rank = x.shape.length;
  const axes = [...new Set((Array.isArray(args.attrs.axis) ? args.attrs.axis : [args.attrs.axis]).map((a) => (a < 0 ? a + rank : a)))].sort((a, b) => a - b);
  if (axes.length === 0 || axes.some((a, i) => a !== axes[0]! + i)) return undefined;
  const leading = axes[0] === 0;
  const trailing = axes[axes.length - 1] === rank - 1;
  if (!leading && !trailing) return undefined;
  const reduced = size(axes.map((a) => x.shape[a]!));
  const kept = size(x.shape) / Math.max(1, reduced);
  const shape = args.attrs.keepDims ? x.shape.map((d, i) => (axes.includes(i) ? 1 : d)) : x.shape.filter((_, i) => !axes.includes(i));
  const out = args.backend.makeOutput(shape, 'float32');
  const heap = args.backend.wasm.HEAPF32;
  if (leading && (!trailing || axes.length < rank)) native.sumOuter(heap, offsetOf(args.backend, x), reduced, kept, offsetOf(args.backend, out));
  else native.sumInner(heap, offsetOf(args.backend, x), kept, reduced, offsetOf(args.backend, out));
  return out;
}

/** Softmax over the last axis (tfjs allows no other), float32. */
function nativeSoftmax(native: NativeAddon, args: { inputs: { logits: TensorInfo }; backend: WasmBackendLike; attrs: { dim: number } }) {
  const { logits } = args.inputs;
  const rank = logits.shape.length;
  if (logits.dtype !== 'float32' || rank === 0 || (args.attrs.dim !== -1 && args.attrs.dim !== rank - 1)) return undefined;
  const cols = logits.shape[rank - 1]!;
  const out = args.backend.makeOutput([...logits.shape], 'float32');
  if (cols > 0) native.softmax(args.backend.wasm.HEAPF32, offsetOf(args.backend, logits), size(logits.shape) / cols, cols, offsetOf(args.backend, out));
  return out;
}

/** Element types the copying kernels move as 4-byte words. */
function fourBytes(dtype: TF.DataType): boolean {
  return dtype === 'float32' || dtype === 'int32';
}

/** SplitV: each output is a run of blocks of the input (outer × size·inner). */
function nativeSplitV(
  native: NativeAddon,
  args: { inputs: { x: TensorInfo }; backend: WasmBackendLike; attrs: { numOrSizeSplits: number | number[]; axis: number } },
) {
  const tf = loadTf();
  const { x } = args.inputs;
  if (!fourBytes(x.dtype)) return undefined;
  const axis = tf.util.parseAxisParam(args.attrs.axis, x.shape)[0]!;
  const sizes = tf.backend_util.prepareSplitSize(x as unknown as TF.Tensor, args.attrs.numOrSizeSplits, axis) as number[];
  const outer = size(x.shape.slice(0, axis));
  const inner = size(x.shape.slice(axis + 1));
  const rowLength = x.shape[axis]! * inner;
  const outs: TensorInfo[] = [];
  let begin = 0;
  for (const s of sizes) {
    const shape = [...x.shape];
    shape[axis] = s;
    const out = args.backend.makeOutput(shape, x.dtype);
    if (s > 0 && outer > 0 && inner > 0)
      native.copyBlocks(
        args.backend.wasm.HEAPF32,
        offsetOf(args.backend, x) + begin * inner,
        rowLength,
        offsetOf(args.backend, out),
        s * inner,
        outer,
        s * inner,
      );
    outs.push(out);
    begin += s;
  }
  return outs;
}

/** Concat: each input is copied into its column of blocks of the output. */
function nativeConcat(native: NativeAddon, args: { inputs: TensorInfo[]; backend: WasmBackendLike; attrs: { axis: number } }) {
  const tf = loadTf();
  const inputs = args.inputs.filter((t) => size(t.shape) > 0);
  if (inputs.length < 2 || !fourBytes(inputs[0]!.dtype) || inputs.some((t) => t.dtype !== inputs[0]!.dtype)) return undefined;
  const axis = tf.util.parseAxisParam(args.attrs.axis, inputs[0]!.shape)[0]!;
  const shape = tf.backend_util.computeOutShape(
    inputs.map((t) => t.shape),
    axis,
  );
  const out = args.backend.makeOutput(shape, inputs[0]!.dtype);
  const outer = size(shape.slice(0, axis));
  const inner = size(shape.slice(axis + 1));
  const rowLength = shape[axis]! * inner;
  const heap = args.backend.wasm.HEAPF32;
  let begin = 0;
  for (const t of inputs) {
    const length = t.shape[axis]! * inner;
    native.copyBlocks(heap, offsetOf(args.backend, t), length, offsetOf(args.backend, out) + begin, rowLength, outer, length);
    begin += length;
  }
  return out;
}

function nativeTranspose(native: NativeAddon, args: { inputs: { x: TensorInfo }; backend: WasmBackendLike; attrs: { perm: number[] } }) {
  const { x } = args.inputs;
  if (!fourBytes(x.dtype) || x.shape.length > 8 || x.shape.length < 2) return undefined;
  const perm = args.attrs.perm;
  const out = args.backend.makeOutput(
    perm.map((p) => x.shape[p]!),
    x.dtype,
  );
  native.transpose(args.backend.wasm.HEAPF32, offsetOf(args.backend, x), offsetOf(args.backend, out), Int32Array.from(x.shape), Int32Array.from(perm));
  return out;
}

/** The gradient of `gather` (embeddings): float32 rows summed into their segments. */
function nativeUnsortedSegmentSum(
  native: NativeAddon,
  args: { inputs: { x: TensorInfo; segmentIds: TensorInfo }; backend: WasmBackendLike; attrs: { numSegments: number } },
) {
  const { x, segmentIds } = args.inputs;
  if (x.dtype !== 'float32' || segmentIds.dtype !== 'int32') return undefined;
  const k = segmentIds.shape.length;
  if (x.shape.slice(0, k).some((d, i) => d !== segmentIds.shape[i])) return undefined;
  const segments = Number(args.attrs.numSegments);
  const inner = size(x.shape.slice(k));
  const out = args.backend.makeOutput([segments, ...x.shape.slice(k)], 'float32');
  native.unsortedSegmentSum(
    args.backend.wasm.HEAPF32,
    offsetOf(args.backend, x),
    offsetOf(args.backend, segmentIds),
    size(segmentIds.shape),
    inner,
    segments,
    offsetOf(args.backend, out),
  );
  return out;
}

/** GatherV2 along axis 0 (embedding lookups): rows copied; an index out of range throws as tfjs does. */
function nativeGather(
  native: NativeAddon,
  args: { inputs: { x: TensorInfo; indices: TensorInfo }; backend: WasmBackendLike; attrs: { axis: number; batchDims: number } },
) {
  const tf = loadTf();
  const { x, indices } = args.inputs;
  if (!fourBytes(x.dtype) || indices.dtype !== 'int32' || (args.attrs.batchDims ?? 0) !== 0 || x.shape.length === 0) return undefined;
  if (tf.util.parseAxisParam(args.attrs.axis, x.shape)[0] !== 0) return undefined;
  const rows = x.shape[0]!;
  const rowLength = size(x.shape.slice(1));
  const count = size(indices.shape);
  const out = args.backend.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype);
  const heap = args.backend.wasm.HEAPF32;
  const bad = native.gatherRows(heap, offsetOf(args.backend, x), rows, rowLength, offsetOf(args.backend, indices), count, offsetOf(args.backend, out));
  if (bad >= 0) {
    const value = new Int32Array(heap.buffer, offsetOf(args.backend, indices) * 4 + bad * 4, 1)[0];
    throw new Error(`GatherV2: the index value ${value} is not in [0, ${rows - 1}]`);
  }
  return out;
}

type FusedArgs = { inputs: Record<string, TensorInfo>; backend: WasmBackendLike; attrs: Record<string, number> };

/** Kernels of cckit's own fused ops (./fused), registered for 'wasm' while the native kernels are active. */
function fusedKernels(native: NativeAddon): Record<string, (args: FusedArgs) => TensorInfo | TensorInfo[]> {
  const off = (backend: WasmBackendLike, t: TensorInfo) => offsetOf(backend, t);
  return {
    [FUSED_SOFTMAX_CE]: ({ inputs: { logits, labels }, backend, attrs }) => {
      const [rows, classes] = logits.shape as [number, number];
      const loss = backend.makeOutput([rows], 'float32');
      const lse = backend.makeOutput([rows], 'float32');
      native.softmaxCrossEntropy(
        backend.wasm.HEAPF32,
        off(backend, logits),
        off(backend, labels),
        rows,
        classes,
        attrs.smoothing!,
        off(backend, loss),
        off(backend, lse),
      );
      return [loss, lse];
    },
    [FUSED_SOFTMAX_CE_GRAD]: ({ inputs: { logits, labels, lse, dy }, backend, attrs }) => {
      const [rows, classes] = logits.shape as [number, number];
      const dx = backend.makeOutput([rows, classes], 'float32');
      const heap = backend.wasm.HEAPF32;
      native.softmaxCrossEntropyGrad(
        heap,
        off(backend, logits),
        off(backend, labels),
        off(backend, lse),
        off(backend, dy),
        rows,
        classes,
        attrs.smoothing!,
        off(backend, dx),
      );
      return dx;
    },
    [FUSED_DROPOUT]: ({ inputs: { x }, backend, attrs }) => {
      const y = backend.makeOutput([...x.shape], 'float32');
      const mask = backend.makeOutput([...x.shape], 'float32');
      native.dropout(backend.wasm.HEAPF32, off(backend, x), size(x.shape), attrs.rate!, attrs.seed!, off(backend, y), off(backend, mask));
      return [y, mask];
    },
    [FUSED_LAYER_NORM]: ({ inputs: { x, gamma, beta }, backend, attrs }) => {
      const dim = x.shape[x.shape.length - 1]!;
      const rows = size(x.shape) / dim;
      const y = backend.makeOutput([...x.shape], 'float32');
      const mean = backend.makeOutput([rows], 'float32');
      const rstd = backend.makeOutput([rows], 'float32');
      const heap = backend.wasm.HEAPF32;
      native.layerNorm(
        heap,
        off(backend, x),
        off(backend, gamma),
        off(backend, beta),
        rows,
        dim,
        attrs.epsilon!,
        off(backend, y),
        off(backend, mean),
        off(backend, rstd),
      );
      return [y, mean, rstd];
    },
    [FUSED_LAYER_NORM_GRAD]: ({ inputs: { x, gamma, mean, rstd, dy }, backend }) => {
      const dim = x.shape[x.shape.length - 1]!;
      const rows = size(x.shape) / dim;
      const dx = backend.makeOutput([...x.shape], 'float32');
      const dg = backend.makeOutput([dim], 'float32');
      const db = backend.makeOutput([dim], 'float32');
      const heap = backend.wasm.HEAPF32;
      const o = (t: TensorInfo) => off(backend, t);
      native.layerNormGrad(heap, o(x), o(gamma), o(mean), o(rstd), o(dy), rows, dim, o(dx), o(dg), o(db));
      return [dx, dg, db];
    },
  };
}

/** Kernel names of the fused ops. */
export const FUSED_SOFTMAX_CE = 'CckitSoftmaxCrossEntropy';
export const FUSED_SOFTMAX_CE_GRAD = 'CckitSoftmaxCrossEntropyGrad';
export const FUSED_LAYER_NORM = 'CckitLayerNorm';
export const FUSED_DROPOUT = 'CckitDropout';
export const FUSED_LAYER_NORM_GRAD = 'CckitLayerNormGrad';

/** The tfjs-backend-wasm kernels `useNativeKernels(true)` replaces (the fused ops' kernels are added). */
export const NATIVE_KERNELS = [
  'BatchMatMul',
  '_FusedMatMul',
  'Identity',
  'Cast',
  'Sum',
  'SplitV',
  'Concat',
  'Transpose',
  'UnsortedSegmentSum',
  'GatherV2',
  'Softmax',
] as const;

/** Each replaced kernel's native function; undefined from it hands the call to the kernel underneath. */
function nativeKernelFunc(native: NativeAddon, name: (typeof NATIVE_KERNELS)[number]): ((args: never) => TensorInfo | TensorInfo[] | undefined) | undefined {
  switch (name) {
    case 'BatchMatMul':
      return (args: MatMulArgs) => nativeMatMul(native, args, false);
    case '_FusedMatMul':
      return (args: MatMulArgs) => nativeMatMul(native, args, true);
    case 'Sum':
      return (args: Parameters<typeof nativeSum>[1]) => nativeSum(native, args);
    case 'SplitV':
      return (args: Parameters<typeof nativeSplitV>[1]) => nativeSplitV(native, args);
    case 'Concat':
      return (args: Parameters<typeof nativeConcat>[1]) => nativeConcat(native, args);
    case 'Transpose':
      return (args: Parameters<typeof nativeTranspose>[1]) => nativeTranspose(native, args);
    case 'GatherV2':
      return (args: Parameters<typeof nativeGather>[1]) => nativeGather(native, args);
    case 'UnsortedSegmentSum':
      return (args: Parameters<typeof nativeUnsortedSegmentSum>[1]) => nativeUnsortedSegmentSum(native, args);
    case 'Softmax':
      return (args: Parameters<typeof nativeSoftmax>[1]) => nativeSoftmax(native, args);
    default:
      return undefined;
  }
}

const underneath = new Map<string, KernelConfig>();
let active = false;

/** Whether the native kernels are registered for 'wasm' now. */
export function nativeKernelsActive(): boolean {
  return active;
}

/** Describes the native kernels in use (for the backend log line and run.json): e.g. `cckit avx512, 1 thread`. */
export function nativeKernelsInfo(): { path: string; threads: number; description: string } {
  const native = activeAddon ?? loadNativeAddon();
  const threads = native.getThreads();
  const kernelPath = native.kernelPath();
  return { path: kernelPath, threads, description: `cckit ${kernelPath}, ${threads} thread${threads === 1 ? '' : 's'}` };
}

/** The addon the registered kernels call (the built one, or a comparison build a benchmark passed). */
let activeAddon: NativeAddon | undefined;

/**
 * The OpenBLAS comparison build (native/build/cckit_kernels_openblas.node, `CCKIT_NATIVE_OPENBLAS=1 npm run
 * build:native`), or undefined with why not: benchmarks only, never a default.
 */
export function loadOpenBlasComparison(): { addon?: NativeAddon; why?: string } {
  const file = path.join(path.dirname(nativeAddonPath()), 'cckit_kernels_openblas.node');
  if (!fs.existsSync(file)) return { why: `${path.basename(file)} not built (CCKIT_NATIVE_OPENBLAS=1 npm run build:native, with libopenblas-dev)` };
  try {
    const loaded = require(file) as NativeAddon;
    if (loaded.sourceSha256 !== loadNativeAddon().sourceSha256) return { why: `${path.basename(file)} was built from other sources (rebuild it)` };
    return { addon: loaded };
  } catch (e) {
    return { why: `${file}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
}

/**
 * Registers (true) or removes (false) the native kernels for 'wasm'. Registering throws when the
 * addon cannot load. Whatever is registered for these names beforehand (tfjs-backend-wasm's
 * kernels, or cckit's untransposing matMul from ./wasm-kernels) becomes the fallback and comes back
 * on `false`.
 */
export function useNativeKernels(on: boolean, threads = nativeThreads(), addonOverride?: NativeAddon): void {
  const tf = loadTf();
  if (on === active && (!on || (addonOverride ?? loadNativeAddon()) === activeAddon)) {
    if (on) activeAddon!.setThreads(threads);
    return;
  }
  if (on && active) useNativeKernels(false);
  if (!on) {
    for (const [name, config] of underneath) {
      if (tf.getKernel(name, BACKEND)) tf.unregisterKernel(name, BACKEND);
      tf.registerKernel(config);
    }
    underneath.clear();
    for (const name of [FUSED_SOFTMAX_CE, FUSED_SOFTMAX_CE_GRAD, FUSED_LAYER_NORM, FUSED_LAYER_NORM_GRAD, FUSED_DROPOUT]) {
      if (tf.getKernel(name, BACKEND)) tf.unregisterKernel(name, BACKEND);
    }
    active = false;
    activeAddon = undefined;
    return;
  }
  const native = addonOverride ?? loadNativeAddon();
  native.setThreads(threads);
  for (const name of NATIVE_KERNELS) {
    const original = tf.getKernel(name, BACKEND);
    if (!original) throw new Error(`native kernels: the wasm backend has no ${name} kernel to stand on`);
    underneath.set(name, original);
    let kernelFunc: KernelConfig['kernelFunc'];
    if (name === 'Identity') kernelFunc = zeroCopyIdentity(original);
    else if (name === 'Cast') kernelFunc = zeroCopyCast(original);
    else {
      const fn = nativeKernelFunc(native, name)!;
      kernelFunc = ((args: never) => fn(args) ?? original.kernelFunc(args as unknown as KernelFuncArgs)) as unknown as KernelConfig['kernelFunc'];
    }
    tf.unregisterKernel(name, BACKEND);
    tf.registerKernel({ ...original, kernelFunc });
  }
  for (const [kernelName, kernelFunc] of Object.entries(fusedKernels(native))) {
    tf.registerKernel({ kernelName, backendName: BACKEND, kernelFunc: kernelFunc as unknown as KernelConfig['kernelFunc'] });
  }
  active = true;
  activeAddon = native;
}

// ---- optimiser updates in place -----------------------------------------------------------------

/**
 * Gives the variable a buffer of its own when another tensor shares it (a zero-copy clone, the
 * tensor it was created or assigned from), so an in-place update cannot change that tensor.
 */
function ownBuffer(tf: Tfjs, backend: WasmBackendLike, v: TF.Variable): void {
  if (backend.refCount(v.dataId) <= 1) return;
  const copy = backend.makeOutput([...v.shape], 'float32');
  const heap = backend.wasm.HEAPF32;
  const from = offsetOf(backend, v as unknown as TensorInfo);
  heap.copyWithin(offsetOf(backend, copy), from, from + v.size);
  const t = tf.engine().makeTensorFromTensorInfo(copy);
  v.assign(t);
  t.dispose();
}

/** The wasm backend when native kernels are active and these tensors live there; else undefined. */
function inPlaceBackend(tf: Tfjs, tensors: TF.Tensor[]): WasmBackendLike | undefined {
  if (!active || tf.getBackend() !== BACKEND) return undefined;
  if (tensors.some((t) => t.dtype !== 'float32')) return undefined;
  return tf.backend() as unknown as WasmBackendLike;
}

/** Adam on the heap in place (w, m, v updated); false when the native path does not apply. */
export function nativeAdamUpdate(
  w: TF.Variable,
  m: TF.Variable,
  v: TF.Variable,
  g: TF.Tensor,
  beta1: number,
  beta2: number,
  stepSize: number,
  eps: number,
): boolean {
  const tf = loadTf();
  const backend = inPlaceBackend(tf, [w, m, v, g]);
  if (!backend) return false;
  for (const t of [w, m, v]) ownBuffer(tf, backend, t);
  const off = (t: TF.Tensor) => offsetOf(backend, t as unknown as TensorInfo);
  (activeAddon ?? loadNativeAddon()).adam(backend.wasm.HEAPF32, w.size, off(w), off(m), off(v), off(g), beta1, beta2, stepSize, eps);
  return true;
}

/** Adagrad on the heap in place (w and the accumulator updated); false when the native path does not apply. */
export function nativeAdagradUpdate(w: TF.Variable, acc: TF.Variable, g: TF.Tensor, lr: number, eps: number): boolean {
  const tf = loadTf();
  const backend = inPlaceBackend(tf, [w, acc, g]);
  if (!backend) return false;
  for (const t of [w, acc]) ownBuffer(tf, backend, t);
  const off = (t: TF.Tensor) => offsetOf(backend, t as unknown as TensorInfo);
  (activeAddon ?? loadNativeAddon()).adagrad(backend.wasm.HEAPF32, w.size, off(w), off(acc), off(g), lr, eps);
  return true;
}
