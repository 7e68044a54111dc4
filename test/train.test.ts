import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { readLog, readRunInfo } from '../src/runs/layout';
import { canonicalJson, runId } from '../src/runs/run';
import { latestCheckpoint } from '../src/train/checkpoint';
import { BatchStream, subsample } from '../src/train/data';
import { learningRateAt } from '../src/train/optimizers';
import { captionRows, maskTokens } from '../src/train/objectives';
import { train } from '../src/train/trainer';
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID } from '../src/text/tokens';
import { seededRandom } from '../src/util/random';
import { syntheticConfig, syntheticVisual, writeSyntheticData } from './fixtures/train-synthetic';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-train-'));
const data = writeSyntheticData(path.join(tmp, 'data'), 64);
const quiet = { logger: () => {} };

function stepLosses(runDir: string): Map<number, number> {
  return new Map(
    readLog(runDir)
      .filter((l) => l.loss)
      .map((l) => [l.step, l.loss!.total!]),
  );
}

test('training on the synthetic task lowers the loss and raises validation CIDEr; the run is reused', async () => {
  const root = path.join(tmp, 'learn');
  const run = await train(syntheticConfig(data.tsv, data.coco), { runsRoot: root, visual: syntheticVisual(), ...quiet });
  const log = readLog(run.dir);
  const losses = log.filter((l) => l.loss).map((l) => l.loss!.ic!);
  assert.ok(losses.at(-1)! < losses[0]! * 0.5, `loss ${losses[0]} → ${losses.at(-1)}`);
  const vals = log.filter((l) => l.val).map((l) => l.val!.CIDEr!);
  assert.equal(vals.length, 2);
  assert.ok(vals[1]! > 3, `final CIDEr ${vals[1]}`);
  assert.equal(readRunInfo(run.dir).status, 'done');
  assert.ok(latestCheckpoint(run.dir));
  const again = await train(syntheticConfig(data.tsv, data.coco), { runsRoot: root, visual: syntheticVisual(), ...quiet });
  assert.equal(again.id, run.id);
  assert.equal(again.stepsRun, 0);
});

test('same config, same losses (deterministic); a changed config gets another run id', async () => {
  const a = await train(syntheticConfig(data.tsv, data.coco, { steps: 12 }), { runsRoot: path.join(tmp, 'det-a'), visual: syntheticVisual(), ...quiet });
  const b = await train(syntheticConfig(data.tsv, data.coco, { steps: 12 }), { runsRoot: path.join(tmp, 'det-b'), visual: syntheticVisual(), ...quiet });
  assert.deepEqual([...stepLosses(a.dir)], [...stepLosses(b.dir)]);
  const c = runId('x', syntheticConfig(data.tsv, data.coco, { steps: 13 }), {});
  assert.notEqual(c, runId('x', syntheticConfig(data.tsv, data.coco, { steps: 12 }), {}));
  assert.equal(canonicalJson({ b: 1, a: [2, { d: 1, c: 2 }] }), canonicalJson({ a: [2, { c: 2, d: 1 }], b: 1 }));
});

