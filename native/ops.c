/*
 * ops_impl.h compiled once per kernel path: the portable build with the compiler's baseline instruction
 * set, then (x86-64) with AVX2+FMA and with AVX-512 in force. The build passes -ffp-contract=off and no
 * fast-math flag, so each build evaluates the same expressions in the same order: the same bits.
 */
#include "ops.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define OPS(name) name##_portable
#include "ops_impl.h"
#undef OPS

#if defined(__x86_64__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define OPS(name) name##_avx2
#include "ops_impl.h"
#undef OPS
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif
#define OPS(name) name##_avx512
#include "ops_impl.h"
#undef OPS
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

const CckitOps *cckit_ops(CckitPath path) {
#if defined(__x86_64__)
  if (path == CCKIT_PATH_AVX512) return &table_avx512;
  if (path == CCKIT_PATH_AVX2) return &table_avx2;
#endif
  (void)path;
  return &table_portable;
}
