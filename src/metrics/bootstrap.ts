/**
 * A seeded bootstrap over images for differences between captioners scored on the same images: resample the
 * evaluated images with replacement (the same resample for every captioner compared), recompute the statistic,
 * and read the percentile interval of the resampled values.
 *
 * CIDEr-D is not a plain mean of independent image scores: its document frequencies come from the references of
 * the whole evaluated set. The per-image scores are computed once on the whole set (their mean is the corpus
 * score) and those scores are resampled, with the idf held fixed: how CIDEr intervals are commonly bootstrapped,
 * and it keeps the observed statistic equal to the difference of the reported corpus scores.
 */
import { seededRandom } from '../util/random';
import { studentTQuantile } from './student-t';
import { CaptionCase, evaluate, evaluateByDomain, NOCAPS_DOMAINS, type NocapsDomain } from './evaluate';

export interface BootstrapOptions {
  /** Resampled image sets (default 1000). */
  resamples?: number;
  /** Seed of the resampling (the same seed gives the same resamples). */
  seed: number;
  /** Coverage of the percentile interval (default 0.95). */
  level?: number;
}

/** A statistic on the observed images and its percentile interval over the resamples. */
export interface BootstrapInterval {
  /** The statistic on the images as evaluated (for `pairedBootstrap`: mean(a) − mean(b)). */
  estimate: number;
  low: number;
  high: number;
  resamples: number;
  level: number;
}

/** One resample: for each stratum, the indices drawn (with replacement) from that stratum's images. */
export type Draw = readonly Int32Array[];

/** The identity draw of strata of these sizes: every image once. */
const identityDraw = (strata: readonly number[]): Int32Array[] => strata.map((n) => Int32Array.from({ length: n }, (_, i) => i));

/** The value at quantile `q` of sorted `values`, interpolating linearly between order statistics. */
function quantile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (position - below) * (sorted[above]! - sorted[below]!);
}

/**
 * The bootstrap of `statistic` over images in strata of the given sizes: every resample draws each stratum's
 * images with replacement, keeping its size (nocaps's domains are fixed parts of its splits, so one resample
 * serves a domain's score and the overall score alike). `statistic` sees index arrays into each stratum; the
 * estimate is its value on the identity draw. NaN bounds when any resampled value is not finite.
 */
export function stratifiedBootstrap(strata: readonly number[], statistic: (draw: Draw) => number, options: BootstrapOptions): BootstrapInterval {
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`bootstrap: resamples must be a positive whole number, not ${resamples}`);
  if (!(level > 0 && level < 1)) throw new Error(`bootstrap: level must lie between 0 and 1, not ${level}`);
  if (strata.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`bootstrap: stratum sizes must be whole numbers ≥ 0 (${strata.join(', ')})`);
  const estimate = statistic(identityDraw(strata));
  const random = seededRandom(options.seed);
  const values = new Float64Array(resamples);
  let finite = true;
  for (let r = 0; r < resamples; r++) {
    const draw = strata.map((n) => {
      const indices = new Int32Array(n);
      for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
      return indices;
    });
    values[r] = statistic(draw);
    if (!Number.isFinite(values[r])) finite = false;
  }
  if (!finite) return { estimate, low: NaN, high: NaN, resamples, level };
  values.sort();
  const tail = (1 - level) / 2;
  return { estimate, low: quantile(values, tail), high: quantile(values, 1 - tail), resamples, level };
}

/** Mean of `values` at the drawn indices. */
export function meanAt(values: ArrayLike<number>, indices: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < indices.length; i++) sum += values[indices[i]!]!;
  return sum / indices.length;
}

