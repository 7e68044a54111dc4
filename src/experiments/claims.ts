/**
 * The papers' claims as every table checks them: one verdict vocabulary, the rules that compute a verdict from
 * the numbers, the claims table's columns, a one-line summary and a forest plot. A verdict's words come from
 * its numbers only.
 *
 * A claim is "A beats B" (or "A is at least B") measured as per-seed differences A − B, so > 0 is the claim's
 * way; a claim over several compared pairs per seed (CC3M Tables 4–7) takes each seed's mean pair, a ranking claim
 * (Table 4) each seed's Kendall τ. Every one is decided by `decide`, its margin and direction from the claims registry
 * (src/experiments/claims-registry.ts).
 */
import { seedsInterval, type SeedEvidence } from '../metrics/bootstrap';
import { studentTQuantile } from '../metrics/student-t';
import { claimMargin, registeredClaim } from './claims-registry';

// ------------------------------------------------------------------ the verdict rule (issue #43)

/** What a claim's interval over seeds and images decides (`decide`). */
export const DECISIONS = ['holds', 'contradicted', 'no difference', 'undecided', 'not testable', 'not measured'] as const;
export type Decision = (typeof DECISIONS)[number];

/** A claim decided: its verdict and the numbers it was computed from. */
export interface Decided {
  verdict: Decision;
  /** Mean over seeds of the difference (> 0 the claim's way), and its 95% interval (`seedsInterval`). */
  estimate: number;
  low: number;
  high: number;
  level: number;
  seeds: number;
  /** How the interval was made: t over the seeds, or one seed's image bootstrap. */
  method?: 't over seeds' | 'images of one seed';
  /** The margin a difference must stay inside to be "no difference" (stated per metric in advance). */
  margin: number;
  /** P(A > B): the share of seeds on which the difference goes the claim's way (a tie counts half). */
  pAhead: number;
  /** Whether the verdict goes the claim's way: holds, or no difference for an "A ≥ B" claim; undefined when undecided or unmeasured. */
  supports?: boolean;
  /** Undecided: the smallest true effect this design detects with 80% power at this spread. */
  detectable?: number;
  /** Undecided, over seeds: about how many seeds would decide it at this estimate and spread. */
  seedsToDecide?: number;
  /** Why it is not testable or not measured. */
  reason?: string;
}

/**
 * **The verdict rule.** A claim "A beats B" (`atLeast`: "A is at least B") is measured as a difference A − B on each
 * seed, > 0 the claim's way. Its interval is the 95% interval of the mean over seeds (`seedsInterval`: Student's t
 * over the seeds, each seed a world with its own evaluation images, so their spread holds both the training and the
 * image noise; one seed: its image bootstrap). Then:
 * - **holds**: the interval lies above 0;
 * - **contradicted**: it lies below 0;
 * - **no difference**: it lies inside ± `margin` (stated per metric before the runs): A and B are alike, which is
 *   the claim holding for an "A ≥ B" claim and not for "A > B" (a margin of 0 admits only [0, 0]: a tie on every seed);
 * - **undecided**: otherwise, with the smallest effect the design detects and about how many seeds would decide it;
 * - **not testable** (`notTestable`: what is compared is too degenerate to compare) and **not measured** (a number
 *   is missing, or one seed without per-image scores: nothing shows its noise).
 * Holds and contradicted come before no difference: an interval above 0 but inside the margin holds. More seeds
 * can only narrow the interval (t over seeds), so a true effect is decided as seeds are added.
 */
