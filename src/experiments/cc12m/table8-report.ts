/**
 * CC12M Table 8's report (the runs: table8.ts): the recalls table over seeds beside the paper's numbers and a random
 * ranking's, the claims, the zero-shot comparison with ViLBERT and the figure.
 */
import { chanceRecall } from '../../metrics/retrieval';
import { paperNumbers } from '../../report/paper';
import { formatSpread, spread } from '../seeds';
import { seedMeanBar } from '../figures';
import { claimOver, NO_PAPER_NUMBER, type Claim } from '../claims';
import type { Table8Result, Table8Row } from './table8';

export const TABLE8_DIRECTIONS = ['imageToText', 'textToImage'] as const;
export type Table8Direction = (typeof TABLE8_DIRECTIONS)[number];
export const TABLE8_KS = ['R@1', 'R@5', 'R@10'] as const;
const DIRECTION_NAME: Record<Table8Direction, string> = { imageToText: 'image→text', textToImage: 'text→image' };

/** Text of a cell the paper-numbers file has no number for. */
export const TABLE8_NO_PAPER = NO_PAPER_NUMBER;

/**
 * The paper's number for a cell, from notebooks/paper-numbers.json; undefined where it has none. The
 * file holds the image-retrieval (text→image) R@1 of each fine-tuned row (the paper's test set is
 * Localized Narratives on Flickr30k) and the zero-shot R@1 of the CC3M-only model on Flickr30k.
 */
export function table8Paper(row: string, which: 'finetuned' | 'zeroShot', direction: Table8Direction, k: string): number | undefined {
  if (direction !== 'textToImage' || k !== 'R@1') return undefined;
  const t = paperNumbers().cc12m.table8_retrieval as
    { localized_narratives_flickr_R1?: Record<string, number>; flickr30k_zero_shot_R1?: Record<string, number> } | undefined;
  if (which === 'finetuned') return t?.localized_narratives_flickr_R1?.[row];
  return row === 'cc3m' ? t?.flickr30k_zero_shot_R1?.cc3m_only_model : undefined;
}

/** ViLBERT's zero-shot Flickr30k image-retrieval R@1 as the CC12M paper quotes it (undefined when the file lacks it). */
export function table8Vilbert(): number | undefined {
  const t = paperNumbers().cc12m.table8_retrieval as { flickr30k_zero_shot_R1?: Record<string, number> } | undefined;
  return t?.flickr30k_zero_shot_R1?.vilbert_reported;
}

const pick = (r: Table8Row | undefined, which: 'finetuned' | 'zeroShot', d: Table8Direction, k: (typeof TABLE8_KS)[number]): number =>
  r?.[which]?.[d][k] ?? NaN;

const rowsOf = (perSeed: readonly Table8Result[], label: string): (Table8Row | undefined)[] => perSeed.map((r) => r.rows.find((x) => x.pretraining === label));

/**
 * The comparison table: per row and setting (fine-tuned, zero-shot), Recall@1/5/10 ×100 in both
 * directions (mean ± std over seeds; one value with one seed), then the paper's text→image R@1 where
 * paper-numbers.json has it (n/a otherwise).
 */
export function table8Rows(perSeed: readonly Table8Result[]): Record<string, string>[] {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];
  const out: Record<string, string>[] = [];
  for (const which of ['finetuned', 'zeroShot'] as const)
    for (const label of labels) {
      const rows = rowsOf(perSeed, label);
      if (!rows.some((r) => r?.[which])) continue;
      const paper = table8Paper(label, which, 'textToImage', 'R@1');
      out.push({
        'pre-training': label,
        setting: which === 'finetuned' ? 'fine-tuned' : 'zero-shot',
        ...Object.fromEntries(
          TABLE8_DIRECTIONS.flatMap((d) => TABLE8_KS.map((k) => [`${DIRECTION_NAME[d]} ${k}`, formatSpread(spread(rows.map((r) => pick(r, which, d, k))))])),
        ),
        'paper text→image R@1': paper === undefined ? TABLE8_NO_PAPER : paper.toFixed(1),
      });
    }
  // what a random ranking scores on the same test set (Flickr30k's 1,000 images × 5 captions: R@1 0.1 both ways)
  const sizes = perSeed[0]?.sizes;
  if (sizes) {
    const chance = (d: Table8Direction, k: string) => chanceRecall(sizes.testImages, sizes.testCaptions, Number(k.slice(2)))[d].toFixed(1);
    out.push({
      'pre-training': 'chance',
      setting: `random ranking, ${sizes.testImages} images × ${(sizes.testCaptions / sizes.testImages).toFixed(0)} captions`,
      ...Object.fromEntries(TABLE8_DIRECTIONS.flatMap((d) => TABLE8_KS.map((k) => [`${DIRECTION_NAME[d]} ${k}`, chance(d, k)]))),
      'paper text→image R@1': TABLE8_NO_PAPER,
    });
  }
  return out;
}

