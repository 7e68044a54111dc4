/**
 * The verdict rule of issue #43 (`decide` in src/experiments/claims.ts, its interval `seedsInterval` in
 * src/metrics/bootstrap.ts) on synthetic evidence with a known truth: per-image differences drawn around each seed's
 * effect, each seed's effect around the true one; and Student's t (src/metrics/student-t.ts) against its tables.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { meanAt, seedsInterval, stratifiedBootstrap, type Draw, type SeedEvidence } from '../src/metrics/bootstrap';
import { studentTCdf, studentTQuantile } from '../src/metrics/student-t';
import { decide, notTestable } from '../src/experiments/claims';
import { seededRandom } from '../src/util/random';

/** A standard normal draw (Box–Muller) from a seeded stream. */
const normal = (random: () => number) => () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** Seeds whose effects scatter by `seedSd` around `effect`, each with `images` per-image differences of spread `imageSd`. */
function experiment(options: { seeds: number; effect: number; seedSd: number; images: number; imageSd: number; stream: number }): SeedEvidence[] {
  const z = normal(seededRandom(options.stream));
  return Array.from({ length: options.seeds }, () => {
    const seedEffect = options.effect + options.seedSd * z();
    const differences = Float64Array.from({ length: options.images }, () => seedEffect + options.imageSd * z());
    const all = Int32Array.from({ length: options.images }, (_, i) => i);
    return { estimate: meanAt(differences, all), images: { strata: [options.images], onDraw: ([indices]: Draw) => meanAt(differences, indices!) } };
  });
}

test('a clear effect holds; its mirror image is contradicted; the estimate is the mean of the seeds', () => {
  const seeds = experiment({ seeds: 5, effect: 5, seedSd: 1, images: 400, imageSd: 10, stream: 1 });
  const decided = decide(seeds, { margin: 1, seed: 7 });
  assert.equal(decided.verdict, 'holds');
  assert.equal(decided.supports, true);
  assert.equal(decided.pAhead, 1);
  assert.equal(decided.seeds, 5);
  assert.ok(Math.abs(decided.estimate - seeds.reduce((s, x) => s + x.estimate, 0) / 5) < 1e-12);
  assert.ok(decided.low > 0 && decided.low < decided.estimate && decided.estimate < decided.high, `${decided.low} ${decided.estimate} ${decided.high}`);
  assert.equal(decided.method, 't over seeds');
  const flipped = seeds.map((s) => ({ estimate: -s.estimate, images: { strata: s.images!.strata, onDraw: (d: Draw) => -s.images!.onDraw(d) } }));
  const against = decide(flipped, { margin: 1, seed: 7 });
  assert.equal(against.verdict, 'contradicted');
  assert.equal(against.supports, false);
  assert.ok(Math.abs(against.low + decided.high) < 1e-9 && Math.abs(against.high + decided.low) < 1e-9, 'the interval, mirrored');
});

test('no effect measured precisely is "no difference": the claim holding for "A ≥ B", not for "A > B"', () => {
  const seeds = experiment({ seeds: 5, effect: 0, seedSd: 0.1, images: 1000, imageSd: 2, stream: 2 });
  const strict = decide(seeds, { margin: 1, seed: 3 });
  assert.equal(strict.verdict, 'no difference');
  assert.equal(strict.supports, false);
  assert.ok(strict.low >= -1 && strict.high <= 1);
  assert.equal(decide(seeds, { margin: 1, atLeast: true, seed: 3 }).supports, true);
  // without a margin, "alike" is never a verdict: the same evidence is undecided
  assert.equal(decide(seeds, { margin: 0, seed: 3 }).verdict, 'undecided');
});

test('a small effect in much noise is undecided, with the effect it could detect and the seeds that would decide it', () => {
  const seeds = experiment({ seeds: 5, effect: 1, seedSd: 1, images: 100, imageSd: 20, stream: 4 });
  const decided = decide(seeds, { margin: 1, seed: 5 });
  assert.equal(decided.verdict, 'undecided');
  assert.equal(decided.supports, undefined);
  const halfWidth = (decided.high - decided.low) / 2;
  // t(4) at 97.5% and at 80%: the effect detected with 80% power is (2.776 + 0.941) / 2.776 half-widths
  assert.ok(Math.abs(decided.detectable! - ((2.7764 + 0.941) / 2.7764) * halfWidth) < 2e-3 * halfWidth, `${decided.detectable} ${halfWidth}`);
  const m = decided.seedsToDecide!;
  assert.ok(m > 5 && Number.isFinite(m), `${m}`);
  // at the seeds it asks for, and not one fewer, the half-width at this spread falls below what separates the estimate from 0
  const room = Math.max(Math.abs(decided.estimate), 1 - Math.abs(decided.estimate));
  const sd = (halfWidth * Math.sqrt(5)) / studentTQuantile(0.975, 4);
  const at = (k: number) => (studentTQuantile(0.975, k - 1) * sd) / Math.sqrt(k);
  assert.ok(at(m) < room && (m === 6 || at(m - 1) >= room), `${at(m)} ${at(m - 1)} ${room}`);
});

