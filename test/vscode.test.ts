/**
 * The extension in a real VS Code: the `.vsix` built by `npm run package` is installed into code-server
 * (VS Code 1.139's workbench and extension host), which serves this repository as the workspace; headless
 * Chromium drives it like a user. The test opens notebooks, runs their cells on the cckit kernel and checks
 * what VS Code rendered: the text output, a plotly figure (the cckit plotly renderer), a caption grid with
 * thumbnails (the caption renderer), and the Captions sidebar listing the predictions of the run a cell
 * published with `show.run`, then comparing it with a second fixture run (sample-b). Screenshots go to
 * test-artifacts/vscode/ ($CCKIT_ARTIFACTS).
 *
 * Tools: scripts/vscode-setup.sh (Debian's chromium, Node 24 and code-server from npm in ~/.cache/cckit-tools).
 * Where they are missing the test is skipped with the reason, unless CCKIT_REQUIRE_VSCODE=1 (set by .ci/run),
 * which makes that a failure. On a machine with VS Code itself, `@vscode/test-electron` can run the same
 * extension (see extension/README.md); it downloads VS Code, so it is not used here.
 *
 * More notebooks: NOTEBOOKS below (or CCKIT_VSCODE_NOTEBOOKS=a.ipynb,b.ipynb) lists repository notebooks
 * that are opened with "cckit: Open Reproduction Notebook…", run whole, and must finish without an error.
 *
 * A second test opens an untrusted folder whose kernel module is booby-trapped (writes a marker when loaded)
 * and checks that Run All, "cckit: Restart Kernel" and "cckit: Interrupt Kernel" load none of its code and
 * say why, and that once the folder is trusted its kernel runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { PACKAGE_ROOT } from '../src/paths';
import { NOTEBOOK_STEP_SCALE } from './helpers';
import {
  TRAP_MARKER,
  boobyTrappedWorkspace,
  frameWith,
  installExtension,
  launchChromium,
  missingTools,
  pick,
  quickOpen,
  readTrace,
  runCommand,
  sleep,
  startCodeServer,
  waitFor,
  type TraceLine,
} from './vscode-harness';

/** Repository notebooks run whole in VS Code, besides the extension's own test notebook. */
const NOTEBOOKS: string[] = (
  process.env.CCKIT_VSCODE_NOTEBOOKS ??
  'notebooks/example-outputs.ipynb,notebooks/00-quickstart.ipynb,notebooks/03-table3-pretraining-data.ipynb,notebooks/11-ablations.ipynb'
)
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const FIXTURE_NOTEBOOK = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'vscode', 'outputs.ipynb');
const FIXTURE_RUN = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'runs', 'sample');
/** Another fixture run on the same images (test/fixtures/runs/make-sample-b.ts), to compare with. */
const FIXTURE_RUN_B = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'runs', 'sample-b');
const ARTIFACTS = path.join(process.env.CCKIT_ARTIFACTS || path.join(PACKAGE_ROOT, 'test-artifacts'), 'vscode');
const REQUIRE = process.env.CCKIT_REQUIRE_VSCODE === '1';
/** Per-notebook limit for all its cells to finish. */
const CELLS_TIMEOUT_MS = Number(process.env.CCKIT_VSCODE_CELL_TIMEOUT_MS || 180_000);

function codeCellCount(file: string): number {
  const nb = JSON.parse(fs.readFileSync(file, 'utf8')) as { cells: Array<{ cell_type: string; source: string | string[] }> };
  return nb.cells.filter((c) => c.cell_type === 'code' && (Array.isArray(c.source) ? c.source.join('') : c.source).trim() !== '').length;
}

function step(name: string): void {
  process.stderr.write(`# vscode: ${name}\n`);
}

