/**
 * CC12M Table 4's computations (src/experiments/cc12m/table4.ts) on runs written here from the public nocaps-format
 * example (test/fixtures/nocaps-example): CIDEr and SPICE per domain from a run's stored predictions, the check
 * against Table 3's CIDEr, the paper cells, the claims over seeds, rank agreement and the test submission file.
 * The notebook (notebooks/04-table4-nocaps-val-test.ipynb, test/notebooks.test.ts) runs them on Table 3's runs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { claimRows, rankClaim } from '../src/experiments/claims';

import { evaluateRun } from '../src/decode/evaluate-run';
import { evaluateByDomain, type CaptionCase } from '../src/metrics/evaluate';
import { leaveOneOutCider } from '../src/metrics/human';
import { loadCocoResults } from '../src/metrics/inputs';
import * as spice from '../src/metrics/spice';
import { tokenizeCaption } from '../src/text/ptb-tokenizer';
import { PACKAGE_ROOT } from '../src/paths';
import { RECIPES, type PretrainSource } from '../src/experiments/recipe';
import type { Scores } from '../src/experiments/runner';
import type { Table3Result } from '../src/experiments/cc12m/table3';
import {
  NO_PAPER_NUMBER,
  rankAgreement,
  splitScores,
  table4ClaimList,
  table4Differences,
  table4Paper,
  table4Rows,
  table4Scores,
  valChosenRow,
  writeTable4Submission,
  type Table4Result,
  type Table4Scores,
} from '../src/experiments/cc12m/table4';

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-table4-'));
after(() => fs.rmSync(temporary, { recursive: true, force: true }));

const FIXTURE = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'nocaps-example');
const { cases: example } = loadCocoResults(path.join(FIXTURE, 'results.json'), path.join(FIXTURE, 'annotations.json'));
// val: even ids, test: odd ids (both splits have every domain)
const valCases = example.filter((c) => Number(c.imageId) % 2 === 0);
const testCases = example.filter((c) => Number(c.imageId) % 2 === 1);

/** Each row's captions: the example's own results, the first or last reference, or one caption for all. */
const CANDIDATE: Record<PretrainSource, (c: CaptionCase) => string> = {
  none: () => 'a picture of a thing',
  cc3m: (c) => c.candidate,
  cc12m: (c) => c.references[c.references.length - 1]!,
  'cc3m+cc12m': (c) => c.references[0]!,
};
const ROWS = Object.keys(CANDIDATE) as PretrainSource[];

const cider = (domains: Partial<Record<string, Record<string, number>>> | undefined): Scores => {
  const at = (d: string) => 100 * (domains?.[d]?.CIDEr ?? NaN);
  return { in: at('in'), near: at('near'), out: at('out'), overall: at('overall') };
};

/** Runs under `runsRoot` as Table 3 leaves them: predictions/nocaps-{val,test}.json of each row's fine-tuning run. */
function writeRuns(runsRoot: string, options: { test?: boolean } = {}): Table3Result {
  const rows = ROWS.map((source, i) => {
    const run = `finetune-coco-from-${source.replace('+', '-')}-${i}`;
    const runDir = path.join(runsRoot, run);
    const split = (cases: CaptionCase[], name: string) =>
      evaluateRun(
        cases.map((c) => ({ ...c, candidate: CANDIDATE[source](c) })),
        { runDir, split: name, metrics: ['cider'], decoder: 'beam5' },
      );
    const val = split(valCases, 'nocaps-val');
    const testSplit = options.test === false ? undefined : split(testCases, 'nocaps-test');
    return {
      pretraining: source,
      finetuned: cider(val.domains),
      ...(testSplit ? { test: { finetuned: cider(testSplit.domains) } } : {}),
      selection: { candidates: [], step: 25 * (i + 1) },
      finetuneRun: run,
    };
  });
  return { config: { ...RECIPES.tiny, seed: 0 }, rows, inputs: {} as never, human: { val: { overall: NaN } }, pools: {}, seconds: 0 };
}

const runsRoot = path.join(temporary, 'runs');
const table3 = writeRuns(runsRoot);
const table4 = table4Scores(table3, runsRoot);

