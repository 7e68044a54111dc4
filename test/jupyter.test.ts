/**
 * The example notebook (notebooks/example-outputs.ipynb) executed headlessly in real Jupyter with tslab's
 * kernel: `jupyter nbconvert --execute` fails on any cell error, and the executed copy must hold every
 * output kind of the `show.*` helpers (HTML table, plotly figure, caption grid, progress) and the metric text.
 *
 * Needs Debian's Jupyter on /usr/bin/python3 (`apt-get install jupyter-nbconvert python3-nbclient
 * python3-ipykernel`) and tslab's kernelspec (`npx tslab install --python=/usr/bin/python3`); `.ci/run`
 * installs both. Skipped, with the reason, where either is missing. Uses the built `dist/` (`npm test`
 * builds it first).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';

const PYTHON = '/usr/bin/python3';
const NOTEBOOK = path.join(PACKAGE_ROOT, 'notebooks', 'example-outputs.ipynb');
const BIN = path.join(PACKAGE_ROOT, 'node_modules', '.bin');
// The kernelspec tslab installs starts the bare command `tslab`: the project's copy, found through PATH.
const env = { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}`, PYDEVD_DISABLE_FILE_VALIDATION: '1' };

interface NbOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
}
interface NbCell {
  cell_type: string;
  source: string | string[];
  outputs?: NbOutput[];
  metadata?: { execution?: Record<string, string> };
}
interface Notebook {
  cells: NbCell[];
  metadata: { kernelspec?: { name?: string } };
}

const joined = (s: string | string[] | undefined) => (Array.isArray(s) ? s.join('') : (s ?? ''));

/** Why Jupyter cannot run the notebook here, or undefined when it can. */
function missingJupyter(kernelName: string): string | undefined {
  if (!fs.existsSync(PYTHON)) return `${PYTHON} does not exist (install Debian's jupyter-nbconvert python3-nbclient python3-ipykernel)`;
  const version = spawnSync(PYTHON, ['-m', 'jupyter', 'nbconvert', '--version'], { encoding: 'utf8', env });
  if (version.status !== 0) return `Jupyter's nbconvert is not installed for ${PYTHON} (apt-get install jupyter-nbconvert python3-nbclient python3-ipykernel)`;
  const list = spawnSync(PYTHON, ['-m', 'jupyter_client.kernelspecapp', 'list', '--json'], { encoding: 'utf8', env });
  let names: string[] = [];
  try {
    names = Object.keys((JSON.parse(list.stdout) as { kernelspecs: Record<string, unknown> }).kernelspecs);
  } catch {
    return `cannot list Jupyter kernelspecs: ${(list.stderr || list.stdout).trim().slice(-300)}`;
  }
  if (!names.includes(kernelName))
    return `the "${kernelName}" kernelspec is not registered (npx tslab install --python=${PYTHON}); found: ${names.join(', ') || 'none'}`;
  return undefined;
}

test('the example notebook executes in Jupyter (tslab kernel) with every output kind', { timeout: 150_000 }, (t) => {
  const source = JSON.parse(fs.readFileSync(NOTEBOOK, 'utf8')) as Notebook;
  const kernelName = source.metadata.kernelspec?.name ?? 'tslab';
  const missing = missingJupyter(kernelName);
  if (missing) {
    t.skip(missing);
    return;
  }
  assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, 'dist', 'src', 'index.js')), 'dist/ is not built: run `npm run build`');

  // nbconvert reads the committed notebook and writes the executed copy to a temporary folder; the kernel
  // runs in the notebook's own folder (notebooks/), so the cells' require('..') is this repository.
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-jupyter-'));
  t.after(() => fs.rmSync(outDir, { recursive: true, force: true }));
  const started = Date.now();
  const run = spawnSync(
    PYTHON,
    [
      '-m',
      'jupyter',
      'nbconvert',
      '--to',
      'notebook',
      '--execute',
      '--ExecutePreprocessor.timeout=120',
      '--output-dir',
      outDir,
      '--output',
      'executed.ipynb',
      NOTEBOOK,
    ],
    { cwd: PACKAGE_ROOT, encoding: 'utf8', env, timeout: 140_000 },
  );
  assert.equal(run.status, 0, `nbconvert failed (status ${run.status}, signal ${run.signal}):\n${(run.stderr + run.stdout).slice(-4000)}`);

  const executed = JSON.parse(fs.readFileSync(path.join(outDir, 'executed.ipynb'), 'utf8')) as Notebook;
  const code = executed.cells.filter((c) => c.cell_type === 'code');
  assert.ok(code.length >= 5);
  // Every code cell ran now (not outputs left over from the committed copy): nbclient stamps the kernel's reply times.
  for (const cell of code) {
    const reply = cell.metadata?.execution?.['shell.execute_reply'];
    assert.ok(reply && Date.parse(reply) >= started - 5_000, `cell was not executed in this run: ${joined(cell.source).slice(0, 80)}`);
  }
  const outputs = code.flatMap((c) => c.outputs ?? []);
  const errors = outputs.filter((o) => o.output_type === 'error');
  assert.deepEqual(errors, [], 'no cell may raise');
  const stderr = outputs.filter((o) => o.output_type === 'stream' && o.name === 'stderr').map((o) => joined(o.text));
  assert.deepEqual(stderr, [], 'no compile diagnostics or warnings on stderr');

  const withMime = (mime: string) => outputs.filter((o) => o.output_type === 'display_data' && o.data && mime in o.data);
  const plot = withMime('application/vnd.plotly.v1+json');
  assert.equal(plot.length, 1, 'one plotly figure');
  const figure = plot[0]!.data!['application/vnd.plotly.v1+json'] as { data: unknown[]; layout: unknown };
  assert.equal(figure.data.length, 2);

  const captions = withMime('application/vnd.cckit.captions+json');
  assert.equal(captions.length, 1, 'one caption grid');
  const grid = captions[0]!.data!['application/vnd.cckit.captions+json'] as { version: number; items: { caption: string }[] };
  assert.equal(grid.version, 1);
  assert.equal(grid.items.length, 3);

  const tables = withMime('text/html').filter((o) => joined(o.data!['text/html'] as string | string[]).startsWith('<table class="cckit-table">'));
  assert.ok(tables.length >= 2, 'the results table and the per-image metrics table');
  assert.match(joined(tables[0]!.data!['text/html'] as string | string[]), /<th>model<\/th>.*<td>CC12M<\/td>/);

  // The progress bar was replaced in place: its one output shows the final state.
  const progress = withMime('text/html').filter((o) => joined(o.data!['text/html'] as string | string[]).includes('class="cckit-progress"'));
  assert.equal(progress.length, 1, 'one progress output');
  assert.match(joined(progress[0]!.data!['text/plain'] as string | string[]), /^scored \[#+\] 5\/5 \(100%\)$/);

  const printed = outputs
    .filter((o) => o.output_type === 'stream')
    .map((o) => joined(o.text))
    .join('');
  const cider = /CIDEr: (\d+\.\d{4})/.exec(printed);
  assert.ok(cider, `the metric cell prints CIDEr; printed:\n${printed}`);
  assert.ok(Number(cider[1]) > 0);
  assert.match(printed, /BLEU-4: \d+\.\d{4}/);
});
