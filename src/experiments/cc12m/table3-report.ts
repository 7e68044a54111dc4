/**
 * CC12M Table 3's report (the runs: table3.ts): the table of one result and over seeds, the ground-truth judge's
 * table, the data each stage drew, the learning-rate search beside the preset's rate, the claims with their
 * bootstrap intervals, the grounding note and the figure.
 */
import type { BootstrapInterval, DomainOrOverall } from '../../metrics/bootstrap';
import { paperNumbers } from '../../report/paper';
import { formatTable } from '../../report/table';
import { readEvalImages } from '../../train/data';
import { fmt } from '../report';
import type { ResultRow } from '../runner';
import { claimOver, type Claim } from '../claims';
import { differences, formatSpread, groundingPick, PICKS, spread, spreadByLabel, type RowPick, type Spread } from '../seeds';
import { seedIntervals, type RowScoreOnDraw } from './per-image';
import type { Table3Result } from './table3';

/**
 * Rows of the Table 3 comparison: nocaps-val CIDEr per domain at the checkpoint chosen on val,
 * nocaps-test at the same checkpoint (never used for a choice), zero-shot, the paper's overall
 * beside, and a last "human" row (leave-one-out CIDEr-D of the references).
 */
export function table3Rows(result: Table3Result): Record<string, string>[] {
  const paper = paperNumbers().cc12m.table3_nocaps_val_overall_cider;
  const rows: Record<string, string>[] = result.rows.map((row) => ({
    'pre-training': row.pretraining,
    in: fmt(row.finetuned.in),
    near: fmt(row.finetuned.near),
    out: fmt(row.finetuned.out),
    overall: fmt(row.finetuned.overall),
    'test out': fmt(row.test?.finetuned.out),
    'test overall': fmt(row.test?.finetuned.overall),
    'paper overall': fmt(paper.finetuned_on_coco[row.pretraining]),
    'zero-shot out': fmt(row.zeroShot?.out),
    'zero-shot overall': fmt(row.zeroShot?.overall),
    'paper zero-shot': fmt(paper.zero_shot[row.pretraining]),
    step: row.selection ? String(row.selection.step) : '',
  }));
  const h = result.human;
  rows.push({
    'pre-training': 'human',
    in: fmt(h.val.in),
    near: fmt(h.val.near),
    out: fmt(h.val.out),
    overall: fmt(h.val.overall),
    'test out': fmt(h.test?.out),
    'test overall': fmt(h.test?.overall),
    'paper overall': '',
    'zero-shot out': '',
    'zero-shot overall': '',
    'paper zero-shot': '',
    step: '',
  });
  return rows;
}

/** A share as a percentage with no decimals; — when not measured. */
const pct = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '—' : (100 * x).toFixed(0));

/**
 * The ground-truth judge beside Table 3 (world data only): per row, the share of nocaps-val captions
 * naming an object the image shows (recall, %; by its name, a synonym or a hypernym) by domain, the
 * out-of-domain share naming it by its own name or a synonym ("by name"), and the CHAIR rates (%):
 * captions with a hallucinated object (CHAIR_s) and hallucinated object mentions (CHAIR_i); the
 * same for zero-shot. Empty when the data carries no ground truth.
 */
export function table3GroundingRows(result: Table3Result): Record<string, string>[] {
  if (!result.rows.some((r) => r.grounding)) return [];
  return result.rows.map((row) => {
    const g = row.grounding?.finetuned;
    const z = row.grounding?.zeroShot;
    return {
      'pre-training': row.pretraining,
      'recall in': pct(g?.in?.recall),
      'recall near': pct(g?.near?.recall),
      'recall out': pct(g?.out?.recall),
      'recall overall': pct(g?.overall.recall),
      'by name out': pct(g?.out?.specificRecall),
      CHAIR_s: pct(g?.overall.chairS),
      CHAIR_i: pct(g?.overall.chairI),
      'zero-shot recall out': pct(z?.out?.recall),
      'zero-shot by name out': pct(z?.out?.specificRecall),
      'zero-shot CHAIR_s': pct(z?.overall.chairS),
    };
  });
}