export function decide(seeds: readonly SeedEvidence[], options: { margin: number; atLeast?: boolean; seed: number; resamples?: number }): Decided {
  const { margin } = options;
  const n = seeds.length;
  const pAhead = n === 0 ? NaN : seeds.reduce((sum, s) => sum + (s.estimate > 0 ? 1 : s.estimate === 0 ? 0.5 : 0), 0) / n;
  const base = { seeds: n, margin, pAhead, level: 0.95 };
  const unmeasured = (reason: string): Decided => ({ verdict: 'not measured', estimate: NaN, low: NaN, high: NaN, ...base, reason });
  if (n === 0) return unmeasured('no seeds');
  if (seeds.some((s) => !Number.isFinite(s.estimate))) return unmeasured('a seed has no difference');
  if (n === 1 && !seeds[0]!.images && !seeds[0]!.interval) return unmeasured('one seed without per-image scores: no interval');
  const { estimate, low, high, method } = seedsInterval(seeds, { seed: options.seed, resamples: options.resamples ?? 1000, level: base.level });
  if (!Number.isFinite(low) || !Number.isFinite(high)) return { ...unmeasured('a resample has no value'), estimate };
  const numbers = { estimate, low, high, ...base, method };
  if (low > 0) return { verdict: 'holds', ...numbers, supports: true };
  if (high < 0) return { verdict: 'contradicted', ...numbers, supports: false };
  // with margin 0 only an exact tie on every seed is inside it (a count the claim wants at 0, and at 0 on every seed)
  if (low >= -margin && high <= margin) return { verdict: 'no difference', ...numbers, supports: options.atLeast === true };
  // what separates the estimate from a decision: 0 (holds / contradicted), or what is left of the margin (no difference)
  const room = Math.max(Math.abs(estimate), margin - Math.abs(estimate));
  const halfWidth = (high - low) / 2;
  if (n === 1) return { verdict: 'undecided', ...numbers, detectable: (1 + 0.841621 / 1.959964) * halfWidth };
  const sd = (halfWidth * Math.sqrt(n)) / studentTQuantile(0.975, n - 1);
  const detectable = ((studentTQuantile(0.975, n - 1) + studentTQuantile(0.8, n - 1)) * sd) / Math.sqrt(n);
  return { verdict: 'undecided', ...numbers, detectable, seedsToDecide: seedsToReach(room, sd, n) };
}

/** The fewest seeds (more than `n`) at which the t half-width at spread `sd` falls below `room`; Infinity past a million. */
function seedsToReach(room: number, sd: number, n: number): number {
  const halfWidth = (m: number) => (studentTQuantile(0.975, m - 1) * sd) / Math.sqrt(m);
  if (!(room > 0)) return Infinity;
  // the half-width falls as seeds are added: double until below the room, then halve the bracket
  let low = n;
  let high = n + 1;
  while (halfWidth(high) >= room) {
    if (high > 1_000_000) return Infinity;
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (halfWidth(mid) < room) high = mid;
    else low = mid;
  }
  return high;
}

/** A claim its caller cannot test (what it compares is too degenerate), with the reason. */
/** A claim its caller cannot test (what it compares is too degenerate), with the reason. */
export function notTestable(reason: string, seeds: number, margin: number): Decided {
  return { verdict: 'not testable', estimate: NaN, low: NaN, high: NaN, level: 0.95, seeds, margin, pAhead: NaN, reason };
}

/** The verdict words (`decide`'s); a claims table's "here" column holds one. */
export type Verdict = Decision;
export const VERDICTS: readonly Verdict[] = DECISIONS;

/** Text of a cell the paper-numbers file has no number for. */
export const NO_PAPER_NUMBER = 'n/a';

/** The bootstrap seed of one-seed image intervals that `decide` draws itself (fixed, so a verdict is reproducible). */
const DECIDE_SEED = 43;

/** A per-seed interval of a difference A − B (the 95% bootstrap interval over that seed's images). */
export interface Interval {
  low: number;
  high: number;
  /** The difference on the observed data, as the interval's source computed it (a check against `differences`). */
  estimate?: number;
}

/** How far two scorings order the same rows alike: over every pair of rows, how many both put the same way round. */
export interface RankAgreement {
  pairs: number;
  agreeing: number;
  /** Kendall's τ-a: (agreeing − disagreeing) / pairs (a tie on either side counts as neither). */
  tau: number;
}

