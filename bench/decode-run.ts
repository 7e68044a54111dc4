/**
 * Decoding speed of a trained run on nocaps-val images: greedy, beam 5 (exact stopping) and beam 5
 * (heuristic stopping), images/s as medians over repeats, the beam/greedy cost ratio, and whether
 * the two beam stopping rules give the same captions.
 *
 *   npx tsx bench/decode-run.ts runs/<id> [--images 200] [--repeats 3] [--cache .cckit-cache]
 */
import * as path from 'path';

import { decodeBatch, DecodeSettings } from '../src/decode';
import { visualFromSpec, FeatureSpec } from '../src/experiments/visual';
import { readRunInfo } from '../src/runs/layout';
import { formatTable } from '../src/report/table';
import { readEvalImages } from '../src/train/data';
import { loadRunModel } from '../src/train/load';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};

async function main(): Promise<void> {
  const runDir = process.argv[2];
  if (!runDir || runDir.startsWith('--')) throw new Error('usage: bench/decode-run.ts runs/<id> [--images N] [--repeats N]');
  const cache = arg('cache', '.cckit-cache');
  const count = Number(arg('images', '200'));
  const repeats = Number(arg('repeats', '3'));
  const { model, vocab } = await loadRunModel(runDir);
  const visual = await visualFromSpec(readRunInfo(runDir).features as FeatureSpec);
  const images = readEvalImages({ path: path.join(cache, 'world-tiny-seed0', 'nocaps', 'nocaps_val.json') }).slice(0, count);
  await visual.prepare(images.map((i) => i.key));
  const settings: [string, DecodeSettings][] = [
    ['greedy', { method: 'greedy', beamSize: 1, alpha: 0, maxLen: 36 }],
    ['beam 5, exact stop', { method: 'beam', beamSize: 5, alpha: 0.6, maxLen: 36 }],
    ['beam 5, heuristic stop', { method: 'beam', beamSize: 5, alpha: 0.6, maxLen: 36, earlyStopping: 'heuristic' }],
  ];
  const captions: Record<string, string[]> = {};
  const rows: (string | number)[][] = [];
  let greedyMs = 0;
  for (const [name, s] of settings) {
    const times: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const out: string[] = [];
      let ms = 0;
      for (let i = 0; i < images.length; i += 50) {
        const chunk = images.slice(i, i + 50);
        const input = visual.encoderInput(
          chunk.map((c) => c.key),
          { wordId: (w) => vocab.idOf(w), training: false },
        );
        const t0 = performance.now();
        const result = decodeBatch(model, input, s);
        ms += performance.now() - t0;
        for (const v of [input.visual, input.visualMask, input.geometry, input.tags]) v?.dispose();
        out.push(...result.tokens.map((t) => vocab.decode(t)));
      }
      captions[name] = out;
      times.push(ms);
    }
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    if (name === 'greedy') greedyMs = median;
    rows.push([name, (images.length / (median / 1000)).toFixed(1), (median / greedyMs).toFixed(2)]);
  }
  const same = captions['beam 5, exact stop']!.filter((c, i) => c === captions['beam 5, heuristic stop']![i]).length;
  console.log(`${path.basename(runDir)}: ${images.length} nocaps-val images, batches of 50, median of ${repeats}`);
  console.log(formatTable(['decoder', 'images/s', 'cost ÷ greedy'], rows));
  console.log(`beam captions identical under both stopping rules: ${same} of ${images.length}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
