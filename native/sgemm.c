/*
 * cckit's SGEMM: operands packed into panels, a register-blocked micro-kernel per path (portable C with
 * fmaf, AVX2+FMA, AVX-512, NEON), the path chosen at run time. See sgemm.h for the determinism contract;
 * this file keeps it by giving every path the same loop over k (one fma per k, in order) and blocking only
 * the m and n loops; a K block ends by storing the accumulators to C and the next one starts from them.
 */
#include "sgemm.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define CCKIT_X86 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

/* acc[i][j] over rows of a (packed mr-wide per k) and columns of b (packed nr-wide per k); C tile at c. */
typedef void (*MicroKernel)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate);

/* The same on a tile cut to rows × cols (≤ mr × nr) of C, touching nothing outside it. */
typedef void (*EdgeKernel)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate, int64_t rows, int64_t cols);

typedef struct {
  int mr, nr;
  MicroKernel kernel;
  EdgeKernel edge; /* NULL: edge tiles run on a scratch tile */
} PathKernel;

#define MAX_MR 12
#define MAX_NR 32
/* K block (the B micro-panel kc×nr stays in L1), m block (the packed A block stays in L2), n block. */
#define KC 256
#define KC_WHOLE 320
#define MC 96
#define NC 2048

/* ---- portable: 4×16 tile, fmaf ------------------------------------------------------------------ */

#define PORTABLE_MR 4
#define PORTABLE_NR 16

static void micro_portable(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate) {
  float acc[PORTABLE_MR][PORTABLE_NR];
  for (int i = 0; i < PORTABLE_MR; i++)
    for (int j = 0; j < PORTABLE_NR; j++) acc[i][j] = accumulate ? c[i * ldc + j] : 0.0f;
  for (int64_t p = 0; p < kc; p++) {
    const float *ap = a + p * PORTABLE_MR, *bp = b + p * PORTABLE_NR;
    for (int i = 0; i < PORTABLE_MR; i++) {
      const float ai = ap[i];
      for (int j = 0; j < PORTABLE_NR; j++) acc[i][j] = fmaf(ai, bp[j], acc[i][j]);
    }
  }
  for (int i = 0; i < PORTABLE_MR; i++)
    for (int j = 0; j < PORTABLE_NR; j++) c[i * ldc + j] = acc[i][j];
}

#ifdef CCKIT_X86
/* ---- AVX2 + FMA: 6×16 tile, 12 accumulators of 8 lanes ------------------------------------------- */

#define AVX2_MR 6
#define AVX2_NR 16

#define AVX2_ROW(i)                                            \
  do {                                                         \
    const __m256 ai = _mm256_broadcast_ss(a + (i));            \
    c##i##0 = _mm256_fmadd_ps(ai, b0, c##i##0);                \
    c##i##1 = _mm256_fmadd_ps(ai, b1, c##i##1);                \
  } while (0)
#define AVX2_LOAD(i)                                                                           \
  __m256 c##i##0 = accumulate ? _mm256_loadu_ps(c + (i) * ldc) : _mm256_setzero_ps();          \
  __m256 c##i##1 = accumulate ? _mm256_loadu_ps(c + (i) * ldc + 8) : _mm256_setzero_ps()