test('a run killed with kill -9 resumes from its last checkpoint and continues the same loss curve', async () => {
  const steps = 150;
  const reference = await train(syntheticConfig(data.tsv, data.coco, { steps }), { runsRoot: path.join(tmp, 'ref'), visual: syntheticVisual(), ...quiet });
  const root = path.join(tmp, 'killed');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'train-child.ts'), root, path.dirname(data.tsv), String(steps)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const runDir = path.join(root, reference.id);
  // Kill once a checkpoint past step 20 exists (the child is then mid-run, between checkpoints).
  const deadline = Date.now() + 120_000;
  for (;;) {
    const latest = path.join(runDir, 'checkpoints', 'latest');
    if (fs.existsSync(latest) && Number(fs.readFileSync(latest, 'utf8').trim().slice(5)) >= 30) break;
    assert.ok(Date.now() < deadline, `child made no checkpoint in time: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  assert.equal(await exited, null, 'killed by the signal');
  assert.equal(readRunInfo(runDir).status, 'running', 'the child was killed before it finished');
  const killedAt = Math.max(...readLog(runDir).map((l) => l.step));
  assert.ok(killedAt < steps);
  const resumed = await train(syntheticConfig(data.tsv, data.coco, { steps }), { runsRoot: root, visual: syntheticVisual(), ...quiet });
  assert.equal(resumed.id, reference.id);
  assert.ok(resumed.stepsRun > 0 && resumed.stepsRun < steps, `resumed ran ${resumed.stepsRun} steps`);
  const want = stepLosses(reference.dir);
  const got = stepLosses(resumed.dir);
  assert.equal(got.size, steps);
  for (const [step, loss] of want) assert.equal(got.get(step), loss, `step ${step}`);
  const vals = (dir: string) =>
    readLog(dir)
      .filter((l) => l.val)
      .map((l) => [l.step, l.val!.CIDEr]);
  assert.deepEqual(vals(resumed.dir), vals(reference.dir));
});

test('fine-tuning keeps the parent vocabulary (extended by new words) and starts from its weights', async () => {
  const parent = await train(syntheticConfig(data.tsv, data.coco, { steps: 30 }), { runsRoot: path.join(tmp, 'ft'), visual: syntheticVisual(), ...quiet });
  const other = path.join(tmp, 'data2');
  fs.mkdirSync(other, { recursive: true });
  const tsv2 = path.join(other, 'train.tsv');
  fs.writeFileSync(tsv2, fs.readFileSync(data.tsv, 'utf8').replace(/on the table/g, 'beside a lamp'));
  const child = await train(syntheticConfig(tsv2, data.coco, { name: 'ft', steps: 1, init: { fromRun: parent.dir, vocab: 'keep' } }), {
    runsRoot: path.join(tmp, 'ft'),
    visual: syntheticVisual(),
    ...quiet,
  });
  assert.deepEqual(child.vocab.words.slice(0, parent.vocab.size), [...parent.vocab.words]);
  assert.ok(child.vocab.has('lamp') && child.vocab.has('beside'));
  const first = readLog(child.dir).find((l) => l.loss)!;
  const fresh = await train(syntheticConfig(tsv2, data.coco, { name: 'scratch', steps: 1 }), {
    runsRoot: path.join(tmp, 'ft'),
    visual: syntheticVisual(),
    ...quiet,
  });
  const scratch = readLog(fresh.dir).find((l) => l.loss)!;
  // Shared words carry trained weights: the first fine-tuning loss is well below a fresh model's.
  assert.ok(first.loss!.ic! < scratch.loss!.ic! - 0.3, `fine-tune ${first.loss!.ic} vs scratch ${scratch.loss!.ic}`);
});

test('init.fromRun takes a run name (the newest finished run of it); a bad parent leaves no run, a failed start no "running" run', async () => {
  const root = path.join(tmp, 'by-name');
  const options = { runsRoot: root, visual: syntheticVisual(), ...quiet };
  const parent = await train(syntheticConfig(data.tsv, data.coco, { name: 'parent', steps: 2, val: undefined }), options);
  const byName = await train(
    syntheticConfig(data.tsv, data.coco, { name: 'child', steps: 1, val: undefined, init: { fromRun: 'parent', vocab: 'keep' } }),
    options,
  );
  const byDir = await train(
    syntheticConfig(data.tsv, data.coco, { name: 'child', steps: 1, val: undefined, init: { fromRun: parent.dir, vocab: 'keep' } }),
    options,
  );
  assert.equal(byName.info.parent, parent.id);
  assert.equal(byName.id, byDir.id, 'a name and the directory it picks give the same run');

  const runsBefore = fs.readdirSync(root).sort();
  const start = (fromRun: string) => train(syntheticConfig(data.tsv, data.coco, { name: 'orphan', steps: 1, init: { fromRun, vocab: 'keep' } }), options);
  await assert.rejects(start('no-such-run'), /no run named "no-such-run"; train that run first/);
  const notARun = path.join(tmp, 'not-a-run');
  fs.mkdirSync(notARun, { recursive: true });
  await assert.rejects(start(notARun), /no vocab\.json \(not a cckit training run\?\)/);
  assert.deepEqual(fs.readdirSync(root).sort(), runsBefore, 'a parent refused before the run is opened leaves no run');

  // a parent with a vocabulary but no checkpoint fails after the run is opened: marked failed, not running
  const hollow = path.join(tmp, 'hollow-parent');
  fs.mkdirSync(hollow, { recursive: true });
  fs.copyFileSync(path.join(parent.dir, 'vocab.json'), path.join(hollow, 'vocab.json'));
  await assert.rejects(start(hollow), /no checkpoint to fine-tune from/);
  const orphan = fs.readdirSync(root).find((name) => name.startsWith('orphan-'))!;
  assert.equal(readRunInfo(path.join(root, orphan)).status, 'failed');
});

test('MLM, caption rows, subsamples, batch stream and schedules', () => {
  const r = seededRandom(1);
  const masked = maskTokens([10, 11, 12, 13, 14, 15, 16, 17], 1, r);
  assert.ok(masked.every((t) => t === MASK_ID));
  const some = maskTokens([10, 11, 12], 0.01, r);
  assert.equal(some.filter((t) => t === MASK_ID).length, 1, 'at least one mask');
  assert.deepEqual(maskTokens([10, 11], 0, r), [10, 11]);
  const rows = captionRows([[7, 8], [9]]);
  assert.deepEqual(rows.tokensIn, [
    [BOS_ID, 7, 8],
    [BOS_ID, 9, PAD_ID],
  ]);
  assert.deepEqual(rows.targets, [
    [7, 8, EOS_ID],
    [9, EOS_ID, PAD_ID],
  ]);
  const items = Array.from({ length: 100 }, (_, i) => i);
  const quarter = subsample(items, 0.25, 5);
  const half = subsample(items, 0.5, 5);
  assert.equal(quarter.length, 25);
  assert.ok(
    quarter.every((x) => half.includes(x)),
    '25% ⊂ 50%',
  );
  const stream = new BatchStream(items, 30, 2);
  const seen = [...stream.next(), ...stream.next(), ...stream.next(), ...stream.next()];
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    items,
  );
  assert.deepEqual(stream.position, { epoch: 1, index: 0 });
  const cfg = { lr: 1, warmup: 1, warmupUnit: 'epochs' as const, decay: 'linear' as const };
  assert.equal(learningRateAt(cfg, 4, 10, 110), 0.5);
  assert.equal(learningRateAt(cfg, 9, 10, 110), 1);
  assert.ok(Math.abs(learningRateAt(cfg, 59, 10, 110) - 0.5) < 1e-12);
  assert.equal(learningRateAt({ lr: 0.01 }, 1000, 10, 10), 0.01);
});

test('Adagrad (CC3M) trains too', async () => {
  const run = await train(syntheticConfig(data.tsv, data.coco, { name: 'adagrad', steps: 30, optimizer: { name: 'adagrad', lr: 0.05 } }), {
    runsRoot: path.join(tmp, 'adagrad'),
    visual: syntheticVisual(),
    ...quiet,
  });
  const losses = readLog(run.dir)
    .filter((l) => l.loss)
    .map((l) => l.loss!.ic!);
  assert.ok(losses.at(-1)! < losses[0]!, `${losses[0]} → ${losses.at(-1)}`);
});