test("each row's stored val and test predictions scored again: Table 3's CIDEr, SPICE per domain", () => {
  assert.equal(table4.seed, 0);
  assert.deepEqual(
    table4.rows.map((r) => r.pretraining),
    ROWS,
  );
  for (const [i, row] of table4.rows.entries()) {
    assert.equal(row.run, table3.rows[i]!.finetuneRun);
    assert.equal(row.step, 25 * (i + 1), 'the step Table 3 chose on val');
    assert.deepEqual(row.images, { val: valCases.length, test: testCases.length });
    assert.ok(row.ciderGap < 1e-9, `${row.pretraining}: CIDEr as Table 3 reported it (gap ${row.ciderGap})`);
    for (const [split, cases] of [
      ['val', valCases],
      ['test', testCases],
    ] as const) {
      const scores: Table4Scores = row[split]!;
      const candidates = cases.map((c) => ({ ...c, candidate: CANDIDATE[row.pretraining](c) }));
      const byDomain = evaluateByDomain(candidates, { metrics: ['cider', 'spice'] });
      for (const d of ['in', 'near', 'out', 'overall'] as const) {
        const expected = byDomain[d === 'overall' ? 'entire' : d]!.corpus;
        assert.equal(scores[d].CIDEr, 100 * expected.CIDEr!);
        assert.equal(scores[d].SPICE, 100 * expected.SPICE!);
        assert.ok(scores[d].SPICE >= 0 && scores[d].SPICE <= 100);
      }
      // SPICE of a domain is the mean per-image F1 over that domain's images alone
      const out = candidates.filter((c) => c.domain === 'out');
      const refs = Object.fromEntries(out.map((c) => [c.imageId, c.references.map(tokenizeCaption)]));
      const cands = Object.fromEntries(out.map((c) => [c.imageId, tokenizeCaption(c.candidate)]));
      assert.ok(Math.abs(scores.out.SPICE - 100 * spice.score(refs, cands).SPICE!.corpus) < 1e-9);
    }
  }
  // a reference as the caption scores far above one caption for every image, on both metrics
  const by = (p: string) => table4.rows.find((r) => r.pretraining === p)!;
  assert.ok(by('cc3m+cc12m').test!.overall.SPICE > by('none').test!.overall.SPICE);
  assert.ok(by('cc3m+cc12m').test!.overall.CIDEr > by('none').test!.overall.CIDEr);
});

test("human: each image's first stored reference against the others, CIDEr as leaveOneOutCider gives it", () => {
  const human = table4.human!;
  for (const [split, cases] of [
    ['val', valCases],
    ['test', testCases],
  ] as const) {
    const expected = leaveOneOutCider(cases.map((c) => ({ references: c.references, domain: c.domain })));
    for (const d of ['in', 'near', 'out', 'overall'] as const) assert.ok(Math.abs(human[split]![d].CIDEr - expected[d]!) < 1e-9, `${split} ${d}`);
    const loo = cases.filter((c) => c.references.length > 1).map((c) => ({ ...c, candidate: c.references[0]!, references: c.references.slice(1) }));
    assert.equal(human[split]!.overall.SPICE, 100 * evaluateByDomain(loo, { metrics: ['spice'] }).entire!.corpus.SPICE!);
  }
});

test('splitScores refuses stored predictions without domains', () => {
  const runDir = path.join(temporary, 'no-domain');
  evaluateRun(
    valCases.slice(0, 3).map(({ domain: _d, ...c }) => c),
    { runDir, split: 'nocaps-val', metrics: ['cider'] },
  );
  assert.throws(() => splitScores(runDir, 'nocaps-val'), /no nocaps domain/);
});

test('no test split in Table 3: val only', () => {
  const root = path.join(temporary, 'val-only');
  const result = table4Scores(writeRuns(root, { test: false }), root);
  for (const row of result.rows) {
    assert.equal(row.test, undefined);
    assert.deepEqual(row.images, { val: valCases.length });
  }
  assert.ok(table4Rows([result]).every((r) => r.split === 'val'));
});

test("paper cells: each row's val overall CIDEr (Table 3's), nothing else", () => {
  assert.equal(table4Paper('cc12m', 'val', 'overall', 'CIDEr'), 87.4);
  assert.equal(table4Paper('none', 'val', 'overall', 'CIDEr'), 54.7);
  assert.equal(table4Paper('cc12m', 'test', 'overall', 'CIDEr'), undefined);
  assert.equal(table4Paper('cc12m', 'val', 'out', 'CIDEr'), undefined);
  assert.equal(table4Paper('cc12m', 'val', 'overall', 'SPICE'), undefined);
  const rows = table4Rows([table4]);
  assert.equal(rows.length, ROWS.length * 4 + 2, 'per row: val measured, val paper, test measured, test paper; then human val and test');
  assert.deepEqual(
    rows.slice(-2).map((r) => [r['pre-training'], r.split, r.source]),
    [
      ['human', 'val', 'references, leave-one-out'],
      ['human', 'test', 'references, leave-one-out'],
    ],
  );
  const paperVal = rows.find((r) => r['pre-training'] === 'cc3m+cc12m' && r.split === 'val' && r.source === 'paper')!;
  assert.equal(paperVal['overall CIDEr'], '90.2');
  assert.equal(paperVal['overall SPICE'], NO_PAPER_NUMBER);
  assert.equal(paperVal['out CIDEr'], NO_PAPER_NUMBER);
  const paperTest = rows.find((r) => r['pre-training'] === 'cc12m' && r.split === 'test' && r.source === 'paper')!;
  assert.ok(
    Object.entries(paperTest)
      .filter(([k]) => / (CIDEr|SPICE)$/.test(k))
      .every(([, v]) => v === NO_PAPER_NUMBER),
  );
  const measured = rows.find((r) => r['pre-training'] === 'cc12m' && r.split === 'test' && r.source === 'measured')!;
  assert.equal(measured['out SPICE'], table4.rows[2]!.test!.out.SPICE.toFixed(1));
  assert.deepEqual(Object.keys(measured), [
    'pre-training',
    'split',
    'source',
    ...['in', 'near', 'out', 'overall'].flatMap((d) => [`${d} CIDEr`, `${d} SPICE`]),
  ]);
  // two seeds: mean ± std
  const two = table4Rows([table4, { ...table4, seed: 1 }]);
  assert.match(two[0]!['overall CIDEr']!, /^\d+\.\d ± 0\.0$/);
  assert.equal(two[0]!.source, 'measured (2 seeds)');
});

