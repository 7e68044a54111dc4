/**
 * The verdicts of `cckit world check` (world-check.ts measures): the measured values judged against each calibration
 * target of src/world/calibration.ts (its accepted range or rule), the check's result, and that result as a
 * plain-text table beside the papers' values.
 */
import type { CaptionStatistics } from '../data/stats';
import type { HumanScores } from '../metrics/human';
import { formatTable } from '../report/table';
import { CALIBRATION, CalibrationId, CalibrationTarget } from '../world/calibration';
import type { WorldPresetName } from '../world/splits';
import { poolRatio, type Pool, type Precision } from './world-stats';

export interface StatisticResult {
  id: CalibrationId;
  description: string;
  /** Measured values (keys depend on the statistic; all finite unless a pool is empty). */
  measured: Record<string, number>;
  /** The papers' values. */
  target: CalibrationTarget['paper'];
  /** The accepted range or rule, with its numbers. */
  accept: string;
  met: boolean;
  source: string;
  calibratedBy: string[];
  note?: string;
}

export interface WorldCheckMeasures {
  pairs: Record<Pool, number>;
  precision: Record<Pool, Precision>;
  personShare: Record<Pool, number>;
  tokens: Record<Pool, CaptionStatistics>;
  /** Token/type of the CC12M pool's first captions holding as many tokens as the whole CC3M pool (equal corpus size). */
  cc12mTokenTypeAtCc3mTokens?: number;
  rareWords: Record<Pool, Record<string, number>>;
  /** Out-of-domain concepts of nocaps val, and each pool's coverage at each k. */
  outConcepts: number;
  coverage: Record<Pool, Record<number, number>>;
  humanNocaps: HumanScores;
  humanCoco: HumanScores;
  /** The world's preset (targets that scale with it). */
  preset: WorldPresetName;
  /** Captions of the COCO-like training split. */
  cocoTrainCaptions: number;
  /** CC3M-like kept pairs whose URL is also in the CC12M-like pool. */
  sharedPairs: number;
  /** Word types seen at least 4 times: COCO-like training captions and the CC3M-like pool. */
  types: { coco: number; cc3m: number };
  /** Web alt-texts naming a person, and how many of their images show one. */
  personPresence: { named: number; present: number; share: number };
  /** COCO categories per COCO-like image (train and val; its non-COCO objects left out, as COCO counts). */
  cocoObjects: { images: number; mean: number; singleShare: number };
}

const num = (v: number | readonly number[] | undefined, what: string): number => {
  if (typeof v !== 'number') throw new Error(`calibration: ${what} is not a number`);
  return v;
};
const pair = (v: number | readonly number[] | undefined, what: string): readonly [number, number] => {
  if (!Array.isArray(v) || v.length !== 2) throw new Error(`calibration: ${what} is not a pair`);
  return [v[0] as number, v[1] as number];
};
const inRange = (x: number, min: number, max: number) => Number.isFinite(x) && x >= min && x <= max;
const fmt = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : String(x));

