#!/usr/bin/env bash
# What the native training kernels (native/kernels.c) build with: a C compiler and OpenBLAS from Debian
# (build-essential, libopenblas-dev). Idempotent: apt runs only for missing packages. Run before `npm ci`
# (its prepare step builds the addon) or run `npm run build:native` after.
set -euo pipefail
source "$(dirname "$0")/lib/apt-ensure.sh"

PACKAGES=(libopenblas-dev)
command -v cc >/dev/null || PACKAGES+=(build-essential)
apt_ensure native-setup "the wasm kernels are used until then" "${PACKAGES[@]}"
