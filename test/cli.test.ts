import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import { PACKAGE_ROOT } from '../src/paths';
import { test } from 'node:test';
import { GOLDEN_FILE, runCli, tempFile } from './helpers';

test('--help works on the program and on every command', () => {
  for (const args of [['--help'], ['score', '--help'], ['retrieval', '--help'], ['demo', '--help']]) {
    const run = runCli(args);
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, /Usage: cckit/);
  }
  assert.match(runCli(['score', '--help']).stdout, /--tokenized/);
});

test('errors go to stderr with a non-zero exit', () => {
  const unknown = runCli(['frobnicate']);
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, /unknown command/);

  const nothing = runCli(['score']);
  assert.equal(nothing.status, 1);
  assert.equal(nothing.stdout, '');
  assert.match(nothing.stderr, /nothing to score/);

  const broken = tempFile('broken.json', '{"images": [');
  const bad = runCli(['score', '--input', broken]);
  assert.equal(bad.status, 1);
  assert.ok(bad.stderr.includes(broken), bad.stderr);

  const badMetric = runCli(['score', '--input', GOLDEN_FILE, '--metrics', 'bleu,bleurt']);
  assert.equal(badMetric.status, 1);
  assert.match(badMetric.stderr, /unknown metric "bleurt"/);
});

test('--metrics selects metric families or single metrics', () => {
  const run = runCli(['score', '--input', GOLDEN_FILE, '--tokenized', '--metrics', 'cider,Bleu_4']);
  assert.equal(run.status, 0, run.stderr);
  const output = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(output.corpus), ['Bleu_4', 'CIDEr']);
});

test('COCO results with nocaps annotations, per domain', () => {
  const annotations = tempFile(
    'ann.json',
    JSON.stringify({
      images: [
        { id: 1, domain: 'in-domain' },
        { id: 2, domain: 'out-domain' },
        { id: 3, domain: 'out-domain' },
      ],
      annotations: [
        { image_id: 1, caption: 'A dog runs on the grass.' },
        { image_id: 2, caption: 'A red car parked by the road.' },
        { image_id: 3, caption: 'Two birds sit in a tree.' },
      ],
    }),
  );
  const results = tempFile(
    'res.json',
    JSON.stringify([
      { image_id: 1, caption: 'A dog on the grass.' },
      { image_id: 2, caption: 'A red car.' },
      { image_id: 3, caption: 'Birds in a tree.' },
    ]),
  );
  const run = runCli(['score', '--results', results, '--annotations', annotations, '--by-domain', '--metrics', 'bleu,cider']);
  assert.equal(run.status, 0, run.stderr);
  const output = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(output.domains), ['entire', 'in', 'out']);
  assert.equal(output.domains.entire.CIDEr, output.corpus.CIDEr);
  assert.equal(output.domains.in.CIDEr, 0, 'one image alone scores 0 CIDEr');
  assert.deepEqual(Object.keys(output.per_image.Bleu_1), ['1', '2', '3']);
});

test('retrieval prints recall both ways', () => {
  const file = tempFile(
    'sim.json',
    JSON.stringify({
      similarity: [
        [0.9, 0.1],
        [0.2, 0.8],
      ],
    }),
  );
  const run = runCli(['retrieval', '--similarity', file]);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).image_to_text, { 'R@1': 1, 'R@5': 1, 'R@10': 1 });
});

test('the demo (main job) prints the golden comparison and the per-domain table', () => {
  const run = runCli(['demo']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /Golden cases: 300 images/);
  assert.match(run.stdout, /CIDEr\s+1\.429679\s+1\.429679/);
  assert.match(run.stdout, /metric\s+entire\s+in\s+near\s+out/);
});

test('the built library loads with require() (CommonJS), as a tslab notebook cell needs', () => {
  const script =
    "const cckit = require('.'); const r = cckit.metrics.evaluate([{ imageId: 'a', references: ['a dog'], candidate: 'a dog' }], { metrics: ['bleu'] }); console.log(JSON.stringify(r.corpus))";
  const run = spawnSync(process.execPath, ['-e', script], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(JSON.parse(run.stdout).Bleu_1 > 0.99);
});