/** Judges measured values against the calibration targets: one result per target, in CALIBRATION's order. */
export function judge(m: WorldCheckMeasures, targets: readonly CalibrationTarget[] = CALIBRATION): StatisticResult[] {
  return targets.map((t): StatisticResult => {
    const a = t.accept;
    const base = { id: t.id, description: t.description, target: t.paper, source: t.source, calibratedBy: [...t.calibratedBy] };
    switch (t.id) {
      case 'pool-ratio': {
        const ratio = poolRatio(m.pairs.cc3m, m.pairs.cc12m);
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        return { ...base, measured: { cc3m: m.pairs.cc3m, cc12m: m.pairs.cc12m, ratio }, accept: `ratio in ${min}–${max}`, met: inRange(ratio, min, max) };
      }
      case 'caption-precision': {
        const tol = num(a.tolerance, 'tolerance');
        const [gMin, gMax] = pair(a.gap, 'gap');
        const p3 = m.precision.cc3m.precision;
        const p12 = m.precision.cc12m.precision;
        const gap = p3 - p12;
        const t3 = num(t.paper.cc3m, 'paper.cc3m');
        const t12 = num(t.paper.cc12m, 'paper.cc12m');
        const met = inRange(gap, gMin, gMax) && inRange(p3, t3 - tol, t3 + tol) && inRange(p12, t12 - tol, t12 + tol);
        return {
          ...base,
          measured: { cc3m: p3, cc12m: p12, gap },
          accept: `gap ${gMin}–${gMax}, each ±${tol}`,
          met,
          ...(m.precision.cc3m.unmatched + m.precision.cc12m.unmatched > 0
            ? { note: `${m.precision.cc3m.unmatched + m.precision.cc12m.unmatched} kept rows had no truth by URL` }
            : {}),
        };
      }
      case 'person-share': {
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        const share = m.personShare.cc12m;
        return { ...base, measured: { cc12m: share, cc3m: m.personShare.cc3m }, accept: `CC12M ${min}–${max}`, met: inRange(share, min, max) };
      }
      case 'caption-length-mean':
      case 'caption-length-std': {
        const key = t.id === 'caption-length-mean' ? 'lengthMean' : 'lengthStd';
        const minRatio = num(a.minRatio, 'minRatio');
        const v3 = m.tokens.cc3m[key];
        const v12 = m.tokens.cc12m[key];
        const ratio = v3 === 0 ? NaN : v12 / v3;
        return { ...base, measured: { cc3m: v3, cc12m: v12, ratio }, accept: `CC12M ≥ ${minRatio} × CC3M`, met: Number.isFinite(ratio) && ratio >= minRatio };
      }
      case 'token-type-ratio': {
        const v3 = m.tokens.cc3m.tokenTypeRatio;
        const v12 = m.tokens.cc12m.tokenTypeRatio;
        const equal = m.cc12mTokenTypeAtCc3mTokens ?? NaN;
        return {
          ...base,
          measured: { cc3m: v3, cc12m: v12, 'cc12m at cc3m size': equal },
          accept: 'CC12M < CC3M at equal tokens',
          met: equal < v3,
          note: "token/type grows with corpus size, so CC12M's first captions with as many tokens as all of CC3M are compared",
        };
      }
      case 'rare-words': {
        const minRatio = num(a.minRatio, 'minRatio');
        const measured: Record<string, number> = {};
        let met = true;
        for (const word of Object.keys(t.paper)) {
          const c3 = m.rareWords.cc3m[word] ?? 0;
          const c12 = m.rareWords.cc12m[word] ?? 0;
          measured[`${word}.cc3m`] = c3;
          measured[`${word}.cc12m`] = c12;
          if (c3 > 0) measured[`${word}.ratio`] = c12 / c3;
          if (!(c12 > c3) || (c3 > 0 && c12 / c3 < minRatio)) met = false;
        }
        const mentions = Object.keys(t.paper).reduce((sum, w) => sum + (m.rareWords.cc12m[w] ?? 0), 0);
        const note = mentions < 10 ? `only ${mentions} mentions in the CC12M pool: too few at this size to judge (use a larger preset)` : undefined;
        return { ...base, measured, accept: `CC12M > CC3M, ratio ≥ ${minRatio} where CC3M > 0`, met, ...(note ? { note } : {}) };
      }
      case 'nocaps-out-coverage': {
        const ks = Object.keys(m.coverage.cc12m).map(Number);
        const measured: Record<string, number> = { concepts: m.outConcepts };
        let met = ks.length > 0;
        for (const k of ks) {
          measured[`cc3m.k${k}`] = m.coverage.cc3m[k]!;
          measured[`cc12m.k${k}`] = m.coverage.cc12m[k]!;
          if (!(m.coverage.cc12m[k]! > m.coverage.cc3m[k]!)) met = false;
        }
        return { ...base, measured, accept: `CC12M > CC3M at k = ${ks.join(', ')}`, met };
      }
      case 'human-cider-nocaps':
      case 'human-cider-coco': {
        const scores = t.id === 'human-cider-nocaps' ? m.humanNocaps : m.humanCoco;
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        const measured: Record<string, number> = {};
        for (const d of ['in', 'near', 'out', 'overall']) if (scores[d] !== undefined) measured[d] = scores[d]!;
        for (const [d, v] of Object.entries(scores)) if (!(d in measured)) measured[d] = v;
        return { ...base, measured, accept: `${min}–${max}`, met: Object.values(measured).every((v) => inRange(v, min, max)) };
      }
      case 'pretrain-to-finetune': {
        const [min3, min12] = pair(a[m.preset], `accept.${m.preset}`);
        const r3 = m.pairs.cc3m / m.cocoTrainCaptions;
        const r12 = m.pairs.cc12m / m.cocoTrainCaptions;
        return {
          ...base,
          measured: { cc3m: r3, cc12m: r12, cocoCaptions: m.cocoTrainCaptions },
          accept: `${m.preset}: CC3M ≥ ${fmt(min3, 1)}×, CC12M ≥ ${fmt(min12, 1)}×`,
          met: r3 >= min3 && r12 >= min12,
        };
      }
      case 'pool-overlap': {
        const max = num(a.max, 'max');
        const share = m.pairs.cc3m === 0 ? NaN : m.sharedPairs / m.pairs.cc3m;
        return { ...base, measured: { share, shared: m.sharedPairs, cc3m: m.pairs.cc3m }, accept: `≤ ${max}`, met: inRange(share, 0, max) };
      }
      case 'coco-vocabulary': {
        const max = num(a.max, 'max');
        const ratio = m.types.cc3m === 0 ? NaN : m.types.coco / m.types.cc3m;
        return { ...base, measured: { coco: m.types.coco, cc3m: m.types.cc3m, ratio }, accept: `≤ ${max}`, met: inRange(ratio, 0, max) };
      }
      case 'person-presence': {
        const min = num(a.min, 'min');
        const { named, present, share } = m.personPresence;
        return { ...base, measured: { share, present, named }, accept: `≥ ${min}`, met: inRange(share, min, 1) };
      }
      case 'coco-objects-per-image': {
        const [min, max, maxSingle] = [num(a.min, 'min'), num(a.max, 'max'), num(a.maxSingleShare, 'maxSingleShare')];
        const { images, mean, singleShare } = m.cocoObjects;
        return {
          ...base,
          measured: { mean, singleShare, images },
          accept: `mean ${min}–${max}, one object ≤ ${maxSingle}`,
          met: inRange(mean, min, max) && inRange(singleShare, 0, maxSingle),
        };
      }
    }
  });
}

