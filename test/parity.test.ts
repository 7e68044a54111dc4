// The golden file holds coco-caption's own outputs; cckit must match them to 1e-9.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate } from '../src/metrics/evaluate';
import { loadScoringFile } from '../src/metrics/inputs';
import { GOLDEN_FILE, readGolden, runCli } from './helpers';

const TOLERANCE = 1e-9;
const golden = readGolden();
const goldenMetrics = Object.keys(golden.corpus);

function assertMatchesGolden(corpus: Record<string, number>, perImage: Record<string, Record<string, number>>): void {
  assert.deepEqual(goldenMetrics.sort(), ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4', 'CIDEr', 'ROUGE_L']);
  for (const metric of goldenMetrics) {
    const diff = Math.abs(corpus[metric] - golden.corpus[metric]);
    assert.ok(diff <= TOLERANCE, `${metric} corpus: ${corpus[metric]} vs ${golden.corpus[metric]}`);
    const expectedIds = Object.keys(golden.per_image[metric]);
    assert.equal(Object.keys(perImage[metric]).length, expectedIds.length, `${metric}: number of per-image values`);
    for (const id of expectedIds) {
      const d = Math.abs(perImage[metric][id] - golden.per_image[metric][id]);
      assert.ok(d <= TOLERANCE, `${metric} ${id}: ${perImage[metric][id]} vs ${golden.per_image[metric][id]}`);
    }
  }
}

test('library matches coco-caption on every golden corpus and per-image value', () => {
  const result = evaluate(loadScoringFile(GOLDEN_FILE), { tokenized: true, metrics: ['bleu', 'rouge', 'cider'] });
  assertMatchesGolden(result.corpus, result.per_image);
  assert.equal(golden.images.length, 300);
});

test('`cckit score --tokenized` prints the contract JSON and matches the golden values', () => {
  const run = runCli(['score', '--input', GOLDEN_FILE, '--tokenized']);
  assert.equal(run.status, 0, run.stderr);
  const output = JSON.parse(run.stdout) as { corpus: Record<string, number>; per_image: Record<string, Record<string, number>> };
  assert.deepEqual(Object.keys(output).sort(), ['corpus', 'per_image']);
  assert.deepEqual(Object.keys(output.corpus).sort(), ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4', 'CIDEr', 'METEOR', 'ROUGE_L']);
  assertMatchesGolden(output.corpus, output.per_image);
  const meteor = output.per_image.METEOR;
  assert.equal(Object.keys(meteor).length, 300);
  for (const value of Object.values(meteor)) assert.ok(value >= 0 && value <= 1, `METEOR ${value} outside [0, 1]`);
});
