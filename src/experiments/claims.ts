/**
 * The papers' claims as every table checks them: one verdict vocabulary, the rules that compute a verdict from
 * the numbers, the claims table's columns, a one-line summary and a forest plot. A verdict's words come from
 * its numbers only.
 *
 * A claim is "A beats B" (or "A is at least B") measured as per-seed differences A − B, so > 0 is the claim's
 * way; a claim over several compared pairs (CC3M Tables 4–7: each model and feature pairing) or over rankings
 * (Table 4) counts how many go the claim's way.
 */
import { seedsInterval, type SeedEvidence } from '../metrics/bootstrap';
import { studentTQuantile } from '../metrics/student-t';

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
 *   the claim holding for an "A ≥ B" claim and not for "A > B";
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
  if (n === 1 && !seeds[0]!.images) return unmeasured('one seed without per-image scores: no interval');
  const { estimate, low, high, method } = seedsInterval(seeds, { seed: options.seed, resamples: options.resamples ?? 1000, level: base.level });
  if (!Number.isFinite(low) || !Number.isFinite(high)) return { ...unmeasured('a resample has no value'), estimate };
  const numbers = { estimate, low, high, ...base, method };
  if (low > 0) return { verdict: 'holds', ...numbers, supports: true };
  if (high < 0) return { verdict: 'contradicted', ...numbers, supports: false };
  if (margin > 0 && low >= -margin && high <= margin) return { verdict: 'no difference', ...numbers, supports: options.atLeast === true };
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
export function notTestable(reason: string, seeds: number, margin: number): Decided {
  return { verdict: 'not testable', estimate: NaN, low: NaN, high: NaN, level: 0.95, seeds, margin, pAhead: NaN, reason };
}

// ------------------------------------------------------------------ the rules the tables use until they move to `decide`

/**
 * - holds: every seed (and every compared pair) goes the claim's way; where the claim carries per-seed
 *   intervals (a paired bootstrap over the evaluated images, src/metrics/bootstrap.ts), also every seed's
 *   interval excludes zero on the claim's side;
 * - does not hold: none does (with intervals: every seed against the claim and every interval excluding zero
 *   on the other side);
 * - within noise: the seeds of one comparison disagree in sign, or (with intervals) they agree but some seed's
 *   interval reaches zero;
 * - partly: several comparisons, some the claim's way on every seed and some not (the count says how many);
 * - not measured: a number is missing;
 * - not testable: measured, but every compared model is too degenerate for the comparison to mean anything
 *   (CC3M Tables 4–7: a captioner writing fewer distinct captions than `minDistinctShare` of the images).
 */
export type Verdict = 'holds' | 'within noise' | 'partly' | 'does not hold' | 'not measured' | 'not testable';

export const VERDICTS: readonly Verdict[] = ['holds', 'within noise', 'partly', 'does not hold', 'not measured', 'not testable'];

/** Text of a cell the paper-numbers file has no number for. */
export const NO_PAPER_NUMBER = 'n/a';

/**
 * A claim "A > B" over seeds, from the per-seed differences A − B: it holds when A is ahead on every seed, does
 * not hold when it is behind on every seed, and is within noise when the seeds disagree. `atLeast` reads the
 * claim as "A ≥ B" (a tie goes the claim's way). With one seed this is a single run's sign.
 */
export function verdictOver(differences: readonly number[], options: { atLeast?: boolean } = {}): Verdict {
  if (differences.length === 0 || differences.some((d) => !Number.isFinite(d))) return 'not measured';
  if (differences.every((d) => (options.atLeast ? d >= 0 : d > 0))) return 'holds';
  if (differences.every((d) => d < 0)) return 'does not hold';
  return 'within noise';
}

/** A per-seed interval of a difference A − B (e.g. the 95% bootstrap interval over images). */
export interface Interval {
  low: number;
  high: number;
  /** The difference on the observed data, as the interval's source computed it (a check against `differences`). */
  estimate?: number;
}

/**
 * A claim "A > B" over seeds from the per-seed differences A − B and each seed's interval of that difference:
 * it holds when A is ahead on every seed and every interval lies above zero, does not hold when A is behind on
 * every seed and every interval lies below zero, and is within noise otherwise (the seeds disagree, or some
 * seed's interval reaches zero). `atLeast` reads "A ≥ B": a tie, or an interval touching zero from above, goes
 * the claim's way. Not measured when a difference or a bound is missing, or the counts differ.
 */
