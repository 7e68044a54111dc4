/*
 * cckit's native kernels for tfjs's wasm backend: an N-API addon that computes on the wasm heap in
 * place (no copies). Every entry point takes the heap as a Float32Array (the backend's HEAPF32) and
 * float offsets into it; the JS side (src/tf/native-kernels.ts) finds the offsets in the backend's
 * data map and allocates outputs before calling, so the heap cannot grow under us.
 *
 * Matrix products run on cckit's own SGEMM (sgemm.c), the other arithmetic on ops.c; both come in
 * kernel paths (portable, AVX2, AVX-512, NEON) chosen at load time from the CPU's features, or forced by
 * CCKIT_KERNEL_PATH, and every path gives the same bits (sgemm.h, ops.h). Nothing here links a BLAS or
 * libm's vector functions.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "sgemm.h"

#ifdef CCKIT_GEMM_OPENBLAS
/* The benchmark's comparison build only (scripts/build-native.mjs, CCKIT_NATIVE_OPENBLAS=1): products on OpenBLAS. */
#include <cblas.h>
static int cckit_sgemm_openblas(int transA, int transB, int64_t m, int64_t n, int64_t k, const float *A, const float *B, float *C,
                                const float *bias, int relu) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
              transA ? (int)m : (int)k, B, transB ? (int)k : (int)n, 0.0f, C, (int)n);
  if (bias || relu) cckit_ops(CCKIT_PATH_PORTABLE)->bias_activation(C, m, n, bias, relu);
  return 0;
}
#endif

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, NULL, "cckit native: N-API call failed"); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

typedef struct {
  float *heap;
  size_t length; /* floats */
} Heap;

static int get_heap(napi_env env, napi_value value, Heap *heap) {
  napi_typedarray_type type;
  size_t length;
  void *data;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &offset) != napi_ok || type != napi_float32_array) {
    napi_throw_type_error(env, NULL, "cckit native: the heap must be a Float32Array");
    return 0;
  }
  heap->heap = (float *)data;
  heap->length = length;
  return 1;
}

static int get_args(napi_env env, napi_callback_info info, size_t expected, napi_value *argv) {
  size_t argc = expected;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < expected) {
    napi_throw_type_error(env, NULL, "cckit native: too few arguments");
    return 0;
  }
  return 1;
}

static int64_t get_i64(napi_env env, napi_value v) {
  int64_t out = 0;
  napi_get_value_int64(env, v, &out);
  return out;
}

static double get_f64(napi_env env, napi_value v) {
  double out = 0;
  napi_get_value_double(env, v, &out);
  return out;
}

/* A range [offset, offset + count) must lie inside the heap: a wrong offset is an exception, not a crash. */
static int in_heap(napi_env env, const Heap *h, int64_t offset, int64_t count) {
  if (offset < 0 || count < 0 || (uint64_t)(offset + count) > h->length) {
    napi_throw_range_error(env, NULL, "cckit native: range outside the wasm heap");
    return 0;
  }
  return 1;
}

static CckitPath kernel_path = CCKIT_PATH_PORTABLE;
static const CckitOps *ops = NULL;
static int gemm_threads = 1;

static void use_path(CckitPath path) {
  kernel_path = path;
  ops = cckit_ops(path);
}

/*
 * gemm(heap, batch, m, n, k, transA, transB, aOff, aStride, bOff, bStride, cOff, biasOff, activation)
 * C[i] = act(op(A[i]) · op(B[i]) + bias) for i < batch, row-major; C[i] is m×n at cOff + i·m·n. A stride
 * of 0 broadcasts that operand over the batch; biasOff < 0: no bias (else n floats added to every row);
 * activation 0 linear, 1 relu.
 */