test('one seed with per-image scores is its image bootstrap; one seed without them has no interval', () => {
  const [one] = experiment({ seeds: 1, effect: 2, seedSd: 0, images: 300, imageSd: 5, stream: 6 });
  const alone = seedsInterval([one!], { seed: 9, resamples: 500 });
  const images = stratifiedBootstrap(one!.images!.strata, one!.images!.onDraw, { seed: 9, resamples: 500 });
  assert.deepEqual([alone.low, alone.high, alone.estimate, alone.method], [images.low, images.high, images.estimate, 'images of one seed']);
  assert.equal(decide([one!], { margin: 1, seed: 9 }).verdict, 'holds');
  const bare = (values: number[]) => values.map((estimate) => ({ estimate }));
  assert.equal(decide(bare([3]), { margin: 1, seed: 1 }).verdict, 'not measured');
  assert.match(decide(bare([3]), { margin: 1, seed: 1 }).reason!, /one seed without per-image scores/);
  // over seeds the per-image scores are not needed: the seeds' spread holds the image noise too
  assert.equal(decide(bare([3, 4, 5, 6, 4]), { margin: 1, seed: 1 }).verdict, 'holds');
  assert.equal(decide(bare([3, -4, 5, 6, -4]), { margin: 1, seed: 1 }).verdict, 'undecided');
  assert.equal(decide(bare([3, NaN, 5]), { margin: 1, seed: 1 }).verdict, 'not measured');
  assert.equal(decide([], { margin: 1, seed: 1 }).verdict, 'not measured');
  assert.equal(decide(bare([3, -4, 5, 0]), { margin: 1, seed: 1 }).pAhead, 2.5 / 4, 'P(A > B): a tie counts half');
  assert.equal(notTestable('degenerate captioners', 5, 1).verdict, 'not testable');
});

test('the same evidence and seed give the same decision', () => {
  const seeds = experiment({ seeds: 5, effect: 1.5, seedSd: 1, images: 200, imageSd: 8, stream: 8 });
  assert.deepEqual(decide(seeds, { margin: 1, seed: 11 }), decide(seeds, { margin: 1, seed: 11 }));
});

/** The rejected alternative, for the comparison: a percentile bootstrap that resamples the seeds, then each drawn seed's images. */
function twoLevelPercentile(seeds: readonly SeedEvidence[], seed: number, resamples: number): { low: number; high: number } {
  const random = seededRandom(seed);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let k = 0; k < seeds.length; k++) {
      const { images } = seeds[Math.floor(random() * seeds.length)]!;
      sum += images!.onDraw(images!.strata.map((n) => Int32Array.from({ length: n }, () => Math.floor(random() * n))));
    }
    values.push(sum / seeds.length);
  }
  values.sort((a, b) => a - b);
  return { low: values[Math.floor(0.025 * resamples)]!, high: values[Math.ceil(0.975 * resamples) - 1]! };
}

test('the interval covers the true effect about as often as it says (5 seeds, seed and image noise); a two-level percentile bootstrap does not', (t) => {
  const truth = 2;
  const covered = { t: 0, twoLevel: 0 };
  const trials = 80;
  for (let k = 0; k < trials; k++) {
    const seeds = experiment({ seeds: 5, effect: truth, seedSd: 1.5, images: 150, imageSd: 8, stream: 100 + k });
    const interval = seedsInterval(seeds, { seed: k });
    if (interval.low <= truth && truth <= interval.high) covered.t++;
    const two = twoLevelPercentile(seeds, k, 300);
    if (two.low <= truth && truth <= two.high) covered.twoLevel++;
  }
  t.diagnostic(`covered in ${trials} trials: t over seeds ${covered.t}, two-level percentile bootstrap ${covered.twoLevel}`);
  // a 95% interval; with 80 trials the share covered is within about ± 5 points of its true value
  assert.ok(covered.t / trials >= 0.9, `t over seeds covered ${covered.t} of ${trials}`);
  assert.ok(covered.twoLevel < covered.t, `two-level percentile ${covered.twoLevel}, t ${covered.t}`);
});

test("Student's t: the tables' quantiles, symmetry, and the normal's in the limit", () => {
  const table: [number, number, number][] = [
    [0.975, 1, 12.7062],
    [0.975, 2, 4.3027],
    [0.975, 4, 2.7764],
    [0.975, 9, 2.2622],
    [0.975, 30, 2.0423],
    [0.8, 4, 0.941],
    [0.95, 10, 1.8125],
  ];
  for (const [p, df, q] of table) assert.ok(Math.abs(studentTQuantile(p, df) - q) < 1e-3, `t(${p}, ${df}) = ${studentTQuantile(p, df)}, table ${q}`);
  assert.ok(Math.abs(studentTQuantile(0.975, 1e6) - 1.96) < 1e-3);
  assert.ok(Math.abs(studentTQuantile(0.025, 4) + studentTQuantile(0.975, 4)) < 1e-9);
  assert.ok(Math.abs(studentTCdf(2.7764451, 4) - 0.975) < 1e-6);
  assert.equal(studentTCdf(0, 3), 0.5);
  assert.throws(() => studentTQuantile(1, 3), /between 0 and 1/);
});
