/*
 * A standalone check of the determinism promise across kernel paths and CPU architectures: runs cckit's
 * SGEMM (every transpose, bias, ReLU, odd sizes, a K longer than one block) and every op of ops.c on
 * inputs from an integer generator, on each path this CPU supports, and prints one FNV-1a digest of all
 * output bytes per path. Equal digests on x86-64 (portable, avx2, avx512) and arm64 (portable, neon, or
 * under qemu-aarch64) mean equal bits. No Node needed:
 *
 *   cc -O3 -ffp-contract=off -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -Inative \
 *     native/harness/digest.c native/sgemm.c native/ops.c -lm -o /tmp/cckit-digest && /tmp/cckit-digest
 *   aarch64-linux-gnu-gcc -static (same flags and files) -o /tmp/cckit-digest-arm64 && qemu-aarch64 /tmp/cckit-digest-arm64
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ops.h"
#include "../sgemm.h"

static uint64_t state;

/* a float in [−scale, scale) from a 64-bit LCG: the same sequence on every machine */
static float next_float(float scale) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return ((float)(uint32_t)(state >> 40) / 16777216.0f * 2.0f - 1.0f) * scale;
}

static void fill(float *x, int64_t n, float scale) {
  for (int64_t i = 0; i < n; i++) x[i] = next_float(scale);
}

static uint64_t digest = 1469598103934665603ULL;

static void absorb(const float *x, int64_t n) {
  const unsigned char *bytes = (const unsigned char *)x;
  for (int64_t i = 0; i < n * (int64_t)sizeof(float); i++) digest = (digest ^ bytes[i]) * 1099511628211ULL;
}

static uint64_t run(CckitPath path) {
  digest = 1469598103934665603ULL;
  state = 42;
  const int64_t shapes[][3] = {{1, 1, 1}, {7, 33, 255}, {255, 7, 33}, {33, 255, 7}, {13, 40, 700}, {64, 96, 128}, {20, 20, 32}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
    const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n)), *bias = malloc(sizeof(float) * (size_t)n),
          *c = malloc(sizeof(float) * (size_t)(m * n));
    for (int t = 0; t < 8; t++) {
      fill(a, m * k, 1.0f);
      fill(b, k * n, 1.0f);
      fill(bias, n, 1.0f);
      cckit_sgemm(path, 1, t & 1, (t >> 1) & 1, m, n, k, a, b, c, (t >> 2) ? bias : NULL, t >> 2);
      absorb(c, m * n);
    }
    free(a);
    free(b);
    free(bias);
    free(c);
  }
  const CckitOps *ops = cckit_ops(path);
  const int64_t rows = 9, dim = 300;
  float x[9 * 300], y[9 * 300], dy[9 * 300], dx[9 * 300], g[300], beta[300], dg[300], db[300], mean[9], rstd[9], loss[9], lse[9], dyRows[9];
  int32_t labels[9];
  fill(x, rows * dim, 8.0f);
  fill(dy, rows * dim, 1.0f);
  fill(g, dim, 1.0f);
  fill(beta, dim, 1.0f);
  fill(dyRows, rows, 1.0f);
  for (int r = 0; r < rows; r++) labels[r] = r == 3 ? -1 : (r * 37) % (int)dim;
  ops->softmax_ce(x, labels, rows, dim, 0.1f, loss, lse);
  absorb(loss, rows);
  absorb(lse, rows);
  ops->softmax_ce_grad(x, labels, lse, dyRows, rows, dim, 0.1f, dx);
  absorb(dx, rows * dim);
  ops->softmax(x, rows, dim, y);
  absorb(y, rows * dim);
  ops->layer_norm(x, g, beta, rows, dim, 1e-5f, y, mean, rstd);
  absorb(y, rows * dim);
  ops->layer_norm_grad(x, g, mean, rstd, dy, rows, dim, dx, dg, db);
  absorb(dx, rows * dim);
  absorb(dg, dim);
  absorb(db, dim);
  ops->sum_inner(x, rows, dim, loss);
  absorb(loss, rows);
  ops->sum_outer(x, rows, dim, g);
  absorb(g, dim);
  float w[300], mom[300], vel[300];
  fill(w, dim, 1.0f);
  memset(mom, 0, sizeof(mom));
  memset(vel, 0, sizeof(vel));
  for (int step = 0; step < 5; step++) ops->adam(dim, w, mom, vel, dy + step * dim, 0.9f, 0.999f, 1e-3f, 1e-8f);
  absorb(w, dim);
  float e[9 * 300], l[9 * 300];
  fill(x, rows * dim, 90.0f);
  ops->exp_log(x, rows * dim, e, l);
  absorb(e, rows * dim);
  absorb(l, rows * dim);
  return digest;
}

int main(void) {
  int status = 0;
  uint64_t first = 0;
  for (int p = 0; p < CCKIT_PATH_COUNT; p++) {
    if (!cckit_path_supported((CckitPath)p)) continue;
    const uint64_t d = run((CckitPath)p);
    printf("%-8s %016llx\n", cckit_path_name((CckitPath)p), (unsigned long long)d);
    if (!first) first = d;
    else if (d != first) status = 1;
  }
  return status;
}