/**
 * Paired bootstrap of mean(a) − mean(b) for two per-image score arrays over the same images in the same order:
 * each resample draws images and takes both captioners' scores of the drawn images.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], options: BootstrapOptions): BootstrapInterval {
  if (a.length !== b.length) throw new Error(`pairedBootstrap: ${a.length} scores against ${b.length} (the same images are needed on both sides)`);
  if (a.length === 0) throw new Error('pairedBootstrap: no images');
  return stratifiedBootstrap([a.length], ([indices]) => meanAt(a, indices!) - meanAt(b, indices!), options);
}

// ------------------------------------------------------------------ per-image CIDEr-D of a split

/**
 * Per-image CIDEr-D (coco-caption scale) of one captioner's split, one entry per image in stored order: any split
 * (COCO-like, CC3M-like, narratives, the captioner grid's tests) has `overall`; a nocaps split also has each image's
 * domain and its score within that domain (`PerImageCider`). A split without domains is one stratum: its bootstrap
 * resamples all its images together and reads "overall" only.
 */
export interface SplitPerImageCider {
  ids: string[];
  /** Each image scored with the whole split (idf over every image): their mean is the split's CIDEr-D. */
  overall: number[];
  /** nocaps: each image's domain (absent on a split without domains). */
  domains?: NocapsDomain[];
  /** nocaps: each image scored within its own domain (absent on a split without domains). */
  withinDomain?: number[];
}

/** Per-image CIDEr-D (coco-caption scale) of one captioner's nocaps split, one entry per image in stored order. */
export interface PerImageCider extends SplitPerImageCider {
  domains: NocapsDomain[];
  /** Each image scored with the whole split (idf over every image): their mean is the overall CIDEr-D. */
  overall: number[];
  /** Each image scored within its own domain (as nocaps reports domains): a domain's mean is its CIDEr-D. */
  withinDomain: number[];
}

/** Per-image CIDEr-D of scoring cases that all carry a nocaps domain (in, near or out), as `evaluateByDomain` scores them. */
export function perImageCider(cases: readonly CaptionCase[]): PerImageCider {
  for (const c of cases) {
    if (!(NOCAPS_DOMAINS as readonly string[]).includes(c.domain ?? '')) throw new Error(`image ${c.imageId}: domain "${c.domain}" is not in, near or out`);
  }
  const scored = evaluateByDomain(cases, { metrics: ['cider'] });
  const overall = scored.entire!.per_image.CIDEr!;
  return {
    ids: cases.map((c) => c.imageId),
    domains: cases.map((c) => c.domain as NocapsDomain),
    overall: cases.map((c) => overall[c.imageId]!),
    withinDomain: cases.map((c) => scored[c.domain!]!.per_image.CIDEr![c.imageId]!),
  };
}

/**
 * Per-image CIDEr-D of any split's cases: `perImageCider`'s (with domains) when every case carries a nocaps domain,
 * the whole split's scores alone when none does (as `evaluate` scores them); an error when only some do.
 */
export function splitPerImageCider(cases: readonly CaptionCase[]): SplitPerImageCider {
  const withDomain = cases.filter((c) => c.domain !== undefined).length;
  if (withDomain === cases.length && cases.length > 0) return perImageCider(cases);
  if (withDomain > 0) {
    const missing = cases.find((c) => c.domain === undefined)!;
    throw new Error(`${cases.length - withDomain} of ${cases.length} images have no domain (first: ${missing.imageId}); give every image a domain or none`);
  }
  const overall = evaluate(cases, { metrics: ['cider'] }).per_image.CIDEr!;
  return { ids: cases.map((c) => c.imageId), overall: cases.map((c) => overall[c.imageId]!) };
}

/**
 * Mean CIDEr-D per domain and overall of per-image scores (equal to the corpus scores they came from); the domains
 * are NaN for a split without domains.
 */
export function ciderMeans(scores: SplitPerImageCider): Record<NocapsDomain | 'overall', number> {
  const all = scores.overall.map((_, i) => i);
  const { domains, withinDomain } = scores;
  if (!domains || !withinDomain) return { in: NaN, near: NaN, out: NaN, overall: meanAt(scores.overall, all) };
  const of = (d: NocapsDomain) => all.filter((i) => domains[i] === d);
  return {
    in: meanAt(withinDomain, of('in')),
    near: meanAt(withinDomain, of('near')),
    out: meanAt(withinDomain, of('out')),
    overall: meanAt(scores.overall, all),
  };
}

