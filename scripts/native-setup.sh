#!/usr/bin/env bash
# What the native training kernels (native/kernels.c) build with: a C compiler and OpenBLAS from Debian
# (build-essential, libopenblas-dev). Idempotent: apt runs only for missing packages. Run before `npm ci`
# (its prepare step builds the addon) or run `npm run build:native` after.
set -euo pipefail

PACKAGES=(libopenblas-dev)
command -v cc >/dev/null || PACKAGES+=(build-essential)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
((${#missing[@]})) || exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    echo "native-setup: not root and no sudo: install ${missing[*]} yourself (the wasm kernels are used until then)" >&2
    exit 1
  fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
export DEBIAN_FRONTEND=noninteractive
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
  echo "native-setup: failed to install ${missing[*]}" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "native-setup: installed ${missing[*]} ($((SECONDS - start)) s)"