/** Wait until every code cell of `notebook` has a trace line from this run (after `since`). */
async function waitForCells(traceFile: string, notebook: string, since: number, count: number): Promise<TraceLine[]> {
  return waitFor(
    `${count} cells of ${path.basename(notebook)} to finish`,
    () => {
      const cells = readTrace(traceFile).filter((l, i) => i >= since && l.event === 'cell' && l.notebook === notebook);
      const byIndex = new Map<number, TraceLine>();
      for (const c of cells) byIndex.set(c.index as number, c);
      return byIndex.size >= count ? [...byIndex.values()].sort((a, b) => (a.index as number) - (b.index as number)) : undefined;
    },
    CELLS_TIMEOUT_MS,
    500,
  );
}

/** "Notebook: Run All"; picks the cckit kernel if VS Code asks which one. */
async function runAll(page: Page): Promise<void> {
  await runCommand(page, 'Notebook: Run All');
  // With one preferred controller VS Code runs at once; otherwise it asks for a kernel.
  const asked = await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: 'cckit TypeScript' })
    .first()
    .waitFor({ state: 'visible', timeout: 4000 })
    .then(() => true)
    .catch(() => false);
  if (asked) await pick(page, 'cckit TypeScript');
}

/**
 * Scroll the notebook (mouse wheel over it) until `selector`, in its output webview, sits near the top of
 * the editor. The output webview holds outputs of cells off screen too, so finding the element is not
 * enough: its box (page coordinates) must be on screen.
 */
async function scrollNotebookTo(page: Page, selector: string, maxSteps = 40): Promise<Frame> {
  const editor = page.locator('.notebook-editor:visible').first();
  const box = await editor.boundingBox();
  assert.ok(box, 'notebook editor on screen');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const top = box.y + 40;
  for (let i = 0; i < maxSteps; i++) {
    const f = await frameWith(page, selector);
    const target = f
      ? await f
          .locator(selector)
          .first()
          .boundingBox()
          .catch(() => null)
      : null;
    if (f && target && target.y >= top - 20 && target.y <= top + 120) return f;
    const delta = target ? Math.max(-600, Math.min(600, target.y - top - 50)) : 400;
    await page.mouse.wheel(0, delta);
    await sleep(350);
  }
  throw new Error(`${selector} never came into view in the notebook`);
}

async function shot(page: Page, name: string): Promise<string> {
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file });
  return file;
}

/** The ids of the compared images the sidebar lists, in order. */
async function pairIds(sidebar: Frame): Promise<string[]> {
  return sidebar.locator('li.pair').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { id: string } }).dataset.id));
}

/**
 * The sidebar's comparison of the fixture run (A) with sample-b (B): "compare with…", both captions and
 * B − A for an image, sorting both ways, the domain and verdict filters, back to one run, then
 * "cckit: Compare Two Runs…" from the palette; screenshot sidebar-compare.png.
 */
