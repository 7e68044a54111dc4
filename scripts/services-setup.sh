#!/usr/bin/env bash
# The real services that test/services.ts starts for tests (test/services.test.ts): Debian's Redis
# (redis-server), Slurm (slurm-wlm: slurmctld, slurmd, the client commands) and munge (Slurm's
# authentication). Idempotent and quiet: apt runs only for missing packages. Nothing is started or enabled
# here: the tests run their own daemons in temporary folders, with their own munge key and socket.
set -euo pipefail

PACKAGES=(redis-server slurm-wlm munge)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
((${#missing[@]})) || exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    echo "services-setup: not root and no sudo: install ${missing[*]} yourself (the tests that need them skip until then)" >&2
    exit 1
  fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
export DEBIAN_FRONTEND=noninteractive
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  echo "services-setup: failed to install ${missing[*]}" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "services-setup: installed ${missing[*]} ($((SECONDS - start)) s)"
