/**
 * CC12M Tables 6 and 10's report (the runs: tables6-10.ts): Table 10's and Table 6's rows over seeds beside the
 * paper's numbers, their claims, Table 10's figure, and the line saying what was reduced from the paper's setting.
 */
import { describeDecoder } from '../../decode';
import { paperNumbers } from '../../report/paper';
import type { Recipe } from '../recipe';
import type { ResultRow } from '../runner';
import { formatSpread, spread } from '../seeds';
import { seedMeanBar } from '../figures';
import { claimOver, claimRows, NO_PAPER_NUMBER, type Claim, type ClaimRow } from '../claims';
import { narrativesDecode, PAPER_NARRATIVES_MAX_LEN, TABLE6_METRICS, type NarrativesResult, type Table6Row } from './tables6-10';

export { NO_PAPER_NUMBER };

/** The paper's Table 10 nocaps-val overall CIDEr of a row (none: Table 3's no-pre-training row). */
export function table10Paper(label: string): string {
  const cc12m = paperNumbers().cc12m;
  const t10 = cc12m.table10_nocaps_val_overall_cider_by_pretraining_source as Record<string, number> | undefined;
  const key = label === 'narratives' ? 'localized_narratives_oid' : label;
  if (t10?.[key] !== undefined) return String(t10[key]);
  const t3 = cc12m.table3_nocaps_val_overall_cider.finetuned_on_coco[label];
  return t3 !== undefined ? `${t3} (Table 3)` : NO_PAPER_NUMBER;
}

const rowOf = (r: NarrativesResult, label: string) => r.table10.find((x) => x.label === label);

/** Table 10: nocaps-val CIDEr (×100) per domain, test overall, zero-shot overall, mean ± std over seeds; the paper's overall. */
export function table10Rows(perSeed: readonly NarrativesResult[]): Record<string, string>[] {
  const labels = [...new Set(perSeed.flatMap((r) => r.table10.map((x) => x.label)))];
  const over = (label: string, pick: (x: ResultRow) => number | undefined) => formatSpread(spread(perSeed.map((r) => pick(rowOf(r, label)!) ?? NaN)));
  return labels.map((label) => ({
    'pre-training': label,
    'pre-training pairs': label === 'none' ? '0' : String(perSeed[0]!.pools[label] ?? '—'),
    'pre-training steps': label === 'none' ? '0' : String(label === 'narratives' ? perSeed[0]!.plan.pretrainSteps : '(Table 3)'),
    in: over(label, (x) => x.finetuned.in),
    near: over(label, (x) => x.finetuned.near),
    out: over(label, (x) => x.finetuned.out),
    overall: over(label, (x) => x.finetuned.overall),
    'test overall': over(label, (x) => x.test?.finetuned.overall),
    'zero-shot overall': label === 'none' ? '—' : over(label, (x) => x.zeroShot?.overall),
    'paper overall': table10Paper(label),
  }));
}

/** Table 6: metrics (×100) on the held-out narratives, mean ± std over seeds; the paper's (n/a: not in paper-numbers.json). */
export function table6Rows(perSeed: readonly NarrativesResult[]): Record<string, string>[] {
  const inits = [...new Set(perSeed.flatMap((r) => r.table6.map((x) => x.init)))];
  const over = (init: string, pick: (x: Table6Row) => number | undefined) =>
    formatSpread(spread(perSeed.map((r) => pick(r.table6.find((x) => x.init === init)!) ?? NaN)));
  return inits.map((init) => ({
    'pre-training': init,
    ...Object.fromEntries(TABLE6_METRICS.map((m) => [m, over(init, (x) => x.scores[m])])),
    'object recall %': over(init, (x) => (x.recall === undefined ? undefined : 100 * x.recall)),
    'CHAIR_s %': over(init, (x) => (x.chairS === undefined ? undefined : 100 * x.chairS)),
    'tokens / caption': over(init, (x) => x.tokens),
    'reference tokens / caption': over(init, (x) => x.referenceTokens),
    'paper CIDEr': NO_PAPER_NUMBER,
  }));
}

export type NarrativesClaim = ClaimRow & { table: string };

/**
 * The claims, each a per-seed difference judged by `verdictOver`. Table 10 (nocaps val overall CIDEr):
 * narratives as pre-training beat none, trail CC3M, trail CC12M. Table 6 (held-out narratives CIDEr):
 * CC3M and CC12M pre-training beat none; CC12M beats CC3M.
 */