static napi_value gemm(napi_env env, napi_callback_info info) {
  napi_value argv[14];
  Heap h;
  if (!get_args(env, info, 14, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t batch = get_i64(env, argv[1]), m = get_i64(env, argv[2]), n = get_i64(env, argv[3]), k = get_i64(env, argv[4]);
  int transA = (int)get_i64(env, argv[5]), transB = (int)get_i64(env, argv[6]);
  int64_t aOff = get_i64(env, argv[7]), aStride = get_i64(env, argv[8]);
  int64_t bOff = get_i64(env, argv[9]), bStride = get_i64(env, argv[10]), cOff = get_i64(env, argv[11]);
  int64_t biasOff = get_i64(env, argv[12]);
  int relu = get_i64(env, argv[13]) == 1;
  if (batch <= 0 || m <= 0 || n <= 0) return NULL;
  if (k < 0 || aStride < 0 || bStride < 0) {
    napi_throw_range_error(env, NULL, "cckit native: gemm needs k ≥ 0 and strides ≥ 0");
    return NULL;
  }
  if (!in_heap(env, &h, aOff, aStride * (batch - 1) + m * k) || !in_heap(env, &h, bOff, bStride * (batch - 1) + k * n) ||
      !in_heap(env, &h, cOff, batch * m * n) || (biasOff >= 0 && !in_heap(env, &h, biasOff, n)))
    return NULL;
  const float *bias = biasOff >= 0 ? h.heap + biasOff : NULL;
  for (int64_t i = 0; i < batch; i++) {
#ifdef CCKIT_GEMM_OPENBLAS
    if (cckit_sgemm_openblas(transA, transB, m, n, k, h.heap + aOff + i * aStride, h.heap + bOff + i * bStride, h.heap + cOff + i * m * n,
                             bias, relu) != 0) {
#else
    if (cckit_sgemm(kernel_path, gemm_threads, transA, transB, m, n, k, h.heap + aOff + i * aStride, h.heap + bOff + i * bStride,
                    h.heap + cOff + i * m * n, bias, relu) != 0) {
#endif
      napi_throw_error(env, NULL, "cckit native: gemm could not allocate its packing buffers");
      return NULL;
    }
  }
  return NULL;
}

/* biasActivation(heap, cOff, rows, n, biasOff, activation): C[r, j] = act(C[r, j] + bias[j]); biasOff < 0: no bias; 0 linear, 1 relu. */
static napi_value bias_activation(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  Heap h;
  if (!get_args(env, info, 6, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t cOff = get_i64(env, argv[1]), rows = get_i64(env, argv[2]), n = get_i64(env, argv[3]), biasOff = get_i64(env, argv[4]);
  int act = (int)get_i64(env, argv[5]);
  if (!in_heap(env, &h, cOff, rows * n) || (biasOff >= 0 && !in_heap(env, &h, biasOff, n))) return NULL;
  ops->bias_activation(h.heap + cOff, rows, n, biasOff >= 0 ? h.heap + biasOff : NULL, act == 1);
  return NULL;
}

/*
 * adam(heap, count, varOff, mOff, vOff, gOff, beta1, beta2, stepSize, epsilon), in place:
 * m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²; w ← w − stepSize·m / (√v + ε).
 * The same formula as the JS optimiser (bias correction folded into stepSize).
 */
static napi_value adam(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  Heap h;
  if (!get_args(env, info, 10, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t count = get_i64(env, argv[1]), wOff = get_i64(env, argv[2]), mOff = get_i64(env, argv[3]), vOff = get_i64(env, argv[4]),
          gOff = get_i64(env, argv[5]);
  float b1 = (float)get_f64(env, argv[6]), b2 = (float)get_f64(env, argv[7]), stepSize = (float)get_f64(env, argv[8]),
        eps = (float)get_f64(env, argv[9]);
  if (!in_heap(env, &h, wOff, count) || !in_heap(env, &h, mOff, count) || !in_heap(env, &h, vOff, count) || !in_heap(env, &h, gOff, count))
    return NULL;
  ops->adam(count, h.heap + wOff, h.heap + mOff, h.heap + vOff, h.heap + gOff, b1, b2, stepSize, eps);
  return NULL;
}

/* adagrad(heap, count, varOff, accOff, gOff, lr, epsilon), in place: a ← a + g²; w ← w − lr·g / (√a + ε). */
static napi_value adagrad(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap h;
  if (!get_args(env, info, 7, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t count = get_i64(env, argv[1]), wOff = get_i64(env, argv[2]), aOff = get_i64(env, argv[3]), gOff = get_i64(env, argv[4]);
  float lr = (float)get_f64(env, argv[5]), eps = (float)get_f64(env, argv[6]);
  if (!in_heap(env, &h, wOff, count) || !in_heap(env, &h, aOff, count) || !in_heap(env, &h, gOff, count)) return NULL;
  ops->adagrad(count, h.heap + wOff, h.heap + aOff, h.heap + gOff, lr, eps);
  return NULL;
}

/*
 * softmaxCrossEntropy(heap, logitsOff, labelsOff, rows, classes, smoothing, lossOff, lseOff)
 * Per row r: lse = log Σ exp(x), loss = (1−s)·(lse − x[label]) + s·(lse − mean(x)); labels are int32.
 * Labels outside [0, classes) give loss (the row is masked by the caller) from the smoothing part only.
 */
static napi_value softmax_ce(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  Heap h;
  if (!get_args(env, info, 8, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), yOff = get_i64(env, argv[2]), rows = get_i64(env, argv[3]), classes = get_i64(env, argv[4]);
  float smoothing = (float)get_f64(env, argv[5]);
  int64_t lossOff = get_i64(env, argv[6]), lseOff = get_i64(env, argv[7]);
  if (!in_heap(env, &h, xOff, rows * classes) || !in_heap(env, &h, yOff, rows) || !in_heap(env, &h, lossOff, rows) || !in_heap(env, &h, lseOff, rows))
    return NULL;
  if (classes <= 0) {
    napi_throw_range_error(env, NULL, "cckit native: softmaxCrossEntropy needs at least one class");
    return NULL;
  }
  ops->softmax_ce(h.heap + xOff, (const int32_t *)(h.heap + yOff), rows, classes, smoothing, h.heap + lossOff, h.heap + lseOff);
  return NULL;
}

/* softmaxCrossEntropyGrad(heap, logitsOff, labelsOff, lseOff, dyOff, rows, classes, smoothing, dxOff):
 * dx[r, j] = dy[r]·(softmax(x)[j] − (1−s)·[j = label] − s/classes). */
static napi_value softmax_ce_grad(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  Heap h;
  if (!get_args(env, info, 9, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), yOff = get_i64(env, argv[2]), lseOff = get_i64(env, argv[3]), dyOff = get_i64(env, argv[4]);
  int64_t rows = get_i64(env, argv[5]), classes = get_i64(env, argv[6]);
  float smoothing = (float)get_f64(env, argv[7]);
  int64_t dxOff = get_i64(env, argv[8]);
  if (!in_heap(env, &h, xOff, rows * classes) || !in_heap(env, &h, yOff, rows) || !in_heap(env, &h, lseOff, rows) || !in_heap(env, &h, dyOff, rows) ||
      !in_heap(env, &h, dxOff, rows * classes))
    return NULL;
  ops->softmax_ce_grad(h.heap + xOff, (const int32_t *)(h.heap + yOff), h.heap + lseOff, h.heap + dyOff, rows, classes, smoothing,
                       h.heap + dxOff);
  return NULL;
}

/* layerNorm(heap, xOff, gOff, bOff, rows, dim, eps, yOff, meanOff, rstdOff): y = (x − μ)·rstd·g + b over the last axis. */
static napi_value layer_norm(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  Heap h;
  if (!get_args(env, info, 10, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), gOff = get_i64(env, argv[2]), bOff = get_i64(env, argv[3]), rows = get_i64(env, argv[4]), dim = get_i64(env, argv[5]);
  float eps = (float)get_f64(env, argv[6]);
  int64_t yOff = get_i64(env, argv[7]), meanOff = get_i64(env, argv[8]), rstdOff = get_i64(env, argv[9]);
  if (!in_heap(env, &h, xOff, rows * dim) || !in_heap(env, &h, gOff, dim) || !in_heap(env, &h, bOff, dim) || !in_heap(env, &h, yOff, rows * dim) ||
      !in_heap(env, &h, meanOff, rows) || !in_heap(env, &h, rstdOff, rows))
    return NULL;
  ops->layer_norm(h.heap + xOff, h.heap + gOff, h.heap + bOff, rows, dim, eps, h.heap + yOff, h.heap + meanOff, h.heap + rstdOff);
  return NULL;
}

/*
 * layerNormGrad(heap, xOff, gOff, meanOff, rstdOff, dyOff, rows, dim, dxOff, dgOff, dbOff), with x̂ = (x − μ)·rstd:
 * dx = rstd·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂)); dg = Σ_rows dy·x̂; db = Σ_rows dy.
 */
static napi_value layer_norm_grad(napi_env env, napi_callback_info info) {
  napi_value argv[11];
  Heap h;
  if (!get_args(env, info, 11, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), gOff = get_i64(env, argv[2]), meanOff = get_i64(env, argv[3]), rstdOff = get_i64(env, argv[4]),
          dyOff = get_i64(env, argv[5]), rows = get_i64(env, argv[6]), dim = get_i64(env, argv[7]), dxOff = get_i64(env, argv[8]),
          dgOff = get_i64(env, argv[9]), dbOff = get_i64(env, argv[10]);
  if (!in_heap(env, &h, xOff, rows * dim) || !in_heap(env, &h, gOff, dim) || !in_heap(env, &h, meanOff, rows) || !in_heap(env, &h, rstdOff, rows) ||
      !in_heap(env, &h, dyOff, rows * dim) || !in_heap(env, &h, dxOff, rows * dim) || !in_heap(env, &h, dgOff, dim) || !in_heap(env, &h, dbOff, dim))
    return NULL;
  ops->layer_norm_grad(h.heap + xOff, h.heap + gOff, h.heap + meanOff, h.heap + rstdOff, h.heap + dyOff, rows, dim, h.heap + dxOff,
                       h.heap + dgOff, h.heap + dbOff);
  return NULL;
}

/* sumOuter(heap, xOff, outer, inner, outOff): out[j] = Σ_i x[i, j] (a reduction over leading axes). */
static napi_value sum_outer(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Heap h;
  if (!get_args(env, info, 5, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), outer = get_i64(env, argv[2]), inner = get_i64(env, argv[3]), outOff = get_i64(env, argv[4]);
  if (!in_heap(env, &h, xOff, outer * inner) || !in_heap(env, &h, outOff, inner)) return NULL;
  ops->sum_outer(h.heap + xOff, outer, inner, h.heap + outOff);
  return NULL;
}

/* sumInner(heap, xOff, outer, inner, outOff): out[i] = Σ_j x[i, j] (a reduction over trailing axes, 16 lanes). */
static napi_value sum_inner(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Heap h;
  if (!get_args(env, info, 5, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), outer = get_i64(env, argv[2]), inner = get_i64(env, argv[3]), outOff = get_i64(env, argv[4]);
  if (!in_heap(env, &h, xOff, outer * inner) || !in_heap(env, &h, outOff, outer)) return NULL;
  ops->sum_inner(h.heap + xOff, outer, inner, h.heap + outOff);
  return NULL;
}

/* unsortedSegmentSum(heap, xOff, idsOff, rows, inner, segments, outOff): out[s] = Σ_{ids[i] = s} x[i]; ids outside [0, segments) dropped. */
static napi_value unsorted_segment_sum(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap h;
  if (!get_args(env, info, 7, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), idsOff = get_i64(env, argv[2]), rows = get_i64(env, argv[3]), inner = get_i64(env, argv[4]),
          segments = get_i64(env, argv[5]), outOff = get_i64(env, argv[6]);
  if (!in_heap(env, &h, xOff, rows * inner) || !in_heap(env, &h, idsOff, rows) || !in_heap(env, &h, outOff, segments * inner)) return NULL;
  ops->segment_sum(h.heap + xOff, (const int32_t *)(h.heap + idsOff), rows, inner, segments, h.heap + outOff);
  return NULL;
}

/* softmax(heap, xOff, rows, cols, yOff): y = softmax(x) over the last axis (exp with cckit's exp, sums over 16 lanes). */
static napi_value softmax(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Heap h;
  if (!get_args(env, info, 5, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), rows = get_i64(env, argv[2]), cols = get_i64(env, argv[3]), yOff = get_i64(env, argv[4]);
  if (!in_heap(env, &h, xOff, rows * cols) || !in_heap(env, &h, yOff, rows * cols)) return NULL;
  ops->softmax(h.heap + xOff, rows, cols, h.heap + yOff);
  return NULL;
}

/* expLog(x: Float32Array, expOut: Float32Array, logOut: Float32Array): cckit's exp and log, element by element (tests). */
static napi_value exp_log(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Heap x, e, l;
  if (!get_args(env, info, 3, argv) || !get_heap(env, argv[0], &x) || !get_heap(env, argv[1], &e) || !get_heap(env, argv[2], &l)) return NULL;
  if (e.length < x.length || l.length < x.length) {
    napi_throw_range_error(env, NULL, "cckit native: expLog outputs shorter than the input");
    return NULL;
  }
  ops->exp_log(x.heap, (int64_t)x.length, e.heap, l.heap);
  return NULL;
}

/* copyBlocks(heap, srcOff, srcStride, dstOff, dstStride, blocks, length): block b of `length` floats from src + b·srcStride to dst + b·dstStride (split and concat). */
static napi_value copy_blocks(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap h;
  if (!get_args(env, info, 7, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t srcOff = get_i64(env, argv[1]), srcStride = get_i64(env, argv[2]), dstOff = get_i64(env, argv[3]), dstStride = get_i64(env, argv[4]),
          blocks = get_i64(env, argv[5]), length = get_i64(env, argv[6]);
  if (blocks <= 0 || length <= 0) return NULL;
  if (!in_heap(env, &h, srcOff, srcStride * (blocks - 1) + length) || !in_heap(env, &h, dstOff, dstStride * (blocks - 1) + length)) return NULL;
  for (int64_t b = 0; b < blocks; b++) memcpy(h.heap + dstOff + b * dstStride, h.heap + srcOff + b * srcStride, sizeof(float) * (size_t)length);
  return NULL;
}

/*
 * transpose(heap, xOff, outOff, shape: Int32Array, perm: Int32Array): out = x with axes permuted (rank ≤ 8, 4-byte elements).
 * The innermost output axis is walked with the input's stride for it; the rest by an odometer.
 */
static napi_value transpose(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Heap h;
  if (!get_args(env, info, 5, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), outOff = get_i64(env, argv[2]);
  napi_typedarray_type type;
  size_t rank, rank2;
  void *shapeData, *permData;
  napi_value ab;
  size_t bo;
  if (napi_get_typedarray_info(env, argv[3], &type, &rank, &shapeData, &ab, &bo) != napi_ok || type != napi_int32_array ||
      napi_get_typedarray_info(env, argv[4], &type, &rank2, &permData, &ab, &bo) != napi_ok || type != napi_int32_array || rank != rank2 || rank == 0 ||
      rank > 8) {
    napi_throw_type_error(env, NULL, "cckit native: transpose needs Int32Array shape and perm of one rank ≤ 8");
    return NULL;
  }
  const int32_t *shape = shapeData, *perm = permData;
  int64_t inStride[8], count = 1;
  for (int64_t d = (int64_t)rank - 1; d >= 0; d--) {
    inStride[d] = count;
    count *= shape[d];
  }
  if (!in_heap(env, &h, xOff, count) || !in_heap(env, &h, outOff, count)) return NULL;
  if (count == 0) return NULL;
  int64_t outShape[8], stride[8], index[8];
  for (size_t d = 0; d < rank; d++) {
    outShape[d] = shape[perm[d]];
    stride[d] = inStride[perm[d]];
    index[d] = 0;
  }
  const uint32_t *x = (const uint32_t *)(h.heap + xOff);
  uint32_t *out = (uint32_t *)(h.heap + outOff);
  const int64_t last = (int64_t)rank - 1, n = outShape[last], s = stride[last];
  int64_t base = 0;
  for (int64_t o = 0; o < count; o += n) {
    const uint32_t *src = x + base;
    for (int64_t j = 0; j < n; j++) out[o + j] = src[j * s];
    for (int64_t d = last - 1; d >= 0; d--) {
      base += stride[d];
      if (++index[d] < outShape[d]) break;
      base -= stride[d] * outShape[d];
      index[d] = 0;
    }
  }
  return NULL;
}

/* splitmix64: a counter-based generator, so mask element i depends on (seed, i) only. */
static inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* dropout(heap, xOff, count, rate, seed, yOff, maskOff): mask[i] = 1/(1−rate) with probability 1−rate, else 0; y = x·mask. */
static napi_value dropout(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap h;
  if (!get_args(env, info, 7, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), count = get_i64(env, argv[2]);
  double rate = get_f64(env, argv[3]);
  uint64_t seed = (uint64_t)get_i64(env, argv[4]);
  int64_t yOff = get_i64(env, argv[5]), maskOff = get_i64(env, argv[6]);
  if (!in_heap(env, &h, xOff, count) || !in_heap(env, &h, yOff, count) || !in_heap(env, &h, maskOff, count)) return NULL;
  const float scale = (float)(1.0 / (1.0 - rate));
  /* keep when the top 24 bits, as a uniform in [0, 1), are at least `rate` */
  const uint32_t threshold = (uint32_t)(rate * 16777216.0);
  const uint64_t key = mix64(seed ^ 0x5bd1e9955bd1e995ULL);
  const float *x = h.heap + xOff;
  float *y = h.heap + yOff, *mask = h.heap + maskOff;
  for (int64_t i = 0; i < count; i++) {
    uint32_t u = (uint32_t)(mix64(key + (uint64_t)i) >> 40);
    float m = u >= threshold ? scale : 0.0f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
  return NULL;
}


/* gatherRows(heap, xOff, rows, rowLength, indicesOff, count, outOff): out[i] = x[indices[i]]; returns the first bad index position or −1. */
static napi_value gather_rows(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap h;
  if (!get_args(env, info, 7, argv) || !get_heap(env, argv[0], &h)) return NULL;
  int64_t xOff = get_i64(env, argv[1]), rows = get_i64(env, argv[2]), rowLength = get_i64(env, argv[3]), idxOff = get_i64(env, argv[4]),
          count = get_i64(env, argv[5]), outOff = get_i64(env, argv[6]);
  if (!in_heap(env, &h, xOff, rows * rowLength) || !in_heap(env, &h, idxOff, count) || !in_heap(env, &h, outOff, count * rowLength)) return NULL;
  const int32_t *idx = (const int32_t *)(h.heap + idxOff);
  int64_t bad = -1;
  for (int64_t i = 0; i < count; i++) {
    int32_t r = idx[i];
    if (r < 0 || r >= rows) {
      bad = i;
      break;
    }
    memcpy(h.heap + outOff + i * rowLength, h.heap + xOff + (int64_t)r * rowLength, sizeof(float) * (size_t)rowLength);
  }
  napi_value out;
  CHECK(napi_create_int64(env, bad, &out));
  return out;
}

static napi_value get_string(napi_env env, const char *text) {
  napi_value out;
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &out) != napi_ok) return NULL;
  return out;
}

/* setKernelPath(name): run on that path from now on; throws when this CPU or build lacks it. */
static napi_value set_kernel_path(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) return NULL;
  char name[32];
  size_t length = 0;
  if (napi_get_value_string_utf8(env, argv[0], name, sizeof(name), &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "cckit native: setKernelPath needs a string");
    return NULL;
  }
  const int path = cckit_path_parse(name);
  if (path < 0 || !cckit_path_supported((CckitPath)path)) {
    char message[160];
    snprintf(message, sizeof(message), "cckit native: kernel path '%s' is %s (portable, avx2, avx512, neon)", name,
             path < 0 ? "unknown" : "not supported by this CPU or build");
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  use_path((CckitPath)path);
  return NULL;
}

static napi_value get_kernel_path(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef CCKIT_GEMM_OPENBLAS
  /* the comparison build says so: its products are OpenBLAS's, its other ops this path's */
  char name[64];
  snprintf(name, sizeof(name), "openblas+%s", cckit_path_name(kernel_path));
  return get_string(env, name);
#else
  return get_string(env, cckit_path_name(kernel_path));
#endif
}

/* kernelPaths(): the paths this CPU and build support, comma-separated, portable first. */
static napi_value get_kernel_paths(napi_env env, napi_callback_info info) {
  (void)info;
  char list[64] = "";
  for (int p = 0; p < CCKIT_PATH_COUNT; p++) {
    if (!cckit_path_supported((CckitPath)p)) continue;
    if (list[0]) strcat(list, ",");
    strcat(list, cckit_path_name((CckitPath)p));
  }
  return get_string(env, list);
}

static napi_value set_threads(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) return NULL;
  int64_t n = get_i64(env, argv[0]);
  gemm_threads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
#ifdef CCKIT_GEMM_OPENBLAS
  openblas_set_num_threads(gemm_threads);
#endif
  return NULL;
}

static napi_value get_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(napi_create_int32(env, gemm_threads, &out));
  return out;
}

/* The sha256 of native/'s sources when it was built (scripts/build-native.mjs passes it), so a stale build is noticed. */
#ifndef CCKIT_SOURCE_SHA256
#define CCKIT_SOURCE_SHA256 "unknown"
#endif

static napi_value init(napi_env env, napi_value exports) {
  /* CCKIT_KERNEL_PATH forces a path; an unknown or unsupported one fails the load, naming it */
  const char *forced = getenv("CCKIT_KERNEL_PATH");
  if (forced && forced[0]) {
    const int path = cckit_path_parse(forced);
    if (path < 0 || !cckit_path_supported((CckitPath)path)) {
      char message[200];
      snprintf(message, sizeof(message), "CCKIT_KERNEL_PATH=%s: %s (this CPU runs: portable%s%s%s)", forced,
               path < 0 ? "unknown kernel path" : "not supported by this CPU or build",
               cckit_path_supported(CCKIT_PATH_AVX2) ? ", avx2" : "", cckit_path_supported(CCKIT_PATH_AVX512) ? ", avx512" : "",
               cckit_path_supported(CCKIT_PATH_NEON) ? ", neon" : "");
      napi_throw_error(env, NULL, message);
      return NULL;
    }
    use_path((CckitPath)path);
  } else {
    use_path(cckit_path_best());
  }
  napi_property_descriptor props[] = {
      {"gemm", NULL, gemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"biasActivation", NULL, bias_activation, NULL, NULL, NULL, napi_enumerable, NULL},
      {"adam", NULL, adam, NULL, NULL, NULL, napi_enumerable, NULL},
      {"adagrad", NULL, adagrad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"softmaxCrossEntropy", NULL, softmax_ce, NULL, NULL, NULL, napi_enumerable, NULL},
      {"softmaxCrossEntropyGrad", NULL, softmax_ce_grad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNorm", NULL, layer_norm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormGrad", NULL, layer_norm_grad, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumOuter", NULL, sum_outer, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumInner", NULL, sum_inner, NULL, NULL, NULL, napi_enumerable, NULL},
      {"unsortedSegmentSum", NULL, unsorted_segment_sum, NULL, NULL, NULL, napi_enumerable, NULL},
      {"copyBlocks", NULL, copy_blocks, NULL, NULL, NULL, napi_enumerable, NULL},
      {"transpose", NULL, transpose, NULL, NULL, NULL, napi_enumerable, NULL},
      {"dropout", NULL, dropout, NULL, NULL, NULL, napi_enumerable, NULL},
      {"gatherRows", NULL, gather_rows, NULL, NULL, NULL, napi_enumerable, NULL},
      {"softmax", NULL, softmax, NULL, NULL, NULL, napi_enumerable, NULL},
      {"expLog", NULL, exp_log, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreads", NULL, set_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getThreads", NULL, get_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setKernelPath", NULL, set_kernel_path, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernelPath", NULL, get_kernel_path, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernelPaths", NULL, get_kernel_paths, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props) != napi_ok) return NULL;
  napi_value digest;
  if (napi_create_string_utf8(env, CCKIT_SOURCE_SHA256, NAPI_AUTO_LENGTH, &digest) != napi_ok ||
      napi_set_named_property(env, exports, "sourceSha256", digest) != napi_ok)
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
