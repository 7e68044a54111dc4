# Shared by scripts/real-data.sh and scripts/real-table3.sh (sourced after they set ROOT and OUT): the cckit and
# real-web commands, step headings and timings, and the tuxpaint web served on 127.0.0.1.

cckit() { (cd "$OUT" && node "$ROOT/bin/cckit.js" "$@"); }
realweb() { (cd "$ROOT" && node --import tsx scripts/real-web.ts "$@"); }
step() { printf '\n## %s\n' "$*"; }
timed() { # timed LABEL COMMAND…: runs it and prints its wall time
  local label=$1 start=$SECONDS
  shift
  "$@"
  echo "($label: $((SECONDS - start)) s)"
}

# serve_tuxpaint [BUILD ARGS…]: builds OUT/web (real-web.ts build) and serves it on a free loopback port; sets
# PORT and SERVER, and stops the server when the script exits (or earlier: stop_tuxpaint).
serve_tuxpaint() {
  PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  realweb build "$OUT/web" --port "$PORT" "$@"
  # a subshell that execs node: the PID in $! is the server's own, so stopping it stops the server
  (cd "$ROOT" && exec node --import tsx scripts/real-web.ts serve "$OUT/web" --port "$PORT" >"$OUT/server.log" 2>&1) &
  SERVER=$!
  trap stop_tuxpaint EXIT
  for _ in $(seq 50); do grep -q serving "$OUT/server.log" && break; sleep 0.2; done
}
stop_tuxpaint() { kill "$SERVER" 2>/dev/null || true; }
