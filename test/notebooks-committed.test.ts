/**
 * What a reader of a committed notebook sees: each notebook executed (its first code cell's output is there; tslab
 * records no execution counts), no cell ending in an error, and at most 40 stream lines (one per run and seed, summaries; the status lines
 * of a running cell update one output in place and stay in runs/status.log).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';

const NOTEBOOKS = path.join(PACKAGE_ROOT, 'notebooks');
const MAX_STREAM_LINES = 40;

interface Cell {
  cell_type: string;
  source: string | string[];
  outputs?: { output_type: string; text?: string | string[] }[];
}
const text = (t: string | string[] | undefined) => (Array.isArray(t) ? t.join('') : (t ?? ''));

for (const name of fs.readdirSync(NOTEBOOKS).filter((n) => n.endsWith('.ipynb'))) {
  test(`${name}: executed, with at most ${MAX_STREAM_LINES} stream lines`, () => {
    const cells = (JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, name), 'utf8')) as { cells: Cell[] }).cells.filter((c) => c.cell_type === 'code');
    assert.ok((cells[0]?.outputs ?? []).length > 0, `${name}: not executed (re-run: npm run notebooks -- notebooks/${name})`);
    const lines = cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === 'stream').flatMap((o) => text(o.text).split('\n').filter(Boolean)));
    assert.ok(lines.length <= MAX_STREAM_LINES, `${name}: ${lines.length} stream lines, e.g.\n${lines.slice(0, 5).join('\n')}`);
    const errors = cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === 'error'));
    assert.equal(errors.length, 0, `${name}: a cell ended in an error`);
  });
}
