/**
 * The main job until the pipeline and model issues land: score the example predictions kept
 * in the fixtures and show them as tables — first the golden cases beside the reference
 * coco-caption values, then the nocaps-format example per domain — then build the tiny
 * embedded world and show its raw web pool's Table 1 statistics.
 */
import * as path from 'path';
import { DEFAULT_METRIC_NAMES, evaluate, evaluateByDomain } from '../metrics/evaluate';
import { loadCocoResults, loadScoringFile } from '../metrics/inputs';
import { FIXTURES_DIR, PACKAGE_ROOT } from '../paths';
import { readJsonFile } from '../util/json';
import { tsvStats } from '../data/stats';
import { buildWorld } from '../data/build-world';
import { formatTable } from '../report/table';

export async function runDemo(): Promise<void> {
  const started = Date.now();
  const goldenFile = path.join(FIXTURES_DIR, 'caption-metrics-public.json');
  const golden = readJsonFile(goldenFile) as { corpus: Record<string, number> };
  const cases = loadScoringFile(goldenFile);
  const ours = evaluate(cases, { tokenized: true });
  console.log(`Golden cases: ${cases.length} images, pre-tokenised (${path.relative(process.cwd(), goldenFile)})`);
  console.log(
    formatTable(
      ['metric', 'cckit', 'coco-caption', '|difference|'],
      DEFAULT_METRIC_NAMES.map((name) => {
        const reference = golden.corpus[name];
        const value = ours.corpus[name];
        return [name, value, reference, reference === undefined ? 'no reference value' : formatDifference(Math.abs(value - reference))];
      }),
      6,
    ),
  );

  const exampleDir = path.join(FIXTURES_DIR, 'nocaps-example');
  const { cases: nocapsCases } = loadCocoResults(path.join(exampleDir, 'results.json'), path.join(exampleDir, 'annotations.json'));
  const byDomain = evaluateByDomain(nocapsCases);
  const columns = Object.keys(byDomain);
  const counts = columns.map((d) => (d === 'entire' ? nocapsCases.length : nocapsCases.filter((c) => c.domain === d).length));
  console.log(`\nnocaps-format example: raw text, PTB-tokenised, scored per domain (images: ${columns.map((d, i) => `${d} ${counts[i]}`).join(', ')})`);
  console.log(
    formatTable(
      ['metric', ...columns],
      DEFAULT_METRIC_NAMES.map((name) => [name, ...columns.map((d) => byDomain[d].corpus[name])]),
      4,
    ),
  );

  const worldDir = path.join(PACKAGE_ROOT, '.cckit-cache', 'world-tiny-seed0');
  const manifest = await buildWorld({ seed: 0, preset: 'tiny', out: worldDir });
  const stats = await tsvStats(path.join(worldDir, 'web', 'cc12m.tsv'));
  console.log(
    `\nEmbedded world, tiny preset, seed 0 (${path.relative(process.cwd(), worldDir)}): ${Object.entries(manifest.sizes)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')}`,
  );
  console.log('Raw web pool, CC12M Table 1 statistics (before any filter):');
  console.log(
    formatTable(
      ['pairs', 'token/type', 'caption length', ...Object.keys(stats.rareWords)],
      [
        [
          String(stats.pairs),
          stats.tokenTypeRatio.toFixed(1),
          `${stats.lengthMean.toFixed(1)} ± ${stats.lengthStd.toFixed(1)}`,
          ...Object.values(stats.rareWords).map(String),
        ],
      ],
    ),
  );
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(2)} s)`);
}

function formatDifference(difference: number): string {
  return difference === 0 ? '0' : difference.toExponential(1);
}