/** Per seed, A − B of one setting, direction and K. */
export function table8Differences(
  perSeed: readonly Table8Result[],
  a: string,
  b: string,
  which: 'finetuned' | 'zeroShot' = 'finetuned',
  direction: Table8Direction = 'textToImage',
  k: (typeof TABLE8_KS)[number] = 'R@1',
): number[] {
  return perSeed.map((r) => {
    const ra = r.rows.find((x) => x.pretraining === a);
    const rb = r.rows.find((x) => x.pretraining === b);
    return pick(ra, which, direction, k) - pick(rb, which, direction, k);
  });
}

/**
 * Table 8's claims, verdicts computed over the seeds (seeds.ts: "holds" when the difference has the
 * claimed sign on every seed). R@1 is text→image (the paper's image retrieval), each claim also
 * checked image→text.
 */
export function table8ClaimList(perSeed: readonly Table8Result[]): Claim[] {
  const P = (row: string) => table8Paper(row, 'finetuned', 'textToImage', 'R@1');
  // paper-numbers.json holds text→image R@1 only: an image→text claim cites them as what the paper's claim rests on
  const p = (a: string, b: string, d: Table8Direction) => {
    const pa = P(a);
    const pb = P(b);
    if (pa === undefined || pb === undefined) return `${TABLE8_NO_PAPER} in paper-numbers.json`;
    const numbers = `${pa.toFixed(1)} vs ${pb.toFixed(1)}`;
    return d === 'textToImage' ? numbers : `${TABLE8_NO_PAPER} (the paper's claim: text→image ${numbers})`;
  };
  const out: Claim[] = [];
  const diff = (claim: string, paper: string, diffs: number[], atLeast = false): void => {
    out.push(claimOver(claim, paper, diffs, { atLeast }));
  };
  for (const d of TABLE8_DIRECTIONS) {
    const dir = DIRECTION_NAME[d];
    diff(`fine-tuned, ${dir} R@1: CC3M > none`, p('cc3m', 'none', d), table8Differences(perSeed, 'cc3m', 'none', 'finetuned', d));
    diff(`fine-tuned, ${dir} R@1: CC12M > CC3M`, p('cc12m', 'cc3m', d), table8Differences(perSeed, 'cc12m', 'cc3m', 'finetuned', d));
    diff(`fine-tuned, ${dir} R@1: CC3M+CC12M ≥ CC12M`, p('cc3m+cc12m', 'cc12m', d), table8Differences(perSeed, 'cc3m+cc12m', 'cc12m', 'finetuned', d), true);
  }
  const zs = table8Paper('cc3m', 'zeroShot', 'textToImage', 'R@1');
  diff(
    'zero-shot, text→image R@1: CC12M > CC3M',
    `${TABLE8_NO_PAPER}: paper-numbers.json has the CC3M model's zero-shot R@1 (${zs?.toFixed(1) ?? TABLE8_NO_PAPER}) only`,
    table8Differences(perSeed, 'cc12m', 'cc3m', 'zeroShot'),
  );
  const f3 = P('cc3m');
  diff(
    'fine-tuning helps the CC3M model (fine-tuned > zero-shot, text→image R@1)',
    `implied, on two test sets: ${f3?.toFixed(1) ?? TABLE8_NO_PAPER} fine-tuned (LocNar Flickr30k) vs ${zs?.toFixed(1) ?? TABLE8_NO_PAPER} zero-shot (Flickr30k)`,
    perSeed.map((r) => {
      const row = r.rows.find((x) => x.pretraining === 'cc3m');
      return pick(row, 'finetuned', 'textToImage', 'R@1') - pick(row, 'zeroShot', 'textToImage', 'R@1');
    }),
  );
  return out;
}

