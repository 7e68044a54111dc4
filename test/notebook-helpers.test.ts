/**
 * src/notebook/runs.ts (curves from run logs, caption-grid items, in-place progress) and
 * src/notebook/tslab-iopub.ts (the tslab iopub send guard) and src/notebook/frames.ts (danfojs DataFrames of
 * result rows), without Jupyter; the comparison of two runs (src/runs/compare.ts) on the fixture runs
 * `sample` and `sample-b`, and `show.compare`'s bundle (src/notebook/compare.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { CAPTIONS_MIME, RUN_MIME, show, tableBundle } from '../src/notebook/display';
import { compareBundle, compareRuns } from '../src/notebook/compare';
import { comparePredictions, readPredictions, selectPairs, signed, summarizePairs, unmatchedNote, type ComparableFile } from '../src/runs/layout';
import { frame } from '../src/notebook/frames';
import { MAX_THUMB_BYTES, thumbImage, thumbInRun } from '../src/notebook/thumbs';
import { curvesFigure, notebookProgress, predictionItems, series } from '../src/notebook/runs';
import { guardTslabIopub } from '../src/notebook/tslab-iopub';
import { FIXTURES_DIR } from '../src/paths';

const SAMPLE = path.join(FIXTURES_DIR, 'runs', 'sample');
const SAMPLE_B = path.join(FIXTURES_DIR, 'runs', 'sample-b');
const SPLIT = 'nocaps-val';

function fakeRun(root: string, name: string, steps: number, lines: object[]): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id: name, status: 'done', config: { steps }, created: '', updated: '' }));
  fs.writeFileSync(path.join(dir, 'log.jsonl'), lines.map((l) => JSON.stringify({ time: '', ...l }) + '\n').join(''));
  return dir;
}

test("curves: validation CIDEr ×100 and losses, chained runs offset by the earlier runs' lengths", (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-curves-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const pre = fakeRun(root, 'pre', 300, [
    { step: 10, loss: { total: 5 } },
    { step: 100, val: { CIDEr: 0.2 } },
    { step: 300, val: { CIDEr: 0.5 } },
  ]);
  const fine = fakeRun(root, 'fine', 150, [
    { step: 10, loss: { total: 2 } },
    { step: 150, val: { CIDEr: 1.25 } },
  ]);
  const s = series({ label: 'cc12m', runs: [pre, fine] }, { val: 'CIDEr' });
  assert.deepEqual(s, { x: [100, 300, 450], y: [20, 50, 125], boundaries: [300] });
  assert.deepEqual(series({ label: 'none', runs: fine, startStep: 300 }, { loss: 'total' }).x, [310]);
  const fig = curvesFigure([
    { label: 'cc12m', runs: [pre, fine] },
    { label: 'none', runs: [fine], startStep: 300 },
  ]);
  assert.deepEqual(
    fig.data.map((d) => [d.name, d.x]),
    [
      ['cc12m', [100, 300, 450]],
      ['none', [450]],
    ],
  );
  assert.equal((fig.layout!.shapes as { x0: number }[])[0]!.x0, 300, 'a line where fine-tuning starts');
});

test('caption-grid items: a few per nocaps domain, best / median / worst, thumbnails as data: URIs', () => {
  const items = predictionItems(SAMPLE, 'nocaps-val', { perDomain: 2 });
  assert.deepEqual(
    items.map((i) => i.domain),
    ['in', 'in', 'near', 'near', 'out', 'out'],
  );
  for (const d of ['in', 'near', 'out']) {
    const [best, worst] = items.filter((i) => i.domain === d);
    assert.ok(best!.score! >= worst!.score!, `${d}: best first`);
  }
  assert.ok(items.every((i) => i.image?.startsWith('data:image/')));
  const paths = predictionItems(SAMPLE, 'nocaps-val', { perDomain: 1, order: 'first', images: 'path', baseDir: FIXTURES_DIR });
  assert.ok(paths.every((i) => i.image?.startsWith(path.join('runs', 'sample', 'thumbs'))));
});

test('notebook progress: one bar per task, throttled, always ends at the total', () => {
  const lines: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((s: string) => (lines.push(String(s)), true)) as typeof process.stdout.write;
  try {
    const progress = notebookProgress({ minIntervalMs: 60_000 });
    for (let i = 0; i <= 100; i++) progress('train', i, 100);
    progress('caption', 5, 5);
  } finally {
    process.stdout.write = write;
  }
  // Outside a notebook show.progress prints the first and the final state of each bar.
  assert.deepEqual(
    lines.map((l) => l.replace(/ \[.*\]/, '')),
    ['train 0/100 (0%)\n', 'train 100/100 (100%)\n', 'caption 0/5 (0%)\n', 'caption 5/5 (100%)\n'],
  );
});

test('notebook progress in a notebook: one output for every task, updated in place, ending as a summary line', () => {
  const published: Array<{ data: Record<string, string>; displayId?: string; update: boolean }> = [];
  const key = Symbol.for('cckit.notebook.display');
  const g = globalThis as Record<symbol, unknown>;
  const before = g[key];
  g[key] = (req: { data: Record<string, string>; displayId?: string; update: boolean }) => published.push(req);
  try {
    const progress = notebookProgress({ minIntervalMs: 60_000 });
    progress('pretrain', 0, 100);
    progress('caption', 0, 5);
    for (let i = 1; i <= 99; i++) progress('pretrain', i, 100); // throttled: no output
    assert.equal(published.length, 2);
    assert.equal(
      published[1]!.data['text/plain'],
      ['pretrain [..............................] 0/100 (0%)', 'caption [..............................] 0/5 (0%)', '0 tasks finished, 2 running'].join('\n'),
    );
    progress('caption', 5, 5);
    progress('pretrain', 100, 100);
    progress('caption', 0, 5); // the same task again (the next checkpoint) opens a new bar in the same output
    progress('caption', 5, 5);
  } finally {
    g[key] = before;
  }
  assert.ok(published.every((p) => p.displayId === published[0]!.displayId && p.displayId !== undefined));
  assert.deepEqual(
    published.map((p) => p.update),
    [false, true, true, true, true, true],
  );
  const final = published.at(-1)!.data;
  assert.equal(final['text/plain'], '3 tasks finished (latest: caption)');
  assert.ok(final['text/html']!.includes('class="cckit-progress-board"') && !final['text/html']!.includes('<progress'));
});

test('tslab iopub guard: a send that finds the socket busy is queued, in order, instead of throwing', async () => {
  const sent: string[] = [];
  let pending: (() => void) | undefined;
  class Socket {
    send(message: string): Promise<void> {
      if (pending) throw Object.assign(new Error('Socket is busy writing'), { code: 'EBUSY' });
      sent.push(message);
      // Every third send is deferred, as zeromq defers one after a run of synchronous sends.
      if (sent.length % 3 === 0) return new Promise<void>((resolve) => (pending = () => ((pending = undefined), resolve())));
      return Promise.resolve();
    }
  }
  class Publisher extends Socket {}
  const cache = {
    '/x/node_modules/tslab/dist/jupyter.js': { exports: {} },
    '/x/node_modules/zeromq/lib/index.js': { exports: { Publisher } },
  } as unknown as NodeJS.Require['cache'];
  const unguarded = new Publisher();
  unguarded.send('a');
  unguarded.send('b');
  unguarded.send('c');
  assert.throws(() => unguarded.send('d'), /busy/);
  pending!();
  sent.length = 0;

  assert.equal(guardTslabIopub({} as NodeJS.Require['cache']), false, 'nothing to do outside tslab');
  assert.equal(guardTslabIopub(cache), true);
  assert.equal(guardTslabIopub(cache), true, 'installed once');
  const socket = new Publisher();
  const done = Array.from({ length: 8 }, (_, i) => socket.send(String(i)));
  assert.deepEqual(sent, ['0', '1', '2'], 'the fourth waits for the deferred third');
  while (pending) {
    pending();
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(done);
  assert.deepEqual(sent, ['0', '1', '2', '3', '4', '5', '6', '7']);
});

test('frame: a danfojs DataFrame of result rows, rows with other keys lined up; show.table prints it as it prints the rows', () => {
  const rows = [
    { 'pre-training': 'none', CIDEr: 50.5, note: '—' },
    { 'pre-training': 'cc12m', CIDEr: 71.2 },
    { 'pre-training': 'cc3m', CIDEr: 60, extra: 'only here' },
  ];
  const df = frame(rows);
  assert.equal(df.constructor.name, 'DataFrame', 'a real danfojs DataFrame');
  assert.deepEqual(df.columns, ['pre-training', 'CIDEr', 'note', 'extra']);
  assert.deepEqual(df.shape, [3, 4]);
  assert.deepEqual(df.values[2], ['cc3m', 60, undefined, 'only here']);
  assert.deepEqual(tableBundle(df), tableBundle(rows));
  // danfojs' own operations work on it: the CIDEr column's mean, a column selection
  const danfo = df as unknown as { column(name: string): { mean(): number }; loc(o: { columns: string[] }): { columns: string[]; values: unknown[][] } };
  assert.ok(Math.abs(danfo.column('CIDEr').mean() - (50.5 + 71.2 + 60) / 3) < 1e-9);
  assert.deepEqual(danfo.loc({ columns: ['CIDEr'] }).values, [[50.5], [71.2], [60]]);
  // no rows: the columns stay
  assert.deepEqual(frame({ columns: ['a', 'b'], rows: [] }).columns, ['a', 'b']);
});

test('comparing two runs: images paired by id, B − A per image, verdicts, counts (the fixture runs sample / sample-b)', () => {
  const a = readPredictions(SAMPLE, SPLIT);
  const b = readPredictions(SAMPLE_B, SPLIT);
  const c = compareRuns(SAMPLE, SAMPLE_B, SPLIT);
  assert.equal(c.split, SPLIT);
  assert.equal(c.metric, 'CIDEr');
  assert.deepEqual([c.a.run, c.b.run], ['sample', 'sample-b']);
  assert.equal(c.pairs.length, 12);
  assert.deepEqual([c.onlyA, c.onlyB, c.duplicatesA, c.duplicatesB], [[], [], [], []]);
  assert.equal(unmatchedNote(c), '', 'nothing unmatched, nothing said');
  const scoreOf = (f: typeof a, id: string) => f.items.find((i) => String(i.image_id) === id)!.scores!.CIDEr!;
  for (const p of c.pairs) {
    assert.equal(p.diff, scoreOf(b, p.id) - scoreOf(a, p.id), `image ${p.id}: B − A`);
    assert.equal(p.a.caption, a.items.find((i) => String(i.image_id) === p.id)!.caption);
    assert.equal(p.b.caption, b.items.find((i) => String(i.image_id) === p.id)!.caption);
  }
  const byId = new Map(c.pairs.map((p) => [p.id, p]));
  // Image 3: A's generic caption names nothing there and hallucinates food; B names the train and the toothbrush.
  assert.deepEqual(byId.get('3')!.a.verdict, { naming: 'none', hallucinates: true, label: 'nothing present named · hallucinates' });
  assert.deepEqual(byId.get('3')!.b.verdict, { naming: 'name', hallucinates: false, label: 'by name' });
  assert.equal(byId.get('3')!.better, 'b');
  assert.equal(byId.get('6')!.b.verdict!.naming, 'kind', '"an animal" for a bird: by hypernym');
  assert.equal(byId.get('8')!.better, 'a');
  assert.equal(byId.get('4')!.better, 'tie', 'the same caption: a tie');
  // Summary counts.
  const diffs = c.pairs.map((p) => p.diff!);
  assert.deepEqual(
    { bBetter: c.summary.bBetter, aBetter: c.summary.aBetter, ties: c.summary.ties, paired: c.summary.paired, unscored: c.summary.unscored },
    { bBetter: 8, aBetter: 2, ties: 2, paired: 12, unscored: 0 },
  );
  assert.ok(Math.abs(c.summary.meanDiff! - diffs.reduce((x, y) => x + y, 0) / 12) < 1e-12);
  assert.ok(Math.abs(c.summary.meanB! - c.summary.meanA! - c.summary.meanDiff!) < 1e-12);
  assert.deepEqual(
    [c.summary.judged, c.summary.bNames, c.summary.aNames, c.summary.bHallucinates, c.summary.aHallucinates],
    [12, 2, 0, 2, 3],
    'B names by name where A does not on 3 and 7; B hallucinates on 2 and 10; A on 3, 7 and 8',
  );
  assert.deepEqual(
    Object.entries(c.byDomain).map(([d, s]) => [d, s.paired, s.bBetter]),
    [
      ['in', 2, 1],
      ['near', 7, 5],
      ['out', 3, 2],
    ],
  );
  assert.deepEqual(summarizePairs(c.pairs), c.summary);
  assert.equal(c.hasDomains && c.hasVerdicts, true);
});

test('comparison views: sorted by B − A both ways (unscored last), filtered by domain and verdict, limited', () => {
  const c = compareRuns(SAMPLE, SAMPLE_B, SPLIT);
  const ids = (sel: Parameters<typeof selectPairs>[1]) => selectPairs(c, sel).map((p) => p.id);
  const desc = selectPairs(c, { sort: 'diff-desc' });
  assert.deepEqual(ids({}), ids({ sort: 'diff-desc' }), 'largest difference first by default');
  for (let i = 1; i < desc.length; i++) assert.ok(desc[i - 1]!.diff! >= desc[i]!.diff!);
  assert.equal(desc[0]!.id, '3');
  assert.deepEqual(ids({ sort: 'diff-asc' })[0], '8');
  assert.deepEqual(ids({ sort: 'diff-asc' }).slice(0, 5), ['8', '0', '4', '11', '1'], 'A better first, then the ties in image-id order');
  assert.deepEqual(ids({ sort: 'id' }), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
  assert.deepEqual(ids({ domain: 'out', sort: 'id' }), ['0', '1', '10']);
  assert.deepEqual(ids({ domain: ['in', 'out'], sort: 'id' }), ['0', '1', '4', '5', '10']);
  assert.deepEqual(ids({ verdict: 'b-names' }), ['3', '7'], 'on which images does B name what A does not');
  assert.deepEqual(ids({ verdict: 'a-hallucinates', sort: 'id' }), ['3', '7', '8']);
  assert.deepEqual(ids({ verdict: 'b-hallucinates', sort: 'id' }), ['2', '10']);
  assert.deepEqual(ids({ verdict: { b: 'kind' } }), ['6']);
  assert.deepEqual(ids({ verdict: { a: 'none', b: 'not-name' }, sort: 'id' }), ['0', '1', '6', '10', '11'], 'neither names a present object by name');
  assert.deepEqual(ids({ verdict: 'same', sort: 'id' }), ['0', '1', '4', '5', '9', '11']);
  assert.deepEqual(ids({ verdict: 'differ', sort: 'id' }), ['2', '3', '6', '7', '8', '10']);
  assert.deepEqual(ids({ domain: 'near', verdict: 'b-names', sort: 'diff-asc' }), ['7', '3']);
  assert.deepEqual(ids({ limit: 2 }), ['3', '2']);
  // Pairs without a score (one side unscored) come last either way.
  const unscored = { ...c.pairs[0]!, id: 'x', diff: undefined, better: undefined };
  assert.equal(selectPairs([unscored, ...c.pairs], { sort: 'diff-desc' }).at(-1)!.id, 'x');
  assert.equal(selectPairs([unscored, ...c.pairs], { sort: 'diff-asc' }).at(-1)!.id, 'x');
  assert.equal(signed(0.1234), '+0.123');
  assert.equal(signed(-2), '−2.000');
  assert.equal(signed(-0.0001), '0.000');
});

test('comparing: images in one run only, or listed twice, are counted and said, not dropped silently; one split only', () => {
  const item = (id: number, caption: string, cider?: number) => ({ image_id: id, caption, ...(cider !== undefined ? { scores: { CIDEr: cider } } : {}) });
  const a: ComparableFile = { run: 'a', split: 's', items: [item(1, 'a1', 1), item(2, 'a2', 1), item(3, 'a3', 1), item(3, 'a3 again', 9), item(4, 'a4')] };
  const b: ComparableFile = { run: 'b', split: 's', items: [item(5, 'b5', 1), item(2, 'b2', 0.5), item(1, 'b1', 1.5), item(4, 'b4', 2), item(6, 'b6', 1)] };
  const c = comparePredictions(a, b);
  assert.deepEqual(
    c.pairs.map((p) => p.id),
    ['1', '2', '4'],
    "in A's order",
  );
  assert.deepEqual(c.onlyA, ['3']);
  assert.deepEqual(c.onlyB, ['5', '6']);
  assert.deepEqual(c.duplicatesA, ['3']);
  assert.equal(c.a.images, 4);
  assert.equal(c.b.images, 5);
  assert.deepEqual([c.summary.paired, c.summary.bBetter, c.summary.aBetter, c.summary.ties, c.summary.unscored], [3, 1, 1, 0, 1]);
  assert.equal(c.summary.judged, 0);
  assert.equal(c.hasDomains || c.hasVerdicts, false);
  assert.equal(unmatchedNote(c), '1 image only in A (a: 3); 2 images only in B (b: 5, 6): not compared. Listed more than once (the first is compared): A 3.');
  assert.equal(comparePredictions(a, b, { tie: 0.6 }).summary.ties, 2, 'a tolerance makes ties');
  assert.equal(comparePredictions(a, b, { metric: 'BLEU-4' }).summary.unscored, 3);
  assert.throws(() => comparePredictions(a, { ...b, split: 't' }), /different splits \(s, t\)/);
  assert.throws(() => selectPairs(c, { verdict: 'nonsense' as never }), /unknown verdict filter/);
});

test('show.compare: a caption grid with both captions, an HTML table and text, sorted and filtered; the sidebar told', () => {
  const bundle = compareBundle(SAMPLE, SAMPLE_B, SPLIT, { domain: 'near', verdict: 'b-names', sort: 'diff-desc' });
  const payload = bundle[CAPTIONS_MIME] as {
    title: string;
    compare: Record<string, string>;
    items: Array<{
      id: string;
      caption: string;
      image?: string;
      score: number;
      metric: string;
      diff: number;
      diffText: string;
      better: string;
      verdict: string;
      b: { caption: string; score: number; verdict: string };
    }>;
  };
  assert.equal(payload.title, `A: sample predictions (fixture) vs B: sample predictions B (fixture) (${SPLIT})`);
  assert.deepEqual(
    payload.items.map((i) => i.id),
    ['3', '7'],
  );
  const first = payload.items[0]!;
  assert.equal(first.caption, 'a close up of a table with a plate of food');
  assert.equal(first.b.caption, 'a close up of a train near a toothbrush');
  assert.equal(first.metric, 'CIDEr×100');
  assert.equal(first.diffText, '+306.2');
  assert.equal(first.better, 'b');
  assert.equal(first.diff, Number((first.b.score - first.score).toFixed(1)));
  assert.deepEqual([first.verdict, first.b.verdict], ['nothing present named · hallucinates', 'by name']);
  assert.ok(first.image?.startsWith('data:image/jpeg;base64,'), "A's thumbnail (B has none), inlined");
  assert.match(payload.compare.summary!, /^B − A CIDEr×100: mean \+70\.0 over 12 images; B better on 8, A better on 2, ties on 2\.$/);
  assert.match(
    payload.compare.shown!,
    /^Showing 2 of 2 matching \(12 paired\), by B − A, largest first; domain near; verdict: B names an object by name, A does not\.$/,
  );
  assert.equal(payload.compare.unmatched, undefined);
  const text = bundle['text/plain'] as string;
  assert.match(text, /^3 \[near\] {2}B − A \+306\.2$/m);
  assert.match(text, /^ {4}A 3\.2: a close up of a table with a plate of food {2}\(nothing present named · hallucinates\)$/m);
  assert.match(text, /^ {4}B 309\.4: a close up of a train near a toothbrush {2}\(by name\)$/m);
  const html = bundle['text/html'] as string;
  assert.equal((html.match(/<tr>/g) ?? []).length, 3, 'a header row and two pairs');
  assert.match(html, /<img src="data:image\/jpeg;base64,/);
  assert.match(html, /color:#1a7f37"><b>\+306\.2<\/b>/);
  assert.deepEqual(bundle[RUN_MIME], { runDir: SAMPLE, split: SPLIT, compareWith: SAMPLE_B });

  // Defaults: every pair (up to 50), largest difference first; raw scale; no images; the sidebar left alone.
  const all = compareBundle(SAMPLE, SAMPLE_B, SPLIT, { scale: 1, images: 'none', sidebar: false, limit: 3 });
  const items = (all[CAPTIONS_MIME] as { items: Array<{ id: string; image?: string; diffText: string }> }).items;
  assert.deepEqual(
    items.map((i) => [i.id, i.diffText]),
    [
      ['3', '+3.062'],
      ['2', '+2.197'],
      ['7', '+1.907'],
    ],
  );
  assert.ok(items.every((i) => i.image === undefined));
  assert.equal(all[RUN_MIME], undefined);
  assert.match(all['text/plain'] as string, /Showing 3 of 12 matching/);

  // Images only one run has are said, in every form.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-compare-'));
  try {
    const dir = path.join(tmp, 'b');
    fs.cpSync(SAMPLE_B, dir, { recursive: true });
    const file = path.join(dir, 'predictions', `${SPLIT}.json`);
    const preds = JSON.parse(fs.readFileSync(file, 'utf8'));
    preds.items = preds.items.filter((i: { image_id: number }) => i.image_id !== 5);
    preds.items.push({ image_id: 99, caption: 'an extra image', scores: { CIDEr: 1 } });
    fs.writeFileSync(file, JSON.stringify(preds));
    const some = compareBundle(SAMPLE, dir, SPLIT, { images: 'none' });
    const note = '1 image only in A (sample: 5); 1 image only in B (sample-b: 99): not compared.';
    assert.equal((some[CAPTIONS_MIME] as { compare: { unmatched: string } }).compare.unmatched, note);
    assert.ok((some['text/plain'] as string).includes(note));
    assert.ok((some['text/html'] as string).includes(note));
    assert.throws(() => compareBundle(SAMPLE, dir, 'coco-val'), /run A \(.*sample\) has no predictions for coco-val; it has nocaps-val/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  // show.compare publishes that bundle.
  const published: Array<{ data: Record<string, unknown> }> = [];
  const key = Symbol.for('cckit.notebook.display');
  const g = globalThis as Record<symbol, unknown>;
  const before = g[key];
  g[key] = (req: { data: Record<string, unknown> }) => published.push(req);
  try {
    show.compare(SAMPLE, SAMPLE_B, SPLIT, { domain: 'out', images: 'none' });
  } finally {
    g[key] = before;
  }
  assert.equal(published.length, 1);
  assert.deepEqual(published[0]!.data, compareBundle(SAMPLE, SAMPLE_B, SPLIT, { domain: 'out', images: 'none' }));
});

test('thumbnails inline only images cckit wrote: inside the run’s thumbs/, a run folder that is where it says, JPEG or PNG bytes, at most 1 MiB', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-thumbs-'));
  const runs = path.join(root, 'runs');
  const run = path.join(runs, 'run-a');
  fs.mkdirSync(path.join(run, 'thumbs'), { recursive: true });
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60)]);
  fs.writeFileSync(path.join(run, 'thumbs', '1.jpg'), jpeg);
  fs.writeFileSync(path.join(run, 'thumbs', 'text.jpg'), 'not an image');
  fs.writeFileSync(path.join(run, 'thumbs', 'big.jpg'), Buffer.concat([jpeg, Buffer.alloc(MAX_THUMB_BYTES)]));
  fs.writeFileSync(path.join(run, 'run.json'), '{"secret": true}');
  assert.equal(thumbImage(run, 'thumbs/1.jpg', 'data'), `data:image/jpeg;base64,${jpeg.toString('base64')}`);
  assert.equal(thumbImage(run, 'thumbs/text.jpg', 'data'), undefined, 'bytes that are no image');
  assert.equal(thumbImage(run, 'thumbs/big.jpg', 'data'), undefined, 'over the cap');
  assert.equal(thumbImage(run, 'run.json', 'data'), undefined, 'a run file outside thumbs/');
  // a run folder that is a link to elsewhere (runs/evil -> a folder of private files) shows nothing of it
  const elsewhere = path.join(root, 'private');
  fs.mkdirSync(path.join(elsewhere, 'thumbs'), { recursive: true });
  fs.writeFileSync(path.join(elsewhere, 'thumbs', 'photo.jpg'), jpeg);
  fs.symlinkSync(elsewhere, path.join(runs, 'evil'));
  assert.equal(thumbImage(path.join(runs, 'evil'), 'thumbs/photo.jpg', 'data'), undefined);
  assert.equal(thumbInRun(path.join(runs, 'evil'), 'thumbs/photo.jpg'), undefined);
});
