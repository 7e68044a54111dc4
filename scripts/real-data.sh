#!/usr/bin/env bash
# Real data end to end (docs/real-data.md quotes this script's output): Debian's tuxpaint clip-art with its human
# descriptions, served on 127.0.0.1, through `cckit download`, both papers' filters, `cckit stats`, a split, a tiny
# captioner, captioning and scoring. CI runs it on a slice (test/real-data.test.ts).
#
#   bash scripts/real-data-setup.sh                  # tuxpaint-stamps-default from Debian (root or sudo)
#   bash scripts/real-data.sh OUT [--limit N] [--steps N]
#
# OUT is created; everything the run writes stays in it. --limit keeps every k-th described image so that N remain
# (default: all 785); --steps overrides the captioner's training steps (default: the config's 400).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: bash scripts/real-data.sh OUT [--limit N] [--steps N]" >&2
  exit 2
}
(($#)) || usage
OUT=$1
shift
LIMIT=0
STEPS=
while (($#)); do
  case $1 in
  --limit) LIMIT=${2:?}; shift 2 ;;
  --steps) STEPS=${2:?}; shift 2 ;;
  *) usage ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -f "$ROOT/dist/src/cli/main.js" ] || (cd "$ROOT" && npm run build --silent)

source "$ROOT/scripts/lib/real-common.sh"

step "the web: tuxpaint stamps with a description, served on 127.0.0.1"
serve_tuxpaint --limit "$LIMIT"

step "download A: the bytes as served (what the papers' image filter judges)"
timed download-A cckit download --in web/list.tsv --out shards-orig --allow-private --resize-mode no --no-progress
step "download B: the README's example, 256-px JPEG copies on a white border (the captioner trains on these)"
timed download-B cckit download --in web/list.tsv --out shards-256 --allow-private --resize-mode border --image-size 256 --no-progress
step "download C: the original size, re-encoded as JPEG (B's images before the resize)"
timed download-C cckit download --in web/list.tsv --out shards-full --allow-private --resize-mode no --encode-format jpg --reencode --no-progress

for preset in cc3m cc12m; do
  step "filter $preset over A: the paper's whole pipeline on the original bytes"
  timed "filter-$preset" cckit filter --preset "$preset" --in shards-orig --out "filter-$preset"
  for shards in 256 full; do
    step "filter $preset, image stage alone, over shards-$shards (the size rule judges the original size the shard records)"
    cckit filter --preset "$preset" --stages image --in "shards-$shards" --out "filter-$preset-image-$shards"
  done
done

step "stats of the trainable shards"
cckit stats shards-256

step "split by description (test 10%, val 5%, train the rest)"
realweb split "$OUT/shards-256" "$OUT/split"

step "a tiny captioner on the unfiltered pairs (configs/tuxpaint-mobilenet-tiny.json${STEPS:+, $STEPS steps})"
node -e '
  const fs = require("fs");
  const [from, to, steps] = process.argv.slice(1);
  const config = JSON.parse(fs.readFileSync(from, "utf8"));
  if (steps) Object.assign(config, { steps: Number(steps), checkpointEvery: Number(steps), val: { ...config.val, every: Number(steps) } });
  fs.writeFileSync(to, JSON.stringify(config, null, 2) + "\n");
' "$ROOT/configs/tuxpaint-mobilenet-tiny.json" "$OUT/tuxpaint.json" "$STEPS"
timed train cckit train --config tuxpaint.json --runs runs
RUN=$(cd "$OUT" && ls -td runs/tuxpaint-mobilenet-tiny-* | head -n 1)
echo "run: $RUN"

step "caption the held-out test images and score them"
timed caption cckit caption --ckpt "$RUN" --in split/test.json --out preds-test.json
cckit eval --preds preds-test.json --refs split/test.json
node -e '
  const fs = require("fs");
  const [preds, refs] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const human = new Map(refs.annotations.map((a) => [a.image_id, a.caption]));
  const unk = preds.filter((p) => p.caption.includes("<unk>")).length;
  console.log(`${unk} of ${preds.length} test captions hold <unk>; the first eight, human | model:`);
  for (const p of preds.slice(0, 8)) console.log(`  ${human.get(p.image_id)} | ${p.caption}`);
' "$OUT/preds-test.json" "$OUT/split/test.json"
