import assert from 'node:assert/strict';
import * as path from 'path';
import { test } from 'node:test';
import { evaluate, evaluateByDomain } from '../src/metrics/evaluate';
import { loadCocoResults } from '../src/metrics/inputs';
import { PACKAGE_ROOT } from '../src/paths';

const dir = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'nocaps-example');
const { cases } = loadCocoResults(path.join(dir, 'results.json'), path.join(dir, 'annotations.json'));

test('every metric per domain and entire, each domain scored as its own set', () => {
  const options = { metrics: ['bleu', 'rouge', 'cider'] };
  const byDomain = evaluateByDomain(cases, options);
  assert.deepEqual(Object.keys(byDomain), ['entire', 'in', 'near', 'out']);
  assert.deepEqual(byDomain.entire, evaluate(cases, options));
  for (const domain of ['in', 'near', 'out']) {
    const subset = cases.filter((c) => c.domain === domain);
    assert.ok(subset.length > 0);
    assert.deepEqual(byDomain[domain], evaluate(subset, options));
    assert.equal(Object.keys(byDomain[domain].per_image.CIDEr).length, subset.length);
  }
  // CIDEr's IDF differs per subset, so the domain means need not average to the entire value
  const inCider = byDomain.in.corpus.CIDEr;
  assert.ok(inCider > 0 && Number.isFinite(inCider));
});

test('a case without a domain is an error in a domain breakdown', () => {
  assert.throws(() => evaluateByDomain([{ imageId: 'x', references: ['a'], candidate: 'a' }]), /image x: no domain/);
});
