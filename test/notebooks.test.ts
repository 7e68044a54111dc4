/**
 * The reproduction notebooks (notebooks/NN-*.ipynb) executed headlessly in real Jupyter with tslab's kernel, at
 * the tiny preset, in order: `jupyter nbconvert --execute` fails on any cell error, and each executed copy must
 * hold what its notebook is for (tables, plotly figures, caption grid, the run published for the sidebar).
 *
 * The notebooks run from the repository root's point of view (they chdir there) and share `runs/` and
 * `.cckit-cache/` with `npm start`: 03 trains the Table 3 runs (several minutes on 2 cores the first time), 04
 * reads all of them back (no training, no captioning) and 11 reuses its CC3M and CC12M rows; later test runs reuse
 * everything and only caption again. The committed notebooks are read, the executed copies go to a temporary folder.
 *
 * Needs Debian's Jupyter on /usr/bin/python3 and tslab's kernelspec (`bash scripts/jupyter-setup.sh`; `.ci/run`
 * installs both). Skipped, with the reason, where either is missing, or with CCKIT_SKIP_NOTEBOOKS=1 (a quick
 * local `npm test`). Uses the built `dist/` (`npm test` builds it first).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';
import { CLAIMS } from '../src/experiments/claims-registry';

import { NOTEBOOK_STEP_SCALE } from './helpers';

const PYTHON = '/usr/bin/python3';
const BIN = path.join(PACKAGE_ROOT, 'node_modules', '.bin');
// One seed at tiny, every training stage a quarter of its steps: the suite checks that the notebooks run and show what
// they are for; the committed outputs hold the seeds' (and notebook 10's small preset's) results at the full recipe
// (CCKIT_NOTEBOOK_SEEDS, _PRESET and _STEP_SCALE, read by the setup cells; test/vscode.test.ts uses the same, so it
// reuses these runs). CCKIT_NOTEBOOK_STEP_SCALE=1 runs the recipe's own steps.
const env = {
  ...process.env,
  PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}`,
  PYDEVD_DISABLE_FILE_VALIDATION: '1',
  CCKIT_NOTEBOOK_SEEDS: process.env.CCKIT_NOTEBOOK_SEEDS ?? '0',
  CCKIT_NOTEBOOK_PRESET: process.env.CCKIT_NOTEBOOK_PRESET ?? 'tiny',
  CCKIT_NOTEBOOK_STEP_SCALE: NOTEBOOK_STEP_SCALE,
};
const PLOTLY = 'application/vnd.plotly.v1+json';
const CAPTIONS = 'application/vnd.cckit.captions+json';
const RUN = 'application/vnd.cckit.run+json';

interface NbOutput {
  output_type: string;
  metadata?: Record<string, unknown>;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
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

const joined = (s: unknown) => (Array.isArray(s) ? s.join('') : typeof s === 'string' ? s : '');

function missingJupyter(kernelName: string): string | undefined {
  if (process.env.CCKIT_SKIP_NOTEBOOKS === '1') return 'CCKIT_SKIP_NOTEBOOKS=1';
  if (!fs.existsSync(PYTHON)) return `${PYTHON} does not exist (bash scripts/jupyter-setup.sh)`;
  const version = spawnSync(PYTHON, ['-m', 'jupyter', 'nbconvert', '--version'], { encoding: 'utf8', env });
  if (version.status !== 0) return `Jupyter's nbconvert is not installed for ${PYTHON} (bash scripts/jupyter-setup.sh)`;
  const list = spawnSync(PYTHON, ['-m', 'jupyter_client.kernelspecapp', 'list', '--json'], { encoding: 'utf8', env });
  try {
    const names = Object.keys((JSON.parse(list.stdout) as { kernelspecs: Record<string, unknown> }).kernelspecs);
    if (!names.includes(kernelName)) return `the "${kernelName}" kernelspec is not registered (npx tslab install --python=${PYTHON})`;
  } catch {
    return `cannot list Jupyter kernelspecs: ${(list.stderr || list.stdout).trim().slice(-300)}`;
  }
  return undefined;
}

/** Runs nbconvert on one notebook into `outDir` (asynchronously, so the test's own timeout can fire). */
function execute(notebook: string, outDir: string, timeoutMs: number): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      PYTHON,
      [
        '-m',
        'jupyter',
        'nbconvert',
        '--to',
        'notebook',
        '--execute',
        `--ExecutePreprocessor.timeout=${Math.round(timeoutMs / 1000)}`,
        '--output-dir',
        outDir,
        '--output',
        path.basename(notebook),
        notebook,
      ],
      { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

interface Executed {
  outputs: NbOutput[];
  withMime(mime: string): NbOutput[];
  tables: string[];
  printed: string;
}

async function run(t: { skip(reason: string): void; after(fn: () => void): void }, name: string, timeoutMs: number): Promise<Executed | undefined> {
  const file = path.join(PACKAGE_ROOT, 'notebooks', name);
  const source = JSON.parse(fs.readFileSync(file, 'utf8')) as Notebook;
  const missing = missingJupyter(source.metadata.kernelspec?.name ?? 'tslab');
  if (missing) {
    t.skip(missing);
    return undefined;
  }
  assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, 'dist', 'src', 'index.js')), 'dist/ is not built: run `npm run build`');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-notebook-'));
  t.after(() => fs.rmSync(outDir, { recursive: true, force: true }));
  const started = Date.now();
  const result = await execute(file, outDir, timeoutMs);
  process.stderr.write(`# ${name}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  assert.equal(result.code, 0, `nbconvert failed on ${name} (exit ${result.code}):\n${result.log.slice(-6000)}`);

  const executed = JSON.parse(fs.readFileSync(path.join(outDir, name), 'utf8')) as Notebook;
  const code = executed.cells.filter((c) => c.cell_type === 'code');
  for (const cell of code) {
    const reply = cell.metadata?.execution?.['shell.execute_reply'];
    assert.ok(reply && Date.parse(reply) >= started - 5_000, `${name}: cell not executed in this run: ${joined(cell.source).slice(0, 80)}`);
  }
  const outputs = code.flatMap((c) => c.outputs ?? []);
  const errors = outputs.filter((o) => o.output_type === 'error');
  assert.deepEqual(
    errors.map((e) => `${e.ename}: ${e.evalue}`),
    [],
    `${name}: no cell may raise`,
  );
  // tslab reports compile errors and uncaught rejections on stderr.
  const stderr = outputs.filter((o) => o.output_type === 'stream' && o.name === 'stderr').map((o) => joined(o.text));
  assert.deepEqual(stderr, [], `${name}: nothing on stderr`);
  const withMime = (mime: string) => outputs.filter((o) => o.output_type === 'display_data' && o.data && mime in o.data);
  const tables = withMime('text/html')
    .map((o) => joined(o.data!['text/html']))
    .filter((h) => h.startsWith('<table class="cckit-table">'));
  const printed = outputs
    .filter((o) => o.output_type === 'stream')
    .map((o) => joined(o.text))
    .join('');
  // The setup cell states the preset and the backend.
  assert.match(printed, /^preset: tiny \(embedded world, seeds? 0\)\nbackend: tfjs \w+/m, `${name}: states the preset and the backend`);
  if (Number(NOTEBOOK_STEP_SCALE) !== 1)
    assert.ok(printed.includes(`steps: × ${Number(NOTEBOOK_STEP_SCALE)} of the preset's`), `${name}: says its steps are scaled (not results)`);
  return { outputs, withMime, tables, printed };
}

