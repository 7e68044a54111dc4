/**
 * The VS Code extension's pure parts, in plain Node (no VS Code): kernel outputs → notebook output items,
 * caption images inlined from the workspace only, n-gram highlighting, the caption grid's HTML (and a
 * comparison's, `show.compare`), what the sidebar reads of a run and of two runs compared, where the kernel comes from, the workspace-trust guard (the controller itself, on
 * a stand-in `vscode` module, against a booby-trapped workspace) and the manifest's contributions. The
 * extension running in a real VS Code is test/vscode.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Module from 'node:module';
import { test } from 'node:test';
import { diffBadge, groundingChips, groundingSummary, renderCaptions } from '../extension/src/captionsHtml';
import { candidateRoots, findCckitRoot, loadKernelModule } from '../extension/src/kernelRoot';
import { highlight, highlightHtml, ngramPrecision, tokenize } from '../extension/src/ngrams';
import { CAPTIONS_MIME, PLOTLY_MIME, RUN_MIME, bundleItems, inlineCaptionImages, runOf } from '../extension/src/outputs';
import { compareCandidates, defaultRun, listRunSummaries, loadComparison, loadRun } from '../extension/src/runs';
import { WorkspaceNotTrustedError, requireTrust, type TrustGrant } from '../extension/src/trust';
import { compareBundle } from '../src/notebook/compare';
import { show, RUN_MIME as DISPLAY_RUN_MIME } from '../src/notebook/display';
import { predictionItems } from '../src/notebook/runs';
import { FIXTURES_DIR, PACKAGE_ROOT } from '../src/paths';
import { boobyTrappedWorkspace } from './vscode-harness';

const dec = new TextDecoder();
const RUNS = path.join(FIXTURES_DIR, 'runs');
const SAMPLE = path.join(RUNS, 'sample');
const SAMPLE_B = path.join(RUNS, 'sample-b');

test('bundle → output items: richest first, JSON as JSON, images decoded, the run announcement dropped', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  const items = bundleItems({
    'text/plain': 'fig',
    [PLOTLY_MIME]: { data: [{ type: 'bar' }], layout: {} },
    'image/png': png.toString('base64'),
    'text/html': ['<b>', 'x</b>'],
    [RUN_MIME]: { runDir: 'runs/a' },
  });
  assert.deepEqual(
    items.map((i) => i.mime),
    [PLOTLY_MIME, 'text/html', 'image/png', 'text/plain'],
  );
  assert.deepEqual(JSON.parse(dec.decode(items[0]!.data)), { data: [{ type: 'bar' }], layout: {} });
  assert.equal(dec.decode(items[1]!.data), '<b>x</b>');
  assert.deepEqual(Buffer.from(items[2]!.data), png);
  assert.deepEqual(runOf({ [RUN_MIME]: { runDir: 'runs/a', split: 'nocaps-val' } }), { runDir: 'runs/a', split: 'nocaps-val' });
  assert.deepEqual(runOf({ [RUN_MIME]: { runDir: 'runs/a', split: 's', compareWith: 'runs/b' } }), { runDir: 'runs/a', split: 's', compareWith: 'runs/b' });
  assert.equal(runOf({ 'text/plain': 'x' }), undefined);
});

test('caption images: workspace files become data: URIs; outside files and remote URLs are not loaded', () => {
  const thumb = path.join(SAMPLE, 'thumbs', '0.jpg');
  const out = inlineCaptionImages(
    {
      version: 1,
      items: [
        { caption: 'a', image: path.relative(PACKAGE_ROOT, thumb) },
        { caption: 'b', image: '/etc/hostname.png' },
        { caption: 'c', image: 'https://example.com/x.jpg' },
        { caption: 'd', image: 'data:image/png;base64,AAAA' },
        { caption: 'e', image: 'test/fixtures/runs/sample/thumbs/missing.jpg' },
      ],
    },
    PACKAGE_ROOT,
    [PACKAGE_ROOT],
  ) as { items: Array<{ image?: string; imageNote?: string }> };
  assert.ok(out.items[0]!.image!.startsWith('data:image/jpeg;base64,'));
  assert.deepEqual(Buffer.from(out.items[0]!.image!.split(',')[1]!, 'base64'), fs.readFileSync(thumb));
  assert.deepEqual(out.items[1], { caption: 'b', imageNote: 'image outside the workspace' });
  assert.deepEqual(out.items[2], { caption: 'c', imageNote: 'remote image not loaded' });
  assert.equal(out.items[3]!.image, 'data:image/png;base64,AAAA');
  assert.equal(out.items[4]!.imageNote, 'image not found');
  // The controller applies it to caption grids only.
  const items = bundleItems({ [CAPTIONS_MIME]: { items: [{ caption: 'x', image: 'https://a/b.jpg' }] } }, (m, v) =>
    m === CAPTIONS_MIME ? inlineCaptionImages(v, PACKAGE_ROOT, [PACKAGE_ROOT]) : v,
  );
  assert.deepEqual(JSON.parse(dec.decode(items[0]!.data)).items[0], { caption: 'x', imageNote: 'remote image not loaded' });
});

test('n-gram highlighting marks each word with the longest shared n-gram', () => {
  const t = highlight('A dog runs on the beach!', ['a dog on the sand', 'the beach']);
  const marks = t.filter((x) => x.word).map((x) => `${x.word}:${x.match}`);
  assert.deepEqual(marks, ['a:2', 'dog:2', 'runs:0', 'on:2', 'the:2', 'beach:2']);
  assert.equal(
    tokenize('a, b')
      .map((x) => x.text)
      .join(''),
    'a, b',
  );
  assert.equal(highlightHtml(highlight('<b>dog</b>', ['dog'])), '&lt;b&gt;<mark class="ng1">dog</mark>&lt;/b&gt;');
  assert.deepEqual(ngramPrecision('a dog runs', ['a dog sleeps']), [2 / 3, 1 / 2, 0, 0]);
});

test('caption grid HTML: escaped text, data: images only, none in an untrusted workspace', () => {
  const payload = {
    title: 'T <1>',
    items: [
      { id: '1', caption: 'a <script>dog</script>', references: ['a dog'], score: 1.23456, domain: 'in', image: 'data:image/jpeg;base64,AAAA' },
      { id: '2', caption: 'cat', image: 'https://example.com/x.jpg' },
    ],
  };
  const html = renderCaptions(payload, true);
  assert.ok(!html.includes('<script>'));
  assert.match(html, /&lt;script&gt;/);
  assert.match(html, /<h4>T &lt;1&gt;<\/h4>/);
  assert.match(html, /<img class="thumb" src="data:image\/jpeg;base64,AAAA"/);
  assert.ok(!html.includes('example.com'), 'remote images never reach the page');
  assert.match(html, /CIDEr 1\.235/);
  assert.match(html, /class="domain in"/);
  const untrusted = renderCaptions(payload, false);
  assert.ok(!untrusted.includes('<img'));
  assert.match(untrusted, /untrusted workspace/);
  assert.ok(!renderCaptions({ items: [{ caption: 'only text' }] }, true).includes('noimg'), 'no image boxes in a grid without images');
});

test('the sidebar reads a run: predictions, per-image scores, thumbnails inside the run, corpus scores', () => {
  const runs = listRunSummaries(RUNS);
  assert.deepEqual(
    runs.map((r) => r.id),
    ['sample', 'sample-b'],
    'newest first',
  );
  assert.equal(defaultRun(RUNS), SAMPLE);
  const view = loadRun(SAMPLE);
  assert.equal(view.split, 'nocaps-val');
  assert.equal(view.items.length, 12);
  for (const it of view.items) {
    assert.ok(it.thumb && fs.existsSync(it.thumb) && it.thumb.startsWith(SAMPLE + path.sep));
    assert.equal(typeof it.scores.CIDEr, 'number');
    assert.ok(['in', 'near', 'out'].includes(it.domain!));
    assert.ok(it.references.length > 0);
  }
  assert.equal(typeof view.corpus?.CIDEr, 'number');
  // A thumbnail path escaping the run directory is not shown.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-run-'));
  try {
    fs.cpSync(SAMPLE, path.join(tmp, 'r'), { recursive: true });
    const file = path.join(tmp, 'r', 'predictions', 'nocaps-val.json');
    const preds = JSON.parse(fs.readFileSync(file, 'utf8'));
    preds.items[0].thumb = '../../../etc/passwd';
    fs.writeFileSync(file, JSON.stringify(preds));
    assert.equal(loadRun(path.join(tmp, 'r')).items[0]!.thumb, undefined);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('thumbnails by real path: a symlink out of the run is dropped by the sidebar and the notebook grid', (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-run-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const dir = path.join(tmp, 'r');
  fs.cpSync(SAMPLE, dir, { recursive: true });
  const secret = path.join(tmp, 'secret.jpg');
  fs.writeFileSync(secret, 'a file outside the run');
  const secretB64 = fs.readFileSync(secret).toString('base64');
  fs.symlinkSync(secret, path.join(dir, 'thumbs', 'x.jpg')); // thumbs/x.jpg → a file outside the run
  fs.symlinkSync(tmp, path.join(dir, 'up')); // up/ → the folder above the run
  fs.symlinkSync(path.join(dir, 'thumbs', '2.jpg'), path.join(dir, 'thumbs', 'in.jpg')); // a link within the run
  const file = path.join(dir, 'predictions', 'nocaps-val.json');
  const preds = JSON.parse(fs.readFileSync(file, 'utf8'));
  preds.items[0].thumb = 'thumbs/x.jpg';
  preds.items[1].thumb = 'up/secret.jpg';
  preds.items[2].thumb = 'thumbs/in.jpg';
  fs.writeFileSync(file, JSON.stringify(preds));
  const ids = preds.items.map((i: { image_id: number }) => String(i.image_id)) as string[];

  // The sidebar (extension/src/runs.ts), through the run's own path and through a link to the run.
  fs.symlinkSync(dir, path.join(tmp, 'link-to-run'));
  for (const runDir of [dir, path.join(tmp, 'link-to-run')]) {
    const view = loadRun(runDir);
    const byId = new Map(view.items.map((it) => [it.id, it]));
    assert.equal(byId.get(ids[0]!)!.thumb, undefined, 'thumbs/x.jpg → outside: not shown');
    assert.equal(byId.get(ids[0]!)!.thumbNote, 'thumbnail outside the run, not shown');
    assert.equal(byId.get(ids[1]!)!.thumb, undefined, 'up/secret.jpg → outside: not shown');
    assert.equal(byId.get(ids[2]!)!.thumb, fs.realpathSync(path.join(dir, 'thumbs', '2.jpg')), 'a link within the run is shown');
    const real = fs.realpathSync(dir) + path.sep;
    for (const it of view.items) assert.ok(it.thumb === undefined || it.thumb.startsWith(real), it.thumb);
    assert.equal(view.items.filter((it) => it.thumb).length, view.items.length - 2);
  }

  // The notebook's caption grid (src/notebook/runs.ts), as data: URIs and as paths.
  for (const images of ['data', 'path'] as const) {
    const items = predictionItems(dir, 'nocaps-val', { perDomain: 100, order: 'first', images, baseDir: tmp });
    const byId = new Map(items.map((it) => [it.id, it]));
    assert.equal(byId.get(ids[0]!)!.image, undefined, `${images}: thumbs/x.jpg dropped`);
    assert.equal(byId.get(ids[1]!)!.image, undefined, `${images}: up/secret.jpg dropped`);
    assert.ok(byId.get(ids[2]!)!.image, `${images}: a link within the run kept`);
    assert.ok(!items.some((it) => it.image?.includes(secretB64)));
    assert.equal(items.filter((it) => it.image).length, items.length - 2);
  }

  // Caption images inlined by the controller: a link inside the workspace to a file outside it is not read.
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.symlinkSync(secret, path.join(ws, 'x.jpg'));
  fs.copyFileSync(path.join(SAMPLE, 'thumbs', '0.jpg'), path.join(ws, 'ok.jpg'));
  fs.symlinkSync(ws, path.join(tmp, 'link-to-ws'));
  for (const root of [ws, path.join(tmp, 'link-to-ws')]) {
    const out = inlineCaptionImages(
      {
        items: [
          { caption: 'a', image: 'x.jpg' },
          { caption: 'b', image: 'ok.jpg' },
        ],
      },
      root,
      [root],
    ) as {
      items: Array<{ image?: string; imageNote?: string }>;
    };
    assert.deepEqual(out.items[0], { caption: 'a', imageNote: 'image outside the workspace' });
    assert.ok(out.items[1]!.image?.startsWith('data:image/jpeg;base64,'), `${root}: a real workspace file is inlined`);
  }
});

test('grounding chips and the recall / CHAIR header; the sidebar reads them from a run', () => {
  assert.equal(groundingChips(undefined), '');
  assert.equal(groundingChips({ named: [], hallucinated: [] }), '');
  const chips = groundingChips({ named: ['dog'], hallucinated: ['<cat>'] });
  assert.match(chips, /<span class="chip named"[^>]*>dog<\/span>/);
  assert.match(chips, /<span class="chip hallucinated"[^>]*>&lt;cat&gt;<\/span>/);
  assert.match(renderCaptions({ items: [{ caption: 'a dog', grounding: { named: ['dog'] } }] }, true), /chip named/);
  assert.equal(groundingSummary(undefined), '');
  const figures = { recall: 0.5, objectRecall: 2 / 3, chairS: 0.25, chairI: 0.125, captions: 4 };
  const header = groundingSummary({ overall: figures, out: { ...figures, chairS: 1 } });
  assert.match(header, /recall<\/b> 50\.0%/);
  assert.match(header, /obj\. recall<\/b> 66\.7%/);
  assert.match(header, /CHAIR<sub>s<\/sub><\/b> 25\.0%/);
  assert.match(header, /CHAIR<sub>i<\/sub><\/b> 12\.5%/);
  assert.match(header, /class="domain out"[^]*CHAIR<sub>s<\/sub> 100\.0%/);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-run-'));
  try {
    const dir = path.join(tmp, 'r');
    fs.cpSync(SAMPLE, dir, { recursive: true });
    // The fixture run carries the judge's verdicts; a run without them first.
    assert.ok(loadRun(dir).grounding?.overall);
    const preds = path.join(dir, 'predictions', 'nocaps-val.json');
    const p = JSON.parse(fs.readFileSync(preds, 'utf8'));
    for (const it of p.items) delete it.grounding;
    const scores = path.join(dir, 'scores', 'nocaps-val.json');
    const sc = JSON.parse(fs.readFileSync(scores, 'utf8'));
    delete sc.grounding;
    fs.writeFileSync(preds, JSON.stringify(p));
    fs.writeFileSync(scores, JSON.stringify(sc));
    assert.equal(loadRun(dir).grounding, undefined);
    p.items[0].grounding = { named: ['dog'], hallucinated: ['cat'], mentions: 2 };
    fs.writeFileSync(preds, JSON.stringify(p));
    sc.grounding = { overall: figures };
    fs.writeFileSync(scores, JSON.stringify(sc));
    const view = loadRun(dir);
    assert.deepEqual(view.grounding, { overall: figures });
    assert.deepEqual(view.items[0]!.grounding, { named: ['dog'], hallucinated: ['cat'], mentions: 2 });
    assert.equal(view.items[1]!.grounding, undefined);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("the sidebar compares two runs: pairs by image id, thumbnails by real path (A's, else B's), runs to compare with", (t) => {
  const view = loadComparison(SAMPLE, SAMPLE_B);
  assert.equal(view.split, 'nocaps-val');
  assert.deepEqual([view.a.info.id, view.b.info.id], ['sample', 'sample-b']);
  const c = view.comparison;
  assert.equal(c.pairs.length, 12);
  assert.deepEqual([c.summary.bBetter, c.summary.aBetter, c.summary.ties], [8, 2, 2]);
  const real = fs.realpathSync(SAMPLE) + path.sep;
  for (const p of c.pairs) assert.ok(p.thumb?.startsWith(real) && fs.existsSync(p.thumb), `image ${p.id}: A's thumbnail (B has none)`);
  // Swapped, B's thumbnails are used: sample-b has none, so sample's (now B) are shown.
  const swapped = loadComparison(SAMPLE_B, SAMPLE).comparison;
  assert.ok(swapped.pairs.every((p) => p.thumb?.startsWith(real)));
  assert.equal(swapped.summary.aBetter, 8);
  // Runs to compare with: the runs folder's and those beside the run, once each, not the run itself.
  assert.deepEqual(
    compareCandidates(undefined, SAMPLE, 'nocaps-val').map((r) => r.id),
    ['sample-b'],
  );
  assert.deepEqual(
    compareCandidates(RUNS, SAMPLE_B).map((r) => r.id),
    ['sample'],
  );
  assert.deepEqual(compareCandidates(RUNS, SAMPLE, 'coco-val'), [], 'only runs with that split');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-compare-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  // A thumbnail of A that leaves its run is not shown; B's is used instead when it has one.
  const a = path.join(tmp, 'a');
  const b = path.join(tmp, 'b');
  fs.cpSync(SAMPLE, a, { recursive: true });
  fs.cpSync(SAMPLE, b, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'secret.jpg'), 'outside');
  fs.symlinkSync(path.join(tmp, 'secret.jpg'), path.join(a, 'thumbs', 'x.jpg'));
  const file = path.join(a, 'predictions', 'nocaps-val.json');
  const preds = JSON.parse(fs.readFileSync(file, 'utf8'));
  preds.items[0].thumb = 'thumbs/x.jpg';
  preds.items[1].thumb = '../b/thumbs/1.jpg';
  fs.writeFileSync(file, JSON.stringify(preds));
  fs.writeFileSync(path.join(b, 'run.json'), JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(b, 'run.json'), 'utf8')), id: 'b' }));
  const pairs = new Map(loadComparison(a, b).comparison.pairs.map((p) => [p.id, p]));
  const realB = fs.realpathSync(b) + path.sep;
  assert.equal(pairs.get('0')!.thumb, path.join(fs.realpathSync(b), 'thumbs', '0.jpg'), "A's link out of the run: B's thumbnail");
  assert.ok(pairs.get('1')!.thumb?.startsWith(realB), "A's ../ path is not A's: B's own thumbnail");
  assert.ok(pairs.get('2')!.thumb?.startsWith(fs.realpathSync(a) + path.sep));
  // B without the split: said.
  fs.rmSync(path.join(b, 'predictions', 'nocaps-val.json'));
  fs.writeFileSync(path.join(b, 'predictions', 'coco-val.json'), JSON.stringify({ version: 1, run: 'b', split: 'coco-val', created: '', items: [] }));
  assert.throws(() => loadComparison(a, b), /run b has no predictions for nocaps-val \(it has coco-val\)/);
});

test('comparison grid HTML (show.compare in VS Code): both captions per image, B − A, verdicts, counts; escaped; images only when trusted', () => {
  const bundle = compareBundle(SAMPLE, SAMPLE_B, 'nocaps-val', { limit: 4 });
  const payload = bundle[CAPTIONS_MIME] as Parameters<typeof renderCaptions>[0];
  const html = renderCaptions(payload, true);
  assert.match(html, /^<div class="cckit-captions cckit-compare"><h4>A: sample predictions \(fixture\) vs B: sample predictions B \(fixture\)/);
  assert.equal((html.match(/<div class="card pair"/g) ?? []).length, 4);
  assert.equal((html.match(/<div class="side a">/g) ?? []).length, 4);
  assert.equal((html.match(/<div class="side b">/g) ?? []).length, 4);
  assert.match(html, /<span class="diff pos" title="CIDEr×100 of B minus A">B − A \+306\.2<\/span>/);
  assert.match(html, /<span class="tag">B<\/span>.*train.*toothbrush/);
  assert.match(html, /<span class="verdict">nothing present named · hallucinates<\/span>/);
  assert.match(html, /<span class="chip hallucinated"[^>]*>food<\/span>/);
  assert.match(html, /<span class="chip named"[^>]*>train<\/span>/);
  assert.match(html, /B − A CIDEr×100: mean \+70\.0 over 12 images; B better on 8, A better on 2, ties on 2\./);
  assert.match(html, /Showing 4 of 12 matching/);
  assert.equal((html.match(/<img class="thumb" src="data:image\/jpeg;base64,/g) ?? []).length, 4);
  const untrusted = renderCaptions(payload, false);
  assert.ok(!untrusted.includes('<img'));
  assert.match(untrusted, /image hidden \(untrusted workspace\)/);
  // Escaping, a hypernym chip, a note on images only one run has, a pair without scores.
  const odd = renderCaptions(
    {
      title: '<t>',
      compare: { summary: 's', unmatched: '1 image only in A (<a>: 3): not compared.' },
      items: [{ id: '<1>', caption: '<b>x</b>', grounding: { named: [], byKind: ['bird'], hallucinated: [] }, b: { caption: 'an <i>animal</i>' } }],
    },
    true,
  );
  assert.ok(!odd.includes('<b>x') && !odd.includes('<i>') && !odd.includes('<t>') && !odd.includes('<a>'));
  assert.match(odd, /<p class="cmp unmatched">1 image only in A \(&lt;a&gt;: 3\): not compared\.<\/p>/);
  assert.match(odd, /<span class="chip kind"[^>]*>bird<\/span>/);
  assert.match(odd, /<span class="diff tie"[^>]*>B − A –<\/span>/);
  assert.equal(diffBadge(-1, '−1.000', 'a'), '<span class="diff neg" title="CIDEr of B minus A">B − A −1.000</span>');
  assert.match(diffBadge(0, '0.000', 'tie'), /class="diff tie"/);
});

test('the kernel comes from a cckit checkout with dist/ built (setting, workspace, node_modules/cckit)', () => {
  const found = findCckitRoot(candidateRoots('', [PACKAGE_ROOT]));
  assert.ok('root' in found, JSON.stringify(found));
  assert.equal(found.root, PACKAGE_ROOT);
  assert.ok(fs.existsSync(found.hostJs));
  assert.deepEqual(candidateRoots('../x', ['/w']), [path.resolve('/w', '../x'), '/w', path.join('/w', 'node_modules', 'cckit')]);
  const none = findCckitRoot(candidateRoots('', [os.tmpdir()]));
  assert.ok('error' in none && /no cckit found/.test(none.error));
});

test('workspace trust: the kernel module loads only with a grant, made only in a trusted workspace', (t) => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trap-'));
  t.after(() => fs.rmSync(ws, { recursive: true, force: true }));
  const marker = boobyTrappedWorkspace(ws);
  const found = findCckitRoot(candidateRoots('', [ws]));
  assert.ok('hostJs' in found, 'the booby-trapped folder passes for a cckit checkout');
  assert.throws(
    () => requireTrust({ isTrusted: false }, 'restart the kernel'),
    (err: Error) =>
      err instanceof WorkspaceNotTrustedError &&
      err.name === 'WorkspaceNotTrusted' &&
      /^cckit runs no workspace code in an untrusted workspace, so it did not restart the kernel/.test(err.message) &&
      /Manage Workspace Trust/.test(err.message),
  );
  assert.throws(() => loadKernelModule(found.hostJs, { action: 'forged' } as TrustGrant), /no workspace trust was granted/);
  assert.throws(() => loadKernelModule(found.hostJs, undefined as unknown as TrustGrant), /no workspace trust was granted/);
  assert.equal(fs.existsSync(marker), false, 'nothing loaded');
  assert.equal(requireTrust({ isTrusted: true }, 'run the cells').action, 'run the cells');
});

interface StandInExecution {
  cell: unknown;
  outputs: Array<{ items: Array<{ error?: { name: string; message: string } }> }>;
  success?: boolean;
}

/**
 * Just enough of the `vscode` module for extension/src/controller.ts: a notebook controller that records
 * cell executions, a workspace whose trust and folders the test sets, and error messages collected.
 */
