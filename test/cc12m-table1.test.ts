/** CC12M Table 1 and the funnels as rows (src/experiments/cc12m/table1.ts). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import {
  readFunnels,
  funnelFigure,
  funnelRows,
  table1ClaimList,
  table1Directions,
  yieldRows,
  type FunnelStage,
  type Table1,
} from '../src/experiments/cc12m/table1';

const funnels: Record<'cc3m' | 'cc12m', FunnelStage[]> = {
  cc3m: [
    { stage: 'read', in: 100, out: 100, rejected: {} },
    { stage: 'image', in: 100, out: 60, rejected: { 'image:small': 30, 'image:aspect': 10 } },
    { stage: 'text', in: 60, out: 15, rejected: { 'text:no-preposition': 45 } },
    { stage: 'image-text', in: 15, out: 12, rejected: { 'image-text:no-overlap': 3 } },
  ],
  cc12m: [
    { stage: 'read', in: 100, out: 100, rejected: {} },
    { stage: 'image', in: 100, out: 80, rejected: { 'image:small': 20 } },
  ],
};

test('funnel rows: pass rates and reasons, most first; the CC3M yields beside the paper', () => {
  const rows = funnelRows(funnels);
  assert.equal(rows.length, 4, 'the read stage is not a filter');
  assert.deepEqual(rows[0], { pipeline: 'cc3m', stage: 'image', in: 100, out: 60, 'pass %': 60, 'rejected because': 'small 30, aspect 10' });
  const y = yieldRows(funnels)!;
  assert.deepEqual(
    y.map((r) => r['CC3M pipeline here']),
    ['discards 40%', 'passes 25%', 'discards 20%', '12.0% of 100 pairs'],
  );
  assert.equal(yieldRows({ cc12m: funnels.cc12m }), undefined);
  const fig = funnelFigure(funnels) as { data: { name: string; y: number[] }[] };
  assert.deepEqual(
    fig.data.map((d) => d.name),
    ['CC3M pipeline', 'CC12M pipeline'],
  );
});

test("Table 1's directions: CC12M vs CC3M here and in the paper", () => {
  const stats = (pairs: number, ttr: number, mean: number, std: number, rare: Record<string, number>) =>
    ({ pairs, tokenTypeRatio: ttr, lengthMean: mean, lengthStd: std, rareWords: rare }) as unknown as Table1['stats']['cc3m'];
  const t: Table1 = {
    stats: { cc3m: stats(500, 20, 10, 7, { apple: 0 }), cc12m: stats(2000, 49, 17, 15, { apple: 9 }) },
    rareWords: ['durian', 'apple'],
    worldRareWords: ['apple'],
    paper: {
      cc3m: { pairs: 3_318_333, token_type_ratio: 804.8, caption_len_mean: 10.3, caption_len_std: 4.5 },
      cc12m: { pairs: 12_423_374, token_type_ratio: 370, caption_len_mean: 20.2, caption_len_std: 16.3 },
      rare_word_counts_cc3m_to_cc12m: { durian: [61, 552] },
    },
  };
  assert.deepEqual(
    table1Directions(t).map((r) => [r.here, r.same]),
    [
      ['CC12M higher', 'yes'],
      ['CC12M higher', 'no'],
      ['CC12M higher', 'yes'],
      ['CC12M higher', 'yes'],
      ['CC12M higher', 'yes'],
    ],
  );
});

test('a malformed funnel line is an error naming the file and line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-funnel-'));
  fs.writeFileSync(path.join(dir, 'kept.tsv'), '');
  fs.writeFileSync(path.join(dir, 'funnel.jsonl'), '{"stage":"read","in":1,"out":1,"rejected":{}}\n{oops\n');
  const inputs = { pools: { cc3m: path.join(dir, 'kept.tsv'), cc12m: path.join(dir, 'none', 'kept.tsv') } } as never;
  assert.throws(() => readFunnels(inputs), /funnel\.jsonl.*line 2: not a JSON funnel stage/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the CC12M-like funnel ends with the disjoint stage overlap.json records, so it accounts for every pair of the pool', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-funnel-'));
  fs.writeFileSync(path.join(dir, 'kept-minus-cc3m.tsv'), '');
  fs.writeFileSync(path.join(dir, 'funnel.jsonl'), '{"stage":"transform","in":10,"out":10,"rejected":{}}\n');
  fs.writeFileSync(path.join(dir, 'overlap.json'), JSON.stringify({ b: { rows: 10 }, shared: 3, written: 7 }));
  const inputs = { pools: { cc3m: path.join(dir, 'none', 'kept.tsv'), cc12m: path.join(dir, 'kept-minus-cc3m.tsv') } } as never;
  const funnels = readFunnels(inputs);
  assert.deepEqual(funnels.cc12m!.at(-1), { stage: 'disjoint from cc3m', in: 10, out: 7, rejected: { 'image in the cc3m pool': 3 } });
  assert.equal(funnelRows(funnels).at(-1)!['rejected because'], 'image in the cc3m pool 3');
  fs.writeFileSync(path.join(dir, 'overlap.json'), '{"b":{}}');
  assert.throws(() => readFunnels(inputs), /overlap\.json.*no b\.rows and written counts/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('table1ClaimList: longer captions and fewer tokens per type in CC12M, decided over seeds', () => {
  const seed = (mean12: number, ratio12: number) =>
    ({
      stats: { cc12m: { lengthMean: mean12, tokenTypeRatio: ratio12 }, cc3m: { lengthMean: 10, tokenTypeRatio: 50 } },
      paper: undefined,
    }) as unknown as Table1;
  const [longer, tail] = table1ClaimList([seed(14, 30), seed(15, 32), seed(16, 28)]);
  assert.deepEqual(longer!.differences, [4, 5, 6]);
  assert.equal(longer!.verdict, 'holds');
  assert.equal(longer!.id, 'cc12m.table1.longer-captions');
  assert.deepEqual(tail!.differences, [20, 18, 22]);
  assert.equal(tail!.verdict, 'holds');
  assert.equal(table1ClaimList([seed(14, 30)])[0]!.verdict, 'not measured', 'one world: no spread to decide on');
});
