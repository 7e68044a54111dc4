/**
 * CC12M Table 11: pre-training on CC12M with masked language modelling (MLM) at several masking
 * rates against plain image captioning (IC), each fine-tuned on COCO and scored on nocaps val.
 * The IC row is Table 3's `cc12m` row (same label, same runs). No zero-shot evaluation.
 */
import { paperNumbers } from '../../report/paper';
import type { AblationSection, Recipe } from '../recipe';
import { scoreRows } from '../report';
import type { ExperimentOptions } from '../options';
import { ExperimentResult, runExperiment, Variant } from '../runner';
import { claimOver, type Claim } from '../claims';
import { differences, seedRowsWithPaper } from '../seeds';
import { seedIntervals, withPerImage, type WithPerImage } from './per-image';

/** Table 11's rows with their per-image CIDEr-D (for the claims' bootstrap intervals). */
export type Table11Result = WithPerImage<ExperimentResult>;

/** IC, then MLM at each of the recipe's masking rates (`ablations.maskingRates`). */
export function table11Variants(ablations: Pick<AblationSection, 'maskingRates'>): Variant[] {
  return [
    { label: 'cc12m', sources: ['cc12m'] }, // IC, = Table 3's CC12M row
    ...ablations.maskingRates.map((rate) => ({ label: `mlm@${rate}`, sources: ['cc12m' as const], objectives: { mlm: { weight: 1, rate } } })),
  ];
}

/** Rows labelled `IC (cc12m)`, `mlm@<rate>`, with their per-image CIDEr-D from the stored captions. */
export async function runTable11(recipe: Recipe, options: ExperimentOptions): Promise<Table11Result> {
  const result = await runExperiment({ ...recipe, zeroShot: false }, table11Variants(recipe.ablations), options, (l) => (l === 'cc12m' ? 'IC (cc12m)' : l));
  return withPerImage(result, options.runsRoot ?? 'runs');
}

/** The Table 11 comparison: CIDEr ×100 per domain; the paper's IC and best-MLM (at the highest rate) numbers. */
export function table11Rows(result: ExperimentResult): Record<string, string | number>[] {
  const paper = paperNumbers().cc12m.table11_masking;
  const mlm = result.rows.filter((r) => r.label.startsWith('mlm@'));
  const highest = mlm[mlm.length - 1];
  return scoreRows(result.rows, (l) =>
    l.startsWith('IC') ? String(paper.ic) : l === highest?.label ? `${paper.best_masked_lm_at_highest_rate} (best MLM, highest rate)` : '',
  );
}

/** Table 11 over seeds: CIDEr by domain (mean ± std) with the judge's figures, and the paper's numbers. */
export function table11SeedRows(perSeed: readonly ExperimentResult[]): Record<string, string | number>[] {
  return seedRowsWithPaper(perSeed, table11Rows);
}

/**
 * The paper's Table 11 claims: the best MLM rate beats IC, the highest rate beats every other rate, and (appendix
 * D.2) IC beats MLM at the lowest rate; each seed with its paired bootstrap interval over the nocaps-val images (the max / min over rates taken on every resample).
 */
export function table11ClaimList(perSeed: readonly Table11Result[]): Claim[] {
  const paper = paperNumbers().cc12m.table11_masking;
  const rows = perSeed.map((r) => r.rows);
  const mlm = (perSeed[0]?.rows ?? []).map((r) => r.label).filter((l) => l.startsWith('mlm@'));
  const highest = mlm[mlm.length - 1] ?? 'mlm@?';
  const seeds = perSeed.map((_, i) => i);
  const best = seeds.map((i) => Math.max(...mlm.map((l) => differences(rows, l, 'IC (cc12m)')[i]!)));
  const others = mlm.filter((l) => l !== highest);
  const highestLead = seeds.map((i) => (others.length ? Math.min(...others.map((l) => differences(rows, highest, l)[i]!)) : NaN));
  const bestIntervals = seedIntervals(perSeed, 'val', (score) => Math.max(...mlm.map((l) => score(l, 'overall') - score('IC (cc12m)', 'overall'))));
  const leadIntervals = others.length
    ? seedIntervals(perSeed, 'val', (score) => Math.min(...others.map((l) => score(highest, 'overall') - score(l, 'overall'))))
    : undefined;
  const lowest = mlm[0] ?? 'mlm@?';
  return [
    claimOver('the best MLM rate beats IC', `${paper.best_masked_lm_at_highest_rate} vs ${paper.ic}`, best, { intervals: bestIntervals }),
    claimOver(`the highest masking rate (${highest}) beats the other rates`, 'highest rate best', highestLead, {
      measuredAs: 'lead over the best other rate: ',
      ...(leadIntervals ? { intervals: leadIntervals } : {}),
    }),
    claimOver(`IC beats MLM at the lowest masking rate (${lowest})`, 'IC clearly better at low rates (appendix D.2)', differences(rows, 'IC (cc12m)', lowest), {
      intervals: seedIntervals(perSeed, 'val', (score) => score('IC (cc12m)', 'overall') - score(lowest, 'overall')),
    }),
  ];
}
