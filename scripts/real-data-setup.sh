#!/usr/bin/env bash
# Real images with human descriptions for scripts/real-data.sh and test/real-data.test.ts: Debian's
# tuxpaint-stamps-default (about 160 MB). Idempotent and quiet: apt runs only when it is missing.
set -euo pipefail
source "$(dirname "$0")/lib/apt-ensure.sh"

apt_ensure real-data-setup "test/real-data.test.ts skips until then" --no-install-recommends tuxpaint-stamps-default
