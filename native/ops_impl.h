/*
 * The body of native/ops.c, included once per kernel path with OPS(name) giving each function that
 * path's name and the path's instruction set in force (see ops.h for why the results are the same bits).
 * Rules that keep it so: every float operation is written out (no compiler contraction or reassociation
 * is allowed by the build flags), fused multiply-adds only through fmaf, and every reduction over a row
 * runs through LANES partial sums and the fixed tree of OPS(tree_sum).
 */
#ifndef OPS
#error "define OPS(name) before including ops_impl.h"
#endif

#define LANES 16

/* acc[0] + acc[8], … then halves again: one fixed tree over 16 lanes. */
static inline float OPS(tree_sum)(float *acc) {
  for (int width = LANES / 2; width >= 1; width /= 2)
    for (int l = 0; l < width; l++) acc[l] = acc[l] + acc[l + width];
  return acc[0];
}

static inline float OPS(tree_max)(float *acc) {
  for (int width = LANES / 2; width >= 1; width /= 2)
    for (int l = 0; l < width; l++) acc[l] = acc[l] > acc[l + width] ? acc[l] : acc[l + width];
  return acc[0];
}

/*
 * cckit's exp: x = n·ln2 + r with |r| ≤ ln2/2 (n rounded by the 1.5·2^23 shifter), exp(r) by its Taylor
 * polynomial of degree 7 in Horner form with fmaf, times 2^n applied in two halves (so 2^128 and the
 * subnormal results need no special case). Below −104 it is 0, above ln(FLT_MAX) +inf, NaN stays NaN.
 */
static inline float OPS(exp)(float x) {
  const float lowest = -104.0f, highest = 88.7228394f;
  float clamped = x >= lowest ? x : lowest; /* NaN goes to `lowest` here and is put back at the end */
  clamped = clamped <= highest ? clamped : highest;
  const float shifter = 12582912.0f;
  const float n = fmaf(clamped, 1.44269504f, shifter) - shifter;
  float r = fmaf(n, -0.693145752f, clamped); /* ln2's high part, exact in 16 bits */
  r = fmaf(n, -1.42860677e-6f, r);           /* ln2 − the high part */
  float p = 1.98412698e-4f;                  /* 1/7! … 1/0! */
  p = fmaf(p, r, 1.38888889e-3f);
  p = fmaf(p, r, 8.33333333e-3f);
  p = fmaf(p, r, 4.16666667e-2f);
  p = fmaf(p, r, 1.66666667e-1f);
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
  const int32_t e = (int32_t)n, half = e / 2, rest = e - half;
  const uint32_t bitsHalf = (uint32_t)(half + 127) << 23, bitsRest = (uint32_t)(rest + 127) << 23;
  float scaleHalf, scaleRest;
  memcpy(&scaleHalf, &bitsHalf, sizeof(float));
  memcpy(&scaleRest, &bitsRest, sizeof(float));
  float y = (p * scaleHalf) * scaleRest;
  y = x < lowest ? 0.0f : y;
  y = x > highest ? INFINITY : y;
  return x == x ? y : x;
}

/*
 * cckit's log: x = m·2^e with m in [√½, √2), f = m − 1 (exact), s = f/(2 + f), log(1 + f) = 2s + 2s·z·(1/3 +
 * z/5 + z²/7 + z³/9 + z⁴/11) with z = s², plus e·ln2 in two parts. log 0 = −inf, negative or NaN → NaN.
 */
static inline float OPS(log)(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -INFINITY : NAN;
  if (x == INFINITY) return x;
  uint32_t bits;
  memcpy(&bits, &x, sizeof(float));
  int32_t e = 0;
  if (bits < 0x00800000u) { /* subnormal: scale into the normal range first */
    const float scaled = x * 8388608.0f;
    memcpy(&bits, &scaled, sizeof(float));
    e = -23;
  }
  e += (int32_t)(bits >> 23) - 127;
  bits = (bits & 0x007fffffu) | 0x3f800000u;
  float m;
  memcpy(&m, &bits, sizeof(float));
  if (m > 1.41421356f) {
    m = m * 0.5f;
    e += 1;
  }
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  float poly = fmaf(z, 9.09090936e-2f, 1.11111111e-1f);
  poly = fmaf(poly, z, 1.42857143e-1f);
  poly = fmaf(poly, z, 2.00000003e-1f);
  poly = fmaf(poly, z, 3.33333343e-1f);
  const float twoS = s + s;
  const float log1pf = fmaf(twoS * z, poly, twoS);
  const float fe = (float)e;
  return fmaf(fe, 0.693145752f, fmaf(fe, 1.42860677e-6f, log1pf));
}

static float OPS(row_sum)(const float *x, int64_t n) {
  float acc[LANES] = {0};
  int64_t j = 0;
  for (; j + LANES <= n; j += LANES)
    for (int l = 0; l < LANES; l++) acc[l] = acc[l] + x[j + l];
  for (int l = 0; j + l < n; l++) acc[l] = acc[l] + x[j + l];
  return OPS(tree_sum)(acc);
}

