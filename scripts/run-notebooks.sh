#!/usr/bin/env bash
# `npm run notebooks`: builds dist/, then re-executes the reproduction notebooks in place with Jupyter's tslab
# kernel, so each .ipynb is committed with the outputs of its run. Arguments: notebooks to run (default: all
# of them, in the order below: 03 trains the Table 3 runs that 04 and 11 reuse; 10, the small preset, next to last: it
# trains for an estimated hour and a half from nothing; 12, the scorecard, last: it reads the others' outputs). Stops at the first cell error.
# Then draws a PNG twin of every plotly figure (scripts/notebook-figures.ts).
# Needs Jupyter and the tslab kernelspec: `bash scripts/jupyter-setup.sh` (notebooks/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

DEFAULT=(notebooks/00-quickstart.ipynb notebooks/01-dataset.ipynb notebooks/02-cc3m-dataset.ipynb notebooks/03-table3-pretraining-data.ipynb notebooks/04-table4-nocaps-val-test.ipynb notebooks/05-cc3m-captioners.ipynb notebooks/06-table5-coco-benchmark.ipynb notebooks/07-narratives.ipynb notebooks/08-table8-retrieval.ipynb notebooks/09-table7-cc3m-benchmark.ipynb notebooks/11-ablations.ipynb notebooks/10-table3-small-preset.ipynb notebooks/12-scorecard.ipynb)
if (($#)); then NOTEBOOKS=("$@"); else NOTEBOOKS=("${DEFAULT[@]}"); fi
PYTHON=${CCKIT_PYTHON:-/usr/bin/python3}

npm run build --silent
# The kernelspec starts the bare command `tslab`: this checkout's copy, through PATH.
export PATH="$PWD/node_modules/.bin:$PATH" PYDEVD_DISABLE_FILE_VALIDATION=1
for nb in "${NOTEBOOKS[@]}"; do
  start=$SECONDS
  echo "executing $nb"
  "$PYTHON" -m jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.timeout=10800 "$nb"
  echo "$nb: $((SECONDS - start)) s"
done
# Each plotly figure gets its PNG twin (headless Chromium: `bash scripts/vscode-setup.sh` installs it), so viewers
# without plotly (GitHub, nbviewer, nbconvert's HTML) show the figures too.
node --import tsx scripts/notebook-figures.ts "${NOTEBOOKS[@]}"