// ------------------------------------------------------------------ several captioners, one resample

/** A nocaps domain or the whole split. */
export type DomainOrOverall = NocapsDomain | 'overall';

/**
 * Reads a captioner's mean CIDEr-D (×100) on a drawn image set: `score(name, domain)`. Names are the keys of
 * the scores handed to `bootstrapCaptioners`.
 */
export type ScoreOnDraw = (name: string, domain: DomainOrOverall) => number;

/** Thrown inside a statistic that reads a captioner with no aligned scores (ends that bootstrap early). */
class NoScores extends Error {}

/**
 * A bootstrap of any statistic of several captioners' CIDEr-D (×100) scored on the same images: one resample of
 * the images serves every captioner and domain the statistic reads, so a difference of differences ("the gain out
 * of domain minus the gain in domain") is resampled jointly. The images are the first captioner's: stratified by
 * domain where it has domains (nocaps), one stratum where it has none (then only "overall" can be read). A
 * captioner scored on other images (or with a score missing) is left out. Undefined when the statistic reads a
 * captioner left out or absent, or a domain of a captioner without domains.
 */
export function bootstrapCaptioners(
  scores: Readonly<Record<string, SplitPerImageCider | undefined>>,
  statistic: (score: ScoreOnDraw) => number,
  options: BootstrapOptions,
): BootstrapInterval | undefined {
  const resamplable = captionersStatistic(scores, statistic);
  if (!resamplable) return undefined;
  try {
    return stratifiedBootstrap(resamplable.strata, resamplable.onDraw, options);
  } catch (e) {
    if (e instanceof NoScores) return undefined;
    throw e;
  }
}

/** A statistic over one set of evaluated images, ready to resample: the sizes of its strata and its value on a draw of them. */
export interface ResamplableStatistic {
  strata: number[];
  onDraw: (draw: Draw) => number;
}

/**
 * `statistic` of several captioners' CIDEr-D as `bootstrapCaptioners` resamples it (the first captioner's images,
 * by nocaps domain where it has domains), for a resampling of its own (`twoLevelBootstrap`'s image level).
 * Undefined when the statistic reads a captioner left out or absent.
 */
export function captionersStatistic(
  scores: Readonly<Record<string, SplitPerImageCider | undefined>>,
  statistic: (score: ScoreOnDraw) => number,
): ResamplableStatistic | undefined {
  const present = Object.entries(scores).filter((e): e is [string, SplitPerImageCider] => e[1] !== undefined);
  if (present.length === 0) return undefined;
  const reference = present[0]![1];
  const referenceDomains = reference.domains;
  // the images of each domain (or all of them: one stratum), in the first captioner's order; every captioner's
  // scores re-indexed to it
  const strata = referenceDomains ? NOCAPS_DOMAINS.map((d) => reference.ids.filter((_, i) => referenceDomains[i] === d)) : [reference.ids];
  const total = strata.reduce((n, ids) => n + ids.length, 0);
  const aligned = new Map<string, { overall: Float64Array[]; withinDomain?: Float64Array[] }>();
  for (const [name, s] of present) {
    if (s.ids.length !== total) continue;
    const at = new Map(s.ids.map((id, i) => [id, i]));
    const pick = (values: number[], ids: string[]) => Float64Array.from(ids, (id) => values[at.get(id) ?? -1] ?? NaN);
    const overall = strata.map((ids) => pick(s.overall, ids));
    const withinDomain = referenceDomains && s.withinDomain ? strata.map((ids) => pick(s.withinDomain!, ids)) : undefined;
    if ([...overall, ...(withinDomain ?? [])].some((v) => v.some((x) => !Number.isFinite(x)))) continue;
    aligned.set(name, withinDomain ? { overall, withinDomain } : { overall });
  }
  const scoreOn =
    (draw: Draw): ScoreOnDraw =>
    (name, domain) => {
      const s = aligned.get(name);
      if (!s) throw new NoScores(name);
      if (domain !== 'overall') {
        if (!s.withinDomain) throw new NoScores(`${name} ${domain}`);
        const k = NOCAPS_DOMAINS.indexOf(domain);
        return 100 * meanAt(s.withinDomain[k]!, draw[k]!);
      }
      let sum = 0;
      draw.forEach((indices, k) => {
        const values = s.overall[k]!;
        for (let i = 0; i < indices.length; i++) sum += values[indices[i]!]!;
      });
      return (100 * sum) / total;
    };
  const sizes = strata.map((ids) => ids.length);
  const onDraw = (draw: Draw) => statistic(scoreOn(draw));
  try {
    onDraw(identityDraw(sizes));
  } catch (e) {
    if (e instanceof NoScores) return undefined;
    throw e;
  }
  return { strata: sizes, onDraw };
}

