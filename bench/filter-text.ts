/**
 * Throughput of the CC12M text stage (text filter + person names → <PERSON>) over a generated
 * TSV of world alt-text, on 1 thread and on a pool of worker threads (one per core).
 * Run: npm run bench:filter [rows]   (default 1,000,000)
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { readTsv, TsvWriter } from '../src/data/tsv';
import { textTask } from '../src/filters/text-task';
import { Vocabulary } from '../src/filters/text';
import { WorkerPool } from '../src/util/worker-pool';
import { Verdict } from '../src/filters/types';
import { World } from '../src/world/world';

const BATCH = 2000;

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-filter-'));
  const file = path.join(dir, 'web.tsv');
  let t = performance.now();
  const world = new World({ seed: 1 });
  const writer = TsvWriter.create(file, { layout: 'url-caption' });
  for (let id = 0; id < rows; id++) {
    const pending = writer.write(world.webPair(id));
    if (pending) await pending;
  }
  await writer.close();
  console.log(`generated ${rows.toLocaleString('en')} world alt-texts in ${((performance.now() - t) / 1000).toFixed(1)} s (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB)`);

  const captions: string[] = [];
  for await (const row of readTsv(file)) captions.push(row.caption);
  t = performance.now();
  const vocabulary = Vocabulary.fromCaptions(captions);
  console.log(`vocabulary pass: ${((performance.now() - t) / 1000).toFixed(1)} s, ${vocabulary.size} types`);
  const vocabularyText = vocabulary.toFrequencyText();

  const sample = captions.slice(0, Math.min(captions.length, 100_000));
  const single = textTask({ preset: 'cc12m', vocabulary: vocabularyText, persons: true });
  single(sample.slice(0, 2000)); // warm-up
  t = performance.now();
  let kept = 0;
  for (let i = 0; i < sample.length; i += BATCH) kept += single(sample.slice(i, i + BATCH)).filter((v) => v.keep).length;
  const singleRate = sample.length / ((performance.now() - t) / 1000);
  console.log(`1 thread: ${Math.round(singleRate).toLocaleString('en')} captions/s over ${sample.length.toLocaleString('en')} (kept ${kept})`);

  const modulePath = path.join(__dirname, '..', 'src', 'filters', `text-task${path.extname(__filename)}`);
  const pool = new WorkerPool<string, Verdict>(modulePath, 'textTask', { preset: 'cc12m', vocabulary: vocabularyText, persons: true });
  await Promise.all(Array.from({ length: pool.size }, () => pool.run(sample.slice(0, 500)))); // load models in every worker
  t = performance.now();
  kept = 0;
  const inFlight: Promise<Verdict[]>[] = [];
  for (let i = 0; i < captions.length; i += BATCH) {
    inFlight.push(pool.run(captions.slice(i, i + BATCH)));
    if (inFlight.length >= 2 * pool.size) kept += (await inFlight.shift()!).filter((v) => v.keep).length;
  }
  for (const batch of inFlight) kept += (await batch).filter((v) => v.keep).length;
  const seconds = (performance.now() - t) / 1000;
  await pool.close();
  console.log(`${pool.size} worker threads: ${Math.round(captions.length / seconds).toLocaleString('en')} captions/s over ${captions.length.toLocaleString('en')} (${seconds.toFixed(1)} s, kept ${kept})`);
  console.log(`at that rate all 12,423,374 CC12M captions take ${((12_423_374 / (captions.length / seconds)) / 60).toFixed(1)} min`);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