function formatRecords(rows: Record<string, string>[]): string {
  const headers = Object.keys(rows[0] ?? { 'pre-training': '' });
  return formatTable(
    headers,
    rows.map((r) => headers.map((h) => r[h]!)),
  );
}

/** Table 3 as terminal text, then the judge's table when the data has ground truth. */
export function formatTable3(result: Table3Result): string {
  const grounding = table3GroundingRows(result);
  return (
    formatRecords(table3Rows(result)) +
    (grounding.length > 0 ? `\n\nGrounding (nocaps-like val, % of captions; judged against the world's ground truth)\n${formatRecords(grounding)}` : '')
  );
}

/** A Table 3 result's rows as ResultRows labelled by their pre-training data (for src/experiments/seeds.ts). */
export function table3ResultRows(result: Table3Result): ResultRow[] {
  return result.rows.map(({ pretraining, ...r }) => ({ label: pretraining, ...r }));
}

// ------------------------------------------------------------------ over seeds (notebook 03)

const TABLE3_DOMAINS = ['in', 'near', 'out', 'overall'] as const;

/** Each seed's rows under their labels (the seeds module's shape). */
export function table3PerSeed(perSeed: readonly Table3Result[]): ResultRow[][] {
  return perSeed.map(table3ResultRows);
}

/**
 * Table 3 over seeds: nocaps-like val CIDEr per domain (mean ± std), test out / overall at the same checkpoints,
 * zero-shot, the paper's numbers beside, the steps chosen per seed, and the human (leave-one-out) row.
 */
export function table3SeedRows(perSeed: readonly Table3Result[]): Record<string, string>[] {
  const paper = paperNumbers().cc12m.table3_nocaps_val_overall_cider;
  const rows = table3PerSeed(perSeed);
  const val = spreadByLabel(rows, PICKS.val);
  const test = spreadByLabel(rows, PICKS.test);
  const zero = spreadByLabel(rows, PICKS.zeroShot);
  const cell = (s: Spread | undefined) => (s ? formatSpread(s) : '—');
  const human = (split: 'val' | 'test', d: string) => formatSpread(spread(perSeed.map((r) => r.human[split]?.[d as 'overall'] ?? NaN)));
  const labels = perSeed[0]?.config.rows ?? [];
  return [
    ...labels.map((p) => ({
      'pre-training': p,
      ...Object.fromEntries(TABLE3_DOMAINS.map((d) => [d, cell(val.get(p)?.[d])])),
      'test out': cell(test.get(p)?.out),
      'test overall': cell(test.get(p)?.overall),
      'paper overall': String(paper.finetuned_on_coco[p] ?? '—'),
      'zero-shot out': cell(zero.get(p)?.out),
      'zero-shot overall': cell(zero.get(p)?.overall),
      'paper zero-shot': String((paper.zero_shot as Record<string, number | undefined>)[p] ?? '—'),
      'steps chosen': perSeed.map((r) => r.rows.find((x) => x.pretraining === p)?.selection?.step ?? '—').join(' / '),
    })),
    {
      'pre-training': 'human',
      ...Object.fromEntries(TABLE3_DOMAINS.map((d) => [d, human('val', d)])),
      'test out': human('test', 'out'),
      'test overall': human('test', 'overall'),
      'paper overall': '≈ 87 (nocaps)',
    },
  ];
}

/**
 * How much data each stage drew (issue #26: pre-training should not run out of unique pairs): per seed, each
 * pre-training pool's pairs, the pairs drawn (steps × batch) and the passes over the pool; then the COCO-like
 * captions and the passes each row's fine-tuning made up to its step chosen on val.
 */