/** Do `x` and `y` (one value per row, same order) rank the rows alike? */
export function rankAgreement(x: readonly number[], y: readonly number[]): RankAgreement {
  if (x.length !== y.length) throw new Error(`rankAgreement: ${x.length} values against ${y.length}`);
  let pairs = 0;
  let agreeing = 0;
  let disagreeing = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      pairs++;
      const s = Math.sign(x[i]! - x[j]!) * Math.sign(y[i]! - y[j]!);
      if (s > 0) agreeing++;
      else if (s < 0) disagreeing++;
    }
  return { pairs, agreeing, tau: pairs === 0 ? NaN : (agreeing - disagreeing) / pairs };
}

const signed = (x: number): string => (Number.isFinite(x) ? (x >= 0 ? '+' : '') + x.toFixed(1) : '—');

/** "+5.0, -2.0, —": per-seed values with their sign, one decimal; — where not measured. */
export function signedValues(values: readonly number[]): string {
  return values.map(signed).join(', ');
}

/** "+3.1 [+0.4, +5.9]; -1.0 (no interval)": per-seed values, each with its interval (or the lack of one). */
export function signedValuesWithIntervals(values: readonly number[], intervals: readonly (Interval | undefined)[]): string {
  return values.map((x, i) => `${signed(x)} ${intervals[i] ? `[${signed(intervals[i].low)}, ${signed(intervals[i].high)}]` : '(no interval)'}`).join('; ');
}

/** A claim with its numbers: what the claims table shows and the forest plot draws. */
export interface Claim {
  claim: string;
  /** The registry's id (src/experiments/claims-registry.ts), where the claim's text is registered. */
  id?: string;
  /** What the paper says or shows (its numbers, or NO_PAPER_NUMBER and why). */
  paper: string;
  /** Per-seed differences, > 0 the claim's way. */
  differences: number[];
  /** Per-seed intervals of the differences (a paired bootstrap over images), where measured. */
  intervals?: (Interval | undefined)[];
  /** The verdict of the one rule, `decide`, and the numbers it rests on. */
  decided: Decided;
  verdict: Verdict;
  /** Text before the differences in the table ("out gain − COCO gain: "). */
  measuredAs?: string;
  /** The table's text instead of the differences (a ranking claim: its pairs and τ per seed). */
  measured?: string;
  /** Extra leading columns of the table row ({ table: 'Table 10' }). */
  columns?: Record<string, string>;
}

/** The margin and direction of a claim text from the registry; unregistered texts: no margin, "A > B". */
function registered(text: string, atLeast: boolean | undefined): { id?: string; margin: number; atLeast: boolean } {
  const entry = registeredClaim(text);
  if (!entry) return { margin: 0, atLeast: atLeast === true };
  return { id: entry.id, margin: claimMargin(entry), atLeast: entry.direction === 'A ≥ B' };
}

/** A claim decided by `decide` over per-seed evidence, its margin and direction from the registry. */
function decidedClaim(text: string, paper: string, differences: number[], evidence: SeedEvidence[], options: { atLeast?: boolean } = {}): Claim {
  const { id, margin, atLeast } = registered(text, options.atLeast);
  const decided = decide(evidence, { margin, atLeast, seed: DECIDE_SEED });
  return { claim: text, ...(id ? { id } : {}), paper, differences, decided, verdict: decided.verdict };
}

/**
 * A claim "A − B > 0" (or ≥ 0) over seeds, decided by `decide`: its interval is Student's t over the seeds'
 * differences, or, with one seed, that seed's bootstrap interval over images (`intervals`). The margin and the
 * direction come from the claims registry when the text is registered there (`atLeast` serves unregistered texts).
 */
export function claimOver(
  claim: string,
  paper: string,
  differences: number[],
  options: { atLeast?: boolean; measuredAs?: string; columns?: Record<string, string>; intervals?: readonly (Interval | undefined)[] } = {},
): Claim {
  const intervals = options.intervals?.some((i) => i !== undefined) ? options.intervals : undefined;
  const evidence = differences.map((estimate, k): SeedEvidence => {
    const interval = intervals?.[k];
    return interval ? { estimate, interval } : { estimate };
  });
  return {
    ...decidedClaim(claim, paper, differences, evidence, options),
    ...(intervals ? { intervals: [...intervals] } : {}),
    ...(options.measuredAs ? { measuredAs: options.measuredAs } : {}),
    ...(options.columns ? { columns: options.columns } : {}),
  };
}