/** The verdict words of the one rule (src/experiments/claims.ts's `decide`). */
const VERDICT_WORDS = /holds|contradicted|no difference|undecided|not measured|not testable/;
const MINUTE = 60_000;

function progressDone(nb: Executed): void {
  const html = (o: NbOutput) => joined(o.data!['text/html']);
  const boards = nb.withMime('text/html').filter((o) => html(o).includes('class="cckit-progress-board"'));
  const bars = nb.withMime('text/html').filter((o) => html(o).includes('class="cckit-progress"') && !boards.includes(o));
  for (const b of bars) assert.match(joined(b.data!['text/plain']), /\[#+\] (\d+)\/\1 \(100%\)$/, 'every progress bar ends at 100%');
  // an experiment's progress board ends as its summary line alone: no bar left running
  for (const b of boards)
    assert.match(joined(b.data!['text/plain']), /^\d+ tasks? finished( \(latest: [^\n]*\))?$/, 'every progress board ends with its tasks finished');
}

function captionGrid(nb: Executed, minItems: number): void {
  const grids = nb.withMime(CAPTIONS);
  assert.ok(grids.length >= 1, 'a caption grid');
  const items = (grids[0]!.data![CAPTIONS] as { items: { caption: string; image?: string; domain?: string; score?: number }[] }).items;
  assert.ok(items.length >= minItems, `at least ${minItems} captions`);
  for (const it of items) {
    assert.ok(it.caption.length > 0);
    assert.match(it.image ?? '', /^data:image\/jpeg;base64,/, 'thumbnails inlined');
    assert.ok(['in', 'near', 'out'].includes(it.domain ?? ''));
    assert.equal(typeof it.score, 'number');
  }
  // a compare view (show.compare) publishes its pair too, with `compareWith`
  const published = nb.withMime(RUN).filter((o) => !(o.data![RUN] as { compareWith?: string }).compareWith);
  assert.equal(published.length, 1, 'one run published for the sidebar');
  const runDir = (published[0]!.data![RUN] as { runDir: string }).runDir;
  assert.ok(
    fs.existsSync(path.join(PACKAGE_ROOT, 'notebooks', runDir, 'predictions', 'nocaps-val.json')),
    `${runDir} (relative to notebooks/) has nocaps-val predictions`,
  );
}

// The tests of one file run one after another, in this order: 03 trains what 04 and 11 reuse.
let table3Executed = false;
test('00-quickstart: world, filters, features, a minute of training, nocaps captions and scores', { timeout: 20 * MINUTE }, async (t) => {
  const nb = await run(t, '00-quickstart.ipynb', 18 * MINUTE);
  if (!nb) return;
  progressDone(nb);
  assert.match(nb.printed, /pools: CC3M pipeline kept \d+ pairs, CC12M pipeline \d+/);
  assert.match(nb.printed, /step 200: val CIDEr \d+\.\d|finished run reused|steps trained now/);
  const cider = /metrics\.evaluate on predictions\/nocaps-val\.json: CIDEr (\d+\.\d) \(the table's overall: (\d+\.\d)\)/.exec(nb.printed);
  assert.ok(cider, 'the scoring cell prints CIDEr both ways');
  assert.equal(cider[1], cider[2], 'metrics.evaluate agrees with the run evaluation');
  assert.ok(
    nb.tables.some((h) => /<td>overall<\/td>/.test(h)),
    'the per-domain score table',
  );
  assert.equal(nb.withMime(PLOTLY).length, 1, 'the training curve');
  captionGrid(nb, 6);
});

test('01-dataset: funnels of both pipelines, Table 1 beside the paper', { timeout: 15 * MINUTE }, async (t) => {
  const nb = await run(t, '01-dataset.ipynb', 13 * MINUTE);
  if (!nb) return;
  const funnel = nb.withMime(PLOTLY)[0]!.data![PLOTLY] as { data: { name: string; y: number[] }[] };
  assert.deepEqual(
    funnel.data.map((d) => d.name),
    ['CC3M pipeline', 'CC12M pipeline'],
  );
  for (const trace of funnel.data)
    assert.ok(
      trace.y.every((y, i) => i === 0 || y <= trace.y[i - 1]!),
      'a funnel only narrows',
    );
  const t1 = nb.tables.find((h) => h.includes('CC12M Table 1'));
  assert.ok(t1, 'the Table 1 comparison');
  assert.match(t1, /3,318,333/);
  assert.match(t1, /12,423,374/);
  assert.match(t1, /804\.8/);
  assert.match(t1, /20\.2 ± 16\.3/);
  assert.ok(nb.tables.some((h) => h.includes('direction of each difference')));
});

test('02-cc3m-dataset: CC3M Tables 1-3 and CC12M Table 9 beside the papers, claims', { timeout: 10 * MINUTE }, async (t) => {
  const nb = await run(t, '02-cc3m-dataset.ipynb', 8 * MINUTE);
  if (!nb) return;
  // The trace of the CC3M rewrite reproduces every caption the pipeline kept.
  const traced = /trace check \(seed \d+\): the traced CC3M caption equals the pipeline's kept caption for (\d+) of (\d+) pairs/.exec(nb.printed);
  assert.ok(traced, 'the trace check line');
  assert.equal(traced[1], traced[2], 'every kept caption traced');
  assert.ok(Number(traced[2]) > 0);
  const paperExamples = nb.tables.find((h) => h.includes('CC3M Table 1, the paper'));
  assert.ok(paperExamples && paperExamples.includes('a worker helps to clear the debris.'), "the paper's Table 1 examples");
  const t1 = nb.tables.find((h) => h.includes('CC3M Table 1 on the tiny world'));
  assert.ok(t1, 'the world examples of Table 1');
  // under the paper's entity rule (the world's since generation 3) common nouns stay, so no 'hypernyms' example
  for (const kind of ['entities', 'dates', 'locations']) assert.match(t1, new RegExp(`<td>[^<]*\\b${kind}\\b`), `an example where ${kind} acted`);
  assert.ok(t1.includes('&lt;PERSON&gt;'), 'a CC12M caption with <PERSON>');
  const t2 = nb.tables.find((h) => h.includes('CC3M Table 2 beside the paper'));
  assert.ok(t2, 'the Table 2 comparison');
  for (const paper of ['96.9', '90.3', '78.5', '76.6']) assert.ok(t2.includes(`>${paper}<`), `paper number ${paper}`);
  const t3 = nb.tables.find((h) => h.includes('CC3M Table 3'));
  assert.ok(t3, 'the Table 3 comparison');
  for (const paper of ['3,318,333', '51,201', '10.3 ± 4.5', '28,355', '13,063', '22,530', '11,731', '10.1 ± 4.5'])
    assert.ok(t3.includes(`>${paper}<`), `paper number ${paper}`);
  for (const split of ['train', 'validation', 'test']) assert.ok(t3.includes(`<td>${split}</td>`), split);
  const t9 = nb.tables.find((h) => h.includes('CC12M Table 9'));
  assert.ok(t9 && /k = 10/.test(t9), 'the Table 9 coverage');
  const all = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; y: number[] }[] });
  assert.equal(all.length, 3, 'Table 2 and Table 9 bars, and the claims forest plot');
  const figures = all.slice(0, 2);
  for (const figure of figures) {
    assert.equal(figure.data.length, 3);
    for (const trace of figure.data)
      assert.ok(
        trace.y.every((y) => y >= 0 && y <= 100),
        `${trace.name}: percentages`,
      );
  }
  assert.deepEqual(
    figures[1]!.data.map((d) => d.name),
    ['raw web pool', 'CC3M pool', 'CC12M pool'],
  );
  assert.ok(
    nb.tables.some((h) => h.includes('dataset claims, decided over seeds') && VERDICT_WORDS.test(h)),
    'the claims table',
  );
  // the claims record cckit results reads: every dataset claim decided by the one rule (one seed here: not measured)
  const record = nb.outputs
    .map((o) => o.metadata?.['cckit.claims'] as { table: string; claims: { decided: { verdict: string } }[] } | undefined)
    .find((r) => r?.table === 'cc3m/tables1-3');
  assert.ok(record, 'a claims record for cc3m/tables1-3');
  assert.ok(record.claims.length >= 9, `${record.claims.length} claims`);
  assert.ok(record.claims.every((c) => VERDICT_WORDS.test(c.decided.verdict)));
});

