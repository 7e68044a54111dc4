/*
 * cckit's own single-precision matrix product and the kernel paths it (and native/ops.c) run on.
 *
 * Determinism contract, the same on every path: each element of C is one accumulator that starts at
 * +0 and takes a fused multiply-add for k = 0, 1, …, K−1 in that order (acc = fma(a[i][k], b[k][j], acc)).
 * Blocking is over m and n only; a block of K continues the same accumulator (stored to C and loaded back,
 * which changes no bit). So every path, vector width and tile size gives the same bits.
 */
#ifndef CCKIT_SGEMM_H
#define CCKIT_SGEMM_H

#include <stdint.h>

typedef enum {
  CCKIT_PATH_PORTABLE = 0,
  CCKIT_PATH_AVX2 = 1,
  CCKIT_PATH_AVX512 = 2,
  CCKIT_PATH_NEON = 3,
  CCKIT_PATH_COUNT = 4,
} CckitPath;

/* "portable", "avx2", "avx512", "neon" */
const char *cckit_path_name(CckitPath path);
/* The path's name parsed; −1 for an unknown name. */
int cckit_path_parse(const char *name);
/* Whether this build and this CPU can run the path. */
int cckit_path_supported(CckitPath path);
/* The fastest supported path. */
CckitPath cckit_path_best(void);

/*
 * C = op(A)·op(B) (+ bias[j]) (then max(·, 0) when relu), row-major; op(A) is m×k, op(B) is k×n, C is m×n
 * with row stride n. transA: A is stored k×m; transB: B is stored n×k. bias may be NULL. Returns 0, or −1
 * when the packing buffers cannot be allocated. threads > 1 splits the columns of C over that many threads
 * (large products only); each element is computed exactly as on one thread.
 */
int cckit_sgemm(CckitPath path, int threads, int transA, int transB, int64_t m, int64_t n, int64_t k, const float *A, const float *B, float *C,
                const float *bias, int relu);

#endif
