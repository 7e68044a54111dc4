# Sourced by the *-setup.sh scripts: apt_ensure WHO HINT [--no-install-recommends] PACKAGE…
# Installs the Debian packages that are missing (apt runs only then), as root or through passwordless sudo;
# quiet unless it installs something or fails. WHO names the calling script in messages; HINT says what
# happens until the packages are there, for a user without root.
apt_ensure() {
  local who=$1 hint=$2
  shift 2
  local options=()
  if [ "${1:-}" = --no-install-recommends ]; then
    options+=("$1")
    shift
  fi
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0

  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
      echo "$who: not root and no sudo: install ${missing[*]} yourself ($hint)" >&2
      return 1
    fi
  fi
  local log start=$SECONDS
  log=$(mktemp)
  if ! { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${options[@]}" "${missing[@]}"; } >"$log" 2>&1; then
    echo "$who: failed to install ${missing[*]}" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  echo "$who: installed ${missing[*]} ($((SECONDS - start)) s)"
}