test('03-table3: Table 3 measured beside the paper, claims, curves, captions, sidebar', { timeout: 45 * MINUTE }, async (t) => {
  const nb = await run(t, '03-table3-pretraining-data.ipynb', 43 * MINUTE);
  if (!nb) return;
  progressDone(nb);
  const table = nb.tables.find((h) => h.includes('CC12M Table 3'));
  assert.ok(table, 'the Table 3 comparison');
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']) assert.match(table, new RegExp(`<td>${row.replace('+', '\\+')}</td>`));
  for (const paper of ['54.7', '73.2', '87.4', '90.2', '29.7', '27.1']) assert.ok(table.includes(`>${paper}<`), `paper number ${paper}`);
  assert.ok(
    nb.tables.some((h) => h.includes('claims') && VERDICT_WORDS.test(h)),
    'the claims table',
  );
  // the claims record cckit results reads (show.claims): in the output's metadata, every claim with its decided numbers
  const records = nb.outputs.map((o) => o.metadata?.['cckit.claims'] as { table: string; claims: { id?: string; decided: { verdict: string } }[] } | undefined);
  const record = records.find((r) => r?.table === 'cc12m/table3');
  assert.ok(record, 'a claims record in the metadata of the claims table');
  assert.equal(record.claims.length, 11);
  assert.ok(record.claims.every((c) => c.id?.startsWith('cc12m.') && VERDICT_WORDS.test(c.decided.verdict)));
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: number[] }[] });
  assert.equal(
    figures.length,
    7,
    'bars, the claims forest plot, the mechanism (frequency vs naming, naming per step), CIDEr curves, loss curves, checkpoint choice',
  );
  assert.equal(figures[2]!.data.length, 4, 'CC3M and CC12M, zero-shot and fine-tuned');
  assert.ok(
    nb.tables.some((h) => h.includes('Spearman')),
    'the mechanism table',
  );
  assert.ok(
    nb.tables.some((h) => h.includes('Ground-truth judge') && h.includes('CHAIR_s')),
    'the grounding table',
  );
  assert.deepEqual(
    figures[4]!.data.map((d) => d.name),
    ['none', 'cc3m', 'cc12m', 'cc3m+cc12m'],
  );
  for (const curve of figures[4]!.data) assert.ok(curve.x.length >= 2, `${curve.name}: a CIDEr curve`);
  // one line per row and seed: its runs, trained now or reused, the step chosen on val
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m'])
    assert.match(
      nb.printed,
      new RegExp(`^seed 0 · ${row.replace('+', '\\+')}: .*\\((\\d+ steps, )?(trained in \\d+ s|reused)\\).*step \\d+ chosen on val$`, 'm'),
      row,
    );
  assert.ok(
    nb.withMime('text/html').some((o) => joined(o.data!['text/html']).startsWith('<div class="cckit-compare">')),
    'the CC3M vs CC12M comparison',
  );
  captionGrid(nb, 6);
  table3Executed = true;
});

