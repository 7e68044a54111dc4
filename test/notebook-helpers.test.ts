/**
 * src/notebook/runs.ts (curves from run logs, caption-grid items, in-place progress) and
 * src/notebook/tslab-iopub.ts (the tslab iopub send guard) and src/notebook/frames.ts (danfojs DataFrames of
 * result rows), without Jupyter.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { tableBundle } from '../src/notebook/display';
import { frame } from '../src/notebook/frames';
import { curvesFigure, notebookProgress, predictionItems, series } from '../src/notebook/runs';
import { guardTslabIopub } from '../src/notebook/tslab-iopub';
import { FIXTURES_DIR } from '../src/paths';

const SAMPLE = path.join(FIXTURES_DIR, 'runs', 'sample');

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
