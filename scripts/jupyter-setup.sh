#!/usr/bin/env bash
# Jupyter for the example notebook (test/jupyter.test.ts): Debian's nbconvert/nbclient/ipykernel on
# /usr/bin/python3 and tslab's kernelspecs (tslab, jslab) registered for it. Idempotent and quiet: apt runs
# only for missing packages. Run from anywhere after `npm ci` (tslab comes from node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(jupyter-nbconvert python3-nbclient python3-ipykernel)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() { # run quietly; show the output only if it fails
  if ! "$@" >"$log" 2>&1; then
    echo "jupyter-setup: failed: $*" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

if ((${#missing[@]})); then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
      echo "jupyter-setup: not root and no sudo: install ${missing[*]} yourself" >&2
      exit 1
    fi
  fi
  start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  quiet "${sudo[@]}" apt-get update -qq
  quiet "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
  echo "jupyter-setup: installed ${missing[*]} ($((SECONDS - start)) s)"
fi

# Writes kernel.json for the kernels "tslab" (TypeScript) and "jslab" (JavaScript), overwriting earlier ones.
# They start the command `tslab`: put node_modules/.bin on PATH (or use `npm exec`) when starting Jupyter.
quiet npx --no-install tslab install --python=/usr/bin/python3
echo "jupyter-setup: $(/usr/bin/python3 -m jupyter nbconvert --version 2>/dev/null | tail -n 1 | sed 's/^/nbconvert /'), tslab kernelspecs registered"
