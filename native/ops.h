/*
 * cckit's other native ops (everything but the matrix product), in one fixed order of operations that
 * every kernel path shares: ops_impl.h is plain C written lane by lane (sums over a row go to 16 partial
 * sums, lane l taking elements l, l+16, …, combined in one fixed tree), compiled once per path with
 * that path's instruction set. The compiler may vectorise it but not reorder it (no -ffast-math,
 * -ffp-contract=off), so every path computes the same bits; exp and log are cckit's own (fmaf
 * polynomials), not libm's or libmvec's.
 */
#ifndef CCKIT_OPS_H
#define CCKIT_OPS_H

#include <stdint.h>

#include "sgemm.h"

typedef struct {
  /* Per row r: lse = log Σ exp(x), loss = (1−s)·(lse − x[label]) + s·(lse − mean(x)); a label outside
   * [0, classes) leaves only the smoothing part. */
  void (*softmax_ce)(const float *x, const int32_t *labels, int64_t rows, int64_t classes, float smoothing, float *loss, float *lse);
  /* dx[r, j] = dy[r]·(exp(x[r, j] − lse[r]) − s/classes) − dy[r]·(1−s)·[j = label]. */
  void (*softmax_ce_grad)(const float *x, const int32_t *labels, const float *lse, const float *dy, int64_t rows, int64_t classes,
                          float smoothing, float *dx);
  void (*layer_norm)(const float *x, const float *g, const float *b, int64_t rows, int64_t dim, float eps, float *y, float *mean,
                     float *rstd);
  void (*layer_norm_grad)(const float *x, const float *g, const float *mean, const float *rstd, const float *dy, int64_t rows,
                          int64_t dim, float *dx, float *dg, float *db);
  void (*adam)(int64_t count, float *w, float *m, float *v, const float *g, float beta1, float beta2, float stepSize, float eps);
  void (*adagrad)(int64_t count, float *w, float *acc, const float *g, float lr, float eps);
  void (*sum_outer)(const float *x, int64_t outer, int64_t inner, float *out);
  void (*sum_inner)(const float *x, int64_t outer, int64_t inner, float *out);
  void (*segment_sum)(const float *x, const int32_t *ids, int64_t rows, int64_t inner, int64_t segments, float *out);
  void (*bias_activation)(float *c, int64_t rows, int64_t n, const float *bias, int relu);
  /* y[r, j] = exp(x[r, j] − max_r) / Σ_j exp(x[r, j] − max_r) over the last axis. */
  void (*softmax)(const float *x, int64_t rows, int64_t cols, float *y);
  /* out[i] = cckit's exp(x[i]) and log(x[i]) (for the tests of the functions themselves). */
  void (*exp_log)(const float *x, int64_t count, float *expOut, float *logOut);
} CckitOps;

/* The ops compiled for a path (NEON shares the portable build, which arm64 compilers vectorise with NEON). */
const CckitOps *cckit_ops(CckitPath path);

#endif
