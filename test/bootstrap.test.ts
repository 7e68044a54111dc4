/** The paired bootstrap over images (src/metrics/bootstrap.ts) and the verdicts it feeds (src/experiments/claims.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  bootstrapCaptioners,
  ciderMeans,
  pairedBootstrap,
  perImageCider,
  splitPerImageCider,
  stratifiedBootstrap,
  type PerImageCider,
} from '../src/metrics/bootstrap';
import { evaluate, evaluateByDomain, type CaptionCase } from '../src/metrics/evaluate';
import { claimOver, claimRows } from '../src/experiments/claims';
import { seededRandom } from '../src/util/random';

/** `n` values from a seeded uniform stream in [−spread, spread], shifted by `mean`. */
const noisy = (n: number, seed: number, mean: number, spread = 1): number[] => {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => mean + spread * (2 * random() - 1));
};

test('the bootstrap is deterministic for a seed and differs between seeds', () => {
  const a = noisy(200, 1, 0.6);
  const b = noisy(200, 2, 0.5);
  const first = pairedBootstrap(a, b, { seed: 7 });
  assert.deepEqual(pairedBootstrap(a, b, { seed: 7 }), first);
  assert.notDeepEqual(pairedBootstrap(a, b, { seed: 8 }), first);
  assert.equal(first.resamples, 1000);
  assert.equal(first.level, 0.95);
  const meanA = a.reduce((s, x) => s + x, 0) / a.length;
  const meanB = b.reduce((s, x) => s + x, 0) / b.length;
  assert.ok(Math.abs(first.estimate - (meanA - meanB)) < 1e-12, 'the estimate is the observed difference of means');
  assert.ok(first.low <= first.estimate && first.estimate <= first.high);
});

test('an obvious difference gives an interval above zero; the reversed pair one below', () => {
  const a = noisy(300, 3, 1.0, 0.2);
  const b = noisy(300, 4, 0.5, 0.2);
  const ahead = pairedBootstrap(a, b, { seed: 0 });
  assert.ok(ahead.low > 0.4 && ahead.high < 0.6, `[${ahead.low}, ${ahead.high}]`);
  const behind = pairedBootstrap(b, a, { seed: 0 });
  assert.ok(behind.high < 0);
  // the same resample on both sides: mirrored bounds
  assert.ok(Math.abs(behind.low + ahead.high) < 1e-12 && Math.abs(behind.high + ahead.low) < 1e-12);
});

test('identical scores give [0, 0]; a noisy zero-mean difference gives an interval containing zero', () => {
  const a = noisy(100, 5, 0.7);
  assert.deepEqual((({ estimate, low, high }) => ({ estimate, low, high }))(pairedBootstrap(a, a, { seed: 3 })), { estimate: 0, low: 0, high: 0 });
  // b = a + zero-mean noise: the difference is noise around 0
  const shift = noisy(400, 6, 0, 0.5);
  const b = shift.map((s, i) => a[i % a.length]! + s);
  const aa = shift.map((_, i) => a[i % a.length]!);
  const interval = pairedBootstrap(b, aa, { seed: 11 });
  assert.ok(interval.low < 0 && interval.high > 0, `[${interval.low}, ${interval.high}]`);
});

test('the interval narrows with the level and the inputs are checked', () => {
  const a = noisy(150, 9, 0.3);
  const b = noisy(150, 10, 0.2);
  const wide = pairedBootstrap(a, b, { seed: 1, level: 0.99 });
  const narrow = pairedBootstrap(a, b, { seed: 1, level: 0.5 });
  assert.ok(wide.low < narrow.low && narrow.high < wide.high);
  assert.throws(() => pairedBootstrap([1, 2], [1], { seed: 0 }), /same images/);
  assert.throws(() => pairedBootstrap([], [], { seed: 0 }), /no images/);
  assert.throws(() => pairedBootstrap(a, b, { seed: 0, resamples: 0 }), /resamples/);
  assert.throws(() => pairedBootstrap(a, b, { seed: 0, level: 1 }), /level/);
  const broken = pairedBootstrap([1, NaN], [0, 0], { seed: 0 });
  assert.ok(Number.isNaN(broken.low) && Number.isNaN(broken.high));
});