// ------------------------------------------------------------------ over seeds and images

/**
 * One seed's evidence for a difference (> 0 the claim's way): its value on the images it evaluated and, where the
 * seed has per-image scores, that value on a resample of its images (what one seed's interval is made of).
 */
export interface SeedEvidence {
  estimate: number;
  images?: ResamplableStatistic;
  /** That seed's image interval, already drawn (a table that bootstraps its own statistic); used when `images` is absent. */
  interval?: { low: number; high: number };
}

/**
 * The interval of the mean over seeds of a difference, as the claims decide on it (`decide`, src/experiments/claims.ts).
 * Every cckit seed is a world of its own — its own training data, initialisation and evaluation images — so the
 * seeds' estimates scatter by both the training noise and the image sampling noise (Bouthillier et al. 2021: both
 * belong in the estimate), and their spread estimates the variance of their mean without bias:
 * - two seeds or more: Student's t interval of the mean of the seeds' estimates, mean ± t(n−1) · sd / √n;
 * - one seed: its image bootstrap (`stratifiedBootstrap` of its per-image evidence), the only noise it can show;
 *   NaN bounds when it has none.
 * In 80 simulated five-seed experiments (test/decide.test.ts) the t interval covered the true effect 75 times, a
 * two-level percentile bootstrap (seeds, then each drawn seed's images) 69: a percentile interval over five seeds is
 * too narrow.
 */
export function seedsInterval(
  seeds: readonly SeedEvidence[],
  options: BootstrapOptions,
): BootstrapInterval & { method: 't over seeds' | 'images of one seed' } {
  const level = options.level ?? 0.95;
  const resamples = options.resamples ?? 1000;
  const n = seeds.length;
  if (n === 0) throw new Error('seedsInterval: no seeds');
  if (n === 1) {
    const { images, interval: drawn, estimate } = seeds[0]!;
    const interval = images
      ? stratifiedBootstrap(images.strata, images.onDraw, options)
      : { estimate, low: drawn?.low ?? NaN, high: drawn?.high ?? NaN, resamples: drawn ? resamples : 0, level };
    return { ...interval, method: 'images of one seed' };
  }
  const mean = seeds.reduce((sum, s) => sum + s.estimate, 0) / n;
  const sd = Math.sqrt(seeds.reduce((sum, s) => sum + (s.estimate - mean) ** 2, 0) / (n - 1));
  const half = (studentTQuantile(1 - (1 - level) / 2, n - 1) * sd) / Math.sqrt(n);
  return { estimate: mean, low: mean - half, high: mean + half, resamples: 0, level, method: 't over seeds' };
}

/** A seed's evidence from its resamplable statistic: the estimate on every image once, and the statistic itself. */
export function seedEvidence(images: ResamplableStatistic): SeedEvidence {
  return { estimate: images.onDraw(identityDraw(images.strata)), images };
}