export function verdictWithIntervals(differences: readonly number[], intervals: readonly Interval[], options: { atLeast?: boolean } = {}): Verdict {
  if (differences.length === 0 || differences.length !== intervals.length) return 'not measured';
  if (differences.some((d) => !Number.isFinite(d)) || intervals.some((i) => !Number.isFinite(i.low) || !Number.isFinite(i.high))) return 'not measured';
  const ahead = (x: number) => (options.atLeast ? x >= 0 : x > 0);
  if (differences.every(ahead) && intervals.every((i) => ahead(i.low))) return 'holds';
  if (differences.every((d) => d < 0) && intervals.every((i) => i.high < 0)) return 'does not hold';
  return 'within noise';
}

/**
 * A claim over several compared pairs on several seeds (all differences signed so > 0 is the claim's way): holds
 * when every one goes the claim's way, does not hold when none does (a tie is not the claim's way), partly otherwise.
 */
export function verdictOverPairs(differences: readonly number[]): Verdict {
  if (differences.length === 0 || differences.some((d) => !Number.isFinite(d))) return 'not measured';
  const ahead = differences.filter((d) => d > 0).length;
  return ahead === differences.length ? 'holds' : ahead === 0 ? 'does not hold' : 'partly';
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

/** A ranking claim over seeds: holds when every pair agrees on every seed, does not hold when τ ≤ 0 on every seed. */
export function rankVerdict(perSeed: readonly RankAgreement[]): Verdict {
  if (perSeed.length === 0 || perSeed.some((a) => !Number.isFinite(a.tau))) return 'not measured';
  if (perSeed.every((a) => a.agreeing === a.pairs)) return 'holds';
  if (perSeed.every((a) => a.tau <= 0)) return 'does not hold';
  return 'partly';
}

/** A ranking claim over seeds: the forest plot draws τ per seed (> 0: ranked alike more often than not). */
export function rankClaim(claim: string, paper: string, agreement: readonly RankAgreement[]): Claim {
  return {
    claim,
    paper,
    differences: agreement.map((a) => a.tau),
    verdict: rankVerdict(agreement),
    measured: agreement.map((a) => `${a.agreeing}/${a.pairs} pairs, τ ${a.tau.toFixed(2)}`).join('; '),
  };
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
  /** What the paper says or shows (its numbers, or NO_PAPER_NUMBER and why). */
  paper: string;
  /** Per-seed differences, > 0 the claim's way. */
  differences: number[];
  /**
   * Per-seed intervals of the differences (a paired bootstrap over images), where measured. The verdict uses
   * them only when every seed has one (`verdictWithIntervals`); otherwise it is the sign rule (`verdictOver`).
   */
  intervals?: (Interval | undefined)[];
  verdict: Verdict;
  /** Text before the differences in the table ("out gain − COCO gain: "). */
  measuredAs?: string;
  /** The table's text instead of the differences (a ranking claim: its pairs and τ per seed). */
  measured?: string;
  /** Extra leading columns of the table row ({ table: 'Table 10' }). */
  columns?: Record<string, string>;
}

/**
 * A claim "A − B > 0" (or ≥ 0) over seeds, its verdict computed from the differences, and from each seed's
 * interval when `intervals` gives one for every seed (the sign rule when some seed has none; the table then
 * says "(no interval)" beside it).
 */
export function claimOver(
  claim: string,
  paper: string,
  differences: number[],
  options: { atLeast?: boolean; measuredAs?: string; columns?: Record<string, string>; intervals?: readonly (Interval | undefined)[] } = {},
): Claim {
  // intervals that are all missing (results without per-image scores) are no intervals: the sign rule, as before
  const intervals = options.intervals?.some((i) => i !== undefined) ? options.intervals : undefined;
  const everySeed = intervals !== undefined && intervals.length === differences.length && intervals.every((i) => i !== undefined);
  return {
    claim,
    paper,
    differences,
    ...(intervals ? { intervals: [...intervals] } : {}),
    verdict: everySeed ? verdictWithIntervals(differences, intervals as Interval[], options) : verdictOver(differences, options),
    ...(options.measuredAs ? { measuredAs: options.measuredAs } : {}),
    ...(options.columns ? { columns: options.columns } : {}),
  };
}

/** The claims table row: claim, paper, the per-seed differences (with their intervals, where measured), the verdict ("here"). */
export interface ClaimRow {
  claim: string;
  paper: string;
  'measured (per seed)': string;
  here: Verdict;
}

export function claimRows(claims: readonly Claim[]): (ClaimRow & Record<string, string>)[] {
  return claims.map((c) => ({
    ...c.columns,
    claim: c.claim,
    paper: c.paper,
    'measured (per seed)':
      c.measured ?? `${c.measuredAs ?? ''}${c.intervals ? signedValuesWithIntervals(c.differences, c.intervals) : signedValues(c.differences)}`,
    here: c.verdict,
  }));
}

/**
 * "5 of 11 claims hold on every seed; 3 within noise; 3 do not hold." — only the verdicts that occur after "hold".
 * "Within noise": the seeds disagree, or (where the claims carry bootstrap intervals) some seed's interval reaches zero.
 */
export function claimsSummary(verdicts: readonly Verdict[], seeds: number): string {
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
  const parts = [`${count('holds')} of ${verdicts.length} claims hold${seeds > 1 ? ' on every seed' : ''}`];
  if (count('within noise')) parts.push(`${count('within noise')} within noise`);
  if (count('partly')) parts.push(`${count('partly')} partly`);
  parts.push(`${count('does not hold')} do not hold`);
  if (count('not measured')) parts.push(`${count('not measured')} not measured`);
  if (count('not testable')) parts.push(`${count('not testable')} not testable`);
  return `${parts.join('; ')}.`;
}

const VERDICT_COLOURS: Record<Verdict, string> = {
  holds: '#2a9d4b',
  'within noise': '#c9a227',
  partly: '#c9a227',
  'does not hold': '#c0392b',
  'not measured': '#888888',
  'not testable': '#5b6ee1',
};

/**
 * A forest plot of claims: one row per claim, each seed's difference a point (with its bootstrap interval as a
 * thin bar, where the claim has one), the mean with its spread (± one sample standard deviation) a bar, zero
 * marked, the claim's way to the right; colours by verdict. The eye reads
 * "holds / noise / does not hold" faster than the table beside it.
 */
export function claimsFigure(claims: readonly Claim[], options: { title?: string; unit?: string } = {}): { data: object[]; layout: object } {
  const rows = claims.map((c, i) => ({ ...c, y: claims.length - i }));
  const mean = (xs: number[]) => {
    const finite = xs.filter(Number.isFinite);
    const m = finite.reduce((s, x) => s + x, 0) / Math.max(1, finite.length);
    const sd = finite.length > 1 ? Math.sqrt(finite.reduce((s, x) => s + (x - m) ** 2, 0) / (finite.length - 1)) : 0;
    return { mean: finite.length ? m : NaN, std: sd };
  };
  const data: object[] = [];
  for (const verdict of VERDICTS) {
    const group = rows.filter((r) => r.verdict === verdict);
    if (group.length === 0) continue;
    const stats = group.map((r) => mean(r.differences));
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: `${verdict} (mean ± std)`,
      x: stats.map((s) => (Number.isFinite(s.mean) ? Number(s.mean.toFixed(2)) : null)),
      y: group.map((r) => r.y),
      error_x: { type: 'data', array: stats.map((s) => Number(s.std.toFixed(2))), visible: true },
      marker: { symbol: 'diamond', size: 11, color: VERDICT_COLOURS[verdict] },
      text: group.map((r) => r.claim),
      hovertemplate: '%{text}<br>mean %{x}<extra></extra>',
    });
    // each seed's interval as a bar around its point: distances to the bounds (0 where it has none)
    const seeds = group.flatMap((r) => r.differences.map((d, k) => ({ d, interval: r.intervals?.[k] })));
    const reach = (distance: (i: Interval, d: number) => number) =>
      seeds.map(({ d, interval }) => {
        const r = interval && Number.isFinite(d) ? distance(interval, d) : NaN;
        return Number.isFinite(r) ? Number(Math.max(0, r).toFixed(2)) : 0;
      });
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: `${verdict}: each seed`,
      showlegend: false,
      x: seeds.map(({ d }) => (Number.isFinite(d) ? Number(d.toFixed(2)) : null)),
      y: group.flatMap((r) => r.differences.map(() => r.y)),
      marker: { symbol: 'circle-open', size: 8, color: VERDICT_COLOURS[verdict] },
      ...(seeds.some((s) => s.interval)
        ? {
            error_x: {
              type: 'data',
              symmetric: false,
              array: reach((i, d) => i.high - d),
              arrayminus: reach((i, d) => d - i.low),
              visible: true,
              thickness: 1,
              width: 2,
            },
          }
        : {}),
      hoverinfo: 'x',
    });
  }
  return {
    data,
    layout: {
      title: { text: options.title ?? 'The claims: per-seed differences (the claim’s way to the right of 0)' },
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
