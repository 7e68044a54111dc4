#!/usr/bin/env bash
# What the native training kernels (native/) build with: a C compiler and the C library's headers, nothing
# else (no BLAS: cckit's own SGEMM). Idempotent: apt runs only when no working `cc` is found. Run before
# `npm ci` (its prepare step builds the addon) or run `npm run build:native` after.
set -euo pipefail
source "$(dirname "$0")/lib/apt-ensure.sh"

if command -v "${CC:-cc}" >/dev/null && printf '#include <stdlib.h>\n#include <pthread.h>\n' | "${CC:-cc}" -x c -fsyntax-only - 2>/dev/null; then
  exit 0
fi
apt_ensure native-setup "the wasm kernels are used until then" gcc libc6-dev
