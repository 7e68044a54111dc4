/**
 * CC12M Fig. 6: pre-training on 25% / 50% / 100% of CC12M against all of CC3M, each fine-tuned on
 * COCO and scored on nocaps val. The subsamples are nested (the 25% sample is inside the 50% one)
 * and every variant trains for the same number of steps. The CC3M and 100% rows are Table 3's runs.
 * No zero-shot evaluation.
 */
import type { AblationSection, Recipe } from '../recipe';
import { scoreRows } from '../report';
import type { ExperimentOptions } from '../options';
import { ExperimentResult, runExperiment, Variant } from '../runner';
import { claimOver, type Claim } from '../claims';
import { differences, spreadRowsWithGrounding } from '../seeds';
import { seedIntervals, withPerImage, type WithPerImage } from './per-image';

/** Fig. 6's rows with their per-image CIDEr-D (for the claims' bootstrap intervals). */
export type Fig6Result = WithPerImage<ExperimentResult>;

/** CC3M, the recipe's fractions of CC12M (`ablations.cc12mFractions`), all of CC12M. */
export function fig6Variants(ablations: Pick<AblationSection, 'cc12mFractions'>): Variant[] {
  return [
    { label: 'cc3m', sources: ['cc3m'] }, // = Table 3's CC3M row
    ...ablations.cc12mFractions.map((f) => ({ label: `${f * 100}% cc12m`, sources: ['cc12m' as const], subsample: f })),
    { label: 'cc12m', sources: ['cc12m'] }, // 100%, = Table 3's CC12M row
  ];
}

/** Rows labelled `cc3m`, `25% cc12m`, `50% cc12m`, `100% cc12m`, with their per-image CIDEr-D from the stored captions. */
export async function runFig6(recipe: Recipe, options: ExperimentOptions): Promise<Fig6Result> {
  const result = await runExperiment({ ...recipe, zeroShot: false }, fig6Variants(recipe.ablations), options, (l) => (l === 'cc12m' ? '100% cc12m' : l));
  return withPerImage(result, options.runsRoot ?? 'runs');
}

/** Pre-training pairs of a row: the CC3M pool, or its fraction of the CC12M pool. */
export function fig6Pairs(result: ExperimentResult, label: string): number {
  return label === 'cc3m' ? result.pools.cc3m! : Math.round((parseFloat(label) / 100) * result.pools.cc12m!);
}

/** The Fig. 6 comparison: CIDEr ×100 per domain, pre-training pairs, what the paper says of each row. */
export function fig6Rows(result: ExperimentResult): Record<string, string | number>[] {
  return result.rows.map((r, i) => {
    const { paper: _paper, run: _run, ...scores } = scoreRows([r], () => '')[0]!;
    return {
      ...scores,
      'pre-training pairs': fig6Pairs(result, r.label),
      paper: i === 0 ? 'the level 25% of CC12M reaches' : r.label.startsWith('25%') ? 'reaches CC3M' : 'above CC3M',
      run: r.finetuneRun,
    };
  });
}

/** Fig. 6 over seeds: CIDEr by domain (mean ± std) with the judge's figures. */
export function fig6SeedRows(perSeed: readonly ExperimentResult[]): Record<string, string>[] {
  return spreadRowsWithGrounding(perSeed.map((r) => r.rows));
}

/**
 * Fig. 6's claims: 25% of CC12M reaches CC3M ("reaches": at most 1 CIDEr point below), 50% and 100% are above
 * CC3M, and more CC12M is better; each seed with its paired bootstrap interval over the nocaps-val images.
 */
export function fig6ClaimList(perSeed: readonly Fig6Result[]): Claim[] {
  const rows = perSeed.map((r) => r.rows);
  const labels = (perSeed[0]?.rows ?? []).map((r) => r.label);
  const at = (prefix: string) => labels.find((l) => l.startsWith(prefix)) ?? prefix;
  // A − B + shift over seeds, with each seed's interval of the same quantity
  const D = (a: string, b: string, shift = 0) => ({
    differences: differences(rows, a, b).map((d) => d + shift),
    intervals: seedIntervals(perSeed, 'val', (score) => score(a, 'overall') - score(b, 'overall') + shift),
  });
  const claim = (text: string, paperSays: string, m: ReturnType<typeof D>, measuredAs?: string) =>
    claimOver(text, paperSays, m.differences, { intervals: m.intervals, ...(measuredAs ? { measuredAs } : {}) });
  return [
    claim('25% of CC12M reaches the CC3M level (≥ CC3M − 1)', 'about equal', D(at('25%'), 'cc3m', 1), '25% − (CC3M − 1): '),
    claim('50% of CC12M is above CC3M', 'above', D(at('50%'), 'cc3m')),
    claim('100% of CC12M is above CC3M', 'above', D(at('100%'), 'cc3m')),
    claim('100% of CC12M is above 50%', 'more is better', D(at('100%'), at('50%'))),
    claim('50% of CC12M is above 25%', 'more is better', D(at('50%'), at('25%'))),
  ];
}