export function table3DataRows(perSeed: readonly Table3Result[]): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  const count = (n: number) => n.toLocaleString('en-US');
  for (const result of perSeed) {
    const { pretrain, finetune } = result.config;
    const drawn = pretrain.steps * pretrain.batchSize;
    for (const row of result.rows) {
      if (row.pretraining === 'none') continue;
      const pairs = row.pretraining.split('+').reduce((n, pool) => n + (result.pools[pool] ?? NaN), 0);
      out.push({
        seed: String(result.config.seed),
        stage: 'pre-training',
        data: row.pretraining,
        'pairs or captions': count(pairs),
        steps: `${pretrain.steps} × ${pretrain.batchSize}`,
        drawn: count(drawn),
        passes: (drawn / pairs).toFixed(1),
      });
    }
    const captions = readEvalImages({ path: result.inputs.cocoTrain, imageRoot: result.inputs.imageRoot }).reduce((n, img) => n + img.references.length, 0);
    for (const row of result.rows) {
      const step = row.selection?.step ?? finetune.steps;
      out.push({
        seed: String(result.config.seed),
        stage: `fine-tuning (from ${row.pretraining}; step chosen on val)`,
        data: 'COCO-like train',
        'pairs or captions': count(captions),
        steps: `${step} × ${finetune.batchSize}`,
        drawn: count(step * finetune.batchSize),
        passes: ((step * finetune.batchSize) / captions).toFixed(1),
      });
    }
  }
  return out;
}

/** The ground-truth judge over seeds (% of captions, mean ± std): recall per domain, by name, CHAIR, zero-shot. */
export function table3JudgeRows(perSeed: readonly Table3Result[]): Record<string, string>[] {
  const rows = table3PerSeed(perSeed);
  const of = (key: 'recall' | 'specificRecall' | 'chairS' | 'chairI', which: 'finetuned' | 'zeroShot' = 'finetuned') =>
    spreadByLabel(rows, groundingPick(key, which));
  const recall = of('recall');
  const byName = of('specificRecall');
  const chairS = of('chairS');
  const chairI = of('chairI');
  const recallZs = of('recall', 'zeroShot');
  const byNameZs = of('specificRecall', 'zeroShot');
  const chairSZs = of('chairS', 'zeroShot');
  const cell = (s: Spread | undefined) => (s && Number.isFinite(s.mean) ? formatSpread(s) : '—');
  return (perSeed[0]?.config.rows ?? []).map((p) => ({
    'pre-training': p,
    ...Object.fromEntries(TABLE3_DOMAINS.map((d) => [`recall ${d}`, cell(recall.get(p)?.[d])])),
    'by name out': cell(byName.get(p)?.out),
    CHAIR_s: cell(chairS.get(p)?.overall),
    'CHAIR_s out': cell(chairS.get(p)?.out),
    CHAIR_i: cell(chairI.get(p)?.overall),
    'zero-shot recall out': cell(recallZs.get(p)?.out),
    'zero-shot by name out': cell(byNameZs.get(p)?.out),
    'zero-shot CHAIR_s': cell(chairSZs.get(p)?.overall),
  }));
}

/**
 * The same table with the fine-tuning learning rate searched on val (CC12M app. E.5) beside it with the preset's one
 * rate: per row, each seed's chosen (rate, step), val overall / out and test overall (mean ± std) both ways, and the
 * best val overall each rate of the grid reached. `fixed` and `searched` are the same seeds in the same order.
 */
