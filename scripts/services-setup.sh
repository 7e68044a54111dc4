#!/usr/bin/env bash
# The real services that test/services.ts starts for tests (test/services.test.ts): Debian's Redis
# (redis-server), Slurm (slurm-wlm: slurmctld, slurmd, the client commands) and munge (Slurm's
# authentication). Idempotent and quiet: apt runs only for missing packages. Nothing is started or enabled
# here: the tests run their own daemons in temporary folders, with their own munge key and socket.
set -euo pipefail
source "$(dirname "$0")/lib/apt-ensure.sh"

apt_ensure services-setup "the tests that need them skip until then" --no-install-recommends redis-server slurm-wlm munge
