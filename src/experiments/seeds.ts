/**
 * Results over several seeds: each seed is its own world (web pool, COCO, nocaps) and its own
 * training initialisation, so the spread over seeds is what a difference between rows has to beat.
 * Claims are judged on every seed's difference, not on one run.
 */
import type { GroundingFiguresJson } from '../runs/layout';
import type { ExperimentResult, ResultRow, Scores } from './runner';

export const DOMAIN_KEYS = ['in', 'near', 'out', 'overall'] as const;

/** Mean, sample standard deviation (n − 1), extremes and the values themselves. */
export interface Spread {
  mean: number;
  std: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return { mean: NaN, std: NaN, min: NaN, max: NaN, values: [...values] };
  const mean = finite.reduce((s, v) => s + v, 0) / finite.length;
  const std = finite.length > 1 ? Math.sqrt(finite.reduce((s, v) => s + (v - mean) ** 2, 0) / (finite.length - 1)) : 0;
  return { mean, std, min: Math.min(...finite), max: Math.max(...finite), values: [...values] };
}

/** "83.2 ± 4.1" (mean ± sample std over seeds); — when not measured. */
export function formatSpread(s: Spread): string {
  if (!Number.isFinite(s.mean)) return '—';
  return s.values.length > 1 ? `${s.mean.toFixed(1)} ± ${s.std.toFixed(1)}` : s.mean.toFixed(1);
}

export { type Verdict } from './claims';

/** Runs `run` for each seed in turn (each seed's runs are cached, so a rerun only reads them). */
export async function overSeeds<T>(seeds: readonly number[], run: (seed: number) => Promise<T>, say?: (line: string) => void): Promise<T[]> {
  const results: T[] = [];
  for (const seed of seeds) {
    say?.(`seed ${seed} (${results.length + 1} of ${seeds.length})`);
    results.push(await run(seed));
  }
  return results;
}

/** What of a row to aggregate: the fine-tuned val scores by default. */
export type RowPick = (row: ResultRow) => Scores | undefined;

export const PICKS = {
  val: (r: ResultRow) => r.finetuned,
  test: (r: ResultRow) => r.test?.finetuned,
  zeroShot: (r: ResultRow) => r.zeroShot,
  zeroShotTest: (r: ResultRow) => r.test?.zeroShot,
} satisfies Record<string, RowPick>;

/** Per label and domain, the spread over seeds of the picked scores (rows matched by label). */
export function spreadByLabel(
  perSeed: readonly (readonly ResultRow[])[],
  pick: RowPick = PICKS.val,
): Map<string, Record<(typeof DOMAIN_KEYS)[number], Spread>> {
  const labels = [...new Set(perSeed.flatMap((rows) => rows.map((r) => r.label)))];
  const out = new Map<string, Record<(typeof DOMAIN_KEYS)[number], Spread>>();
  for (const label of labels) {
    const values = perSeed.map((rows) => pick(rows.find((r) => r.label === label)!) ?? undefined);
    out.set(label, Object.fromEntries(DOMAIN_KEYS.map((d) => [d, spread(values.map((v) => v?.[d] ?? NaN))])) as Record<(typeof DOMAIN_KEYS)[number], Spread>);
  }
  return out;
}

/** Per-seed differences of one picked domain score between two labelled rows. */
export function differences(
  perSeed: readonly (readonly ResultRow[])[],
  a: string,
  b: string,
  domain: (typeof DOMAIN_KEYS)[number] = 'overall',
  pick: RowPick = PICKS.val,
): number[] {
  return perSeed.map((rows) => {
    const ra = rows.find((r) => r.label === a);
    const rb = rows.find((r) => r.label === b);
    return (ra ? (pick(ra)?.[domain] ?? NaN) : NaN) - (rb ? (pick(rb)?.[domain] ?? NaN) : NaN);
  });
}

/** Table rows "label | in | near | out | overall" of mean ± std over seeds (one table per pick). */
export function spreadRows(perSeed: readonly (readonly ResultRow[])[], pick: RowPick = PICKS.val, labelHeader = 'variant'): Record<string, string>[] {
  return [...spreadByLabel(perSeed, pick)].map(([label, byDomain]) => ({
    [labelHeader]: label,
    ...Object.fromEntries(DOMAIN_KEYS.map((d) => [d, formatSpread(byDomain[d])])),
  }));
}

/** A grounding figure of a row (×100, by domain) as a pick: `recall`, `specificRecall`, `chairS`, … */
export function groundingPick(key: Exclude<keyof GroundingFiguresJson, 'captions'>, which: 'finetuned' | 'zeroShot' = 'finetuned'): RowPick {
  return (r) => {
    const g = r.grounding?.[which];
    if (!g) return undefined;
    const at = (d: 'in' | 'near' | 'out' | 'overall'): number => 100 * (g[d]?.[key] ?? NaN);
    return { in: at('in'), near: at('near'), out: at('out'), overall: at('overall') };
  };
}

/**
 * `spreadRows` (CIDEr by domain) plus the judge's figures beside each row (%, mean ± std): captions
 * naming a present object out of domain (recall), naming it by its own name, and CHAIR_s overall.
 */
export function spreadRowsWithGrounding(perSeed: readonly (readonly ResultRow[])[], labelHeader = 'variant'): Record<string, string>[] {
  const recall = spreadByLabel(perSeed, groundingPick('recall'));
  const byName = spreadByLabel(perSeed, groundingPick('specificRecall'));
  const chair = spreadByLabel(perSeed, groundingPick('chairS'));
  return spreadRows(perSeed, PICKS.val, labelHeader).map((row) => {
    const label = row[labelHeader]!;
    return {
      ...row,
      'recall out %': formatSpread(recall.get(label)!.out),
      'by name out %': formatSpread(byName.get(label)!.out),
      'CHAIR_s %': formatSpread(chair.get(label)!.overall),
    };
  });
}

/**
 * An ablation's table over seeds (`spreadRowsWithGrounding` of each seed's rows) with the paper's column of its
 * one-seed table (`paperRows`, row for row) beside.
 */
export function seedRowsWithPaper(
  perSeed: readonly ExperimentResult[],
  paperRows: (result: ExperimentResult) => readonly { paper?: string | number }[],
): Record<string, string | number>[] {
  const paper = perSeed[0] ? paperRows(perSeed[0]) : [];
  return spreadRowsWithGrounding(perSeed.map((r) => r.rows)).map((row, i) => ({ ...row, paper: paper[i]?.paper ?? '' }));
}
