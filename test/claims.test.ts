/** The claims module: one verdict vocabulary, its rules, the table row, the summary line and the forest plot. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  claimOver,
  claimRows,
  claimsFigure,
  claimsSummary,
  rankAgreement,
  rankClaim,
  verdictOver,
  verdictOverPairs,
  signedValues,
  type Claim,
} from '../src/experiments/claims';

test('verdicts come from the numbers: over seeds, at least, over pairs, over rankings', () => {
  assert.equal(verdictOver([0.5, 3]), 'holds');
  assert.equal(verdictOver([-0.5, -3]), 'does not hold');
  assert.equal(verdictOver([2, -0.1]), 'within noise');
  assert.equal(verdictOver([0, 1]), 'within noise', 'a tie is not "A beats B"');
  assert.equal(verdictOver([0, 1], { atLeast: true }), 'holds', 'but it is "A is at least B"');
  assert.equal(verdictOver([1, NaN]), 'not measured');
  assert.equal(verdictOver([]), 'not measured');
  assert.equal(verdictOverPairs([1, 2, -1]), 'partly');
  assert.equal(verdictOverPairs([-1, 0]), 'does not hold');
  assert.equal(rankClaim('r', 'p', [rankAgreement([1, 2, 3], [1, 2, 3]), rankAgreement([1, 2, 3], [10, 20, 30])]).verdict, 'holds');
  const mixed = rankClaim('r', 'p', [rankAgreement([1, 2, 3], [1, 2, 3]), rankAgreement([1, 2, 3], [3, 1, 2])]);
  assert.equal(mixed.verdict, 'partly');
  assert.deepEqual(mixed.differences, [1, -1 / 3]);
  assert.equal(claimRows([mixed])[0]!['measured (per seed)'], '3/3 pairs, τ 1.00; 1/3 pairs, τ -0.33');
});

test('a claims table row shows the signed per-seed differences, its leading columns first', () => {
  assert.equal(signedValues([5, -2, NaN, 0]), '+5.0, -2.0, —, +0.0');
  const rows = claimRows([
    claimOver('A beats B', '1 vs 2', [5, -2], { columns: { table: 'Table 10' } }),
    claimOver('gain larger out of domain', 'mostly out', [1.25, 3], { measuredAs: 'out gain − COCO gain: ' }),
  ]);
  assert.deepEqual(Object.keys(rows[0]!), ['table', 'claim', 'paper', 'measured (per seed)', 'here']);
  assert.deepEqual(rows[0], { table: 'Table 10', claim: 'A beats B', paper: '1 vs 2', 'measured (per seed)': '+5.0, -2.0', here: 'within noise' });
  assert.equal(rows[1]!['measured (per seed)'], 'out gain − COCO gain: +1.3, +3.0');
  assert.equal(rows[1]!.here, 'holds');
});

test('the summary line counts each verdict that occurs', () => {
  assert.equal(claimsSummary(['holds', 'holds', 'within noise', 'does not hold'], 3), '2 of 4 claims hold on every seed; 1 within noise; 1 do not hold.');
  assert.equal(claimsSummary(['holds', 'partly', 'not measured'], 1), '1 of 3 claims hold; 1 partly; 0 do not hold; 1 not measured.');
});

test('the forest plot: one row per claim, every seed a point, the mean with its spread, coloured by verdict', () => {
  const claims: Claim[] = [
    claimOver('holds everywhere', 'p', [1, 2, 3]),
    claimOver('seeds disagree', 'p', [-1, 2, 0.5]),
    claimOver('behind', 'p', [-2, -1, -3]),
  ];
  const fig = claimsFigure(claims, { unit: 'CIDEr ×100' }) as {
    data: Record<string, unknown>[];
    layout: { yaxis: { ticktext: string[] }; xaxis: { zeroline: boolean; title: { text: string } } };
  };
  const means = fig.data.filter((t) => String(t.name).endsWith('(mean ± std)'));
  const points = fig.data.filter((t) => String(t.name).endsWith('each seed'));
  assert.deepEqual(
    means.map((t) => t.name),
    ['holds (mean ± std)', 'within noise (mean ± std)', 'does not hold (mean ± std)'],
  );
  assert.deepEqual(means[0]!.x, [2]);
  assert.deepEqual((means[0]!.error_x as { array: number[] }).array, [1]);
  assert.deepEqual(
    points.flatMap((t) => t.x as number[]).sort((a, b) => a - b),
    [-3, -2, -1, -1, 0.5, 1, 2, 2, 3],
  );
  // first claim on top: its row is the highest y
  assert.deepEqual(means[0]!.y, [3]);
  assert.deepEqual(fig.layout.yaxis.ticktext, ['holds everywhere', 'seeds disagree', 'behind']);
  assert.equal(fig.layout.xaxis.zeroline, true);
  assert.match(fig.layout.xaxis.title.text, /CIDEr ×100/);
});

test('the forest plot draws each seed’s interval as a bar around its point, where the claim has one', () => {
  const fig = claimsFigure([
    claimOver('with intervals', 'p', [2, 1], {
      intervals: [
        { low: 0.5, high: 3 },
        { low: -0.5, high: 1.5 },
      ],
    }),
    claimOver('without', 'p', [1, 2]),
  ]) as { data: Record<string, unknown>[] };
  const points = fig.data.filter((t) => String(t.name).endsWith('each seed'));
  const noisy = points.find((t) => t.name === 'within noise: each seed')!;
  assert.deepEqual(noisy.error_x, { type: 'data', symmetric: false, array: [1, 0.5], arrayminus: [1.5, 1.5], visible: true, thickness: 1, width: 2 });
  assert.equal(points.find((t) => t.name === 'holds: each seed')!.error_x, undefined);
});
