/**
 * Throughput of the CC12M pipeline's stages that need no image bytes — text filter, image–text
 * overlap, person names → <PERSON> — over a generated TSV of world alt-text, as `cckit filter`
 * runs them: the stages come from src/filters/presets.ts buildStages with the preset's rare-word
 * threshold scaled to the corpus (textOptionsFor), on 1 thread (workers 0) and with the text and
 * image–text stages on a pool of worker threads (one per core; the transform stays on the main
 * thread, as in the pipeline). The image stage (fetch, decode, NSFW) is not timed here.
 * Run: npm run bench:filter [rows]   (default 1,000,000)
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { readTsv, TsvWriter } from '../src/data/tsv';
import { PooledStages, PairStage } from '../src/filters/pipeline';
import { PRESETS, StageBuildOptions, buildStages, textOptionsFor } from '../src/filters/presets';
import { WordCounts } from '../src/filters/text';
import { World } from '../src/world/world';

const BATCH = 2000;
const STAGES = ['text', 'image-text', 'transform'] as const;

interface Row {
  caption: string;
  tags: string[];
}

/** Runs the main-thread stages over pairs the pooled stages kept (or over all); the number kept. */
async function runStages(rows: readonly Row[], stages: readonly PairStage[], offset: number): Promise<number> {
  let kept = 0;
  for (let i = 0; i < rows.length; i++) {
    let caption = rows[i]!.caption;
    let ok = true;
    for (const stage of stages) {
      const verdict = await stage.check({ id: String(offset + i), url: '', caption, tags: rows[i]!.tags });
      if (!verdict.keep) {
        ok = false;
        break;
      }
      caption = verdict.caption;
    }
    if (ok) kept++;
  }
  return kept;
}

async function pooledBatch(pooled: PooledStages, rows: Row[], stages: readonly PairStage[], offset: number): Promise<number> {
  const results = await pooled.run(rows);
  const survivors = rows.flatMap((row, i) => (results[i]!.rejectedAt < 0 ? [{ caption: results[i]!.caption, tags: row.tags }] : []));
  return runStages(survivors, stages, offset);
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-filter-'));
  const file = path.join(dir, 'web.tsv');
  let t = performance.now();
  const world = new World({ seed: 1 });
  const writer = TsvWriter.create(file, { layout: 'url-caption' });
  const tags: string[][] = [];
  for (let id = 0; id < rows; id++) {
    const pair = world.webPair(id);
    tags.push(pair.tags);
    const pending = writer.write(pair);
    if (pending) await pending;
  }
  await writer.close();
  console.log(
    `generated ${rows.toLocaleString('en')} world alt-texts in ${((performance.now() - t) / 1000).toFixed(1)} s (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB)`,
  );

  const all: Row[] = [];
  for await (const row of readTsv(file)) all.push({ caption: row.caption, tags: tags[all.length]! });
  t = performance.now();
  const counts = WordCounts.fromCaptions(all.map((r) => r.caption));
  console.log(`word-count pass: ${((performance.now() - t) / 1000).toFixed(1)} s, ${counts.size} types`);
  const preset = PRESETS.cc12m;
  const options: StageBuildOptions = { vocabulary: counts, vocabularyPairs: all.length, only: STAGES, nsfw: false };
  console.log(
    `stages ${STAGES.join(', ')}; rare-word threshold ${textOptionsFor(preset, options).minWordFrequency} (paper ${preset.text.minWordFrequency} at ${preset.rareWordsAtPairs.toLocaleString('en')} pairs)`,
  );

  const sample = all.slice(0, Math.min(all.length, 100_000));
  const single = buildStages(preset, { ...options, workers: 0 });
  await runStages(sample.slice(0, 2000), single.stages, 0); // warm-up
  t = performance.now();
  let kept = 0;
  for (let i = 0; i < sample.length; i += BATCH) kept += await runStages(sample.slice(i, i + BATCH), single.stages, i);
  const singleRate = sample.length / ((performance.now() - t) / 1000);
  await single.close();
  console.log(`1 thread: ${Math.round(singleRate).toLocaleString('en')} captions/s over ${sample.length.toLocaleString('en')} (kept ${kept})`);

  const workers = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const pooled = buildStages(preset, { ...options, workers });
  const pool = pooled.pooled!;
  await Promise.all(Array.from({ length: workers }, () => pool.run(sample.slice(0, 500)))); // load models in every worker
  t = performance.now();
  kept = 0;
  const inFlight: Promise<number>[] = [];
  for (let i = 0; i < all.length; i += BATCH) {
    inFlight.push(pooledBatch(pool, all.slice(i, i + BATCH), pooled.stages, i));
    if (inFlight.length >= pool.depth) kept += await inFlight.shift()!;
  }
  for (const batch of inFlight) kept += await batch;
  const seconds = (performance.now() - t) / 1000;
  await pooled.close();
  console.log(
    `${workers} worker threads: ${Math.round(all.length / seconds).toLocaleString('en')} captions/s over ${all.length.toLocaleString('en')} (${seconds.toFixed(1)} s, kept ${kept})`,
  );
  console.log(`at that rate all 12,423,374 CC12M captions take ${(12_423_374 / (all.length / seconds) / 60).toFixed(1)} min`);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