#define AVX2_STORE(i)                            \
  do {                                           \
    _mm256_storeu_ps(c + (i) * ldc, c##i##0);     \
    _mm256_storeu_ps(c + (i) * ldc + 8, c##i##1); \
  } while (0)

__attribute__((target("avx2,fma"))) static void micro_avx2(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate) {
  AVX2_LOAD(0);
  AVX2_LOAD(1);
  AVX2_LOAD(2);
  AVX2_LOAD(3);
  AVX2_LOAD(4);
  AVX2_LOAD(5);
  for (int64_t p = 0; p < kc; p++) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    AVX2_ROW(0);
    AVX2_ROW(1);
    AVX2_ROW(2);
    AVX2_ROW(3);
    AVX2_ROW(4);
    AVX2_ROW(5);
    a += AVX2_MR;
    b += AVX2_NR;
  }
  AVX2_STORE(0);
  AVX2_STORE(1);
  AVX2_STORE(2);
  AVX2_STORE(3);
  AVX2_STORE(4);
  AVX2_STORE(5);
}

/* ---- AVX-512: 12×32 tile, 24 accumulators of 16 lanes -------------------------------------------- */

#define AVX512_MR 12
#define AVX512_NR 32

#define AVX512_ROW(i)                                  \
  do {                                                 \
    const __m512 ai = _mm512_set1_ps(a[(i)]);          \
    c##i##_0 = _mm512_fmadd_ps(ai, b0, c##i##_0);      \
    c##i##_1 = _mm512_fmadd_ps(ai, b1, c##i##_1);      \
  } while (0)
#define AVX512_LOAD(i)                                                                          \
  __m512 c##i##_0 = accumulate ? _mm512_loadu_ps(c + (i) * ldc) : _mm512_setzero_ps();          \
  __m512 c##i##_1 = accumulate ? _mm512_loadu_ps(c + (i) * ldc + 16) : _mm512_setzero_ps()
#define AVX512_STORE(i)                              \
  do {                                               \
    _mm512_storeu_ps(c + (i) * ldc, c##i##_0);       \
    _mm512_storeu_ps(c + (i) * ldc + 16, c##i##_1);  \
  } while (0)

__attribute__((target("avx512f"))) static void micro_avx512(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate) {
  AVX512_LOAD(0);
  AVX512_LOAD(1);
  AVX512_LOAD(2);
  AVX512_LOAD(3);
  AVX512_LOAD(4);
  AVX512_LOAD(5);
  AVX512_LOAD(6);
  AVX512_LOAD(7);
  AVX512_LOAD(8);
  AVX512_LOAD(9);
  AVX512_LOAD(10);
  AVX512_LOAD(11);
  for (int64_t p = 0; p < kc; p++) {
    const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
    AVX512_ROW(0);
    AVX512_ROW(1);
    AVX512_ROW(2);
    AVX512_ROW(3);
    AVX512_ROW(4);
    AVX512_ROW(5);
    AVX512_ROW(6);
    AVX512_ROW(7);
    AVX512_ROW(8);
    AVX512_ROW(9);
    AVX512_ROW(10);
    AVX512_ROW(11);
    a += AVX512_MR;
    b += AVX512_NR;
  }
  AVX512_STORE(0);
  AVX512_STORE(1);
  AVX512_STORE(2);
  AVX512_STORE(3);
  AVX512_STORE(4);
  AVX512_STORE(5);
  AVX512_STORE(6);
  AVX512_STORE(7);
  AVX512_STORE(8);
  AVX512_STORE(9);
  AVX512_STORE(10);
  AVX512_STORE(11);
}

/* An edge tile: the full 12×32 computation (padding rows and columns of the packed panels are zeros), with
 * masked loads and stores of C's valid columns and only its valid rows, so no scratch tile and no copies. */
#define AVX512_EDGE_LOAD(i)                                                                                                \
  __m512 c##i##_0 = _mm512_setzero_ps(), c##i##_1 = _mm512_setzero_ps();                                                   \
  if (accumulate && (i) < rows) {                                                                                          \
    c##i##_0 = _mm512_maskz_loadu_ps(mask0, c + (i) * ldc);                                                                \
    c##i##_1 = _mm512_maskz_loadu_ps(mask1, c + (i) * ldc + 16);                                                           \
  }
#define AVX512_EDGE_STORE(i)                                \
  if ((i) < rows) {                                         \
    _mm512_mask_storeu_ps(c + (i) * ldc, mask0, c##i##_0);  \
    _mm512_mask_storeu_ps(c + (i) * ldc + 16, mask1, c##i##_1); \
  }

__attribute__((target("avx512f"))) static void micro_avx512_edge(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                                                                 int64_t rows, int64_t cols) {
  const __mmask16 mask0 = cols >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cols) - 1u);
  const __mmask16 mask1 = cols >= 32 ? (__mmask16)0xffff : cols <= 16 ? (__mmask16)0 : (__mmask16)((1u << (cols - 16)) - 1u);
  AVX512_EDGE_LOAD(0)
  AVX512_EDGE_LOAD(1)
  AVX512_EDGE_LOAD(2)
  AVX512_EDGE_LOAD(3)
  AVX512_EDGE_LOAD(4)
  AVX512_EDGE_LOAD(5)
  AVX512_EDGE_LOAD(6)
  AVX512_EDGE_LOAD(7)
  AVX512_EDGE_LOAD(8)
  AVX512_EDGE_LOAD(9)
  AVX512_EDGE_LOAD(10)
  AVX512_EDGE_LOAD(11)
  for (int64_t p = 0; p < kc; p++) {
    const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
    AVX512_ROW(0);
    AVX512_ROW(1);
    AVX512_ROW(2);
    AVX512_ROW(3);
    AVX512_ROW(4);
    AVX512_ROW(5);
    AVX512_ROW(6);
    AVX512_ROW(7);
    AVX512_ROW(8);
    AVX512_ROW(9);
    AVX512_ROW(10);
    AVX512_ROW(11);
    a += AVX512_MR;
    b += AVX512_NR;
  }
  AVX512_EDGE_STORE(0)
  AVX512_EDGE_STORE(1)
  AVX512_EDGE_STORE(2)
  AVX512_EDGE_STORE(3)
  AVX512_EDGE_STORE(4)
  AVX512_EDGE_STORE(5)
  AVX512_EDGE_STORE(6)
  AVX512_EDGE_STORE(7)
  AVX512_EDGE_STORE(8)
  AVX512_EDGE_STORE(9)
  AVX512_EDGE_STORE(10)
  AVX512_EDGE_STORE(11)
}
#endif

#if defined(__aarch64__)
/* ---- NEON: 8×8 tile, 16 accumulators of 4 lanes (vfmaq_f32 is one fused multiply-add per lane) ---- */

#define NEON_MR 8
#define NEON_NR 8

static void micro_neon(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate) {
  float32x4_t acc[NEON_MR][2];
  for (int i = 0; i < NEON_MR; i++) {
    acc[i][0] = accumulate ? vld1q_f32(c + i * ldc) : vdupq_n_f32(0.0f);
    acc[i][1] = accumulate ? vld1q_f32(c + i * ldc + 4) : vdupq_n_f32(0.0f);
  }
  for (int64_t p = 0; p < kc; p++) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
    for (int i = 0; i < NEON_MR; i++) {
      const float32x4_t ai = vdupq_n_f32(a[i]);
      acc[i][0] = vfmaq_f32(acc[i][0], ai, b0);
      acc[i][1] = vfmaq_f32(acc[i][1], ai, b1);
    }
    a += NEON_MR;
    b += NEON_NR;
  }
  for (int i = 0; i < NEON_MR; i++) {
    vst1q_f32(c + i * ldc, acc[i][0]);
    vst1q_f32(c + i * ldc + 4, acc[i][1]);
  }
}
#endif

/* ---- paths ------------------------------------------------------------------------------------- */

static const char *const PATH_NAMES[CCKIT_PATH_COUNT] = {"portable", "avx2", "avx512", "neon"};

const char *cckit_path_name(CckitPath path) { return path >= 0 && path < CCKIT_PATH_COUNT ? PATH_NAMES[path] : "unknown"; }

int cckit_path_parse(const char *name) {
  for (int i = 0; i < CCKIT_PATH_COUNT; i++)
    if (strcmp(name, PATH_NAMES[i]) == 0) return i;
  return -1;
}

int cckit_path_supported(CckitPath path) {
  switch (path) {
    case CCKIT_PATH_PORTABLE:
      return 1;
#ifdef CCKIT_X86
    case CCKIT_PATH_AVX2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CCKIT_PATH_AVX512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f");
#endif
#if defined(__aarch64__)
    case CCKIT_PATH_NEON:
      return 1;
#endif
    default:
      return 0;
  }
}

CckitPath cckit_path_best(void) {
  if (cckit_path_supported(CCKIT_PATH_AVX512)) return CCKIT_PATH_AVX512;
  if (cckit_path_supported(CCKIT_PATH_AVX2)) return CCKIT_PATH_AVX2;
  if (cckit_path_supported(CCKIT_PATH_NEON)) return CCKIT_PATH_NEON;
  return CCKIT_PATH_PORTABLE;
}

static PathKernel path_kernel(CckitPath path) {
  switch (path) {
#ifdef CCKIT_X86
    case CCKIT_PATH_AVX2:
      return (PathKernel){AVX2_MR, AVX2_NR, micro_avx2, NULL};
    case CCKIT_PATH_AVX512:
      return (PathKernel){AVX512_MR, AVX512_NR, micro_avx512, micro_avx512_edge};
#endif
#if defined(__aarch64__)
    case CCKIT_PATH_NEON:
      return (PathKernel){NEON_MR, NEON_NR, micro_neon, NULL};
#endif
    default:
      return (PathKernel){PORTABLE_MR, PORTABLE_NR, micro_portable, NULL};
  }
}

/* ---- packing ------------------------------------------------------------------------------------ */

typedef struct {
  float *data;
  size_t capacity; /* floats */
} Buffer;

static float *reserve(Buffer *buffer, size_t floats) {
  if (buffer->capacity >= floats) return buffer->data;
  free(buffer->data);
  size_t bytes = (floats * sizeof(float) + 63) & ~(size_t)63;
  buffer->data = aligned_alloc(64, bytes);
  buffer->capacity = buffer->data ? bytes / sizeof(float) : 0;
  return buffer->data;
}

/* Rows i0..i0+mc of op(A), columns p0..p0+kc, as panels of mr rows: out[panel][p][ii] (zero-padded). */
static void pack_a(int transA, const float *A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int mr, float *out) {
  for (int64_t ir = 0; ir < mc; ir += mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    if (transA) {
      /* A is stored k×m: row p of the panel is contiguous */
      for (int64_t p = 0; p < kc; p++) {
        const float *src = A + (p0 + p) * lda + i0 + ir;
        int64_t ii = 0;
        for (; ii < rows; ii++) out[ii] = src[ii];
        for (; ii < mr; ii++) out[ii] = 0.0f;
        out += mr;
      }
    } else {
      /* A is stored m×k: walk the panel's rows side by side, so the writes are contiguous */
      const float *src[MAX_MR];
      for (int64_t ii = 0; ii < rows; ii++) src[ii] = A + (i0 + ir + ii) * lda + p0;
      for (int64_t p = 0; p < kc; p++) {
        int64_t ii = 0;
        for (; ii < rows; ii++) out[ii] = src[ii][p];
        for (; ii < mr; ii++) out[ii] = 0.0f;
        out += mr;
      }
    }
  }
}

/* Rows p0..p0+kc of op(B), columns j0..j0+nc, as panels of nr columns: out[panel][p][jj] (zero-padded). */
static void pack_b(int transB, const float *B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int nr, float *out) {
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int64_t cols = nc - jr < nr ? nc - jr : nr;
    if (!transB) {
      for (int64_t p = 0; p < kc; p++) {
        const float *src = B + (p0 + p) * ldb + j0 + jr;
        int64_t jj = 0;
        for (; jj < cols; jj++) out[jj] = src[jj];
        for (; jj < nr; jj++) out[jj] = 0.0f;
        out += nr;
      }
    } else {
      /* B is stored n×k: each column of op(B) is a contiguous row; walk them side by side so the writes are contiguous */
      const float *src[MAX_NR];
      for (int64_t jj = 0; jj < cols; jj++) src[jj] = B + (j0 + jr + jj) * ldb + p0;
      for (int64_t p = 0; p < kc; p++) {
        int64_t jj = 0;
        for (; jj < cols; jj++) out[jj] = src[jj][p];
        for (; jj < nr; jj++) out[jj] = 0.0f;
        out += nr;
      }
    }
  }
}

/* C tile += bias, then ReLU (one rounding for the add, as a separate pass would). */
static void epilogue(float *c, int64_t ldc, int64_t rows, int64_t cols, const float *bias, int relu) {
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * ldc;
    if (bias)
      for (int64_t j = 0; j < cols; j++) row[j] = row[j] + bias[j];
    if (relu)
      for (int64_t j = 0; j < cols; j++) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
  }
}