export interface WorldCheckResult {
  preset: string;
  seed: number;
  /** Each pool's kept.tsv and its pairs. */
  pools: Record<Pool, { file: string; pairs: number }>;
  statistics: StatisticResult[];
}

// ------------------------------------------------------------------ the table

function describeMeasured(s: StatisticResult): string {
  const m = s.measured;
  switch (s.id) {
    case 'pool-ratio':
      return `${fmt(m.ratio!, 2)} (${m.cc12m} / ${m.cc3m})`;
    case 'pretrain-to-finetune':
      return `cc3m ${fmt(m.cc3m!, 2)}×, cc12m ${fmt(m.cc12m!, 2)}× (of ${m.cocoCaptions} COCO-like captions)`;
    case 'pool-overlap':
      return `${fmt(m.share!)} (${m.shared} of ${m.cc3m})`;
    case 'coco-vocabulary':
      return `${fmt(m.ratio!, 2)} (${m.coco} / ${m.cc3m} types)`;
    case 'person-presence':
      return `${fmt(m.share!, 2)} (${m.present} of ${m.named})`;
    case 'coco-objects-per-image':
      return `${fmt(m.mean!, 2)} per image, ${fmt(m.singleShare!, 2)} with one (${m.images} images)`;
    case 'caption-precision':
      return `cc3m ${fmt(m.cc3m!)}, cc12m ${fmt(m.cc12m!)}, gap ${fmt(m.gap!)}`;
    case 'person-share':
      return `cc12m ${fmt(m.cc12m!)} (cc3m ${fmt(m.cc3m!)})`;
    case 'caption-length-mean':
    case 'caption-length-std':
      return `cc3m ${fmt(m.cc3m!, 1)}, cc12m ${fmt(m.cc12m!, 1)} (×${fmt(m.ratio!, 2)})`;
    case 'token-type-ratio':
      return `cc3m ${fmt(m.cc3m!, 1)}, cc12m ${fmt(m.cc12m!, 1)} (${fmt(m['cc12m at cc3m size']!, 1)} at CC3M's size)`;
    case 'rare-words': {
      const words = [...new Set(Object.keys(m).map((k) => k.split('.')[0]!))];
      return words.map((w) => `${w} ${m[`${w}.cc3m`]}→${m[`${w}.cc12m`]}${m[`${w}.ratio`] !== undefined ? ` (×${fmt(m[`${w}.ratio`]!, 1)})` : ''}`).join(', ');
    }
    case 'nocaps-out-coverage': {
      const ks = Object.keys(m)
        .filter((k) => k.startsWith('cc3m.k'))
        .map((k) => k.slice('cc3m.k'.length));
      return `${m.concepts} concepts; ` + ks.map((k) => `k=${k}: ${fmt(m[`cc3m.k${k}`]!, 2)} vs ${fmt(m[`cc12m.k${k}`]!, 2)}`).join(', ');
    }
    case 'human-cider-nocaps':
    case 'human-cider-coco':
      return Object.entries(m)
        .map(([d, v]) => `${d} ${fmt(v, 1)}`)
        .join(', ');
  }
}

