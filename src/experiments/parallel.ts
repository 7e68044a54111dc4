/**
 * Experiment rows in parallel: each variant (pre-train → fine-tune → evaluate) runs in its own
 * worker thread with its own tfjs instance, so a 2-core machine trains two single-threaded wasm
 * runs at once. Features are extracted once in the main thread first (the feature store has one
 * writer); workers only read it. Results come back in the variants' order.
 */
import * as path from 'path';
import { Worker } from 'worker_threads';

import type { LogLine } from '../runs/layout';
import type { ExperimentOptions, Inputs, Table3Config, Variant, VariantResult } from './table3';
import type { FeatureSpec } from './visual';

interface Job {
  config: Table3Config;
  variant: Variant;
  inputs: Inputs;
  features: FeatureSpec;
  runsRoot?: string;
  force?: boolean;
}

type Message = { say: string } | { progress: [string, number, number] } | { log: [string, LogLine] } | { done: VariantResult } | { error: string };

const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
if (workerData.fromSources) require('tsx/cjs');
require(workerData.modulePath)
  .runVariantJob(workerData.job, (message) => parentPort.postMessage(message))
  .then((done) => parentPort.postMessage({ done }), (e) => parentPort.postMessage({ error: String((e && e.stack) || e) }));
`;

/** Worker side: rebuild the visual provider from its spec and run one variant. */
export async function runVariantJob(job: Job, post: (m: Message) => void): Promise<VariantResult> {
  const { runVariant } = await import('./table3');
  const { visualFromSpec } = await import('./visual');
  const visual = await visualFromSpec(job.features);
  return runVariant(job.config, job.variant, job.inputs, visual, {
    runsRoot: job.runsRoot,
    force: job.force,
    features: job.features,
    concurrency: 1,
    say: (line) => post({ say: line }),
    progress: (task, done, total) => post({ progress: [task, done, total] }),
    onLog: (run, line) => post({ log: [run, line] }),
  });
}

function runInWorker(job: Job, options: ExperimentOptions): Promise<VariantResult> {
  const modulePath = __filename;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, job, fromSources: path.extname(modulePath) === '.ts' } });
    let settled = false;
    worker.on('message', (m: Message) => {
      if ('say' in m) options.say?.(m.say);
      else if ('progress' in m) options.progress?.(...m.progress);
      else if ('log' in m) options.onLog?.(...m.log);
      else if ('done' in m) {
        settled = true;
        resolve(m.done);
        void worker.terminate();
      } else if ('error' in m) {
        settled = true;
        reject(new Error(`${job.variant.label}: ${m.error}`));
        void worker.terminate();
      }
    });
    worker.on('error', (e) => {
      if (!settled) reject(e);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`${job.variant.label}: worker exited with code ${code}`));
    });
  });
}

/** Runs the variants, `concurrency` at a time (default 2), each in a worker thread. */
export async function runVariantsParallel(config: Table3Config, variants: readonly Variant[], inputs: Inputs, features: FeatureSpec, options: ExperimentOptions, concurrency = 2): Promise<VariantResult[]> {
  const results: VariantResult[] = new Array(variants.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < variants.length) {
      const i = next++;
      results[i] = await runInWorker({ config, variant: variants[i]!, inputs, features, runsRoot: options.runsRoot, force: options.force }, options);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, variants.length)) }, lane));
  return results;
}