typedef struct {
  PathKernel pk;
  int transA, transB;
  int64_t m, n, k;
  const float *A, *B;
  float *C;
  const float *bias;
  int relu;
  int64_t j0, j1; /* this job's columns of C */
  int status;
} GemmJob;

/* Columns j0..j1 of C, packing into the given buffers. */
static int gemm_columns(const GemmJob *job, Buffer *packedA, Buffer *packedB) {
  const PathKernel pk = job->pk;
  const int mr = pk.mr, nr = pk.nr;
  const int transA = job->transA, transB = job->transB;
  const int64_t m = job->m, n = job->n, k = job->k;
  const int64_t lda = transA ? m : k, ldb = transB ? k : n, ldc = n;
  const int64_t width = job->j1 - job->j0;
  const int64_t kcMax = k <= KC_WHOLE ? k : KC;
  const int64_t ncMax = width < NC ? width : NC, mcMax = m < MC ? m : MC;
  float *pa = reserve(packedA, (size_t)(kcMax * ((mcMax + mr - 1) / mr) * mr));
  float *pb = reserve(packedB, (size_t)(kcMax * ((ncMax + nr - 1) / nr) * nr));
  if (!pa || !pb) return -1;
  _Alignas(64) float tile[MAX_MR * MAX_NR];
  for (int64_t jc = job->j0; jc < job->j1; jc += ncMax) {
    const int64_t nc = job->j1 - jc < ncMax ? job->j1 - jc : ncMax;
    for (int64_t pc = 0; pc < k; pc += kcMax) {
      const int64_t kc = k - pc < kcMax ? k - pc : kcMax;
      const int accumulate = pc > 0, last = pc + kc >= k;
      pack_b(transB, job->B, ldb, pc, kc, jc, nc, nr, pb);
      for (int64_t ic = 0; ic < m; ic += mcMax) {
        const int64_t mc = m - ic < mcMax ? m - ic : mcMax;
        pack_a(transA, job->A, lda, ic, mc, pc, kc, mr, pa);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = nc - jr < nr ? nc - jr : nr;
          const float *bp = pb + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = mc - ir < mr ? mc - ir : mr;
            const float *ap = pa + ir * kc;
            float *c = job->C + (ic + ir) * ldc + jc + jr;
            if (rows == mr && cols == nr) {
              pk.kernel(kc, ap, bp, c, ldc, accumulate);
            } else if (pk.edge) {
              pk.edge(kc, ap, bp, c, ldc, accumulate, rows, cols);
            } else {
              /* an edge tile runs in full width on a scratch tile; only its valid part reaches C */
              if (accumulate)
                for (int64_t i = 0; i < rows; i++) memcpy(tile + i * nr, c + i * ldc, sizeof(float) * (size_t)cols);
              pk.kernel(kc, ap, bp, tile, nr, accumulate);
              for (int64_t i = 0; i < rows; i++) memcpy(c + i * ldc, tile + i * nr, sizeof(float) * (size_t)cols);
            }
            if (last && (job->bias || job->relu)) epilogue(c, ldc, rows, cols, job->bias ? job->bias + jc + jr : NULL, job->relu);
          }
        }
      }
    }
  }
  return 0;
}