static float OPS(row_max)(const float *x, int64_t n) {
  float acc[LANES];
  for (int l = 0; l < LANES; l++) acc[l] = -INFINITY;
  int64_t j = 0;
  for (; j + LANES <= n; j += LANES)
    for (int l = 0; l < LANES; l++) acc[l] = x[j + l] > acc[l] ? x[j + l] : acc[l];
  for (int l = 0; j + l < n; l++) acc[l] = x[j + l] > acc[l] ? x[j + l] : acc[l];
  return OPS(tree_max)(acc);
}

/* Σ (x[j] − center)² */
static float OPS(row_sum_squares)(const float *x, float center, int64_t n) {
  float acc[LANES] = {0};
  int64_t j = 0;
  for (; j + LANES <= n; j += LANES)
    for (int l = 0; l < LANES; l++) {
      const float d = x[j + l] - center;
      acc[l] = acc[l] + d * d;
    }
  for (int l = 0; j + l < n; l++) {
    const float d = x[j + l] - center;
    acc[l] = acc[l] + d * d;
  }
  return OPS(tree_sum)(acc);
}

/* out[j] = exp(x[j] − shift) (out may be NULL); returns Σ out[j] over LANES lanes. */
static float OPS(exp_shifted)(const float *x, float shift, float *out, int64_t n) {
  float acc[LANES] = {0};
  int64_t j = 0;
  for (; j + LANES <= n; j += LANES) {
    float e[LANES];
    for (int l = 0; l < LANES; l++) e[l] = OPS(exp)(x[j + l] - shift);
    for (int l = 0; l < LANES; l++) acc[l] = acc[l] + e[l];
    if (out)
      for (int l = 0; l < LANES; l++) out[j + l] = e[l];
  }
  for (int l = 0; j + l < n; l++) {
    const float e = OPS(exp)(x[j + l] - shift);
    acc[l] = acc[l] + e;
    if (out) out[j + l] = e;
  }
  return OPS(tree_sum)(acc);
}

static void OPS(softmax_ce)(const float *x, const int32_t *labels, int64_t rows, int64_t classes, float smoothing, float *loss,
                            float *lse) {
  for (int64_t r = 0; r < rows; r++) {
    const float *row = x + r * classes;
    const float max = OPS(row_max)(row, classes);
    const float total = OPS(row_sum)(row, classes);
    const float logSumExp = max + OPS(log)(OPS(exp_shifted)(row, max, NULL, classes));
    const int32_t y = labels[r];
    const float nll = (y >= 0 && y < classes) ? logSumExp - row[y] : 0.0f;
    loss[r] = (1.0f - smoothing) * nll + smoothing * (logSumExp - total / (float)classes);
    lse[r] = logSumExp;
  }
}

static void OPS(softmax_ce_grad)(const float *x, const int32_t *labels, const float *lse, const float *dy, int64_t rows,
                                 int64_t classes, float smoothing, float *dx) {
  const float uniform = smoothing / (float)classes;
  for (int64_t r = 0; r < rows; r++) {
    const float *row = x + r * classes;
    float *out = dx + r * classes;
    const float d = dy[r];
    OPS(exp_shifted)(row, lse[r], out, classes);
    for (int64_t j = 0; j < classes; j++) out[j] = d * (out[j] - uniform);
    const int32_t y = labels[r];
    if (y >= 0 && y < classes) out[y] = out[y] - d * (1.0f - smoothing);
  }
}

static void OPS(layer_norm)(const float *x, const float *g, const float *b, int64_t rows, int64_t dim, float eps, float *y, float *mean,
                            float *rstd) {
  for (int64_t r = 0; r < rows; r++) {
    const float *row = x + r * dim;
    float *out = y + r * dim;
    const float mu = OPS(row_sum)(row, dim) / (float)dim;
    const float variance = OPS(row_sum_squares)(row, mu, dim) / (float)dim;
    const float s = 1.0f / sqrtf(variance + eps);
    for (int64_t j = 0; j < dim; j++) out[j] = (row[j] - mu) * s * g[j] + b[j];
    mean[r] = mu;
    rstd[r] = s;
  }
}