function describeTarget(s: StatisticResult): string {
  const p = s.target;
  switch (s.id) {
    case 'pool-ratio':
      return fmt(p.ratio as number, 2);
    case 'rare-words':
      return Object.entries(p)
        .map(([w, v]) => {
          const [c3, c12] = v as readonly number[];
          return `${w} ${c3}→${c12}${c3! > 0 ? ` (×${fmt(c12! / c3!, 1)})` : ''}`;
        })
        .join(', ');
    case 'nocaps-out-coverage':
      return 'CC12M covers more';
    case 'pretrain-to-finetune':
      return `cc3m ${fmt(p.cc3m as number, 1)}×, cc12m ${fmt(p.cc12m as number, 1)}×`;
    case 'pool-overlap':
      return `~${fmt(p.share as number, 3)} (${p.sharedUrls} of ${p.cc3m})`;
    case 'coco-vocabulary':
      return `${fmt(p.ratio as number, 2)} (~${p.coco} / ~${p.conceptual})`;
    case 'person-presence':
      return `${p.present} of ${p.examples} examples`;
    case 'coco-objects-per-image':
      return `${p.perImage} per image, ~${p.singleShare} with one`;
    default:
      return Object.entries(p)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
  }
}

/** The check as a plain-text table: measured vs the papers' target, accepted range and verdict. */
export function formatWorldCheck(result: WorldCheckResult): string {
  const table = formatTable(
    ['statistic', 'measured', 'paper', 'accept', 'verdict'],
    result.statistics.map((s) => [s.id, describeMeasured(s), describeTarget(s), s.accept, s.met ? 'met' : 'MISSED']),
  );
  const notes = result.statistics.filter((s) => s.note).map((s) => `${s.id}: ${s.note}`);
  const met = result.statistics.filter((s) => s.met).length;
  return [
    `world ${result.preset} seed ${result.seed}: cc3m ${result.pools.cc3m.pairs} pairs, cc12m ${result.pools.cc12m.pairs} pairs kept`,
    '',
    table,
    '',
    `${met} of ${result.statistics.length} statistics met`,
    ...notes.map((n) => `note: ${n}`),
  ].join('\n');
}