function standInVscode(state: { isTrusted: boolean; folders: string[] }) {
  const errors: string[] = [];
  const executions: StandInExecution[] = [];
  const disposable = { dispose: () => undefined };
  class EventEmitter<T> {
    private readonly listeners: Array<(e: T) => void> = [];
    readonly event = (l: (e: T) => void) => (this.listeners.push(l), disposable);
    fire(e: T): void {
      for (const l of this.listeners) l(e);
    }
    dispose(): void {}
  }
  const controller = {
    executeHandler: undefined as unknown as (cells: unknown[], nb: unknown) => Promise<void>,
    updateNotebookAffinity: () => undefined,
    dispose: () => undefined,
    createNotebookCellExecution(cell: unknown) {
      const rec: StandInExecution = { cell, outputs: [] };
      executions.push(rec);
      return {
        cell,
        executionOrder: undefined as number | undefined,
        token: { isCancellationRequested: false, onCancellationRequested: () => disposable },
        start: () => undefined,
        end: (ok?: boolean) => void (rec.success = ok),
        clearOutput: async () => void (rec.outputs = []),
        replaceOutput: async (o: StandInExecution['outputs'][number]) => void (rec.outputs = [o]),
        appendOutput: async (o: StandInExecution['outputs'][number]) => void rec.outputs.push(o),
        appendOutputItems: async () => undefined,
        replaceOutputItems: async () => undefined,
      };
    },
  };
  const vscode = {
    EventEmitter,
    NotebookCellKind: { Markup: 1, Code: 2 },
    NotebookControllerAffinity: { Default: 1, Preferred: 2 },
    NotebookCellOutput: class {
      constructor(
        readonly items: unknown[],
        readonly metadata?: unknown,
      ) {}
    },
    NotebookCellOutputItem: class {
      static error(error: { name: string; message: string }) {
        return { mime: 'application/vnd.code.notebook.error', error };
      }
      static stdout(text: string) {
        return { mime: 'application/vnd.code.notebook.stdout', text };
      }
      static stderr(text: string) {
        return { mime: 'application/vnd.code.notebook.stderr', text };
      }
      constructor(
        readonly data: Uint8Array,
        readonly mime: string,
      ) {}
    },
    notebooks: { createNotebookController: () => controller },
    window: { showErrorMessage: async (m: string) => void errors.push(m) },
    workspace: {
      get isTrusted() {
        return state.isTrusted;
      },
      get workspaceFolders() {
        return state.folders.map((f) => ({ uri: { fsPath: f } }));
      },
      notebookDocuments: [],
      onDidOpenNotebookDocument: () => disposable,
      onDidCloseNotebookDocument: () => disposable,
      getConfiguration: () => ({ get: () => undefined }),
    },
  };
  return { vscode, controller, errors, executions };
}