test('a stratified resample keeps each stratum’s size and draws only within it', () => {
  const sizes: number[][] = [];
  stratifiedBootstrap(
    [3, 5, 0],
    (draw) => {
      sizes.push(draw.map((d) => d.length));
      draw.forEach((d, k) => d.forEach((i) => assert.ok(i >= 0 && i < [3, 5, 0][k]!)));
      return 0;
    },
    { seed: 2, resamples: 20 },
  );
  assert.equal(sizes.length, 21, 'the identity draw, then the resamples');
  assert.ok(sizes.every((s) => s.join() === '3,5,0'));
});

// ------------------------------------------------------------------ per-image CIDEr-D of a nocaps split

const domains = ['in', 'near', 'out'] as const;
const words = ['dog', 'cat', 'boat', 'durian', 'quiche', 'tree', 'car', 'bird'];
/** Twelve images, four per domain, with five references each and a candidate that is right on some. */
function cases(seed: number): CaptionCase[] {
  const random = seededRandom(seed);
  return Array.from({ length: 12 }, (_, i) => {
    const object = words[i % words.length]!;
    const references = Array.from({ length: 5 }, (_, r) => `a ${object} ${r % 2 ? 'on a table' : 'in the park'} with a ${words[(i + r) % words.length]}`);
    const candidate = random() < 0.6 ? `a ${object} in the park` : `a ${words[(i + 3) % words.length]} on the grass`;
    return { imageId: String(100 + i), references, candidate, domain: domains[i % 3] };
  });
}

test('per-image CIDEr-D: the means per domain and overall are the corpus scores nocaps reports', () => {
  const c = cases(1);
  const scores = perImageCider(c);
  const corpus = evaluateByDomain(c, { metrics: ['cider'] });
  const means = ciderMeans(scores);
  for (const d of domains) assert.ok(Math.abs(means[d] - corpus[d]!.corpus.CIDEr!) < 1e-12, d);
  assert.ok(Math.abs(means.overall - corpus.entire!.corpus.CIDEr!) < 1e-12);
  assert.deepEqual(
    scores.ids,
    c.map((x) => x.imageId),
  );
  assert.throws(() => perImageCider([{ ...c[0]!, domain: 'elsewhere' }]), /not in, near or out/);
});

test('several captioners share one resample: the estimates are the corpus differences, a difference of differences too', () => {
  const a = perImageCider(cases(1));
  const b = perImageCider(cases(2));
  const ma = ciderMeans(a);
  const mb = ciderMeans(b);
  const diff = bootstrapCaptioners({ a, b }, (score) => score('a', 'out') - score('b', 'out'), { seed: 4 })!;
  assert.ok(Math.abs(diff.estimate - 100 * (ma.out - mb.out)) < 1e-9);
  const overall = bootstrapCaptioners({ a, b }, (score) => score('a', 'overall') - score('b', 'overall'), { seed: 4 })!;
  assert.ok(Math.abs(overall.estimate - 100 * (ma.overall - mb.overall)) < 1e-9);
  const lead = bootstrapCaptioners(
    { a, b },
    (score) => score('a', 'out') - score('b', 'out') - Math.max(score('a', 'in') - score('b', 'in'), score('a', 'near') - score('b', 'near')),
    { seed: 4 },
  )!;
  const expected = 100 * (ma.out - mb.out - Math.max(ma.in - mb.in, ma.near - mb.near));
  assert.ok(Math.abs(lead.estimate - expected) < 1e-9);
  assert.ok(lead.low <= lead.high);
  // the images in another order are the same images: the same interval
  const reversed: PerImageCider = {
    ids: [...b.ids].reverse(),
    domains: [...b.domains].reverse(),
    overall: [...b.overall].reverse(),
    withinDomain: [...b.withinDomain].reverse(),
  };
  const again = bootstrapCaptioners({ a, b: reversed }, (score) => score('a', 'out') - score('b', 'out'), { seed: 4 })!;
  assert.ok(Math.abs(again.low - diff.low) < 1e-9 && Math.abs(again.high - diff.high) < 1e-9);
  // a captioner scored on other images, or one never given, has no interval
  const fewer: PerImageCider = { ids: b.ids.slice(1), domains: b.domains.slice(1), overall: b.overall.slice(1), withinDomain: b.withinDomain.slice(1) };
  assert.equal(
    bootstrapCaptioners({ a, b: fewer }, (score) => score('a', 'in') - score('b', 'in'), { seed: 4 }),
    undefined,
  );
  assert.equal(
    bootstrapCaptioners({ a }, (score) => score('a', 'in') - score('c', 'in'), { seed: 4 }),
    undefined,
  );
  assert.equal(
    bootstrapCaptioners({}, () => 0, { seed: 4 }),
    undefined,
  );
});

