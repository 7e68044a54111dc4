/** The claims module: one verdict rule (`decide`) for every claim, the registry's margins, the table row, the summary line and the forest plot. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimOver, claimRows, claimsFigure, claimsSummary, pairsClaim, rankAgreement, rankClaim, signedValues, type Claim } from '../src/experiments/claims';
import { CLAIMS, MARGINS, registeredClaim } from '../src/experiments/claims-registry';

test('every table claim is decided by the one rule: t over seeds, the registry’s margin and direction', () => {
  assert.equal(claimOver('A beats B', 'p', [4, 5, 6]).verdict, 'holds', 'mean 5, t interval [2.5, 7.5]');
  assert.equal(claimOver('A beats B', 'p', [-4, -5, -6]).verdict, 'contradicted');
  const noisy = claimOver('A beats B', 'p', [5, -2]);
  assert.equal(noisy.verdict, 'undecided', 'two seeds that disagree');
  assert.ok(noisy.decided.seedsToDecide! > 2 && noisy.decided.detectable! > 0, 'says what would decide it');
  // a registered text takes its metric's margin (CIDEr: 1 point): a small effect inside it is "no difference"
  const near = [0.1, -0.1, 0.05, 0, -0.05];
  const moc = claimOver('IC+MOC beats IC', 'p', near);
  assert.equal(moc.id, 'cc12m.table12.moc-vs-ic');
  assert.equal(moc.decided.margin, MARGINS.CIDEr.margin);
  assert.equal(moc.verdict, 'no difference');
  assert.equal(moc.decided.supports, false, '"A beats B" is not supported by no difference');
  const vlm = claimOver('IC+VLM does not beat IC (IC ahead)', 'p', near);
  assert.equal(vlm.verdict, 'no difference');
  assert.equal(vlm.decided.supports, true, 'an "A ≥ B" claim is');
  assert.equal(claimOver('unregistered', 'p', near).verdict, 'undecided', 'no margin, no "no difference"');
  // one seed: its image interval, where it has one
  assert.equal(claimOver('A beats B', 'p', [3], { intervals: [{ low: 0.4, high: 5.9 }] }).verdict, 'holds');
  assert.equal(claimOver('A beats B', 'p', [3], { intervals: [{ low: -0.4, high: 5.9 }] }).verdict, 'undecided');
  assert.equal(claimOver('A beats B', 'p', [3]).verdict, 'not measured', 'one seed and no interval: nothing shows its noise');
  assert.equal(claimOver('A beats B', 'p', [1, NaN]).verdict, 'not measured');
  assert.equal(claimOver('A beats B', 'p', []).verdict, 'not measured');
});

test('ranking claims: Kendall τ per seed, decided as a difference from 0', () => {
  const alike = rankClaim('r', 'p', [rankAgreement([1, 2, 3], [1, 2, 3]), rankAgreement([1, 2, 3], [10, 20, 30])]);
  assert.equal(alike.verdict, 'holds');
  const mixed = rankClaim('r', 'p', [rankAgreement([1, 2, 3], [1, 2, 3]), rankAgreement([1, 2, 3], [3, 1, 2])]);
  assert.equal(mixed.verdict, 'undecided');
  assert.deepEqual(mixed.differences, [1, -1 / 3]);
  assert.equal(claimRows([mixed])[0]!['measured (per seed)'], '3/3 pairs, τ 1.00; 1/3 pairs, τ -0.33');
  assert.equal(claimRows([mixed])[0]!['mean [95% interval]'], '+0.33 [−8.14, +8.80]');
});

test('claims over compared pairs: each seed’s mean pair; not testable when no pair is', () => {
  const pairs = [
    { seed: 0, difference: 3, testable: true },
    { seed: 0, difference: 5, testable: true },
    { seed: 1, difference: 6, testable: true },
    { seed: 1, difference: 0, testable: false },
    { seed: 2, difference: 5, testable: true },
  ];
  const claim = pairsClaim('A beats B', 'p', pairs);
  assert.deepEqual(claim.differences, [4, 6, 5]);
  assert.equal(claim.verdict, 'holds');
  const none = pairsClaim('A beats B', 'p', [{ seed: 0, difference: 1, testable: false }]);
  assert.equal(none.verdict, 'not testable');
  assert.match(none.decided.reason!, /distinct captions/);
});

test('a claims table row shows the per-seed differences, the mean with its interval, the verdict and what would decide it', () => {
  assert.equal(signedValues([5, -2, NaN, 0]), '+5.0, -2.0, —, +0.0');
  const rows = claimRows([
    claimOver('A beats B', '1 vs 2', [5, -2], { columns: { table: 'Table 10' } }),
    claimOver('gain larger out of domain', 'mostly out', [4, 5, 6], { measuredAs: 'out gain − COCO gain: ' }),
  ]);
  assert.deepEqual(Object.keys(rows[0]!), ['table', 'claim', 'paper', 'measured (per seed)', 'mean [95% interval]', 'here', 'what would decide it']);
  assert.equal(rows[0]!['measured (per seed)'], '+5.0, -2.0');
  assert.equal(rows[0]!.here, 'undecided');
  assert.match(rows[0]!['what would decide it']!, /^detects ≥ \d+\.\d; ~\d+ seeds$/);
  assert.equal(rows[1]!['measured (per seed)'], 'out gain − COCO gain: +4.0, +5.0, +6.0');
  assert.equal(rows[1]!['mean [95% interval]'], '+5.0 [+2.5, +7.5]');
  assert.equal(rows[1]!.here, 'holds');
  const withIntervals = claimRows([claimOver('A beats B', 'p', [3, 1], { intervals: [{ low: 0.4, high: 5.9 }, undefined], measuredAs: 'gain: ' })]);
  assert.equal(withIntervals[0]!['measured (per seed)'], 'gain: +3.0 [+0.4, +5.9]; +1.0 (no interval)');
});

test('the summary line counts each verdict that occurs', () => {
  assert.equal(claimsSummary(['holds', 'holds', 'undecided', 'contradicted'], 3), '4 claims over 3 seeds: 2 hold, 1 contradicted, 1 undecided.');
  assert.equal(claimsSummary(['holds', 'no difference', 'not measured'], 1), '3 claims over 1 seed: 1 holds, 1 no difference, 1 not measured.');
  assert.equal(claimsSummary(['undecided'], 5), '1 claim over 5 seeds: 0 hold, 1 undecided.');
});

test('the forest plot: one row per claim, its mean with the 95% interval, every seed a point, coloured by verdict', () => {
  const claims: Claim[] = [
    claimOver('holds everywhere', 'p', [4, 5, 6]),
    claimOver('seeds disagree', 'p', [-1, 2, 0.5]),
    claimOver('behind', 'p', [-4, -5, -6]),
  ];
  const fig = claimsFigure(claims, { unit: 'CIDEr ×100' }) as {
    data: Record<string, unknown>[];
    layout: { yaxis: { ticktext: string[] }; xaxis: { zeroline: boolean; title: { text: string } } };
  };
  const means = fig.data.filter((t) => String(t.name).endsWith('(mean, 95% interval)'));
  const points = fig.data.filter((t) => String(t.name).endsWith('each seed'));
  assert.deepEqual(
    means.map((t) => t.name),
    ['holds (mean, 95% interval)', 'contradicted (mean, 95% interval)', 'undecided (mean, 95% interval)'],
  );
  assert.deepEqual(means[0]!.x, [5]);
  const bar = means[0]!.error_x as { array: number[]; arrayminus: number[] };
  assert.deepEqual(bar.array, [2.48], 't(2) · 1 / √3 = 2.48');
  assert.deepEqual(bar.arrayminus, [2.48]);
  assert.deepEqual(
    points.flatMap((t) => t.x as number[]).sort((a, b) => a - b),
    [-6, -5, -4, -1, 0.5, 2, 4, 5, 6],
  );
  assert.deepEqual(means[0]!.y, [3], 'first claim on top');
  assert.deepEqual(fig.layout.yaxis.ticktext, ['holds everywhere', 'seeds disagree', 'behind']);
  assert.equal(fig.layout.xaxis.zeroline, true);
  assert.match(fig.layout.xaxis.title.text, /CIDEr ×100/);
});

test('the registry: every claim once, each tested by a table or with the reason it is not, margins stated per metric', () => {
  const ids = CLAIMS.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  const texts = CLAIMS.flatMap((c) => (c.measuredBy ?? []).flatMap((m) => m.texts));
  assert.equal(new Set(texts).size, texts.length, 'a table text measures one claim');
  for (const c of CLAIMS) {
    assert.ok((c.measuredBy?.length ?? 0) > 0 !== (c.notTested !== undefined), `${c.id}: measured by a table, or the reason it is not`);
    assert.ok(MARGINS[c.metric].reason.length > 20, `${c.id}: its metric's margin has a reason`);
    for (const t of c.measuredBy?.flatMap((m) => m.texts) ?? []) assert.equal(registeredClaim(t)?.id, c.id);
  }
  assert.ok(CLAIMS.filter((c) => c.paper === 'CC3M').length >= 20 && CLAIMS.filter((c) => c.paper === 'CC12M').length >= 40);
});