/* dx = rstd·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂)); dg = Σ_rows dy·x̂; db = Σ_rows dy (rows in order). */
static void OPS(layer_norm_grad)(const float *x, const float *g, const float *mean, const float *rstd, const float *dy, int64_t rows,
                                 int64_t dim, float *dx, float *dg, float *db) {
  memset(dg, 0, sizeof(float) * (size_t)dim);
  memset(db, 0, sizeof(float) * (size_t)dim);
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * dim, *dyr = dy + r * dim;
    float *dxr = dx + r * dim;
    const float mu = mean[r], s = rstd[r];
    float accDg[LANES] = {0}, accDgX[LANES] = {0};
    int64_t j = 0;
    for (; j < dim; j += LANES) {
      const int width = dim - j < LANES ? (int)(dim - j) : LANES;
      for (int l = 0; l < width; l++) {
        const float xhat = (xr[j + l] - mu) * s;
        const float dyg = dyr[j + l] * g[j + l];
        accDg[l] = accDg[l] + dyg;
        accDgX[l] = accDgX[l] + dyg * xhat;
        dg[j + l] = dg[j + l] + dyr[j + l] * xhat;
        db[j + l] = db[j + l] + dyr[j + l];
      }
    }
    const float meanDg = OPS(tree_sum)(accDg) / (float)dim, meanDgX = OPS(tree_sum)(accDgX) / (float)dim;
    for (j = 0; j < dim; j++) {
      const float xhat = (xr[j] - mu) * s;
      dxr[j] = s * (dyr[j] * g[j] - meanDg - xhat * meanDgX);
    }
  }
}

/* m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²; w ← w − stepSize·m / (√v + ε) (bias correction in stepSize). */
static void OPS(adam)(int64_t count, float *w, float *m, float *v, const float *g, float beta1, float beta2, float stepSize, float eps) {
  const float c1 = 1.0f - beta1, c2 = 1.0f - beta2;
  for (int64_t i = 0; i < count; i++) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + c1 * gi;
    const float vi = beta2 * v[i] + c2 * (gi * gi);
    m[i] = mi;
    v[i] = vi;
    w[i] = w[i] - (stepSize * mi) / (sqrtf(vi) + eps);
  }
}

/* a ← a + g²; w ← w − lr·g / (√a + ε) */
static void OPS(adagrad)(int64_t count, float *w, float *acc, const float *g, float lr, float eps) {
  for (int64_t i = 0; i < count; i++) {
    const float ai = acc[i] + g[i] * g[i];
    acc[i] = ai;
    w[i] = w[i] - (lr * g[i]) / (sqrtf(ai) + eps);
  }
}

/* out[j] = Σ_i x[i, j], i in order */
static void OPS(sum_outer)(const float *x, int64_t outer, int64_t inner, float *out) {
  memset(out, 0, sizeof(float) * (size_t)inner);
  for (int64_t i = 0; i < outer; i++) {
    const float *row = x + i * inner;
    for (int64_t j = 0; j < inner; j++) out[j] = out[j] + row[j];
  }
}

/* out[i] = Σ_j x[i, j] over LANES lanes */
static void OPS(sum_inner)(const float *x, int64_t outer, int64_t inner, float *out) {
  for (int64_t i = 0; i < outer; i++) out[i] = OPS(row_sum)(x + i * inner, inner);
}

/* out[s] = Σ_{ids[i] = s} x[i], i in order; ids outside [0, segments) are dropped */
static void OPS(segment_sum)(const float *x, const int32_t *ids, int64_t rows, int64_t inner, int64_t segments, float *out) {
  memset(out, 0, sizeof(float) * (size_t)(segments * inner));
  for (int64_t i = 0; i < rows; i++) {
    const int32_t s = ids[i];
    if (s < 0 || s >= segments) continue;
    const float *row = x + i * inner;
    float *o = out + (int64_t)s * inner;
    for (int64_t j = 0; j < inner; j++) o[j] = o[j] + row[j];
  }
}

/* C[r, j] = act(C[r, j] + bias[j]) */
static void OPS(bias_activation)(float *c, int64_t rows, int64_t n, const float *bias, int relu) {
  for (int64_t r = 0; r < rows; r++) {
    float *row = c + r * n;
    if (bias)
      for (int64_t j = 0; j < n; j++) row[j] = row[j] + bias[j];
    if (relu)
      for (int64_t j = 0; j < n; j++) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
  }
}

static void OPS(softmax)(const float *x, int64_t rows, int64_t cols, float *y) {
  for (int64_t r = 0; r < rows; r++) {
    const float *row = x + r * cols;
    float *out = y + r * cols;
    const float sum = OPS(exp_shifted)(row, OPS(row_max)(row, cols), out, cols);
    for (int64_t j = 0; j < cols; j++) out[j] = out[j] / sum;
  }
}

static void OPS(exp_log)(const float *x, int64_t count, float *expOut, float *logOut) {
  for (int64_t i = 0; i < count; i++) expOut[i] = OPS(exp)(x[i]);
  for (int64_t i = 0; i < count; i++) logOut[i] = OPS(log)(x[i]);
}

static const CckitOps OPS(table) = {
    OPS(softmax_ce), OPS(softmax_ce_grad), OPS(layer_norm), OPS(layer_norm_grad), OPS(adam),           OPS(adagrad),
    OPS(sum_outer),  OPS(sum_inner),       OPS(segment_sum), OPS(bias_activation), OPS(softmax),        OPS(exp_log),
};

#undef LANES