test('rank agreement: pairs ordered alike, Kendall τ, verdict over seeds', () => {
  assert.deepEqual(rankAgreement([1, 2, 3, 4], [10, 20, 30, 40]), { pairs: 6, agreeing: 6, tau: 1 });
  assert.deepEqual(rankAgreement([1, 2, 3, 4], [40, 30, 20, 10]), { pairs: 6, agreeing: 0, tau: -1 });
  assert.deepEqual(rankAgreement([1, 2, 3], [1, 3, 2]), { pairs: 3, agreeing: 2, tau: 1 / 3 });
  assert.deepEqual(rankAgreement([1, 1, 2], [1, 2, 3]), { pairs: 3, agreeing: 2, tau: 2 / 3 }, 'a tie counts as neither');
  assert.throws(() => rankAgreement([1], [1, 2]), /1 values against 2/);
  const all = { pairs: 6, agreeing: 6, tau: 1 };
  const some = { pairs: 6, agreeing: 5, tau: 4 / 6 };
  const reversed = { pairs: 6, agreeing: 1, tau: -4 / 6 };
  assert.equal(rankClaim('r', 'p', [all, all]).verdict, 'holds');
  assert.equal(rankClaim('r', 'p', [all, some]).verdict, 'undecided', 'τ 1 and 0.67: t(1) interval [−1.3, +3.0]');
  assert.equal(rankClaim('r', 'p', [reversed, reversed]).verdict, 'contradicted');
  assert.equal(rankClaim('r', 'p', []).verdict, 'not measured');
});

/** A seed's Table 4 from CIDEr in (= near), out and overall and one SPICE figure per row (val = test). */
function synthetic(seed: number, values: Record<string, { out: number; in: number; overall: number; spice: number }>): Table4Result {
  const scores = (v: { out: number; in: number; overall: number; spice: number }): Table4Scores => ({
    in: { CIDEr: v.in, SPICE: v.spice },
    near: { CIDEr: v.in, SPICE: v.spice },
    out: { CIDEr: v.out, SPICE: v.spice },
    overall: { CIDEr: v.overall, SPICE: v.spice },
  });
  return {
    seed,
    rows: Object.entries(values).map(([label, v]) => ({
      pretraining: label as PretrainSource,
      run: label,
      val: scores(v),
      test: scores(v),
      images: { val: 1, test: 1 },
      ciderGap: 0,
    })),
  };
}