interface ControllerLike {
  restart(nb: unknown): Promise<void>;
  interrupt(nb: unknown): Promise<boolean>;
  disposeAsync(): Promise<void>;
  dispose(): void;
}

/** extension/src/controller.ts loaded with `require('vscode')` answered by the stand-in. */
function loadController(vscode: unknown): new (log: unknown) => ControllerLike {
  const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
  const resolve = loader._resolveFilename;
  const id = path.join(__dirname, 'vscode-stand-in.js');
  const m = new Module(id);
  m.exports = vscode;
  m.loaded = true;
  require.cache[id] = m;
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? id : resolve.call(this, request, ...rest);
  };
  const file = require.resolve('../extension/src/controller');
  try {
    delete require.cache[file];
    return (require(file) as { CckitController: new (log: unknown) => ControllerLike }).CckitController;
  } finally {
    loader._resolveFilename = resolve;
    delete require.cache[file];
  }
}

test('workspace trust: the controller refuses to run, restart or interrupt, and loads nothing, until trusted', async (t) => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trap-'));
  t.after(() => fs.rmSync(ws, { recursive: true, force: true }));
  const marker = boobyTrappedWorkspace(ws);
  const state = { isTrusted: false, folders: [ws] };
  const { vscode, controller, errors, executions } = standInVscode(state);
  const CckitController = loadController(vscode);
  const log: string[] = [];
  const ctl = new CckitController({ appendLine: (l: string) => log.push(l) });
  t.after(async () => {
    await ctl.disposeAsync();
    ctl.dispose();
  });
  const file = path.join(ws, 'notebooks', 'trap.ipynb');
  const nb = {
    uri: { scheme: 'file', fsPath: file, path: file, toString: () => `file://${file}` },
    notebookType: 'jupyter-notebook',
    metadata: {},
    getCells: () => [],
  };
  const cell = { index: 0, kind: 2, document: { getText: () => 'console.log(1)', languageId: 'typescript' } };

  await assert.rejects(ctl.restart(nb), WorkspaceNotTrustedError);
  await assert.rejects(ctl.interrupt(nb), WorkspaceNotTrustedError);
  await controller.executeHandler([cell, cell], nb);
  assert.equal(fs.existsSync(marker), false, 'the workspace kernel was not loaded');
  assert.deepEqual(
    errors.map((m) => /^cckit runs no workspace code in an untrusted workspace, so it did not (.+?):/.exec(m)?.[1]),
    ['restart the kernel', 'interrupt the kernel', 'run the cells'],
  );
  assert.equal(executions.length, 2);
  for (const e of executions) {
    assert.equal(e.success, false);
    assert.equal(e.outputs[0]!.items[0]!.error!.name, 'WorkspaceNotTrusted');
  }
  assert.equal(log.filter((l) => /refused to .+: the workspace is not trusted/.test(l)).length, 3);

  // Trusted later (onDidGrantWorkspaceTrust): the same controller loads the workspace's kernel and runs.
  state.isTrusted = true;
  await ctl.restart(nb);
  assert.ok(fs.existsSync(marker), "restart in a trusted workspace loads the workspace's kernel");
  await controller.executeHandler([cell], nb);
  assert.equal(executions[2]!.success, true);
  assert.equal(await ctl.interrupt(nb), true);
  assert.equal(errors.length, 3, 'no more refusals');
});