// At tiny (CCKIT_NOTEBOOK_PRESET) this reads 03's seed-0 runs back: the suite checks that the small-preset notebook
// runs and shows what it is for; its committed outputs are the small run's.
test(
  '10-table3-small-preset: data drawn per stage, Table 3 beside the paper and beside tiny, claims, mechanism, curves',
  { timeout: 20 * MINUTE },
  async (t) => {
    const nb = await run(t, '10-table3-small-preset.ipynb', 18 * MINUTE);
    if (!nb) return;
    progressDone(nb);
    assert.match(nb.printed, /^tiny, seed 0: \d+ s in this call; pools cc3m \d+, cc12m \d+ pairs$/m);
    const drawn = nb.tables.find((h) => h.includes('Data drawn per stage'));
    assert.ok(drawn, 'the data-drawn table');
    for (const column of ['pairs or captions', 'drawn', 'passes']) assert.ok(drawn.includes(`>${column}<`), column);
    assert.match(drawn, /<td>cc3m\+cc12m<\/td>/, 'both pools together');
    const table = nb.tables.find((h) => h.includes('CC12M Table 3 at the tiny preset'));
    assert.ok(table, 'the Table 3 comparison');
    for (const paper of ['54.7', '73.2', '87.4', '90.2']) assert.ok(table.includes(`>${paper}<`), `paper number ${paper}`);
    const beside = nb.tables.find((h) => h.includes('the tiny preset beside this run (tiny)'));
    assert.ok(beside && /<td>\d+\.\d<\/td>/.test(beside), 'the two presets side by side');
    assert.ok(
      nb.tables.some((h) => h.includes('claims at the tiny preset') && VERDICT_WORDS.test(h)),
      'the claims table',
    );
    assert.ok(
      nb.tables.some((h) => h.includes('Spearman')),
      'the mechanism table',
    );
    const figures = nb.withMime(PLOTLY);
    assert.equal(figures.length, 6, 'bars, the claims forest plot, the mechanism (2), CIDEr curves, checkpoint choice');
  },
);

