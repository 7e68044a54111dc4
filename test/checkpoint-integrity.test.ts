import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { decodePreset } from '../src/decode';
import { captionSplit } from '../src/experiments/evaluate';
import { readLog } from '../src/runs/layout';
import { checkpointName, loadCheckpoint, loadLatestCheckpoint } from '../src/train/checkpoint';
import { readEvalImages } from '../src/train/data';
import { loadRunModel } from '../src/train/load';
import { train } from '../src/train/trainer';
import { FeatureStore } from '../src/vision/cache';
import { syntheticConfig, syntheticVisual, writeSyntheticData } from './fixtures/train-synthetic';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-ckpt-'));
const data = writeSyntheticData(path.join(tmp, 'data'), 64);
const quiet = { logger: () => {} };

/** A fresh run with checkpoints at steps 10 and 20 (no validation: fast). */
async function twoCheckpoints(name: string): Promise<{ dir: string; step10: string; step20: string }> {
  const run = await train(syntheticConfig(data.tsv, data.coco, { name, steps: 20, val: undefined }), {
    runsRoot: path.join(tmp, name),
    visual: syntheticVisual(),
    ...quiet,
  });
  const ckpts = path.join(run.dir, 'checkpoints');
  return { dir: run.dir, step10: path.join(ckpts, checkpointName(10)), step20: path.join(ckpts, checkpointName(20)) };
}

function fillWithNaN(file: string): void {
  const floats = new Float32Array(fs.statSync(file).size / 4).fill(NaN);
  fs.writeFileSync(file, Buffer.from(floats.buffer));
}

test('checkpoints carry sha256 checksums; a damaged or NaN checkpoint is refused, and a run falls back to the previous one with a warning', async () => {
  const run = await twoCheckpoints('nan');
  const model = JSON.parse(fs.readFileSync(path.join(run.step20, 'model.json'), 'utf8'));
  assert.match(model.checksums['weights.bin'], /^[0-9a-f]{64}$/);
  assert.deepEqual(Object.keys(model.checksums).sort(), ['optimizer.bin', 'optimizer.json', 'state.json', 'weights.bin']);
  assert.equal(loadCheckpoint(run.step20).verified, true);

  fillWithNaN(path.join(run.step20, 'weights.bin'));
  assert.throws(() => loadCheckpoint(run.step20), new RegExp(`${run.step20}.*weights.bin does not match its sha256`));
  const warnings: string[] = [];
  const loaded = loadLatestCheckpoint(run.dir, { warn: (l) => warnings.push(l) });
  assert.equal(loaded?.dir, run.step10);
  assert.match(warnings.join('\n'), new RegExp(`skipping checkpoint ${run.step20}`));

  // An old checkpoint (no checksums) still loads unverified, but NaN weights are refused.
  delete model.checksums;
  fs.writeFileSync(path.join(run.step20, 'model.json'), JSON.stringify(model));
  assert.throws(() => loadCheckpoint(run.step20), /non-finite weight model\/.*= NaN/);
  fs.copyFileSync(path.join(run.step10, 'weights.bin'), path.join(run.step20, 'weights.bin'));
  const old = loadCheckpoint(run.step20);
  assert.equal(old.verified, false);

  assert.equal(old.weights.size, loadCheckpoint(run.step10).weights.size);
});

test('a trainer resume skips a damaged latest checkpoint', async () => {
  const run = await twoCheckpoints('resume');
  fillWithNaN(path.join(run.step20, 'weights.bin'));
  fs.writeFileSync(path.join(run.dir, 'run.json'), fs.readFileSync(path.join(run.dir, 'run.json'), 'utf8').replace('"done"', '"running"'));
  const lines: string[] = [];
  const resumed = await train(syntheticConfig(data.tsv, data.coco, { name: 'resume', steps: 20, val: undefined }), {
    runsRoot: path.join(tmp, 'resume'),
    visual: syntheticVisual(),
    logger: (l) => lines.push(l),
  });
  assert.equal(resumed.stepsRun, 10, lines.join('\n'));
  assert.match(lines.join('\n'), new RegExp(`skipping checkpoint ${run.step20}`));
  assert.match(lines.join('\n'), /resuming .* from step-0000010/);
  const steps = readLog(run.dir).map((l) => l.step);
  assert.deepEqual(
    steps,
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  assert.equal(loadCheckpoint(run.step20).verified, true, 'step 20 written again');
});

test('the latest model.json deleted: the model loads from the previous checkpoint, naming the skipped one', async () => {
  const run = await twoCheckpoints('deleted');
  fs.rmSync(path.join(run.step20, 'model.json'));
  const warnings: string[] = [];
  const loaded = await loadRunModel(run.dir, { warn: (l) => warnings.push(l) });
  assert.equal(loaded.checkpoint, run.step10);
  assert.match(warnings.join('\n'), new RegExp(`skipping checkpoint ${run.step20}: no model.json`));
  loaded.model.dispose();
});

test('garbled model.json and feature index.json: the error names the file', async () => {
  const run = await twoCheckpoints('garbled');
  fs.writeFileSync(path.join(run.step20, 'model.json'), '{"format": "cckit-checkpoint", ');
  assert.throws(
    () => loadCheckpoint(run.step20),
    (err: Error) => err.message.includes(path.join(run.step20, 'model.json')) && /malformed JSON/.test(err.message),
  );
  const warnings: string[] = [];
  assert.equal(loadLatestCheckpoint(run.dir, { warn: (l) => warnings.push(l) })?.dir, run.step10);
  assert.ok(warnings.join('\n').includes(path.join(run.step20, 'model.json')));

  const store = path.join(tmp, 'cache', 'features', 'garbled-backbone');
  fs.mkdirSync(store, { recursive: true });
  fs.writeFileSync(path.join(store, 'index.json'), '{"format": "cckit-features", "entries": {');
  assert.throws(
    () => FeatureStore.open({ id: 'garbled-backbone', featureDim: 2 }, { cacheDir: path.join(tmp, 'cache') }),
    (err: Error) => err.message.includes(path.join(store, 'index.json')) && /malformed JSON at line 1/.test(err.message),
  );
});

test('captioning with a NaN checkpoint fails and leaves the run’s scores alone', async () => {
  const trained = await train(syntheticConfig(data.tsv, data.coco, { name: 'caption', steps: 10, val: undefined }), {
    runsRoot: path.join(tmp, 'caption'),
    visual: syntheticVisual(),
    ...quiet,
  });
  const images = readEvalImages({ path: data.coco, limit: 4 });
  const options = { split: 'val', decode: decodePreset('greedy'), thumbnails: false };
  const good = await captionSplit(trained.dir, images, syntheticVisual(), options);
  const before = fs.readFileSync(good.scoresPath, 'utf8');
  const ckpt = path.join(trained.dir, 'checkpoints', checkpointName(10));
  const model = JSON.parse(fs.readFileSync(path.join(ckpt, 'model.json'), 'utf8'));
  delete model.checksums; // as if the NaN had been there when it was written
  fs.writeFileSync(path.join(ckpt, 'model.json'), JSON.stringify(model));
  fillWithNaN(path.join(ckpt, 'weights.bin'));
  await assert.rejects(captionSplit(trained.dir, images, syntheticVisual(), options), /non-finite weight/);
  assert.equal(fs.readFileSync(good.scoresPath, 'utf8'), before);
});
