/** CC12M Table 3 over seeds: the tables, claims and the grounding note come from the per-seed numbers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  table3ClaimList,
  table3Claims,
  table3Figure,
  table3GroundingNote,
  table3JudgeRows,
  table3SeedRows,
  type Table3Result,
} from '../src/experiments/cc12m/table3';
import { RECIPES } from '../src/experiments/recipe';

type Domains = { in: number; near: number; out: number; overall: number };
const d = (inD: number, near: number, out: number): Domains => ({ in: inD, near, out, overall: (inD + near + out) / 3 });
const judge = (recall: number, byName: number) => {
  const g = { recall: recall / 100, specificRecall: byName / 100, chairS: 0.1, chairI: 0.05, captions: 10 };
  return { in: g, near: g, out: g, overall: g };
};

/** One seed: CC12M ahead of CC3M most out of domain on val (by `outGain`), fine-tuning ahead of zero-shot. */
function seedResult(seed: number, outGain: number, recall = 40): Table3Result {
  const val: Record<string, Domains> = { none: d(40, 30, 20), cc3m: d(50, 45, 30), cc12m: d(52, 47, 30 + outGain), 'cc3m+cc12m': d(53, 48, 33) };
  const row = (p: string, i: number) => ({
    pretraining: p as Table3Result['rows'][number]['pretraining'],
    finetuned: val[p]!,
    zeroShot: p === 'none' ? undefined : d(10, 10, p === 'cc3m' ? 12 : 8),
    test: { finetuned: val[p]! },
    grounding: { finetuned: judge(recall, recall / 2) },
    selection: { candidates: [], step: 100 + 25 * i },
    finetuneRun: `finetune-${p}-${seed}`,
  });
  return {
    config: { ...RECIPES.tiny, seed },
    rows: RECIPES.tiny.rows.map(row) as unknown as Table3Result['rows'],
    human: { val: d(90, 90, 90) as never },
    pools: { cc3m: 500, cc12m: 2000 },
    seconds: 1,
  };
}

test('claims are verdicts over every seed: a gain on one seed and a loss on the other is within noise', () => {
  const claims = table3ClaimList([seedResult(0, 8), seedResult(1, -3)]);
  const byText = new Map(claims.map((c) => [c.claim, c]));
  assert.equal(byText.get('pre-training on CC3M beats no pre-training')!.verdict, 'holds');
  assert.equal(byText.get('CC12M beats CC3M out of domain')!.verdict, 'within noise');
  assert.deepEqual(byText.get('CC12M beats CC3M out of domain')!.differences, [8, -3]);
  // out gain 8 against in/near gains of 2: +6 on seed 0; −3 against 2: −5 on seed 1
  assert.deepEqual(byText.get("CC12M's gain over CC3M is largest out of domain")!.differences, [6, -5]);
  assert.equal(byText.get('zero-shot, CC3M scores above CC12M')!.verdict, 'holds');
  assert.equal(byText.get('fine-tuning on COCO beats zero-shot (CC12M)')!.verdict, 'holds');
  assert.equal(claims.length, 11);
  const rows = table3Claims([seedResult(0, 8), seedResult(1, 9)]);
  assert.equal(rows.find((r) => r.claim === 'CC12M beats CC3M out of domain')!.here, 'holds');
  assert.equal(rows.find((r) => r.claim === 'CC12M beats CC3M out of domain')!['measured (per seed)'], '+8.0, +9.0');
});

test('the seed table shows mean ± std per domain, the steps chosen per seed and the human row', () => {
  const rows = table3SeedRows([seedResult(0, 8), seedResult(1, 4)]);
  const cc12m = rows.find((r) => r['pre-training'] === 'cc12m')!;
  assert.equal(cc12m.out, '36.0 ± 2.8');
  assert.equal(cc12m['steps chosen'], '150 / 150');
  assert.equal(rows.at(-1)!['pre-training'], 'human');
  assert.equal(rows.at(-1)!.in, '90.0 ± 0.0');
  assert.equal(rows.find((r) => r['pre-training'] === 'none')!['zero-shot out'], '—');
  const judged = table3JudgeRows([seedResult(0, 8), seedResult(1, 4)]);
  assert.equal(judged.find((r) => r['pre-training'] === 'cc3m')!['recall out'], '40.0 ± 0.0');
  const fig = table3Figure([seedResult(0, 8), seedResult(1, 4)]) as { data: { name: string; y: number[] }[] };
  assert.deepEqual(fig.data.find((t) => t.name === 'cc12m')!.y.slice(0, 3), [52, 47, 36]);
});

test('the grounding note says whether the out-of-domain difference is evidence, from the judge’s recall', () => {
  assert.match(table3GroundingNote([seedResult(0, 8, 40)]), /compares models that look at the image/);
  assert.match(table3GroundingNote([seedResult(0, 8, 10)]), /not evidence either way/);
});