// After 03 it only reads runs (a minute or two); alone on a fresh checkout it trains Table 3 first, as 03 would.
test('04-table4: val and test, CIDEr and SPICE, beside the paper; claims; the test submission', { timeout: 45 * MINUTE }, async (t) => {
  const nb = await run(t, '04-table4-nocaps-val-test.ipynb', 43 * MINUTE);
  if (!nb) return;
  const rowLines = nb.printed.split('\n').filter((l) => l.startsWith('seed 0 · '));
  assert.equal(rowLines.length, 4, 'a line per Table 3 row');
  if (table3Executed) for (const line of rowLines) assert.doesNotMatch(line, /trained in/, `after 03 every Table 3 run is reused: ${line}`);
  assert.match(nb.printed, /CIDEr recomputed from the stored captions equals the CIDEr Table 3 reported/);
  const table = nb.tables.find((h) => h.includes('CC12M Table 4'));
  assert.ok(table, 'the Table 4 comparison');
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']) assert.match(table, new RegExp(`<td>${row.replace('+', '\\+')}</td>`));
  for (const column of ['in CIDEr', 'in SPICE', 'near SPICE', 'out CIDEr', 'out SPICE', 'overall CIDEr', 'overall SPICE'])
    assert.ok(table.includes(`>${column}<`), column);
  for (const split of ['val', 'test']) assert.ok(table.includes(`<td>${split}</td>`), split);
  // the paper's val overall CIDEr of each row; every other paper cell says it has no number
  for (const paper of ['54.7', '73.2', '87.4', '90.2']) assert.ok(table.includes(`>${paper}<`), `paper number ${paper}`);
  assert.ok(table.includes('>n/a<'), 'cells without a paper number say so');
  const claims = nb.tables.find((h) => h.includes('claims, checked on nocaps-like val and test'));
  assert.ok(claims && VERDICT_WORDS.test(claims), 'the claims table');
  for (const claim of ['test: CC12M beats CC3M (overall CIDEr)', 'SPICE ranks the rows as CIDEr does']) assert.ok(claims.includes(claim), claim);
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: string[]; y: number[] }[] });
  assert.equal(figures.length, 2, 'CIDEr and SPICE bars of test, the claims forest plot');
  assert.equal(figures[0]!.data.length, 8, 'four rows × two metrics');
  for (const trace of figures[0]!.data) assert.deepEqual(trace.x, ['in', 'near', 'out', 'overall']);
  // the submission: the server's format, one caption per test image
  const written = /(runs\/submissions\/nocaps-test-[\w-]+-seed0\.json): (\d+) captions/.exec(nb.printed);
  assert.ok(written, 'the submission line');
  const submission = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, written[1]!), 'utf8')) as { image_id: unknown; caption: unknown }[];
  assert.equal(submission.length, Number(written[2]));
  assert.ok(submission.length > 0);
  for (const entry of submission) {
    assert.deepEqual(Object.keys(entry), ['image_id', 'caption']);
    assert.ok(Number.isInteger(entry.image_id) && typeof entry.caption === 'string');
  }
  assert.ok(
    nb.tables.some((h) => h.includes('submission file scored against the local')),
    'the submission scored locally',
  );
});

test("06-table5: COCO-like test with Table 3's models, five metrics, the in- vs out-of-domain gain; claims", { timeout: 20 * MINUTE }, async (t) => {
  const nb = await run(t, '06-table5-coco-benchmark.ipynb', 18 * MINUTE);
  if (!nb) return;
  const rowLines = nb.printed.split('\n').filter((l) => l.startsWith('seed 0 · '));
  assert.equal(rowLines.length, 4, 'a line per Table 3 row');
  if (table3Executed) for (const line of rowLines) assert.doesNotMatch(line, /trained in/, `after 03 nothing is trained: ${line}`);
  assert.match(nb.printed, /COCO-like test: \d+ captions decoded now, the rest read back/);
  const table = nb.tables.find((h) => h.includes('CC12M Table 5'));
  assert.ok(table, 'the Table 5 comparison');
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']) assert.match(table, new RegExp(`<td>${row.replace('+', '\\+')}</td>`));
  for (const column of ['BLEU-4', 'METEOR', 'ROUGE-L', 'CIDEr', 'SPICE', 'paper CIDEr', 'nocaps-val out CIDEr (Table 3)'])
    assert.ok(table.includes(`>${column}<`), column);
  assert.ok(table.includes('>n/a<'), 'no paper number: n/a');
  const claims = nb.tables.find((h) => h.includes('claims on COCO-like test'));
  assert.ok(claims && VERDICT_WORDS.test(claims), 'the claims table');
  assert.ok(claims.includes('larger on nocaps out-of-domain than on COCO-like test'), 'the mechanism claim');
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: string[]; y: number[] }[] });
  assert.equal(figures.length, 2, 'the gains plot, the claims forest plot');
  assert.deepEqual(
    figures[0]!.data.map((d) => d.x),
    [
      ['cc3m', 'cc12m', 'cc3m+cc12m'],
      ['cc3m', 'cc12m', 'cc3m+cc12m'],
    ],
  );
  for (const trace of figures[0]!.data) assert.ok(trace.y.every(Number.isFinite), trace.name);
});

