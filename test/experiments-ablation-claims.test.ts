/** Table 11, Table 12 and Fig. 6 over seeds: claims computed from each seed's rows. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimRows } from '../src/experiments/claims';

import { fig6ClaimList, fig6SeedRows } from '../src/experiments/cc12m/fig6';
import { table11ClaimList, table11SeedRows } from '../src/experiments/cc12m/table11';
import { table12ClaimList } from '../src/experiments/cc12m/table12';
import { RECIPES } from '../src/experiments/recipe';
import type { ExperimentResult } from '../src/experiments/runner';
import type { WithPerImage } from '../src/experiments/cc12m/per-image';
import { seededRandom } from '../src/util/random';

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
    result({ 'IC (cc12m)': 50, 'mlm@0.2': 46, 'mlm@0.4': 52, 'mlm@0.8': 50 }),
  ];
  const [best, highest] = table11ClaimList(perSeed);
  assert.deepEqual(best!.differences, [3, 2, 2]);
  assert.equal(best!.verdict, 'holds', 't over three seeds: [+0.9, +3.8]');
  assert.equal(best!.id, 'cc12m.table11.best-mlm-vs-ic');
  assert.match(highest!.claim, /mlm@0\.8/);
  assert.deepEqual(highest!.differences, [-2, 3, -2]);
  assert.equal(highest!.verdict, 'undecided');
  assert.equal(table11SeedRows(perSeed)[0]!.overall, '50.0 ± 0.0');
});

test('Fig. 6: "reaches" allows one CIDEr point below CC3M', () => {
  const perSeed = [
    result({ cc3m: 40, '25% cc12m': 39.5, '50% cc12m': 42, '100% cc12m': 45 }),
    result({ cc3m: 40, '25% cc12m': 38, '50% cc12m': 41, '100% cc12m': 40.5 }),
    result({ cc3m: 40, '25% cc12m': 40, '50% cc12m': 41.5, '100% cc12m': 44 }),
  ];
  const claims = fig6ClaimList(perSeed);
  assert.deepEqual(claims[0]!.differences, [0.5, -1, 1]);
  assert.equal(claims[0]!.verdict, 'undecided');
  assert.equal(claims[1]!.verdict, 'holds', '+2, +1, +1.5');
  assert.equal(claims[3]!.verdict, 'undecided', '100% vs 50%: +3, −0.5, +2.5');
  assert.equal(fig6SeedRows(perSeed).length, 4);
});

test('Table 12: MOC over IC and IC over VLM; one seed without per-image scores shows no noise, so nothing is decided', () => {
  const perSeed = [result({ 'IC (cc12m)': 50, 'IC+MOC': 52, 'IC+VLM': 49 })];
  assert.deepEqual(
    table12ClaimList(perSeed).map((c) => [c.differences, c.verdict]),
    [
      [[2], 'not measured'],
      [[1], 'not measured'],
    ],
  );
  assert.equal(claimRows(table12ClaimList(perSeed))[0]!['measured (per seed)'], '+2.0');
});

/** `result` with per-image val scores: each row's overall plus its own zero-mean noise (up to ± `noise`) over six images. */
const withPerImage = (r: ExperimentResult, noise: number): WithPerImage<ExperimentResult> => ({
  ...r,
  perImage: Object.fromEntries(
    r.rows.map((row, k) => {
      const ids = ['0', '1', '2', '3', '4', '5'];
      const random = seededRandom(k + 1);
      const draws = ids.map(() => noise * (2 * random() - 1));
      const centre = draws.reduce((a, b) => a + b, 0) / draws.length;
      const overall = draws.map((x) => (row.finetuned.overall + x - centre) / 100);
      return [row.label, { val: { ids, domains: ['in', 'in', 'near', 'near', 'out', 'out'], overall, withinDomain: overall } }];
    }),
  ),
});

test('Tables 11, 12 and Fig. 6 with per-image scores: each seed has its interval; one seed is decided on it', () => {
  const t11 = [
    result({ 'IC (cc12m)': 50, 'mlm@0.2': 48, 'mlm@0.4': 53, 'mlm@0.8': 51 }),
    result({ 'IC (cc12m)': 50, 'mlm@0.2': 47, 'mlm@0.4': 49, 'mlm@0.8': 52 }),
  ];
  const [quietBest] = table11ClaimList(t11.map((r) => withPerImage(r, 0.5)));
  assert.ok(Math.abs(quietBest!.intervals![0]!.estimate! - 3) < 1e-9, 'the max over rates, on the observed images');
  assert.equal(table11ClaimList([withPerImage(t11[0]!, 0.5)])[0]!.verdict, 'holds', 'one seed: its image interval decides');
  assert.equal(table11ClaimList([withPerImage(t11[0]!, 30)])[0]!.verdict, 'undecided');
  const [noisyBest, noisyLead] = table11ClaimList(t11.map((r) => withPerImage(r, 30)));
  assert.deepEqual(noisyBest!.differences, [3, 2]);
  assert.equal(noisyLead!.intervals!.length, 2);
  const f6 = [
    result({ cc3m: 40, '25% cc12m': 39.5, '50% cc12m': 44, '100% cc12m': 45 }),
    result({ cc3m: 40, '25% cc12m': 41, '50% cc12m': 43, '100% cc12m': 46 }),
  ];
  const quiet = fig6ClaimList(f6.map((r) => withPerImage(r, 0.1)));
  assert.ok(Math.abs(quiet[0]!.intervals![0]!.estimate! - 0.5) < 1e-9, '"reaches": shifted by one point, interval too');
  assert.equal(fig6ClaimList([withPerImage(f6[0]!, 0.1)])[1]!.verdict, 'holds');
  assert.equal(fig6ClaimList([withPerImage(f6[0]!, 30)])[1]!.verdict, 'undecided');
  const t12 = [result({ 'IC (cc12m)': 50, 'IC+MOC': 53, 'IC+VLM': 48 }), result({ 'IC (cc12m)': 50, 'IC+MOC': 52, 'IC+VLM': 49 })];
  const [moc] = table12ClaimList(t12.map((r) => withPerImage(r, 0.5)));
  assert.ok(Math.abs(moc!.intervals![1]!.estimate! - 2) < 1e-9, 'IC+MOC − IC on seed 1, on the observed images');
  const [quietMoc, quietVlm] = table12ClaimList([withPerImage(t12[0]!, 0.5)]);
  assert.equal(quietMoc!.verdict, 'holds');
  assert.equal(quietVlm!.verdict, 'holds', 'IC ahead by 2, beyond the 1-point margin');
  assert.equal(table12ClaimList([withPerImage(t12[0]!, 30)])[0]!.verdict, 'undecided');
});