test('manifest: the controller, renderers, sidebar and commands the extension registers', () => {
  const m = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'extension', 'package.json'), 'utf8'));
  const titles = m.contributes.commands.map((c: { category: string; title: string }) => `${c.category}: ${c.title}`);
  assert.deepEqual(titles, [
    'cckit: Open Reproduction Notebook…',
    'cckit: Show Run Predictions…',
    'cckit: Compare Two Runs…',
    'cckit: Restart Kernel',
    'cckit: Interrupt Kernel',
  ]);
  const renderers = m.contributes.notebookRenderer as Array<{ mimeTypes: string[]; entrypoint: string }>;
  assert.deepEqual(renderers.flatMap((r) => r.mimeTypes).sort(), [CAPTIONS_MIME, PLOTLY_MIME].sort());
  assert.deepEqual(m.contributes.views.cckit, [{ type: 'webview', id: 'cckit.captions', name: 'Captions' }]);
  assert.equal(m.capabilities.untrustedWorkspaces.supported, 'limited');
  // Settings that name paths are ignored from an untrusted workspace's settings.
  const pathSettings = Object.keys(m.contributes.configuration.properties).filter((k) => /root|directory/i.test(k));
  assert.deepEqual(pathSettings, ['cckit.root', 'cckit.runsDirectory']);
  assert.deepEqual(m.capabilities.untrustedWorkspaces.restrictedConfigurations, pathSettings);
  // The kernel buttons only in a trusted workspace (the commands themselves refuse anyway).
  for (const item of m.contributes.menus['notebook/toolbar'] as Array<{ when: string }>) assert.match(item.when, /&& isWorkspaceTrusted$/);
  const src = fs.readFileSync(path.join(PACKAGE_ROOT, 'extension', 'src', 'controller.ts'), 'utf8');
  assert.match(src, /createNotebookController\(CONTROLLER_ID, 'jupyter-notebook', CONTROLLER_LABEL\)/);
  assert.match(src, /CONTROLLER_LABEL = 'cckit TypeScript'/);
});

test('show.run announces a run: a run MIME bundle in a notebook, a text line elsewhere', () => {
  assert.equal(DISPLAY_RUN_MIME, RUN_MIME);
  const published: unknown[] = [];
  const key = Symbol.for('cckit.notebook.display');
  const g = globalThis as Record<symbol, unknown>;
  const before = g[key];
  g[key] = (req: unknown) => published.push(req);
  try {
    show.run('runs/abc', { split: 'nocaps-val' });
  } finally {
    g[key] = before;
  }
  assert.deepEqual(published, [
    { data: { [RUN_MIME]: { runDir: 'runs/abc', split: 'nocaps-val' }, 'text/plain': 'run: runs/abc (nocaps-val)' }, metadata: {}, update: false },
  ]);
});
