/**
 * CC12M Table 12: pre-training objectives on CC12M — image captioning (IC) alone, IC plus masked
 * object classification (MOC) on the regions, IC plus vision-language matching (VLM) — each
 * fine-tuned on COCO (IC) and scored on nocaps val. The IC row is Table 3's `cc12m` row.
 * No zero-shot evaluation.
 */
import { paperNumbers } from '../../report/paper';
import type { AblationSection, Recipe } from '../recipe';
import { scoreRows } from '../report';
import type { ExperimentOptions } from '../options';
import { ExperimentResult, runExperiment, Variant } from '../runner';
import { claimOver, type Claim } from '../claims';
import { differences, seedRowsWithPaper } from '../seeds';
import { seedIntervals, withPerImage, type WithPerImage } from './per-image';

/** Table 12's rows with their per-image CIDEr-D (for the claims' bootstrap intervals). */
export type Table12Result = WithPerImage<ExperimentResult>;

const DISPLAY: Record<string, string> = { cc12m: 'IC (cc12m)', 'ic+moc': 'IC+MOC', 'ic+vlm': 'IC+VLM' };

/** IC, IC+MOC and IC+VLM with the recipe's objective settings (`ablations.objectives`). */
export function table12Variants(ablations: Pick<AblationSection, 'objectives'>): Variant[] {
  const o = ablations.objectives;
  return [
    { label: 'cc12m', sources: ['cc12m'] }, // IC, = Table 3's CC12M row
    { label: 'ic+moc', sources: ['cc12m'], objectives: { ic: 1, moc: o.moc } },
    { label: 'ic+vlm', sources: ['cc12m'], objectives: { ic: 1, vlm: o.vlm } },
  ];
}

/**
 * Rows labelled `IC (cc12m)`, `IC+MOC`, `IC+VLM` (MOC needs the recipe's features in `regions` mode), with their
 * per-image CIDEr-D from the stored captions.
 */
export async function runTable12(recipe: Recipe, options: ExperimentOptions): Promise<Table12Result> {
  const result = await runExperiment({ ...recipe, zeroShot: false }, table12Variants(recipe.ablations), options, (l) => DISPLAY[l] ?? l);
  return withPerImage(result, options.runsRoot ?? 'runs');
}

/** The Table 12 comparison: CIDEr ×100 per domain, the paper's overall beside. */
export function table12Rows(result: ExperimentResult): Record<string, string | number>[] {
  const paper = paperNumbers().cc12m.table12_objectives;
  const key: Record<string, string> = { 'IC (cc12m)': 'ic', 'IC+MOC': 'ic+moc', 'IC+VLM': 'ic+vlm' };
  return scoreRows(result.rows, (l) => (key[l] && paper[key[l]!] !== undefined ? String(paper[key[l]!]) : ''));
}

/** Table 12 over seeds: CIDEr by domain (mean ± std) with the judge's figures, and the paper's overall. */
export function table12SeedRows(perSeed: readonly ExperimentResult[]): Record<string, string | number>[] {
  return seedRowsWithPaper(perSeed, table12Rows);
}

/**
 * The paper's Table 12 claims: MOC helps IC, VLM does not; each seed with its paired bootstrap interval over the
 * nocaps-val images (none for results without per-image scores).
 */
export function table12ClaimList(perSeed: readonly Table12Result[]): Claim[] {
  const paper = paperNumbers().cc12m.table12_objectives;
  const rows = perSeed.map((r) => r.rows);
  const claim = (text: string, paperSays: string, a: string, b: string) =>
    claimOver(text, paperSays, differences(rows, a, b), {
      intervals: seedIntervals(perSeed, 'val', (score) => score(a, 'overall') - score(b, 'overall')),
    });
  return [
    claim('IC+MOC beats IC', `${paper['ic+moc']} vs ${paper.ic}`, 'IC+MOC', 'IC (cc12m)'),
    claim('IC+VLM does not beat IC (IC ahead)', `${paper.ic} vs ${paper['ic+vlm']}`, 'IC (cc12m)', 'IC+VLM'),
  ];
}