test(
  "07-narratives: Table 10 (narratives as pre-training, Table 3's rows reused) and Table 6 (captioning narratives) beside the paper; claims",
  { timeout: 20 * MINUTE },
  async (t) => {
    const nb = await run(t, '07-narratives.ipynb', 18 * MINUTE);
    if (!nb) return;
    const t10Lines = nb.printed.split('\n').filter((l) => l.startsWith('  Table 10 · '));
    assert.equal(t10Lines.length, 4, 'a line per Table 10 row');
    assert.equal(nb.printed.split('\n').filter((l) => l.startsWith('  Table 6 · ')).length, 3, 'a line per Table 6 row');
    // Table 3's runs are read back after 03; only the narratives rows may train
    if (table3Executed) for (const line of t10Lines.filter((l) => !l.includes('narratives:'))) assert.doesNotMatch(line, /trained in/, line);
    assert.match(nb.printed, /caption length cap 62 tokens \(paper: 180; \d+ of 200 narratives are longer/);
    const t10 = nb.tables.find((h) => h.includes('CC12M Table 10'));
    assert.ok(t10, 'the Table 10 comparison');
    for (const row of ['none', 'cc3m', 'cc12m', 'narratives']) assert.ok(t10.includes(`<td>${row}</td>`), row);
    for (const column of ['in', 'near', 'out', 'overall', 'test overall', 'zero-shot overall', 'paper overall']) assert.ok(t10.includes(`>${column}<`), column);
    for (const paper of ['63.9', '73.2', '87.4', '54.7 (Table 3)']) assert.ok(t10.includes(`>${paper}<`), `paper number ${paper}`);
    const t6 = nb.tables.find((h) => h.includes('CC12M Table 6'));
    assert.ok(t6, 'the Table 6 comparison');
    for (const row of ['none', 'cc3m', 'cc12m']) assert.ok(t6.includes(`<td>${row}</td>`), row);
    for (const column of ['BLEU-4', 'ROUGE-L', 'CIDEr', 'object recall %', 'paper CIDEr']) assert.ok(t6.includes(`>${column}<`), column);
    assert.ok(t6.includes('>n/a<'), 'no Table 6 number in paper-numbers.json: n/a');
    const claims = nb.tables.find((h) => h.includes('the claims checked'));
    assert.ok(claims && VERDICT_WORDS.test(claims), 'the claims table');
    assert.ok(claims.includes('narratives as pre-training beat no pre-training'), 'the Table 10 claim');
    assert.match(nb.printed, /6 claims over \d+ seeds?: \d+ holds?/);
    const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: string[]; y: (number | null)[] }[] });
    assert.equal(figures.length, 2, 'the Table 10 bars, the claims forest plot');
    assert.deepEqual(
      figures[0]!.data.map((d) => d.name),
      ['measured (world)', 'paper'],
    );
    for (const trace of figures[0]!.data) assert.deepEqual(trace.x, ['none', 'cc3m', 'cc12m', 'narratives']);
    assert.ok(
      figures[0]!.data[0]!.y.every((y) => Number.isFinite(y)),
      'every row measured',
    );
  },
);

test('11-ablations: masking-rate grid (Table 11), objectives (Table 12) and CC12M subsamples (Fig. 6)', { timeout: 45 * MINUTE }, async (t) => {
  const nb = await run(t, '11-ablations.ipynb', 43 * MINUTE);
  if (!nb) return;
  progressDone(nb);
  const t11 = nb.tables.find((h) => h.includes('Table 11 at'));
  assert.ok(t11, 'the Table 11 table');
  for (const v of ['IC (cc12m)', 'mlm@0.2', 'mlm@0.4', 'mlm@0.8']) assert.ok(t11.includes(`<td>${v}</td>`), v);
  assert.ok(t11.includes('>87.4<') && t11.includes('88.5'), "Table 11's paper numbers");
  const f6 = nb.tables.find((h) => h.includes('Fig. 6 at'));
  assert.ok(f6, 'the Fig. 6 table');
  for (const v of ['cc3m', '25% cc12m', '50% cc12m', '100% cc12m']) assert.ok(f6.includes(`<td>${v}</td>`), v);
  const t12 = nb.tables.find((h) => h.includes('Table 12 at'));
  assert.ok(t12, 'the Table 12 table');
  for (const v of ['IC (cc12m)', 'IC+MOC', 'IC+VLM']) assert.ok(t12.includes(`<td>${v}</td>`), v);
  assert.ok(nb.tables.filter((h) => h.includes('claims')).length === 3, 'the three claims tables');
  assert.equal(nb.withMime(PLOTLY).length, 6, 'Table 11 forest, CIDEr and loss curves; Fig. 6 forest and curves; Table 12 forest');
});