/* The calling thread keeps its packing buffers between calls; helper threads free theirs. */
static _Thread_local Buffer packed_a, packed_b;

static void *gemm_thread(void *arg) {
  GemmJob *job = arg;
  Buffer a = {0}, b = {0};
  job->status = gemm_columns(job, &a, &b);
  free(a.data);
  free(b.data);
  return NULL;
}

/* Below this many multiply-adds a product runs on the calling thread alone (a thread start costs more). */
#define THREADED_MIN_WORK (1 << 21)
#define MAX_THREADS 64

int cckit_sgemm(CckitPath path, int threads, int transA, int transB, int64_t m, int64_t n, int64_t k, const float *A, const float *B,
                float *C, const float *bias, int relu) {
  if (m <= 0 || n <= 0) return 0;
  if (k <= 0) {
    memset(C, 0, sizeof(float) * (size_t)(m * n));
    epilogue(C, n, m, n, bias, relu);
    return 0;
  }
  GemmJob job = {path_kernel(path), transA, transB, m, n, k, A, B, C, bias, relu, 0, n, 0};
  const int64_t panels = (n + job.pk.nr - 1) / job.pk.nr;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if (threads > panels) threads = (int)panels;
  if (threads <= 1 || m * n * k < THREADED_MIN_WORK) return gemm_columns(&job, &packed_a, &packed_b);
  /* columns split in whole panels: a thread computes its elements exactly as one thread would */
  GemmJob jobs[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  const int64_t perThread = (panels + threads - 1) / threads * job.pk.nr;
  int count = 0;
  for (int64_t j = 0; j < n; j += perThread, count++) {
    jobs[count] = job;
    jobs[count].j0 = j;
    jobs[count].j1 = j + perThread < n ? j + perThread : n;
  }
  for (int t = 1; t < count; t++) started[t] = pthread_create(&ids[t], NULL, gemm_thread, &jobs[t]) == 0;
  int status = gemm_columns(&jobs[0], &packed_a, &packed_b);
  for (int t = 1; t < count; t++) {
    if (started[t])
      pthread_join(ids[t], NULL);
    else
      jobs[t].status = gemm_columns(&jobs[t], &packed_a, &packed_b); /* no thread: run it here */
    if (jobs[t].status) status = jobs[t].status;
  }
  return status;
}