/**
 * The zero-shot comparison with ViLBERT: the paper's CC3M model (zero-shot Flickr30k image-retrieval
 * R@1) against ViLBERT's reported figure. The kit's own figure is on the world's Flickr-like test
 * images with a tiny model: not comparable with either, so it is shown, never judged against them.
 */
export function table8ZeroShotComparison(perSeed: readonly Table8Result[]): {
  paperCc3m?: number;
  vilbert?: number;
  paperHolds?: boolean;
  measured: string;
  measuredChance: number;
} {
  const paperCc3m = table8Paper('cc3m', 'zeroShot', 'textToImage', 'R@1');
  const vilbert = table8Vilbert();
  const measured = formatSpread(
    spread(
      perSeed.map((r) =>
        pick(
          r.rows.find((x) => x.pretraining === 'cc3m'),
          'zeroShot',
          'textToImage',
          'R@1',
        ),
      ),
    ),
  );
  const images = perSeed[0]?.sizes.testImages ?? NaN;
  return {
    ...(paperCc3m !== undefined ? { paperCc3m } : {}),
    ...(vilbert !== undefined ? { vilbert } : {}),
    ...(paperCc3m !== undefined && vilbert !== undefined ? { paperHolds: paperCc3m > vilbert } : {}),
    measured,
    measuredChance: 100 / images,
  };
}

/** A plotly figure (the shape src/notebook's show.plot takes). */
export interface Table8Figure {
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
}

/** Grouped bars: R@1/5/10 text→image (left) and image→text (right) per row, fine-tuned (solid) and zero-shot (hatched), mean ± std over seeds. */
export function table8Figure(perSeed: readonly Table8Result[]): Table8Figure {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];
  const palette = ['#7f7f7f', '#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
  const data: Record<string, unknown>[] = [];
  (['textToImage', 'imageToText'] as const).forEach((d, side) => {
    for (const which of ['finetuned', 'zeroShot'] as const)
      labels.forEach((label, i) => {
        const rows = rowsOf(perSeed, label);
        if (!rows.some((r) => r?.[which])) return;
        data.push(
          seedMeanBar({
            name: `${label}${which === 'zeroShot' ? ' (zero-shot)' : ''}`,
            style: {
              legendgroup: `${label}-${which}`,
              showlegend: side === 0,
              marker: { color: palette[i % palette.length], ...(which === 'zeroShot' ? { pattern: { shape: '/' }, opacity: 0.6 } : {}) },
            },
            x: TABLE8_KS,
            spreads: TABLE8_KS.map((k) => spread(rows.map((r) => pick(r, which, d, k)))),
            seeds: perSeed.length,
            axes: side === 1 ? { xaxis: 'x2', yaxis: 'y2' } : {},
          }),
        );
      });
  });
  return {
    data,
    layout: {
      title: { text: 'Retrieval on the Flickr-like test images: Recall@K by pre-training data (fine-tuned, and zero-shot hatched)' },
      barmode: 'group',
      grid: { rows: 1, columns: 2, pattern: 'independent' },
      xaxis: { title: { text: 'text→image (image retrieval)' }, domain: [0, 0.47] },
      yaxis: { title: { text: 'Recall ×100' }, range: [0, 100] },
      xaxis2: { title: { text: 'image→text (caption retrieval)' }, domain: [0.53, 1], anchor: 'y2' },
      yaxis2: { title: { text: 'Recall ×100' }, range: [0, 100], anchor: 'x2' },
      height: 400,
    },
  };
}