// Trains its own 8 runs (a few minutes on 2 cores the first time; reused afterwards) on the world 03 builds.
test('05-cc3m-captioners: CC3M Tables 5-7 beside the paper, Table 4 from the judge, claims', { timeout: 20 * MINUTE }, async (t) => {
  const nb = await run(t, '05-cc3m-captioners.ipynb', 18 * MINUTE);
  if (!nb) return;
  assert.match(nb.printed, /training: adagrad lr 0\.01, batch 25, \d+ steps, captions ≤ 15 tokens, vocabulary min count 4, tied embeddings; decoding beam4/);
  const runs = /runs: (\d+) of (\d+) found finished and reused, (\d+) trained now/.exec(nb.printed);
  assert.ok(runs, 'the reuse line');
  assert.ok(Number(runs[2]) > 0 && Number(runs[2]) % 8 === 0, '2 models × 2 feature modes × 2 training sets per seed');
  const labels = ['RNN 1×1', 'RNN 8×8', 'T2T 1×1', 'T2T 8×8'];
  const papers: Record<string, string[]> = {
    'CC3M Table 5: COCO-like test': ['CIDEr', 'ROUGE-L', 'METEOR', '104.4', '69.8', '35.4', '34.5'],
    'CC3M Table 6: Conceptual-like test': ['CIDEr', 'ROUGE-L', 'SPICE', '167.6', '33.6', '25.7', '18.3'],
    'CC3M Table 7: Flickr-like test': ['CIDEr', 'ROUGE-L', 'SPICE', '35.9', '41.6', '22.7', '6.6'],
  };
  for (const [title, cells] of Object.entries(papers)) {
    const table: string | undefined = nb.tables.find((h) => h.includes(title));
    assert.ok(table, title);
    for (const label of labels) assert.equal(table.split(`<td>${label}</td>`).length - 1, 2, `${title}: ${label} trained on each set`);
    for (const training of ['COCO-like', 'Conceptual-like']) assert.equal(table.split(`<td>${training}</td>`).length - 1, 4, `${title}: ${training}`);
    for (const cell of cells.slice(0, 3)) assert.ok(table.includes(`<th>${cell}</th>`) && table.includes(`<th>paper ${cell}</th>`), `${title}: ${cell}`);
    for (const paper of cells.slice(3)) assert.ok(table.includes(`<td>${paper}</td>`), `${title}: paper number ${paper}`);
    // every measured cell is a number ×100
    const measured: string[] = [...table.matchAll(/<tr><td>[^<]+<\/td><td>[^<]+<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/g)].flatMap((m) =>
      m.slice(1),
    );
    assert.equal(measured.length, 24, `${title}: 8 rows × 3 metrics`);
    // one value, or mean ± std over seeds
    for (const v of measured) assert.match(v, /^\d+\.\d( ± \d+\.\d)?$/, `${title}: measured ${v}`);
  }
  const judge = nb.tables.find((h) => h.includes('CC3M Table 4 on the tiny world'));
  assert.ok(judge, 'the Table 4 stand-in');
  for (const column of ['GOOD %', 'CHAIR_s %', 'CHAIR_i %', 'paper 1+ GOOD %', 'paper 3+ GOOD %']) assert.ok(judge.includes(`<th>${column}</th>`), column);
  for (const paper of ['39.0', '27.6', '17.3', '65.9', '50.6', '35.5']) assert.ok(judge.includes(`<td>${paper}</td>`), `paper number ${paper}`);
  assert.equal(judge.split('<td>n/a</td>').length - 1, 12, 'the paper rated only the 8×8 models: the 1×1 rows read n/a');
  const distinct = nb.tables.find((h) => h.includes('How many different captions each run gives'));
  assert.ok(distinct, 'the distinct-captions table');
  // CC3M §5.2: every run captions the tests with the checkpoint of its best dev CIDEr
  assert.equal([...distinct.matchAll(/<td>step \d+ of \d+ \(\d+\.\d\)<\/td>/g)].length, 8, 'each run says the checkpoint its dev CIDEr chose');
  const claims = nb.tables.find((h) => h.includes('CC3M Tables 4–7: the paper&#39;s claims checked'));
  assert.ok(claims, 'the claims table');
  for (const claim of [
    'COCO-trained beats Conceptual-trained on the COCO-like test (CIDEr)',
    'Conceptual-trained models hallucinate less than COCO-trained on Flickr-like (CHAIR_s)',
  ])
    assert.ok(claims.includes(claim), claim);
  const verdicts = [...claims.matchAll(/<td>(holds|contradicted|no difference|undecided|not measured|not testable)<\/td><\/tr>/g)].map((m) => m[1]);
  assert.equal(verdicts.length, 9, 'a verdict per claim');
  // one seed without per-image scores shows no noise: its claims are "not measured" (or "not testable"), never guessed
  if (process.env.CCKIT_NOTEBOOK_SEEDS === undefined || process.env.CCKIT_NOTEBOOK_SEEDS === '0')
    assert.ok(
      verdicts.every((v) => v === 'not measured' || v === 'not testable'),
      verdicts.join(', '),
    );
  assert.match(nb.printed, /9 claims over \d+ seeds?: \d+ holds?/);
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: string[]; y: number[] }[] });
  assert.equal(figures.length, 3, 'CIDEr bars, the judge bars, the claims forest plot');
  assert.deepEqual(
    figures[0]!.data.map((d) => d.name),
    ['coco-like test', 'conceptual-like test', 'flickr-like test'],
  );
  for (const trace of figures[0]!.data) assert.equal(trace.x.length, 8);
  for (const trace of figures[1]!.data)
    assert.ok(
      trace.y.every((y) => y >= 0 && y <= 100),
      `${trace.name}: percentages`,
    );
});

// Trains the four Table 8 rows of seed 0 (about two minutes on 2 cores; the world and features are 03's) or reads them back.
test('08-table8: retrieval R@1/5/10 both ways beside the paper, zero-shot, claims, ViLBERT not compared', { timeout: 15 * MINUTE }, async (t) => {
  const nb = await run(t, '08-table8-retrieval.ipynb', 13 * MINUTE);
  if (!nb) return;
  const rows = /Table 8's rows: (\d+) of (\d+) found finished and reused, (\d+) trained now/.exec(nb.printed);
  assert.ok(rows, 'the reuse line');
  assert.equal(rows[2], '4', 'four rows');
  assert.equal(Number(rows[1]) + Number(rows[3]), 4);
  assert.match(nb.printed, /test 1000 images \(5000 captions\)/, 'half of the Flickr-like split held out: 1,000 test images as in Flickr30k');
  const table = nb.tables.find((h) => h.includes('CC12M Table 8'));
  assert.ok(table, 'the Table 8 comparison');
  for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']) assert.match(table, new RegExp(`<td>${row.replace('+', '\\+')}</td>`));
  for (const setting of ['fine-tuned', 'zero-shot']) assert.ok(table.includes(`<td>${setting}</td>`), setting);
  for (const column of ['image→text R@1', 'image→text R@10', 'text→image R@1', 'text→image R@5', 'paper text→image R@1'])
    assert.ok(table.includes(`>${column}<`), column);
  // the paper's fine-tuned R@1 per row and its CC3M zero-shot R@1; the cells without a number say so
  for (const paper of ['54.5', '61.1', '70.2', '71.0', '35.4']) assert.ok(table.includes(`>${paper}<`), `paper number ${paper}`);
  assert.ok(table.includes('>n/a<'), 'cells without a paper number say so');
  const recalls = [...table.matchAll(/<td>(\d+\.\d)<\/td>/g)].map((m) => Number(m[1]));
  assert.ok(recalls.length >= 7 * 6, 'six recall cells per row');
  assert.ok(
    recalls.every((r) => r >= 0 && r <= 100),
    'recalls are percentages',
  );
  const claims = nb.tables.find((h) => h.includes('claims, checked on the Flickr-like test images'));
  assert.ok(claims && VERDICT_WORDS.test(claims), 'the claims table');
  for (const claim of ['text→image R@1: CC12M &gt; CC3M', 'image→text R@1: CC3M &gt; none', 'CC3M+CC12M ≥ CC12M']) assert.ok(claims.includes(claim), claim);
  assert.match(nb.printed, /8 claims over \d+ seeds?: \d+ holds?/);
  assert.match(nb.printed, /CC3M model 35\.4 vs ViLBERT 31\.9 \(Flickr30k\) — the paper's CC3M model is ahead/);
  assert.match(nb.printed, /not comparable with 35\.4 or 31\.9, so no verdict against ViLBERT/);
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: string[]; y: number[] }[] });
  assert.equal(figures.length, 2, 'Recall@K bars, the claims forest plot');
  assert.ok(table.includes('<td>chance</td>'), 'chance beside the recalls');
  assert.equal(figures[0]!.data.length, 14, '(4 fine-tuned + 3 zero-shot rows) × 2 directions');
  for (const trace of figures[0]!.data) {
    assert.deepEqual(trace.x, ['R@1', 'R@5', 'R@10']);
    assert.ok(
      trace.y.every((y) => y >= 0 && y <= 100),
      trace.name,
    );
  }
});

