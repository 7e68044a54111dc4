#!/usr/bin/env bash
# A small CC12M Table 3 on real data (docs/real-data.md, "Table 3 on real data", quotes this script's output). The
# CC12M paper's claim: pre-training on a larger, noisier alt-text pool helps. Here the pool is Debian's openclipart
# (8,041 clip-art SVGs with the titles and descriptions people wrote), filtered by the CC3M and by the CC12M pipeline;
# a tiny captioner pre-trained on each pool is fine-tuned on the tuxpaint split's train (Debian's tuxpaint stamps with
# their human descriptions, served on 127.0.0.1 and downloaded as in scripts/real-data.sh), beside tuxpaint alone,
# and every row captions the tuxpaint test split and is scored with `cckit eval`.
#
#   bash scripts/real-data-setup.sh                  # tuxpaint-stamps-default (root or sudo)
#   apt-get install -y openclipart-svg               # the pre-training pool's images and text
#   bash scripts/real-table3.sh OUT [--openclipart DIR]
#
# OUT is created; everything the run writes stays in it. The openclipart TSV (scripts/openclipart-tsv.ts: every SVG
# rendered to an 800-px JPEG, several minutes on 2 cores) is built into OUT/openclipart unless --openclipart names a
# folder that already holds openclipart.tsv and truth.jsonl. Training runs one at a time; the steps and rates are the
# repository's configs' (scripts/real-table3.ts says which), nothing tuned here.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: bash scripts/real-table3.sh OUT [--openclipart DIR]" >&2
  exit 2
}
(($#)) || usage
OUT=$1
shift
OPENCLIPART=
while (($#)); do
  case $1 in
  --openclipart) OPENCLIPART=${2:?}; shift 2 ;;
  *) usage ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -f "$ROOT/dist/src/cli/main.js" ] || (cd "$ROOT" && npm run build --silent)
STARTED=$SECONDS

source "$ROOT/scripts/lib/real-common.sh"
table3() { (cd "$ROOT" && node --import tsx scripts/real-table3.ts "$@"); }
latest() { (cd "$OUT" && ls -td "runs/$1"-* | head -n 1); }

step "tuxpaint: the stamps with a description, served on 127.0.0.1 and downloaded as 256-px JPEG copies"
serve_tuxpaint
timed download cckit download --in web/list.tsv --out shards-256 --allow-private --resize-mode border --image-size 256 --no-progress
stop_tuxpaint

step "tuxpaint split: cckit split by description (test 10%, val 5%, train the rest)"
cckit split --in shards-256 --out split --by caption --test 0.1 --val 0.05

step "openclipart: the pre-training pool's TSV (description or title as alt-text, keywords as vision labels)"
if [ -z "$OPENCLIPART" ]; then
  OPENCLIPART=$OUT/openclipart
  if [ ! -f "$OPENCLIPART/openclipart.tsv" ]; then
    timed openclipart-tsv bash -c "cd '$ROOT' && node --import tsx scripts/openclipart-tsv.ts '$OPENCLIPART'"
  fi
fi
OPENCLIPART=$(cd "$OPENCLIPART" && pwd)
echo "$(wc -l <"$OPENCLIPART/openclipart.tsv") pairs in $(basename "$OPENCLIPART")/openclipart.tsv"

for preset in cc3m cc12m; do
  step "filter openclipart with the $preset pipeline (the paper's whole pipeline, keywords as the image's labels)"
  timed "filter-$preset" cckit filter --preset "$preset" --layout caption-url --in "$OPENCLIPART/openclipart.tsv" --tags "$OPENCLIPART/truth.jsonl" --out "openclipart-$preset"
done

mkdir -p "$OUT/configs"
: >"$OUT/rows.tsv"
caption_and_score() { # LABEL POOL RUN: captions the test split with RUN, scores it, adds the row
  local label=$1 pool=$2 run=$3 slug=${1//[^A-Za-z0-9]/-}
  timed "caption $label" cckit caption --ckpt "$run" --in split/test.json --out "preds-$slug.json"
  cckit eval --preds "preds-$slug.json" --refs split/test.json --json >"$OUT/scores-$slug.json"
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$pool" "$run" "preds-$slug.json" "scores-$slug.json" >>"$OUT/rows.tsv"
}

step "none: tuxpaint alone, the walk-through's config (configs/tuxpaint-mobilenet-tiny.json)"
table3 config scratch "$OUT/configs/none.json"
timed train-none cckit train --config configs/none.json --runs runs
caption_and_score "none (tuxpaint config)" - "$(latest tuxpaint-mobilenet-tiny)"

step "none: tuxpaint alone, the fine-tuning recipe (configs/finetune-coco-tiny.json) from a random start"
table3 config scratch "$OUT/configs/none-finetune.json" --name real-none-finetune
timed train-none-finetune cckit train --config configs/none-finetune.json --runs runs
caption_and_score "none (fine-tune recipe)" - "$(latest real-none-finetune)"

for preset in cc3m cc12m; do
  step "pre-train on the openclipart $preset pool (configs/pretrain-cc12m-tiny.json), fine-tune on tuxpaint (configs/finetune-coco-tiny.json)"
  table3 config pretrain "$OUT/configs/pretrain-$preset.json" --name "real-pretrain-$preset" --pool "openclipart-$preset/kept.tsv"
  timed "pretrain-$preset" cckit train --config "configs/pretrain-$preset.json" --runs runs
  PRETRAIN=$(latest "real-pretrain-$preset")
  table3 config finetune "$OUT/configs/finetune-$preset.json" --name "real-finetune-$preset" --from "$PRETRAIN"
  timed "finetune-$preset" cckit train --config "configs/finetune-$preset.json" --runs runs
  caption_and_score "$preset" "openclipart-$preset" "$(latest "real-finetune-$preset")"
done

step "the table"
table3 report "$OUT"
echo "(whole script: $((SECONDS - STARTED)) s)"
