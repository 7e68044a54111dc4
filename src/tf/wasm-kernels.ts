/**
 * Kernels for tfjs's `wasm` backend that training needs and tfjs-backend-wasm 4.22 lacks, plus a
 * faster BatchMatMul for transposed operands.
 *
 * - `UnsortedSegmentSum`: the gradient of `gather` (embeddings), so any model with an embedding
 *   fails its first backward pass on wasm without it.
 * - `Conv2DBackpropFilter`: the filter gradient of `conv2d`.
 * - `DepthwiseConv2dNativeBackpropFilter` / `…BackpropInput`: the gradients of `depthwiseConv2d`
 *   (NHWC, as tfjs's op requires).
 * - `BatchMatMul` / `_FusedMatMul` with `transposeA`/`transposeB`: XNNPACK's transposed path in
 *   tfjs-backend-wasm is an order of magnitude slower than its plain product (`npm run
 *   bench:matmul`, figures in the README), and backprop through every dense layer hits it (dy·Wᵀ, xᵀ·dy). The
 *   re-registered kernels transpose the operand explicitly with the wasm `Transpose` kernel, then
 *   call the original kernel untransposed.
 *
 * The missing kernels run in JS on typed arrays: inputs read with `backend.readSync`, the result
 * written to the wasm heap with `backend.makeOutput`. Accumulation is in float64.
 */
import type * as TF from '@tensorflow/tfjs';

type Tfjs = typeof TF;
type TensorInfo = TF.TensorInfo;
type TypedArray = Float32Array | Int32Array | Uint8Array;

/** What these kernels use of tfjs-backend-wasm's BackendWasm. */
interface WasmBackendLike {
  readSync(dataId: object): unknown;
  makeOutput(shape: number[], dtype: TF.DataType, memoryOffset?: number, values?: TypedArray): TensorInfo;
  disposeData(dataId: object, force?: boolean): boolean;
}

interface KernelArgs {
  inputs: Record<string, TensorInfo>;
  backend: WasmBackendLike;
  attrs?: Record<string, unknown>;
}

const BACKEND = 'wasm';

function loadTf(): Tfjs {
  return require('@tensorflow/tfjs') as Tfjs;
}

