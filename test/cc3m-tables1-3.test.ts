/** CC3M Tables 1–3 and CC12M Table 9 as rows (src/experiments/cc3m/tables1-3.ts), from a measured pool set. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  datasetChecks,
  datasetClaimList,
  table1PaperExamples,
  table3SplitRows,
  table9Rows,
  table9TopConcepts,
  table2Rows,
} from '../src/experiments/cc3m/tables1-3';
import type { DatasetsResult } from '../src/experiments/cc3m-dataset';

const split = (examples: number, mean: number, median: number) => ({ examples, uniqueTokens: 10 * examples, tokens: examples * mean, mean, std: 4, median });

function measured(overrides: Partial<DatasetsResult> = {}): DatasetsResult {
  return {
    preset: 'tiny',
    seed: 0,
    rows: {
      cc3m: [{ url: 'u1', caption: 'a dog' }],
      cc12m: [
        { url: 'u1', caption: 'A dog with <PERSON>' },
        { url: 'u2', caption: 'A cat' },
        { url: 'u3', caption: 'A cow' },
        { url: 'u4', caption: 'A hen' },
      ],
    },
    splits: { train: split(400, 10.5, 9), validation: split(50, 10.2, 9), test: split(50, 10.9, 10) },
    fractions: { validation: 0.1, test: 0.1 },
    coverage: {
      concepts: ['durian', 'quiche'],
      ks: [1, 5],
      share: { web: { 1: 1, 5: 0.5 }, cc3m: { 1: 0.5, 5: 0 }, cc12m: { 1: 1, 5: 0.5 } },
      mentions: { web: { durian: 9, quiche: 3 }, cc3m: { durian: 0, quiche: 1 }, cc12m: { durian: 7, quiche: 2 } },
    },
    ...overrides,
  };
}

test("the paper's Table 1 examples go through cckit's transform", () => {
  const rows = table1PaperExamples();
  assert.ok(rows.length >= 2);
  assert.ok(rows.every((r) => typeof r['cckit CC3M caption'] === 'string' && ['yes', 'no'].includes(r['same as the paper'] as string)));
});

test('Table 3 beside the paper, Table 9 per k with concept counts, the CC12M-most-mentioned concepts', () => {
  const t3 = table3SplitRows(measured());
  assert.deepEqual(
    t3.map((r) => [r.split, r.examples, r['tokens per caption'], r['paper: examples']]),
    [
      ['train', '400', '10.5 ± 4.0', '3,318,333'],
      ['validation', '50', '10.2 ± 4.0', '28,355'],
      ['test', '50', '10.9 ± 4.0', '22,530'],
    ],
  );
  const t9 = table9Rows(measured())!;
  assert.equal(t9[1]!['CC3M pool (concepts)'], 0);
  assert.equal(t9[1]!['CC12M pool %'], 50);
  assert.deepEqual(
    table9TopConcepts(measured())!.map((r) => r.concept),
    ['durian', 'quiche'],
  );
  assert.equal(table2Rows(measured()), undefined, 'no ground truth: no Table 2');
});

test("the dataset claims are per-seed differences the claim's way, decided over seeds by the one rule", () => {
  const checks = new Map(datasetChecks(measured()).map((c) => [c.claim, c.difference]));
  assert.ok(Math.abs(checks.get("validation captions are as long as train's (Table 3)")! - -0.3) < 1e-9, 'val − train mean tokens');
  assert.equal(checks.get('caption lengths are skewed right: median below mean (Table 3, train)'), 1.5);
  assert.equal(checks.get('CC12M covers more out-of-domain concepts than CC3M, at every k (CC12M Table 9)'), 50, 'the smallest lead over k, in points');
  const tie = datasetChecks(
    measured({ coverage: { ...measured().coverage!, share: { web: { 1: 1, 5: 1 }, cc3m: { 1: 1, 5: 0.5 }, cc12m: { 1: 1, 5: 0.5 } } } }),
  );
  assert.equal(tie.find((c) => c.claim.startsWith('CC12M covers more'))!.difference, 0, 'a tie at every k is no lead');
  // over five seeds: the skew holds; coverage tied on every seed is "no difference", which an "A > B" claim does not win
  const seeds = [0, 1, 2, 3, 4].map((seed) => measured({ seed, splits: { ...measured().splits, train: split(400, 10.5 + seed / 10, 9) } }));
  const claims = new Map(datasetClaimList(seeds).map((c) => [c.claim, c]));
  const skew = claims.get('caption lengths are skewed right: median below mean (Table 3, train)')!;
  assert.equal(skew.verdict, 'holds');
  [1.5, 1.6, 1.7, 1.8, 1.9].forEach((x, i) => assert.ok(Math.abs(skew.differences[i]! - x) < 1e-9, `seed ${i}: ${skew.differences[i]}`));
  const tied = new Map(
    datasetClaimList(
      seeds.map((s) => ({ ...s, coverage: { ...s.coverage!, share: { web: { 1: 1, 5: 1 }, cc3m: { 1: 1, 5: 1 }, cc12m: { 1: 1, 5: 1 } } } })),
    ).map((c) => [c.claim, c]),
  );
  const coverage = tied.get('CC12M covers more out-of-domain concepts than CC3M, at every k (CC12M Table 9)')!;
  assert.equal(coverage.verdict, 'no difference');
  assert.equal(coverage.decided.supports, false);
});