/**
 * A ranking claim over seeds ("SPICE ranks the rows as CIDEr does"): Kendall's τ per seed, decided by `decide` as a
 * difference from 0 (τ > 0: ranked alike more often than not; margin 0, so never "no difference").
 */
export function rankClaim(claim: string, paper: string, agreement: readonly RankAgreement[]): Claim {
  const taus = agreement.map((a) => a.tau);
  const decided = decidedClaim(
    claim,
    paper,
    taus,
    taus.map((estimate) => ({ estimate })),
  );
  return { ...decided, measured: agreement.map((a) => `${a.agreeing}/${a.pairs} pairs, τ ${a.tau.toFixed(2)}`).join('; ') };
}

/**
 * A claim over several compared pairs per seed (CC3M Tables 4–7: each model and feature pairing), all signed so > 0
 * is the claim's way: each seed's estimate is the mean over its testable pairs, decided over seeds by `decide`;
 * "not testable" when no pair of any seed is.
 */
export function pairsClaim(claim: string, paper: string, pairs: readonly { seed: number; difference: number; testable: boolean }[]): Claim {
  const testable = pairs.filter((p) => p.testable);
  const seeds = [...new Set(testable.map((p) => p.seed))].sort((a, b) => a - b);
  const means = seeds.map((s) => {
    const ds = testable.filter((p) => p.seed === s).map((p) => p.difference);
    return ds.reduce((sum, d) => sum + d, 0) / ds.length;
  });
  if (pairs.length > 0 && testable.length === 0) {
    const { id, margin } = registered(claim, undefined);
    const decided = notTestable('no compared pair writes enough distinct captions', new Set(pairs.map((p) => p.seed)).size, margin);
    return { claim, ...(id ? { id } : {}), paper, differences: [], decided, verdict: decided.verdict };
  }
  return decidedClaim(
    claim,
    paper,
    means,
    means.map((estimate) => ({ estimate })),
  );
}