async function compareInSidebar(page: Page, sidebar: Frame): Promise<void> {
  const started = Date.now();
  step('comparing the fixture run with sample-b in the sidebar');
  const preds = (dir: string) =>
    JSON.parse(fs.readFileSync(path.join(dir, 'predictions', 'nocaps-val.json'), 'utf8')).items as Array<{
      image_id: number;
      caption: string;
      domain: string;
      scores: { CIDEr: number };
    }>;
  const a = preds(FIXTURE_RUN);
  const b = preds(FIXTURE_RUN_B);
  const diff = (id: string) => b.find((i) => String(i.image_id) === id)!.scores.CIDEr - a.find((i) => String(i.image_id) === id)!.scores.CIDEr;
  const byDiff = a.map((i) => String(i.image_id)).sort((x, y) => diff(y) - diff(x) || Number(x) - Number(y));

  await sidebar.locator('#compare').selectOption(FIXTURE_RUN_B);
  await waitFor('the comparison in the sidebar', async () => (await sidebar.locator('li.pair').count()) === a.length, 20_000, 300);
  assert.match((await sidebar.locator('.compare-summary .totals').textContent()) ?? '', /B better on 8, A better on 2, ties on 2\./);
  assert.deepEqual(await pairIds(sidebar), byDiff, 'sorted by B − A, largest first');
  // Both captions and the difference of the top image.
  const top = sidebar.locator('li.pair').first();
  const id = byDiff[0]!;
  assert.equal((await top.locator('.cap.a').textContent())?.slice(1), a.find((i) => String(i.image_id) === id)!.caption);
  assert.equal((await top.locator('.cap.b').textContent())?.slice(1), b.find((i) => String(i.image_id) === id)!.caption);
  assert.equal(await top.locator('.diff').textContent(), `B − A +${diff(id).toFixed(3)}`);
  assert.equal(await sidebar.locator('.compare-detail .side').count(), 2, 'A and B under the large image');
  await waitFor(
    'the large image of the compared pair',
    () =>
      sidebar.evaluate(() => {
        const img = (
          globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }
        ).document.querySelector('.compare-detail img.large');
        return !!img && img.complete && img.naturalWidth > 0;
      }),
    10_000,
  );
  // Sort the other way, filter by domain, then by verdict.
  await sidebar.locator('#csort').selectOption('diff-asc');
  await waitFor('the ascending sort', async () => (await pairIds(sidebar))[0] === byDiff.at(-1), 5000);
  for (const d of ['in', 'near']) await sidebar.locator(`input[data-cdomain="${d}"]`).uncheck();
  const out = a.filter((i) => i.domain === 'out').map((i) => String(i.image_id));
  await waitFor('the "out" domain only', async () => (await pairIds(sidebar)).join() === [...out].sort((x, y) => diff(x) - diff(y)).join(), 5000);
  for (const d of ['in', 'near']) await sidebar.locator(`input[data-cdomain="${d}"]`).check();
  await sidebar.locator('#cverdict').selectOption('b-names');
  await waitFor('the verdict filter (B names, A does not)', async () => (await pairIds(sidebar)).join() === '7,3', 5000);
  await sidebar.locator('#cverdict').selectOption('');
  await sidebar.locator('#csort').selectOption('diff-desc');
  await waitFor('all pairs back', async () => (await pairIds(sidebar)).join() === byDiff.join(), 5000);

  step('back to one run, then cckit: Compare Two Runs… from the palette');
  await sidebar.locator('#compare').selectOption('');
  await waitFor('one run again', async () => (await sidebar.locator('li.item:not(.pair)').count()) === a.length, 10_000, 300);
  await runCommand(page, 'cckit: Compare Two Runs…');
  await pick(page, 'sample predictions (fixture)', 10_000, 'sample predictions (fixture)');
  await pick(page, 'sample predictions B (fixture)', 10_000, 'sample predictions B');
  await waitFor('the comparison from the command', async () => (await sidebar.locator('li.pair').count()) === a.length, 20_000, 300);
  await sidebar.locator(`li.pair[data-id="${byDiff[0]}"]`).click();
  await waitFor('the top image shown large', async () => (await sidebar.locator('.compare-detail').getAttribute('data-id')) === byDiff[0], 5000);
  // The screenshot with the side bar widened (its sash dragged) and scrolled to the top; then back.
  const bar = await page.locator('.part.sidebar').boundingBox();
  const drag = async (from: number, to: number) => {
    const y = bar!.y + bar!.height / 2;
    await page.mouse.move(from, y);
    await page.mouse.down();
    await page.mouse.move(to, y, { steps: 8 });
    await page.mouse.up();
  };
  const edge = bar ? bar.x + bar.width : 0;
  if (bar) await drag(edge, edge + 280);
  await sidebar.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await sleep(400);
  await shot(page, 'sidebar-compare.png');
  if (bar) await drag(edge + 280, edge);
  process.stderr.write(`# vscode: comparison checked in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

let artifactsCleared = false;

/** test-artifacts/vscode/, emptied by the first test of this run that uses it. */
function artifacts(): void {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  if (artifactsCleared) return;
  artifactsCleared = true;
  for (const f of fs.readdirSync(ARTIFACTS)) fs.rmSync(path.join(ARTIFACTS, f), { force: true, recursive: true });
}

let vsixBuilt: string | undefined;

/** dist/cckit.vsix, built once per run (npm run package). */
function buildVsix(): string {
  if (vsixBuilt) return vsixBuilt;
  step('building the .vsix (npm run package)');
  const pkg = spawnSync('npm', ['run', 'package', '--silent'], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 180_000 });
  assert.equal(pkg.status, 0, `npm run package failed:\n${(pkg.stdout + pkg.stderr).slice(-3000)}`);
  const vsix = path.join(PACKAGE_ROOT, 'dist', 'cckit.vsix');
  assert.ok(fs.existsSync(vsix), 'dist/cckit.vsix built');
  vsixBuilt = vsix;
  return vsix;
}

/** A user-data folder with the test's settings (plus `extra`), an extensions folder and a code-server config. */
function codeServerDirs(tmp: string, extra: Record<string, unknown> = {}): { user: string; ext: string; config: string } {
  const dirs = { user: path.join(tmp, 'user'), ext: path.join(tmp, 'ext'), config: path.join(tmp, 'config.yaml') };
  fs.mkdirSync(path.join(dirs.user, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.user, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.colorTheme': 'Default Dark Modern',
        'workbench.tips.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'chat.disableAIFeatures': true,
        'security.workspace.trust.enabled': false,
        'git.enabled': false,
        'git.openRepositoryInParentFolders': 'never',
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'files.autoSave': 'off',
        'editor.minimap.enabled': false,
        'notebook.output.scrolling': false,
        'window.zoomLevel': 0,
        ...extra,
      },
      null,
      1,
    ),
  );
  fs.writeFileSync(dirs.config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  return dirs;
}

interface VsCodeSession {
  page: Page;
  server: { url: string };
  tmp: string;
  traceFile: string;
  /** The extension's "activated" trace line. */
  activated: TraceLine;
}

/**
 * Runs `body` against code-server with the built extension installed, `folder(tmp)` open in headless Chromium and
 * the extension activated; skips (or fails, with CCKIT_REQUIRE_VSCODE=1) when the tools are missing. On failure a
 * screenshot `<tag>failure.png`; always the browser console and the extension's trace under test-artifacts/, suffixed
 * by `tag`; then everything is stopped and the temporary folder removed.
 */
async function withVsCode(
  t: TestContext,
  setup: { tag: string; folder: (tmp: string) => string; settings?: Record<string, unknown>; env?: (traceFile: string) => Record<string, string> },
  body: (session: VsCodeSession) => Promise<void>,
): Promise<void> {
  const missing = missingTools();
  if (missing) {
    if (REQUIRE) assert.fail(`CCKIT_REQUIRE_VSCODE=1 but ${missing}`);
    t.skip(missing);
    return;
  }
  artifacts();
  const vsix = buildVsix();
  const suffix = setup.tag ? `-${setup.tag}` : '';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `cckit-vscode${suffix}-`));
  const folder = setup.folder(tmp);
  const dirs = codeServerDirs(tmp, setup.settings);
  const traceFile = path.join(tmp, 'trace.jsonl');
  step(`${setup.tag || 'trusted'}: installing the extension, starting code-server`);
  installExtension(vsix, dirs);
  const server = await startCodeServer(
    folder,
    dirs,
    { CCKIT_EXTENSION_TRACE: traceFile, ...setup.env?.(traceFile) },
    path.join(ARTIFACTS, `code-server${suffix}.log`),
  );
  const browser = await launchChromium();
  const consoleLog: string[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on('console', (m) => consoleLog.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLog.push(`[pageerror] ${e.message}`));
    step(`opening ${server.url}`);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 90_000 });
    // The extension activates on `workspaceContains:notebooks/*.ipynb`; an .ipynb opened before it has
    // registered its controller would still open as a notebook, but wait so the kernel is there.
    step('waiting for the extension to activate');
    const activated = await waitFor(
      'the extension to activate (trace "activated")',
      () => readTrace(traceFile).find((l) => l.event === 'activated'),
      90_000,
      300,
    );
    await body({ page, server, tmp, traceFile, activated });
    await context.close();
  } catch (err) {
    const pages = browser.contexts().flatMap((c) => c.pages());
    if (pages[0]) await shot(pages[0], `${setup.tag ? `${setup.tag}-` : ''}failure.png`).catch(() => undefined);
    throw err;
  } finally {
    fs.writeFileSync(path.join(ARTIFACTS, `browser-console${suffix}.log`), consoleLog.join('\n') + '\n');
    if (fs.existsSync(traceFile)) fs.copyFileSync(traceFile, path.join(ARTIFACTS, `extension-trace${suffix}.jsonl`));
    await browser.close().catch(() => undefined);
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

test('the extension in a real VS Code: notebook cells on the cckit kernel, plotly, caption grid, sidebar', { timeout: 15 * 60_000 }, async (t) => {
  const started = Date.now();
  // one seed at the step scale test/notebooks.test.ts runs them with (the runs it left are reused)
  const env = () => ({ CCKIT_NOTEBOOK_SEEDS: process.env.CCKIT_NOTEBOOK_SEEDS ?? '0', CCKIT_NOTEBOOK_STEP_SCALE: NOTEBOOK_STEP_SCALE });
  await withVsCode(t, { tag: '', folder: () => PACKAGE_ROOT, env }, async ({ page, traceFile, activated }) => {
    assert.equal(activated.trusted, true);

    step('opening the Captions sidebar');
    await page.locator('.part.activitybar .action-item a[aria-label^="cckit"], .part.activitybar .action-item[aria-label^="cckit"]').first().click();
    const sidebarEmpty = await waitFor('the Captions view', () => frameWith(page, '.cckit-sidebar header'), 60_000, 400);
    assert.ok(sidebarEmpty);

    // ---- the extension's own notebook: text, plotly, caption grid, show.run → sidebar ----------------
    step('opening test/fixtures/vscode/outputs.ipynb');
    await quickOpen(page, 'vscode/outputs.ipynb', 'outputs.ipynb');
    await page.locator('.notebook-editor').first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.notebook-editor .cell-list-container .code-cell-row').first().waitFor({ state: 'visible', timeout: 60_000 });

    step('running all cells');
    let since = readTrace(traceFile).length;
    await runAll(page);
    const cells = await waitForCells(traceFile, FIXTURE_NOTEBOOK, since, codeCellCount(FIXTURE_NOTEBOOK));
    assert.deepEqual(
      cells.map((c) => c.status),
      cells.map(() => 'ok'),
      `every cell ok: ${JSON.stringify(cells)}`,
    );
    assert.deepEqual(
      cells.map((c) => c.executionOrder),
      cells.map((_, i) => i + 1),
      'execution order 1, 2, 3, …',
    );
    assert.deepEqual(cells[0]!.outputs, [['stream:stdout']]);
    assert.ok((cells[1]!.outputs as string[][])[0]!.includes('application/vnd.plotly.v1+json'));
    assert.ok((cells[2]!.outputs as string[][])[0]!.includes('application/vnd.cckit.captions+json'));
    const published = readTrace(traceFile).find((l) => l.event === 'run');
    assert.equal(published?.runDir, FIXTURE_RUN, 'show.run published the fixture run');

    step('checking the rendered outputs');
    await page
      .locator('.notebook-editor')
      .first()
      .click({ position: { x: 400, y: 10 } })
      .catch(() => undefined);
    const textFrame = await waitFor('the text output', () => frameWith(page, 'text=hello from the cckit kernel: 1 4 9'), 30_000, 400);
    assert.ok(textFrame);
    const plotFrame = await scrollNotebookTo(page, '.cckit-plotly .main-svg');
    const bars = await plotFrame.locator('.cckit-plotly .main-svg .bars .point').count();
    assert.equal(bars, 3, 'three bars (in, near, out) drawn by plotly');
    await shot(page, 'notebook-plotly.png');
    const gridFrame = await scrollNotebookTo(page, '.cckit-captions h4');
    await waitFor(
      'caption grid thumbnails to load',
      () =>
        gridFrame.evaluate(() => {
          const imgs = Array.from(
            (
              globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ complete: boolean; naturalWidth: number }> } }
            ).document.querySelectorAll('.cckit-captions .card img.thumb'),
          );
          return imgs.length === 8 && imgs.every((i) => i.complete && i.naturalWidth > 0) ? imgs.length : undefined;
        }),
      20_000,
    );
    assert.equal(await gridFrame.locator('.cckit-captions .card').count(), 8);
    assert.ok((await gridFrame.locator('.cckit-captions .card .score').first().textContent())?.startsWith('CIDEr '));
    assert.ok((await gridFrame.locator('.cckit-captions .card mark').count()) > 0, 'n-gram matches highlighted in the grid');

    step('checking the sidebar shows the published run');
    const sidebar = await waitFor(
      'the sidebar to list the fixture run',
      async () => {
        const f = await frameWith(page, '.cckit-sidebar li.item');
        return f && (await f.locator('.cckit-sidebar li.item').count()) === 12 ? f : undefined;
      },
      30_000,
      400,
    );
    assert.match((await sidebar.locator('.summary').textContent()) ?? '', /sample predictions \(fixture\)/);
    await waitFor(
      'the large image in the sidebar',
      () =>
        sidebar.evaluate(() => {
          const img = (
            globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }
          ).document.querySelector('.detail img.large');
          return !!img && img.complete && img.naturalWidth > 0;
        }),
      20_000,
    );
    assert.ok((await sidebar.locator('.detail .pred mark').count()) > 0, 'caption n-grams highlighted');
    // Filters: domain and word.
    const domains = JSON.parse(fs.readFileSync(path.join(FIXTURE_RUN, 'predictions', 'nocaps-val.json'), 'utf8')).items.map(
      (i: { domain: string }) => i.domain,
    ) as string[];
    await sidebar.locator('input[data-domain="out"]').uncheck();
    await waitFor('the "out" filter', async () => (await sidebar.locator('li.item').count()) === domains.filter((d) => d !== 'out').length, 5000);
    await sidebar.locator('input[data-domain="out"]').check();
    await sidebar.locator('#word').fill('plate');
    await waitFor(
      'the word filter',
      async () => {
        const n = await sidebar.locator('li.item').count();
        return n > 0 && n < 12;
      },
      5000,
    );
    await sidebar.locator('#word').fill('');
    await waitFor('all items back', async () => (await sidebar.locator('li.item').count()) === 12, 5000);
    await sidebar.locator('li.item').nth(1).click();
    await sleep(300);
    await shot(page, 'notebook-captions-sidebar.png');
    await compareInSidebar(page, sidebar);
    // Close it unsaved (its kernel shuts down with it).
    await runCommand(page, 'View: Revert and Close Editor');

    // ---- repository notebooks, opened with the extension's command -----------------------------------
    for (const rel of NOTEBOOKS) {
      const file = path.join(PACKAGE_ROOT, rel);
      assert.ok(fs.existsSync(file), `${rel} exists`);
      step(`cckit: Open Reproduction Notebook… → ${rel}`);
      await runCommand(page, 'cckit: Open Reproduction Notebook…');
      await pick(page, path.basename(rel));
      await page
        .locator(`.tab[aria-label*="${path.basename(rel)}"]`)
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await page.locator('.notebook-editor:visible .code-cell-row').first().waitFor({ state: 'visible', timeout: 60_000 });
      since = readTrace(traceFile).length;
      await runAll(page);
      const n = codeCellCount(file);
      const done = await waitForCells(traceFile, file, since, n);
      const failed = done.filter((c) => c.status !== 'ok');
      assert.equal(failed.length, 0, `${rel}: cells failed: ${JSON.stringify(failed)}`);
      if (rel.endsWith('example-outputs.ipynb')) {
        const mimes = done.flatMap((c) => (c.outputs as string[][]).flat());
        for (const m of ['stream:stdout', 'text/html', 'application/vnd.plotly.v1+json', 'application/vnd.cckit.captions+json'])
          assert.ok(mimes.includes(m), `${rel}: an output of ${m}`);
        await scrollNotebookTo(page, '.cckit-plotly .main-svg');
        await scrollNotebookTo(page, '.cckit-captions');
      }
      await shot(page, `${path.basename(rel, '.ipynb')}.png`);
    }

    step('restart and interrupt commands');
    since = readTrace(traceFile).length;
    await runCommand(page, 'cckit: Restart Kernel');
    await runCommand(page, 'cckit: Interrupt Kernel');
    await sleep(500);

    process.stderr.write(`# vscode: done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  });
});

test('an untrusted workspace runs none of its code: Run All, Restart and Interrupt Kernel refused until trusted', { timeout: 5 * 60_000 }, async (t) => {
  const started = Date.now();
  let marker = '';
  let notebook = '';
  const workspace = (tmp: string): string => {
    const ws = path.join(tmp, 'workspace');
    fs.mkdirSync(ws);
    marker = boobyTrappedWorkspace(ws);
    notebook = path.join(ws, 'notebooks', 'trap.ipynb');
    return ws;
  };
  // Workspace trust on, without the startup prompt: the folder opens in restricted mode.
  const settings = {
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
  };
  await withVsCode(t, { tag: 'untrusted', folder: workspace, settings }, async ({ page, traceFile, activated }) => {
    const refusals = () => readTrace(traceFile).filter((l) => l.event === 'refused');
    assert.equal(activated.trusted, false, 'the folder is open untrusted');

    step('untrusted: opening notebooks/trap.ipynb');
    await quickOpen(page, 'trap.ipynb', 'trap.ipynb');
    await page.locator('.notebook-editor .cell-list-container .code-cell-row').first().waitFor({ state: 'visible', timeout: 60_000 });

    step('untrusted: Run All (VS Code asks for trust: Cancel)');
    const dialog = page.locator('.monaco-dialog-box');
    await runCommand(page, 'Notebook: Run All');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match((await dialog.textContent()) ?? '', /Executing a notebook cell will run code from this workspace/);
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });

    // The commands reach the extension whatever VS Code does: they must refuse, and say why.
    for (const [command, action] of [
      ['cckit: Restart Kernel', 'restart the kernel'],
      ['cckit: Interrupt Kernel', 'interrupt the kernel'],
    ] as const) {
      step(`untrusted: ${command}`);
      await runCommand(page, command);
      await waitFor(`the extension to refuse to ${action}`, () => refusals().find((l) => l.action === action), 20_000, 200);
      const message = `cckit runs no workspace code in an untrusted workspace, so it did not ${action}`;
      await page.locator('.notifications-toasts .notification-toast', { hasText: message }).first().waitFor({ state: 'visible', timeout: 10_000 });
    }
    await shot(page, 'untrusted-refused.png');
    assert.equal(fs.existsSync(marker), false, `the workspace's kernel module was loaded (${TRAP_MARKER} written)`);
    assert.deepEqual(
      readTrace(traceFile).filter((l) => l.event === 'cell'),
      [],
      'no cell ran',
    );

    step('trusting the folder (Run All → Trust Folder & Continue): now its kernel runs');
    await runCommand(page, 'Notebook: Run All');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    await dialog.locator('.monaco-button', { hasText: 'Trust Folder & Continue' }).click();
    const [cell] = await waitForCells(traceFile, notebook, 0, 1);
    assert.equal(cell!.status, 'ok');
    assert.ok(fs.existsSync(marker), "once trusted, the workspace's kernel is loaded");
    assert.equal(refusals().length, 2, `refusals: ${JSON.stringify(refusals())}`);
    process.stderr.write(`# vscode: untrusted workspace checked in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  });
});