export function narrativesClaimList(perSeed: readonly NarrativesResult[]): Claim[] {
  const overall = (r: NarrativesResult, label: string) => rowOf(r, label)?.finetuned.overall ?? NaN;
  const cider = (r: NarrativesResult, init: string) => r.table6.find((x) => x.init === init)?.scores.CIDEr ?? NaN;
  const t10 = (a: string, b: string, claim: string) =>
    claimOver(
      claim,
      `${table10Paper(a)} vs ${table10Paper(b)}`,
      perSeed.map((r) => overall(r, a) - overall(r, b)),
      { columns: { table: 'Table 10' } },
    );
  const t6 = (a: string, b: string, claim: string) =>
    claimOver(
      claim,
      `${NO_PAPER_NUMBER} (no Table 6 number in paper-numbers.json)`,
      perSeed.map((r) => cider(r, a) - cider(r, b)),
      { columns: { table: 'Table 6' } },
    );
  const claims: Claim[] = [
    t10('narratives', 'none', 'narratives as pre-training beat no pre-training on nocaps (overall CIDEr)'),
    t10('cc3m', 'narratives', 'CC3M beats narratives as pre-training on nocaps'),
    t10('cc12m', 'narratives', 'CC12M beats narratives as pre-training on nocaps'),
  ];
  const inits = new Set(perSeed.flatMap((r) => r.table6.map((x) => x.init)));
  if (inits.has('none') && inits.has('cc3m')) claims.push(t6('cc3m', 'none', 'pre-training on CC3M helps captioning narratives (CIDEr)'));
  if (inits.has('none') && inits.has('cc12m')) claims.push(t6('cc12m', 'none', 'pre-training on CC12M helps captioning narratives (CIDEr)'));
  if (inits.has('cc3m') && inits.has('cc12m')) claims.push(t6('cc12m', 'cc3m', 'CC12M pre-training beats CC3M pre-training on narratives (CIDEr)'));
  return claims;
}

/** The claims table of Tables 6 and 10. */
export function narrativesClaims(perSeed: readonly NarrativesResult[]): NarrativesClaim[] {
  return claimRows(narrativesClaimList(perSeed)).map((row) => ({ ...row, table: row.table ?? '' }));
}

/** A plotly figure: Table 10's nocaps-val overall CIDEr per pre-training source, measured (mean ± std) beside the paper's. */
export function table10Figure(perSeed: readonly NarrativesResult[]): { data: object[]; layout: object } {
  const labels = [...new Set(perSeed.flatMap((r) => r.table10.map((x) => x.label)))];
  const measured = labels.map((l) => spread(perSeed.map((r) => rowOf(r, l)?.finetuned.overall ?? NaN)));
  const paper = labels.map((l) => parseFloat(table10Paper(l)));
  return {
    data: [
      seedMeanBar({ name: 'measured (world)', style: { marker: { color: '#1f77b4' } }, x: labels, spreads: measured, seeds: perSeed.length }),
      { type: 'bar', name: 'paper', marker: { color: '#7f7f7f' }, x: labels, y: paper.map((p) => (Number.isFinite(p) ? p : null)) },
    ],
    layout: {
      title: { text: 'CC12M Table 10: nocaps val overall CIDEr by pre-training source (fine-tuned on COCO)' },
      barmode: 'group',
      xaxis: { title: { text: 'pre-training data' } },
      yaxis: { title: { text: 'CIDEr ×100' } },
      height: 360,
    },
  };
}

/** One line of what was reduced from the paper's setting, for the notebook. */
export function describePlan(result: NarrativesResult, recipe: Recipe): string {
  const n = result.narratives;
  const plan = recipe.narratives;
  return (
    `narratives: ${n.images} images (${n.train} train / ${n.test} held out for Table 6); Table 10's narratives row pre-trains ` +
    `${plan.pretrainSteps} steps (Table 3's rows: ${recipe.pretrain.steps}); Table 6 trains ${plan.captioning.steps} steps ` +
    `(batch ${plan.captioning.batchSize}); caption length cap ${n.tokenCap} tokens (paper: ${PAPER_NARRATIVES_MAX_LEN}; ` +
    `${n.cut} of ${n.images} narratives are longer, up to ${n.longest}, and lose their tail); Table 6 decoder: ${describeDecoder(narrativesDecode(recipe))}`
  );
}