// Trains Table 7's own runs for seed 0 (three pre-trainings on the cut pools and four fine-tunings: about five
// minutes on 2 cores; the world and features are 03's) or reads them back.
test(
  '09-table7: CC3M-like dev/test after fine-tuning on CC3M-like train, pools without the held-out images; DataFrames; claims',
  { timeout: 15 * MINUTE },
  async (t) => {
    const nb = await run(t, '09-table7-cc3m-benchmark.ipynb', 13 * MINUTE);
    if (!nb) return;
    const counts = /seed 0: CC3M-like train (\d+) pairs, dev (\d+) images, test (\d+) images; held-out images dropped from the pools: CC3M (\d+) rows/.exec(
      nb.printed,
    );
    assert.ok(counts, 'the split line');
    const [train, dev, test_, dropped] = counts.slice(1).map(Number) as [number, number, number, number];
    assert.ok(train > 0 && dev > 0 && test_ > 0);
    assert.equal(dropped, dev + test_, 'every dev and test image leaves the CC3M pool (one caption each)');
    const table = nb.tables.find((h) => h.includes('CC12M Table 7'));
    assert.ok(table, 'the Table 7 comparison');
    for (const row of ['none', 'cc3m', 'cc12m', 'cc3m+cc12m']) assert.match(table, new RegExp(`<td>${row.replace('+', '\\+')}</td>`));
    for (const column of ['dev CIDEr', 'dev SPICE', 'test CIDEr', 'test ROUGE-L', 'test SPICE', 'test CHAIR_s %', 'chosen step', 'paper test CIDEr'])
      assert.ok(table.includes(`>${column}<`), column);
    assert.ok(table.includes('>n/a<'), 'no paper number: n/a');
    const claims = nb.tables.find((h) => h.includes('claims on CC3M-like test'));
    assert.ok(claims && VERDICT_WORDS.test(claims), 'the claims table');
    assert.ok(claims.includes('CC12M pre-training beats CC3M pre-training'), 'the CC12M vs CC3M claim');
    assert.match(nb.printed, /4 claims over \d+ seeds?: \d+ holds?/, 'counted from the claims DataFrame');
    const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: (string | number)[]; y: number[] }[] });
    assert.equal(figures.length, 3, 'dev/test bars, the dev curves, the claims forest plot');
    assert.deepEqual(
      figures[0]!.data.map((d) => d.name),
      ['dev', 'test'],
    );
    for (const trace of figures[0]!.data) assert.ok(trace.y.every(Number.isFinite), trace.name);
    assert.equal(figures[1]!.data.length, 5, 'a dev curve per row and the chosen checkpoints');
  },
);

// Reads the committed notebooks beside it (no training): seconds.
test('12-scorecard: the tally per paper, one forest plot of every claim with an interval, every claim of the registry', { timeout: 5 * MINUTE }, async (t) => {
  const nb = await run(t, '12-scorecard.ipynb', 4 * MINUTE);
  if (!nb) return;
  assert.match(nb.printed, new RegExp(`^${CLAIMS.length} claims in the registry, read from the notebooks in notebooks/$`, 'm'));
  const tally = nb.tables.find((h) => h.includes('Claims per paper and verdict'));
  assert.ok(tally && tally.includes('<td>CC12M</td>') && tally.includes('<td>CC3M</td>'), 'the tally table');
  const every = nb.tables.find((h) => h.includes('Every claim of both papers'));
  assert.ok(every, 'the table of every claim');
  assert.equal((every.match(/<tr><td>/g) ?? []).length, CLAIMS.length, 'one row per registry claim');
  const figures = nb.withMime(PLOTLY).map((o) => o.data![PLOTLY] as { data: { name: string; x: number[] }[] });
  assert.equal(figures.length, 1, 'the forest plot');
  assert.ok(figures[0]!.data.every((trace) => VERDICT_WORDS.test(trace.name) && trace.x.every(Number.isFinite)));
  assert.match(nb.printed, /\d+ undecided claims; \d+ of them would be decided by at most 10 seeds/);
});