function size(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function read(backend: WasmBackendLike, t: TensorInfo): TypedArray {
  return backend.readSync(t.dataId) as TypedArray;
}

/** Typed array for a dtype, from float64 values. */
function toDtype(values: Float64Array, dtype: TF.DataType): TypedArray {
  if (dtype === 'float32') return Float32Array.from(values);
  if (dtype === 'int32') return Int32Array.from(values);
  throw new Error(`unsupported dtype ${dtype}`);
}

// ---- UnsortedSegmentSum -------------------------------------------------------------------------

/**
 * out[s, ...] = Σ over i with segmentIds[i] = s of x[i, ...], shape [numSegments, ...x.shape[k:]]
 * where k is the rank of segmentIds (a prefix of x's shape). Ids outside [0, numSegments) are
 * dropped, as in TensorFlow.
 */
export function unsortedSegmentSumKernel(args: KernelArgs): TensorInfo {
  const { x, segmentIds } = args.inputs;
  const numSegments = Number(args.attrs?.numSegments);
  if (!Number.isInteger(numSegments) || numSegments < 0) throw new Error(`UnsortedSegmentSum: numSegments ${numSegments}`);
  if (x.dtype !== 'float32' && x.dtype !== 'int32') throw new Error(`UnsortedSegmentSum: unsupported dtype ${x.dtype}`);
  const ids = read(args.backend, segmentIds);
  const n = size(segmentIds.shape);
  const k = segmentIds.shape.length;
  for (let d = 0; d < k; d++) {
    if (x.shape[d] !== segmentIds.shape[d]) throw new Error(`UnsortedSegmentSum: segmentIds shape ${segmentIds.shape} is not a prefix of x shape ${x.shape}`);
  }
  const inner = size(x.shape.slice(k));
  const xv = read(args.backend, x);
  const acc = new Float64Array(numSegments * inner);
  for (let i = 0; i < n; i++) {
    const s = ids[i];
    if (s < 0 || s >= numSegments) continue;
    const src = i * inner;
    const dst = s * inner;
    for (let j = 0; j < inner; j++) acc[dst + j] += xv[src + j];
  }
  return args.backend.makeOutput([numSegments, ...x.shape.slice(k)], x.dtype, undefined, toDtype(acc, x.dtype));
}

// ---- Conv2DBackpropFilter -----------------------------------------------------------------------

/**
 * dW[r, c, i, o] = Σ_{b, y, x} in[b, y·sh − top + r·dh, x·sw − left + c·dw, i] · dy[b, y, x, o]
 * (NHWC or NCHW input, filter [fh, fw, in, out]).
 */
export function conv2DBackpropFilterKernel(args: KernelArgs): TensorInfo {
  const tf = loadTf();
  const { x, dy } = args.inputs;
  const attrs = args.attrs ?? {};
  const filterShape = attrs.filterShape as [number, number, number, number];
  const dataFormat = (attrs.dataFormat as 'NHWC' | 'NCHW' | undefined) ?? 'NHWC';
  const dilations = (attrs.dilations as number | [number, number] | undefined) ?? 1;
  const info = tf.backend_util.computeConv2DInfo(
    x.shape as [number, number, number, number],
    filterShape,
    attrs.strides as number | [number, number],
    dilations,
    attrs.pad as 'valid' | 'same' | number | TF.backend_util.ExplicitPadding,
    attrs.dimRoundingMode as 'floor' | 'round' | 'ceil' | undefined,
    false,
    tf.backend_util.convertConv2DDataFormat(dataFormat),
  );
  const { batchSize, inHeight, inWidth, inChannels, outHeight, outWidth, outChannels, filterHeight, filterWidth } = info;
  const { strideHeight, strideWidth, dilationHeight, dilationWidth } = info;
  const top = info.padInfo.top;
  const left = info.padInfo.left;
  const xv = read(args.backend, x);
  const dyv = read(args.backend, dy);
  const channelsLast = dataFormat === 'NHWC';
  // element strides of x and dy for (batch, row, col, channel)
  const xs = channelsLast
    ? [inHeight * inWidth * inChannels, inWidth * inChannels, inChannels, 1]
    : [inChannels * inHeight * inWidth, inWidth, 1, inHeight * inWidth];
  const ds = channelsLast
    ? [outHeight * outWidth * outChannels, outWidth * outChannels, outChannels, 1]
    : [outChannels * outHeight * outWidth, outWidth, 1, outHeight * outWidth];
  const dW = new Float64Array(filterHeight * filterWidth * inChannels * outChannels);
  const dyRow = new Float64Array(outChannels);
  for (let b = 0; b < batchSize; b++) {
    for (let yr = 0; yr < outHeight; yr++) {
      for (let yc = 0; yc < outWidth; yc++) {
        const dyBase = b * ds[0] + yr * ds[1] + yc * ds[2];
        let any = false;
        for (let o = 0; o < outChannels; o++) {
          const v = dyv[dyBase + o * ds[3]];
          dyRow[o] = v;
          if (v !== 0) any = true;
        }
        if (!any) continue;
        for (let r = 0; r < filterHeight; r++) {
          const xr = yr * strideHeight - top + r * dilationHeight;
          if (xr < 0 || xr >= inHeight) continue;
          for (let c = 0; c < filterWidth; c++) {
            const xc = yc * strideWidth - left + c * dilationWidth;
            if (xc < 0 || xc >= inWidth) continue;
            const xBase = b * xs[0] + xr * xs[1] + xc * xs[2];
            const wBase = (r * filterWidth + c) * inChannels * outChannels;
            for (let i = 0; i < inChannels; i++) {
              const xval = xv[xBase + i * xs[3]];
              if (xval === 0) continue;
              const w = wBase + i * outChannels;
              for (let o = 0; o < outChannels; o++) dW[w + o] += xval * dyRow[o];
            }
          }
        }
      }
    }
  }
  return args.backend.makeOutput([...filterShape], 'float32', undefined, Float32Array.from(dW));
}

// ---- depthwise conv2d gradients (NHWC) ----------------------------------------------------------

function depthwiseInfo(tf: Tfjs, xShape: number[], filterShape: number[], attrs: Record<string, unknown>): TF.backend_util.Conv2DInfo {
  return tf.backend_util.computeConv2DInfo(
    xShape as [number, number, number, number],
    filterShape as [number, number, number, number],
    attrs.strides as number | [number, number],
    (attrs.dilations as number | [number, number] | undefined) ?? 1,
    attrs.pad as 'valid' | 'same' | number | TF.backend_util.ExplicitPadding,
    attrs.dimRoundingMode as 'floor' | 'round' | 'ceil' | undefined,
    true,
  );
}

/**
 * Visits every (input pixel, filter tap, output pixel) of a depthwise conv: calls
 * `fn(xBase, wBase, dyBase)` with the flat offsets of x[b, xr, xc, 0], W[r, c, 0, 0] and
 * dy[b, yr, yc, 0] (NHWC, filter [fh, fw, in, multiplier]).
 */
function forEachDepthwiseTap(info: TF.backend_util.Conv2DInfo, fn: (xBase: number, wBase: number, dyBase: number) => void): void {
  const { batchSize, inHeight, inWidth, inChannels, outHeight, outWidth, outChannels, filterHeight, filterWidth } = info;
  const mult = outChannels / inChannels;
  for (let b = 0; b < batchSize; b++) {
    for (let yr = 0; yr < outHeight; yr++) {
      for (let yc = 0; yc < outWidth; yc++) {
        const dyBase = ((b * outHeight + yr) * outWidth + yc) * outChannels;
        for (let r = 0; r < filterHeight; r++) {
          const xr = yr * info.strideHeight - info.padInfo.top + r * info.dilationHeight;
          if (xr < 0 || xr >= inHeight) continue;
          for (let c = 0; c < filterWidth; c++) {
            const xc = yc * info.strideWidth - info.padInfo.left + c * info.dilationWidth;
            if (xc < 0 || xc >= inWidth) continue;
            fn(((b * inHeight + xr) * inWidth + xc) * inChannels, (r * filterWidth + c) * inChannels * mult, dyBase);
          }
        }
      }
    }
  }
}

/** dW[r, c, i, q] = Σ x[b, xr, xc, i] · dy[b, yr, yc, i·m + q] (NHWC). */
export function depthwiseConv2dNativeBackpropFilterKernel(args: KernelArgs): TensorInfo {
  const tf = loadTf();
  const { x, dy } = args.inputs;
  const attrs = args.attrs ?? {};
  const filterShape = attrs.filterShape as number[];
  const info = depthwiseInfo(tf, x.shape, filterShape, attrs);
  const xv = read(args.backend, x);
  const dyv = read(args.backend, dy);
  const inC = info.inChannels;
  const mult = info.outChannels / inC;
  const dW = new Float64Array(size(filterShape));
  forEachDepthwiseTap(info, (xBase, wBase, dyBase) => {
    for (let i = 0; i < inC; i++) {
      const xval = xv[xBase + i];
      for (let q = 0; q < mult; q++) dW[wBase + i * mult + q] += xval * dyv[dyBase + i * mult + q];
    }
  });
  return args.backend.makeOutput([...filterShape], 'float32', undefined, Float32Array.from(dW));
}

/** dx[b, xr, xc, i] = Σ dy[b, yr, yc, i·m + q] · W[r, c, i, q] (NHWC). */
export function depthwiseConv2dNativeBackpropInputKernel(args: KernelArgs): TensorInfo {
  const tf = loadTf();
  const { dy, filter } = args.inputs;
  const attrs = args.attrs ?? {};
  const inputShape = attrs.inputShape as number[];
  const info = depthwiseInfo(tf, inputShape, filter.shape, attrs);
  const wv = read(args.backend, filter);
  const dyv = read(args.backend, dy);
  const inC = info.inChannels;
  const mult = info.outChannels / inC;
  const dx = new Float64Array(size(inputShape));
  forEachDepthwiseTap(info, (xBase, wBase, dyBase) => {
    for (let i = 0; i < inC; i++) {
      let s = 0;
      for (let q = 0; q < mult; q++) s += dyv[dyBase + i * mult + q] * wv[wBase + i * mult + q];
      dx[xBase + i] += s;
    }
  });
  return args.backend.makeOutput([...inputShape], 'float32', undefined, Float32Array.from(dx));
}

// ---- transposed matMul through an explicit Transpose --------------------------------------------

type KernelConfig = NonNullable<ReturnType<Tfjs['getKernel']>>;

/** Transposes the last two dimensions with the wasm Transpose kernel. */
function transposeLast2(tf: Tfjs, backend: WasmBackendLike, t: TensorInfo): TensorInfo {
  const transpose = tf.getKernel('Transpose', BACKEND);
  if (!transpose) throw new Error('wasm Transpose kernel is not registered');
  const rank = t.shape.length;
  const perm = [...Array(rank).keys()];
  perm[rank - 2] = rank - 1;
  perm[rank - 1] = rank - 2;
  return transpose.kernelFunc({ inputs: { x: t }, backend: backend as unknown as TF.KernelBackend, attrs: { perm } }) as TensorInfo;
}

/** Wraps a matMul kernel: transposed operands are transposed explicitly, then the plain product runs. */
function untransposing(tf: Tfjs, original: KernelConfig): KernelConfig {
  const kernelFunc = (args: { inputs: Record<string, TensorInfo>; backend: TF.KernelBackend; attrs?: Record<string, unknown> }) => {
    const attrs = args.attrs ?? {};
    const transposeA = attrs.transposeA === true;
    const transposeB = attrs.transposeB === true;
    if ((!transposeA && !transposeB) || args.inputs.a.shape.length < 2 || args.inputs.b.shape.length < 2) {
      return original.kernelFunc(args as Parameters<KernelConfig['kernelFunc']>[0]);
    }
    const backend = args.backend as unknown as WasmBackendLike;
    const temps: TensorInfo[] = [];
    try {
      const inputs = { ...args.inputs };
      if (transposeA) temps.push((inputs.a = transposeLast2(tf, backend, inputs.a)));
      if (transposeB) temps.push((inputs.b = transposeLast2(tf, backend, inputs.b)));
      return original.kernelFunc({ ...args, inputs, attrs: { ...attrs, transposeA: false, transposeB: false } } as Parameters<KernelConfig['kernelFunc']>[0]);
    } finally {
      for (const t of temps) backend.disposeData(t.dataId);
    }
  };
  return { ...original, kernelFunc: kernelFunc as unknown as KernelConfig['kernelFunc'] };
}

// ---- registration -------------------------------------------------------------------------------

/** The kernels `registerWasmKernels` adds (absent from tfjs-backend-wasm 4.22). */
export const ADDED_WASM_KERNELS = [
  'UnsortedSegmentSum',
  'Conv2DBackpropFilter',
  'DepthwiseConv2dNativeBackpropFilter',
  'DepthwiseConv2dNativeBackpropInput',
] as const;
/** The wasm kernels `registerWasmKernels` replaces by a wrapper for transposed operands. */
export const WRAPPED_WASM_KERNELS = ['BatchMatMul', '_FusedMatMul'] as const;

const originals = new Map<string, KernelConfig>();
let registered = false;

/** The wasm kernel as tfjs-backend-wasm registered it (before `registerWasmKernels`). */
export function originalWasmKernel(name: (typeof WRAPPED_WASM_KERNELS)[number]): KernelConfig | undefined {
  return originals.get(name) ?? loadTf().getKernel(name, BACKEND);
}

/**
 * Registers the missing kernels and the transposing matMul wrappers for 'wasm'. Idempotent;
 * call after `@tensorflow/tfjs-backend-wasm` is loaded, ideally before `setBackend('wasm')`
 * (the wrappers keep the originals' setup functions). Kernels already provided by the installed
 * tfjs-backend-wasm are left alone.
 */
export function registerWasmKernels(): void {
  if (registered) return;
  const tf = loadTf();
  const add = (kernelName: string, kernelFunc: (args: KernelArgs) => TensorInfo) => {
    if (tf.getKernel(kernelName, BACKEND)) return;
    tf.registerKernel({ kernelName, backendName: BACKEND, kernelFunc: kernelFunc as unknown as KernelConfig['kernelFunc'] });
  };
  add('UnsortedSegmentSum', unsortedSegmentSumKernel);
  add('Conv2DBackpropFilter', conv2DBackpropFilterKernel);
  add('DepthwiseConv2dNativeBackpropFilter', depthwiseConv2dNativeBackpropFilterKernel);
  add('DepthwiseConv2dNativeBackpropInput', depthwiseConv2dNativeBackpropInputKernel);
  for (const name of WRAPPED_WASM_KERNELS) {
    const original = tf.getKernel(name, BACKEND);
    if (!original) continue;
    originals.set(name, original);
    tf.unregisterKernel(name, BACKEND);
    tf.registerKernel(untransposing(tf, original));
  }
  registered = true;
}

/** Puts the original matMul kernels back (benchmarks compare both). */
export function restoreOriginalMatMul(): void {
  const tf = loadTf();
  for (const [name, config] of originals) {
    if (tf.getKernel(name, BACKEND)) tf.unregisterKernel(name, BACKEND);
    tf.registerKernel(config);
  }
}

/** Re-registers the transposing wrappers after `restoreOriginalMatMul`. */
export function useFastMatMul(): void {
  const tf = loadTf();
  for (const [name, config] of originals) {
    if (tf.getKernel(name, BACKEND)) tf.unregisterKernel(name, BACKEND);
    tf.registerKernel(untransposing(tf, config));
  }
}