const fixed = (x: number, digits = 1): string => (Number.isFinite(x) ? (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(digits) : '—');

/** "+5.4 [+2.1, +8.7]": a decided claim's mean and interval; "—" where it has none. */
export function intervalText(d: Decided, digits = 1): string {
  if (!Number.isFinite(d.estimate)) return '—';
  return Number.isFinite(d.low) ? `${fixed(d.estimate, digits)} [${fixed(d.low, digits)}, ${fixed(d.high, digits)}]` : fixed(d.estimate, digits);
}

/** What would decide an undecided claim: the smallest effect this design detects, and about how many seeds. */
export function toDecideText(d: Decided, digits = 1): string {
  if (d.verdict !== 'undecided') return d.reason ?? '';
  const parts: string[] = [];
  if (d.detectable !== undefined && Number.isFinite(d.detectable)) parts.push(`detects ≥ ${Math.abs(d.detectable).toFixed(digits)}`);
  if (d.seedsToDecide !== undefined) parts.push(Number.isFinite(d.seedsToDecide) ? `~${d.seedsToDecide} seeds` : 'no seed count would');
  return parts.join('; ');
}

/** The claims table row: claim, paper, the per-seed differences, the mean and its 95% interval, the verdict ("here"). */
export interface ClaimRow {
  claim: string;
  paper: string;
  'measured (per seed)': string;
  'mean [95% interval]': string;
  here: Verdict;
}

export function claimRows(claims: readonly Claim[]): (ClaimRow & Record<string, string>)[] {
  return claims.map((c) => ({
    ...c.columns,
    claim: c.claim,
    paper: c.paper,
    'measured (per seed)':
      c.measured ?? `${c.measuredAs ?? ''}${c.intervals ? signedValuesWithIntervals(c.differences, c.intervals) : signedValues(c.differences)}`,
    'mean [95% interval]': intervalText(c.decided, c.measured ? 2 : 1),
    here: c.verdict,
    ...(claims.some((x) => x.verdict === 'undecided' || x.verdict === 'not testable' || x.verdict === 'not measured')
      ? { 'what would decide it': toDecideText(c.decided, c.measured ? 2 : 1) }
      : {}),
  }));
}

/** "11 claims over 3 seeds: 5 hold, 1 contradicted, 2 no difference, 3 undecided." — only the verdicts that occur. */
export function claimsSummary(verdicts: readonly Verdict[], seeds: number): string {
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
  const words: Record<Verdict, string> = {
    holds: count('holds') === 1 ? 'holds' : 'hold',
    contradicted: 'contradicted',
    'no difference': 'no difference',
    undecided: 'undecided',
    'not testable': 'not testable',
    'not measured': 'not measured',
  };
  const parts = VERDICTS.filter((v) => count(v) > 0 || v === 'holds').map((v) => `${count(v)} ${words[v]}`);
  return `${verdicts.length} claim${verdicts.length === 1 ? '' : 's'} over ${seeds} seed${seeds === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}

const VERDICT_COLOURS: Record<Verdict, string> = {
  holds: '#2a9d4b',
  contradicted: '#c0392b',
  'no difference': '#5b8def',
  undecided: '#c9a227',
  'not testable': '#8e6bbf',
  'not measured': '#888888',
};

/**
 * A forest plot of claims: one row per claim, its mean with the 95% interval the verdict rests on (`decide`) as a
 * bar, each seed's difference an open point, zero marked, the claim's way to the right; colours by verdict.
 */
export function claimsFigure(claims: readonly Claim[], options: { title?: string; unit?: string } = {}): { data: object[]; layout: object } {
  const rows = claims.map((c, i) => ({ ...c, y: claims.length - i }));
  const round = (x: number) => (Number.isFinite(x) ? Number(x.toFixed(2)) : null);
  const data: object[] = [];
  for (const verdict of VERDICTS) {
    const group = rows.filter((r) => r.verdict === verdict);
    if (group.length === 0) continue;
    const reach = (r: (typeof group)[number], side: 'low' | 'high') => {
      const d = r.decided;
      const v = side === 'high' ? d.high - d.estimate : d.estimate - d.low;
      return Number.isFinite(v) ? Number(Math.max(0, v).toFixed(2)) : 0;
    };
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: `${verdict} (mean, 95% interval)`,
      x: group.map((r) => round(r.decided.estimate)),
      y: group.map((r) => r.y),
      error_x: { type: 'data', symmetric: false, array: group.map((r) => reach(r, 'high')), arrayminus: group.map((r) => reach(r, 'low')), visible: true },
      marker: { symbol: 'diamond', size: 11, color: VERDICT_COLOURS[verdict] },
      text: group.map((r) => r.claim),
      hovertemplate: '%{text}<br>mean %{x}<extra></extra>',
    });
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: `${verdict}: each seed`,
      showlegend: false,
      x: group.flatMap((r) => r.differences.map(round)),
      y: group.flatMap((r) => r.differences.map(() => r.y)),
      marker: { symbol: 'circle-open', size: 7, color: VERDICT_COLOURS[verdict] },
      hoverinfo: 'x',
    });
  }
  return {
    data,
    layout: {
      title: { text: options.title ?? 'The claims: mean difference over seeds with its 95% interval (the claim’s way to the right of 0)' },
      xaxis: { title: { text: `difference A − B${options.unit ? ` (${options.unit})` : ''}` }, zeroline: true, zerolinewidth: 2, zerolinecolor: '#444' },
      yaxis: {
        tickmode: 'array',
        tickvals: rows.map((r) => r.y),
        ticktext: rows.map((r) => (r.claim.length > 60 ? `${r.claim.slice(0, 58)}…` : r.claim)),
        automargin: true,
        range: [0.4, claims.length + 0.6],
      },
      annotations: [
        { xref: 'x', yref: 'paper', x: 0, y: 1.02, text: 'the claim’s way →', showarrow: false, xanchor: 'left', font: { size: 11, color: '#444' } },
      ],
      height: Math.max(260, 60 + 34 * claims.length),
      margin: { l: 20, r: 20, t: 60, b: 50 },
    },
  };
}