// ------------------------------------------------------------------ claims with per-seed intervals

test('a claim shows each seed’s image interval; over seeds the verdict is t over the seeds’ differences', () => {
  const withAll = claimOver('A beats B', 'p', [3.14, 1], {
    intervals: [
      { low: 0.4, high: 5.9 },
      { low: -0.5, high: 2 },
    ],
  });
  assert.equal(withAll.verdict, 'undecided', 'two seeds: t(1) is wide');
  assert.equal(claimRows([withAll])[0]!['measured (per seed)'], '+3.1 [+0.4, +5.9]; +1.0 [-0.5, +2.0]');
  const partly = claimOver('A beats B', 'p', [3, 1], { intervals: [{ low: 0.4, high: 5.9 }, undefined], measuredAs: 'gain: ' });
  assert.equal(claimRows([partly])[0]!['measured (per seed)'], 'gain: +3.0 [+0.4, +5.9]; +1.0 (no interval)');
  const none = claimOver('A beats B', 'p', [3, 1], { intervals: [undefined, undefined] });
  assert.equal(none.intervals, undefined, 'no interval at all: as without intervals');
  assert.equal(claimRows([none])[0]!['measured (per seed)'], '+3.0, +1.0');
});

// ------------------------------------------------------------------ splits without domains: one stratum

test('per-image CIDEr-D of a split without domains: its mean is the corpus score; domains only where every image has one', () => {
  const plain = cases(3).map(({ domain: _domain, ...c }) => c);
  const scores = splitPerImageCider(plain);
  assert.equal(scores.domains, undefined);
  assert.equal(scores.withinDomain, undefined);
  assert.deepEqual(
    scores.ids,
    plain.map((c) => c.imageId),
  );
  const means = ciderMeans(scores);
  assert.ok(Math.abs(means.overall - evaluate(plain, { metrics: ['cider'] }).corpus.CIDEr!) < 1e-12);
  assert.ok(Number.isNaN(means.in) && Number.isNaN(means.near) && Number.isNaN(means.out), 'no domain means');
  // with domains it is perImageCider's, bit for bit
  assert.deepEqual(splitPerImageCider(cases(3)), perImageCider(cases(3)));
  assert.throws(() => splitPerImageCider([...cases(3).slice(0, 2), plain[2]!]), /1 of 3 images have no domain/);
});

test('captioners on a split without domains: one stratum, "overall" only; the estimate is the corpus difference', () => {
  const plain = (seed: number) => cases(seed).map(({ domain: _domain, ...c }) => c);
  const a = splitPerImageCider(plain(1));
  const b = splitPerImageCider(plain(2));
  const diff = bootstrapCaptioners({ a, b }, (score) => score('a', 'overall') - score('b', 'overall'), { seed: 4 })!;
  assert.ok(Math.abs(diff.estimate - 100 * (ciderMeans(a).overall - ciderMeans(b).overall)) < 1e-9);
  assert.ok(diff.low <= diff.estimate && diff.estimate <= diff.high);
  assert.deepEqual(
    bootstrapCaptioners({ a, b }, (score) => score('a', 'overall') - score('b', 'overall'), { seed: 4 }),
    diff,
    'deterministic',
  );
  // every image in one stratum: the same as a paired bootstrap of the per-image scores
  const paired = pairedBootstrap(
    a.overall.map((x) => 100 * x),
    b.overall.map((x) => 100 * x),
    { seed: 4 },
  );
  assert.ok(Math.abs(paired.low - diff.low) < 1e-9 && Math.abs(paired.high - diff.high) < 1e-9);
  // no domain to read: no interval
  assert.equal(
    bootstrapCaptioners({ a, b }, (score) => score('a', 'out') - score('b', 'out'), { seed: 4 }),
    undefined,
  );
  // a nocaps captioner beside one without domains: its overall scores serve, its domains are not read
  const withDomains = perImageCider(cases(2));
  const mixed = bootstrapCaptioners({ a, b: withDomains }, (score) => score('a', 'overall') - score('b', 'overall'), { seed: 4 })!;
  assert.ok(Math.abs(mixed.estimate - 100 * (ciderMeans(a).overall - ciderMeans(withDomains).overall)) < 1e-9);
  assert.equal(
    bootstrapCaptioners({ b: withDomains, a }, (score) => score('b', 'in') - score('a', 'in'), { seed: 4 }),
    undefined,
    'a has no domains',
  );
});
