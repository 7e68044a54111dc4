/** Results over seeds: spread, verdicts from per-seed differences, rows matched by label. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import type { ResultRow } from '../src/experiments/runner';
import { differences, formatSpread, overSeeds, PICKS, spread, spreadRows, spreadRowsWithGrounding } from '../src/experiments/seeds';
import { listCheckpoints } from '../src/train/checkpoint';

const scores = (overall: number, out = overall) => ({ in: overall + 10, near: overall, out, overall });
const row = (label: string, overall: number, out?: number, test?: number): ResultRow => ({
  label,
  finetuned: scores(overall, out),
  ...(test !== undefined ? { test: { finetuned: scores(test) } } : {}),
  finetuneRun: `run-${label}`,
});

test('spread: mean, sample standard deviation, extremes; one value has no spread', () => {
  const s = spread([1, 2, 3, 6]);
  assert.equal(s.mean, 3);
  assert.ok(Math.abs(s.std - Math.sqrt(14 / 3)) < 1e-12);
  assert.deepEqual([s.min, s.max], [1, 6]);
  assert.equal(formatSpread(s), '3.0 ± 2.2');
  assert.equal(formatSpread(spread([4.25])), '4.3');
  assert.equal(formatSpread(spread([NaN])), '—');
  assert.equal(spread([2, NaN, 4]).mean, 3, 'unmeasured values are left out of the mean');
});

test('differences and spreadRows match rows by label across seeds, for val and test', () => {
  const perSeed = [
    [row('cc3m', 30, 10, 31), row('cc12m', 40, 20, 35)],
    [row('cc12m', 36, 9, 30), row('cc3m', 33, 12, 32)],
  ];
  assert.deepEqual(differences(perSeed, 'cc12m', 'cc3m'), [10, 3]);
  assert.deepEqual(differences(perSeed, 'cc12m', 'cc3m', 'out'), [10, -3]);
  assert.deepEqual(differences(perSeed, 'cc12m', 'cc3m', 'overall', PICKS.test), [4, -2]);
  const rows = spreadRows(perSeed, PICKS.val, 'pre-training');
  assert.deepEqual(rows[0], { 'pre-training': 'cc3m', in: '41.5 ± 2.1', near: '31.5 ± 2.1', out: '11.0 ± 1.4', overall: '31.5 ± 2.1' });
  assert.equal(rows[1]!.overall, '38.0 ± 2.8');
  assert.equal(spreadRows(perSeed, PICKS.zeroShot)[0]!.overall, '—', 'rows without zero-shot');
});

test('overSeeds runs each seed in order and keeps the results in that order', async () => {
  const said: string[] = [];
  const out = await overSeeds(
    [3, 1, 2],
    async (seed) => seed * 10,
    (l) => said.push(l),
  );
  assert.deepEqual(out, [30, 10, 20]);
  assert.deepEqual(said, ['seed 3 (1 of 3)', 'seed 1 (2 of 3)', 'seed 2 (3 of 3)']);
});

test('listCheckpoints: complete step folders oldest first, with their steps', () => {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-ckpts-'));
  for (const step of [50, 25, 100]) {
    const dir = path.join(run, 'checkpoints', `step-${String(step).padStart(7, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    if (step !== 100) fs.writeFileSync(path.join(dir, 'model.json'), '{}');
  }
  fs.mkdirSync(path.join(run, 'checkpoints', '.tmp-step-0000125'));
  assert.deepEqual(
    listCheckpoints(run).map((c) => c.step),
    [25, 50],
    'the half-written step 100 and temporaries are not checkpoints',
  );
  assert.deepEqual(listCheckpoints(path.join(run, 'missing')), []);
});

test('spreadRowsWithGrounding: the judge figures beside CIDEr, in %', () => {
  const figures = (recall: number) => ({ recall, specificRecall: recall / 2, objectRecall: recall, chairS: 0.1, chairI: 0.1, captions: 10 });
  const judged = (label: string, recall: number): ResultRow => ({
    ...row(label, 30),
    grounding: { finetuned: { overall: figures(recall), out: figures(recall / 4) } },
  });
  const rows = spreadRowsWithGrounding([[judged('cc12m', 0.8)], [judged('cc12m', 0.6)]]);
  assert.equal(rows[0]!['recall out %'], '17.5 ± 3.5');
  assert.equal(rows[0]!['by name out %'], '8.8 ± 1.8');
  assert.equal(rows[0]!['CHAIR_s %'], '10.0 ± 0.0');
  assert.equal(spreadRowsWithGrounding([[row('none', 1)]])[0]!['recall out %'], '—', 'rows without ground truth');
});
