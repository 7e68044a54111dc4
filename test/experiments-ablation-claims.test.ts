/** Table 11, Table 12 and Fig. 6 over seeds: claims computed from each seed's rows. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fig6ClaimList, fig6SeedRows } from '../src/experiments/cc12m/fig6';
import { table11ClaimList, table11SeedRows } from '../src/experiments/cc12m/table11';
import { table12ClaimList, table12Claims } from '../src/experiments/cc12m/table12';
import { RECIPES } from '../src/experiments/recipe';
import type { ExperimentResult } from '../src/experiments/runner';

const result = (overall: Record<string, number>): ExperimentResult =>
  ({
    config: RECIPES.tiny,
    rows: Object.entries(overall).map(([label, o]) => ({ label, finetuned: { in: o, near: o, out: o, overall: o }, finetuneRun: `run-${label}` })),
    inputs: {} as never,
    pools: { cc3m: 500, cc12m: 2000 },
    seconds: 1,
  }) as ExperimentResult;

test('Table 11: the best MLM rate against IC, the highest rate against the best other rate, per seed', () => {
  const perSeed = [
    result({ 'IC (cc12m)': 50, 'mlm@0.2': 48, 'mlm@0.4': 53, 'mlm@0.8': 51 }),
    result({ 'IC (cc12m)': 50, 'mlm@0.2': 47, 'mlm@0.4': 49, 'mlm@0.8': 52 }),
  ];
  const [best, highest] = table11ClaimList(perSeed);
  assert.deepEqual(best!.differences, [3, 2]);
  assert.equal(best!.verdict, 'holds');
  assert.match(highest!.claim, /mlm@0\.8/);
  assert.deepEqual(highest!.differences, [-2, 3]);
  assert.equal(highest!.verdict, 'within noise');
  assert.equal(table11SeedRows(perSeed)[0]!.overall, '50.0 ± 0.0');
});

test('Fig. 6: "reaches" allows one CIDEr point below CC3M', () => {
  const perSeed = [
    result({ cc3m: 40, '25% cc12m': 39.5, '50% cc12m': 42, '100% cc12m': 45 }),
    result({ cc3m: 40, '25% cc12m': 38, '50% cc12m': 41, '100% cc12m': 40.5 }),
  ];
  const claims = fig6ClaimList(perSeed);
  assert.deepEqual(claims[0]!.differences, [0.5, -1]);
  assert.equal(claims[0]!.verdict, 'within noise');
  assert.equal(claims[1]!.verdict, 'holds');
  assert.equal(claims[3]!.verdict, 'within noise', '100% vs 50%: +3 then −0.5');
  assert.equal(fig6SeedRows(perSeed).length, 4);
});

test('Table 12: MOC over IC and IC over VLM', () => {
  const perSeed = [result({ 'IC (cc12m)': 50, 'IC+MOC': 52, 'IC+VLM': 49 })];
  assert.deepEqual(
    table12ClaimList(perSeed).map((c) => [c.differences, c.verdict]),
    [
      [[2], 'holds'],
      [[1], 'holds'],
    ],
  );
  assert.equal(table12Claims(perSeed)[0]!['measured (per seed)'], '+2.0');
});