export function table3RateRows(fixed: readonly Table3Result[], searched: readonly Table3Result[]): Record<string, string>[] {
  const [a, b] = [table3PerSeed(fixed), table3PerSeed(searched)];
  // each (runs, split) spread once, not once per cell
  const [aVal, bVal, aTest, bTest] = [spreadByLabel(a, PICKS.val), spreadByLabel(b, PICKS.val), spreadByLabel(a, PICKS.test), spreadByLabel(b, PICKS.test)];
  const cell = (spreads: ReturnType<typeof spreadByLabel>, label: string, d: DomainOrOverall) => formatSpread(spreads.get(label)?.[d] ?? spread([]));
  const rate = (lr: number | undefined) => (lr === undefined ? '—' : lr.toExponential(1));
  const grid = [...new Set(searched.flatMap((r) => r.rows.flatMap((x) => x.selection?.rates?.map((s) => s.lr) ?? [])))].sort((x, y) => x - y);
  return (searched[0]?.config.rows ?? []).map((p) => {
    const chosen = searched.map((r) => r.rows.find((x) => x.pretraining === p)?.selection);
    return {
      'pre-training': p,
      'rate, step chosen (per seed)': chosen.map((s) => `${rate(s?.lr)} @ ${s?.step ?? '—'}`).join(' / '),
      'val overall, preset rate': cell(aVal, p, 'overall'),
      'val overall, searched': cell(bVal, p, 'overall'),
      'val out, preset rate': cell(aVal, p, 'out'),
      'val out, searched': cell(bVal, p, 'out'),
      'test overall, preset rate': cell(aTest, p, 'overall'),
      'test overall, searched': cell(bTest, p, 'overall'),
      ...Object.fromEntries(
        grid.map((lr) => [`best val overall at ${rate(lr)}`, formatSpread(spread(chosen.map((s) => s?.rates?.find((x) => x.lr === lr)?.val.overall ?? NaN)))]),
      ),
    };
  });
}

/**
 * The paper's Table 3 claims, each with its per-seed differences, each seed's 95% paired bootstrap interval over
 * the nocaps images (where the result carries per-image scores) and the verdict computed from them: "holds" only
 * where every seed goes the claim's way and every seed's interval excludes zero on its side.
 */
export function table3ClaimList(perSeed: readonly Table3Result[]): Claim[] {
  const paper = paperNumbers().cc12m.table3_nocaps_val_overall_cider;
  const P = paper.finetuned_on_coco;
  const Z = paper.zero_shot as Record<string, number | undefined>;
  const rows = table3PerSeed(perSeed);
  type Domain = (typeof TABLE3_DOMAINS)[number];
  type Which = 'val' | 'test' | 'zeroShot';
  const picks: Record<Which, RowPick> = { val: PICKS.val, test: PICKS.test, zeroShot: PICKS.zeroShot };
  const splitOf = (which: Which) => (which === 'test' ? 'test' : 'val');
  const asRow = (which: Which) => (which === 'zeroShot' ? 'zeroShot' : 'finetuned');
  // a difference A − B with each seed's paired bootstrap interval over the images
  const D = (a: string, b: string, d: Domain = 'overall', which: Which = 'val') => ({
    differences: differences(rows, a, b, d, picks[which]),
    intervals: seedIntervals(perSeed, splitOf(which), (score) => score(a, d, asRow(which)) - score(b, d, asRow(which))),
  });
  // CC12M's gain over CC3M out of domain minus its larger gain in or near domain (> 0: largest out of domain);
  // bootstrapped as one statistic: the same resample of images for all six domain scores
  const outLead = (which: 'val' | 'test' = 'val') => {
    const [out, inside, near] = (['out', 'in', 'near'] as const).map((d) => D('cc12m', 'cc3m', d, which).differences);
    const gain = (score: RowScoreOnDraw, d: Domain) => score('cc12m', d) - score('cc3m', d);
    return {
      differences: out!.map((o, i) => o - Math.max(inside![i]!, near![i]!)),
      intervals: seedIntervals(perSeed, which, (score) => gain(score, 'out') - Math.max(gain(score, 'in'), gain(score, 'near'))),
      measuredAs: 'out gain − larger in/near gain: ',
    };
  };
  const fineVsZero = {
    differences: rows.map((r) => {
      const row = r.find((x) => x.label === 'cc12m');
      return row ? row.finetuned.overall - (row.zeroShot?.overall ?? NaN) : NaN;
    }),
    intervals: seedIntervals(perSeed, 'val', (score) => score('cc12m', 'overall') - score('cc12m', 'overall', 'zeroShot')),
  };
  const claim = (text: string, paperSays: string, m: { differences: number[]; intervals: (BootstrapInterval | undefined)[]; measuredAs?: string }) =>
    claimOver(text, paperSays, m.differences, { intervals: m.intervals, ...(m.measuredAs ? { measuredAs: m.measuredAs } : {}) });
  const valOnly = '(val only in the paper)';
  return [
    claim('pre-training on CC3M beats no pre-training', `${P.cc3m} vs ${P.none}`, D('cc3m', 'none')),
    claim('pre-training on CC12M beats no pre-training', `${P.cc12m} vs ${P.none}`, D('cc12m', 'none')),
    claim('CC12M beats CC3M (overall)', `${P.cc12m} vs ${P.cc3m}`, D('cc12m', 'cc3m')),
    claim('CC12M beats CC3M out of domain', 'the gain is mostly out-of-domain', D('cc12m', 'cc3m', 'out')),
    claim("CC12M's gain over CC3M is largest out of domain", 'stated in the text', outLead()),
    claim('CC3M+CC12M beats CC12M', `${P['cc3m+cc12m']} vs ${P.cc12m}`, D('cc3m+cc12m', 'cc12m')),
    claim('zero-shot, CC3M scores above CC12M', `${Z.cc3m} vs ${Z.cc12m}`, D('cc3m', 'cc12m', 'overall', 'zeroShot')),
    claim('fine-tuning on COCO beats zero-shot (CC12M)', `${P.cc12m} vs ${Z.cc12m}`, fineVsZero),
    claim('test: CC12M beats CC3M (overall)', valOnly, D('cc12m', 'cc3m', 'overall', 'test')),
    claim('test: CC12M beats CC3M out of domain', valOnly, D('cc12m', 'cc3m', 'out', 'test')),
    claim("test: CC12M's gain over CC3M is largest out of domain", valOnly, outLead('test')),
  ];
}