test('claims: verdicts from the per-seed differences, paper column from paper-numbers.json', () => {
  // CC12M ahead of CC3M, most of all out of domain, on every seed; SPICE in CIDEr's order on seeds 0 and 2 only (seed 2 = seed 0)
  const seeds = [
    synthetic(0, {
      none: { in: 10, out: 5, overall: 8, spice: 5 },
      cc3m: { in: 20, out: 10, overall: 15, spice: 10 },
      cc12m: { in: 22, out: 20, overall: 21, spice: 15 },
      'cc3m+cc12m': { in: 23, out: 21, overall: 22, spice: 16 },
    }),
    synthetic(1, {
      none: { in: 10, out: 5, overall: 8, spice: 5 },
      cc3m: { in: 20, out: 10, overall: 15, spice: 17 },
      cc12m: { in: 21, out: 18, overall: 19, spice: 15 },
      'cc3m+cc12m': { in: 20, out: 17, overall: 18, spice: 14 },
    }),
    synthetic(2, {
      none: { in: 10, out: 5, overall: 8, spice: 5 },
      cc3m: { in: 20, out: 10, overall: 15, spice: 10 },
      cc12m: { in: 22, out: 20, overall: 21, spice: 15 },
      'cc3m+cc12m': { in: 23, out: 21, overall: 22, spice: 16 },
    }),
  ];
  assert.deepEqual(table4Differences(seeds, 'cc12m', 'cc3m', 'test'), [6, 4, 6]);
  assert.deepEqual(table4Differences(seeds, 'cc12m', 'cc3m', 'test', 'out', 'SPICE'), [5, -2, 5]);
  const claims = claimRows(table4ClaimList(seeds));
  const verdict = (start: string) => {
    const c = claims.find((x) => x.claim.startsWith(start));
    assert.ok(c, start);
    return c;
  };
  assert.equal(verdict('test: CC12M beats CC3M (overall CIDEr)').here, 'holds');
  assert.equal(verdict('test: CC12M beats CC3M (overall CIDEr)')['measured (per seed)'], '+6.0, +4.0, +6.0');
  assert.match(verdict('test: CC12M beats CC3M (overall CIDEr)').paper, /87\.4 vs 73\.2.*test cells not in paper-numbers\.json/);
  assert.equal(verdict('test: CC12M beats CC3M out of domain').here, 'holds');
  assert.equal(verdict("test: CC12M's gain over CC3M is largest out of domain").here, 'holds');
  assert.equal(verdict('test: CC3M+CC12M beats CC12M').here, 'undecided', '+1, −1, +1');
  assert.equal(verdict('test: pre-training on CC12M beats none').here, 'holds');
  assert.equal(verdict('test: CC12M beats CC3M (overall SPICE)').here, 'undecided', '+5, −2, +5');
  assert.match(verdict('test: CC12M beats CC3M (overall SPICE)').paper, /no SPICE in paper-numbers\.json/);
  const spiceRank = verdict('test: SPICE ranks the rows as CIDEr does (overall)');
  assert.equal(spiceRank.here, 'undecided', 'τ 1, 0.33, 1');
  assert.equal(spiceRank['measured (per seed)'], '6/6 pairs, τ 1.00; 4/6 pairs, τ 0.33; 6/6 pairs, τ 1.00');
  assert.equal(verdict('test ranks the rows as val does').here, 'holds');
  for (const c of claims) assert.ok(['holds', 'undecided'].includes(c.here), c.claim);
});

test('the submission: integer ids, the stored test captions of the row chosen on val, checked and scored', () => {
  const best = valChosenRow(table3);
  assert.ok(['cc12m', 'cc3m+cc12m'].includes(best.pretraining), 'a row whose captions are references');
  assert.ok(table3.rows.every((r) => r.finetuned.overall <= best.finetuned.overall));
  // the test split's annotations (nocaps format): the odd-numbered images of the example
  const all = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'annotations.json'), 'utf8')) as {
    images: { id: number }[];
    annotations: { image_id: number }[];
  };
  const annotations = path.join(temporary, 'nocaps_test.json');
  fs.writeFileSync(
    annotations,
    JSON.stringify({ images: all.images.filter((i) => i.id % 2 === 1), annotations: all.annotations.filter((a) => a.image_id % 2 === 1) }),
  );
  const file = path.join(temporary, 'submission', 'nocaps-test.json');
  const written = writeTable4Submission(table3, runsRoot, best.pretraining, file, annotations);
  assert.equal(written.images, testCases.length);
  assert.equal(written.run, best.finetuneRun);
  assert.equal(written.checkpoint, undefined, 'these runs keep no checkpoints');
  const submission = JSON.parse(fs.readFileSync(file, 'utf8')) as { image_id: unknown; caption: string }[];
  assert.equal(submission.length, testCases.length);
  for (const [i, entry] of submission.entries()) {
    assert.deepEqual(Object.keys(entry), ['image_id', 'caption']);
    assert.ok(Number.isInteger(entry.image_id));
    assert.equal(entry.image_id, Number(testCases[i]!.imageId));
    assert.equal(entry.caption, CANDIDATE[best.pretraining](testCases[i]!));
  }
  // scored against the local test references as `cckit eval` would: Table 3's test CIDEr
  for (const d of ['in', 'near', 'out', 'overall'] as const) assert.ok(Math.abs(written.rescored[d] - best.test!.finetuned[d]) < 1e-9, d);
  // an annotation file with an image the run never captioned: refused
  const more = path.join(temporary, 'nocaps_test_more.json');
  fs.writeFileSync(
    more,
    JSON.stringify({ images: [...all.images.filter((i) => i.id % 2 === 1), { id: 100000 }], annotations: all.annotations.filter((a) => a.image_id % 2 === 1) }),
  );
  assert.throws(() => writeTable4Submission(table3, runsRoot, best.pretraining, path.join(temporary, 'x.json'), more), /1 nocaps image\(s\) have no caption/);
  assert.throws(() => writeTable4Submission({ ...table3, rows: [] }, runsRoot, 'cc12m', file, annotations), /no cc12m row/);
});