/**
 * Whether the out-of-domain CIDEr difference between the fine-tuned CC3M and CC12M models compares models that
 * name what they see: both must name an object the image shows in at least `minRecall`% of out-of-domain captions.
 */
export function table3GroundingNote(perSeed: readonly Table3Result[], minRecall = 25): string {
  const rows = table3PerSeed(perSeed);
  const recall = spreadByLabel(rows, groundingPick('recall'));
  const byName = spreadByLabel(rows, groundingPick('specificRecall'));
  const pair = ['cc3m', 'cc12m'];
  const out = (m: typeof recall, p: string) => m.get(p)?.out?.mean ?? NaN;
  const figures = pair.map((p) => `${p} ${out(recall, p).toFixed(0)}% (by its own name ${out(byName, p).toFixed(0)}%)`).join(', ');
  return pair.every((p) => out(recall, p) >= minRecall)
    ? `Out of domain, the fine-tuned CC3M and CC12M models name an object the image shows in ${figures} of captions: their out-of-domain CIDEr difference compares models that look at the image.`
    : `Out of domain, the fine-tuned CC3M and CC12M models name an object the image shows in only ${figures} of captions (below ${minRecall}%): their out-of-domain CIDEr difference is between models that mostly do not name what they see, and is not evidence either way.`;
}

/** nocaps-like val CIDEr after fine-tuning by pre-training data and domain: bars of the mean, ± std. */
export function table3Figure(perSeed: readonly Table3Result[]): { data: object[]; layout: object } {
  const val = spreadByLabel(table3PerSeed(perSeed), PICKS.val);
  return {
    data: (perSeed[0]?.config.rows ?? []).map((p) => ({
      type: 'bar',
      name: p,
      x: [...TABLE3_DOMAINS],
      y: TABLE3_DOMAINS.map((d) => Number((val.get(p)?.[d]?.mean ?? NaN).toFixed(1))),
      error_y: { type: 'data', array: TABLE3_DOMAINS.map((d) => Number((val.get(p)?.[d]?.std ?? 0).toFixed(1))), visible: true },
    })),
    layout: {
      title: { text: `nocaps-like val CIDEr after fine-tuning, by pre-training data (mean ± std over ${perSeed.length} seed${perSeed.length > 1 ? 's' : ''})` },
      barmode: 'group',
      xaxis: { title: { text: 'nocaps domain' } },
      yaxis: { title: { text: 'CIDEr ×100' } },
      height: 380,
    },
  };
}
