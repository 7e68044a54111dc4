/**
 * The profile (`cckit table … --profile`): spans and core samples recorded only when CCKIT_PROFILE names a file,
 * a training run's span with its steps and product FLOPs (its validations nested in it), and the summary's
 * arithmetic on records whose answer is known.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import { trainWithReports } from '../src/experiments/plan';
import { captionerStepFlops, TRANSFORMER_SIZES } from '../src/models/transformer';
import { profileMarkdown, readProfile, summariseProfile, type ProfileRecords } from '../src/report/profile';
import { PROFILE_ENV, profiled, startCoreSampler, type ProfileSpan } from '../src/util/profile';
import { syntheticConfig, syntheticVisual, writeSyntheticData } from './fixtures/train-synthetic';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-profile-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs `fn` with CCKIT_PROFILE set to a fresh file; returns that file's records. */
async function recording(name: string, fn: () => Promise<void>): Promise<ProfileRecords> {
  const file = path.join(tmp, `${name}.jsonl`);
  fs.writeFileSync(file, '');
  const saved = process.env[PROFILE_ENV];
  process.env[PROFILE_ENV] = file;
  try {
    await fn();
  } finally {
    if (saved === undefined) delete process.env[PROFILE_ENV];
    else process.env[PROFILE_ENV] = saved;
  }
  return readProfile(file);
}

const busy = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

test('profiled records nothing unless CCKIT_PROFILE is set; then one span with its wall and this thread’s CPU time', async () => {
  delete process.env[PROFILE_ENV];
  assert.equal(await profiled('report', 'off', async () => 7), 7);

  const records = await recording('spans', async () => {
    await profiled(
      'features',
      'busy',
      async () => busy(300),
      () => ({ images: 3 }),
    );
    await profiled('caption', 'idle', () => new Promise<void>((resolve) => setTimeout(resolve, 300)));
    await assert.rejects(
      profiled('train', 'fails', async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
  });
  const [busySpan, idleSpan, failed] = records.spans;
  assert.equal(records.spans.length, 3);
  assert.deepEqual([busySpan!.kind, busySpan!.name, busySpan!.work], ['features', 'busy', { images: 3 }]);
  assert.ok(busySpan!.wall >= 290, `${busySpan!.wall} ms`);
  if (busySpan!.cpuScope === 'thread') {
    // a busy thread's CPU time is its wall time (10 ms clock ticks); a sleeping one's is near nothing
    assert.ok(busySpan!.cpu >= 200, `busy: ${busySpan!.cpu} ms of CPU`);
    assert.ok(idleSpan!.cpu <= 100, `idle: ${idleSpan!.cpu} ms of CPU`);
  }
  assert.ok(idleSpan!.wall >= 290);
  assert.deepEqual([failed!.kind, failed!.work], ['train', { failed: 1 }]);
});

test('the core sampler writes one sample a tick and a last one when stopped; off without CCKIT_PROFILE', async () => {
  delete process.env[PROFILE_ENV];
  startCoreSampler(10)();
  const records = await recording('samples', async () => {
    const stop = startCoreSampler(100);
    await new Promise((resolve) => setTimeout(resolve, 350));
    busy(200);
    stop();
  });
  assert.ok(records.samples.length >= 3, `${records.samples.length} samples`);
  for (const s of records.samples) {
    assert.ok(s.processCores >= 0 && s.processCores < os.cpus().length + 1, `process cores ${s.processCores}`);
    if (s.machineCores !== undefined) assert.ok(s.machineCores >= 0 && s.machineCores <= os.cpus().length + 0.5, `machine cores ${s.machineCores}`);
  }
  // the last sample covers the busy 200 ms: about one core
  assert.ok(records.samples.at(-1)!.processCores > 0.5, `last sample ${records.samples.at(-1)!.processCores}`);
});

test('a training run is one span with its steps and product FLOPs; its validations are spans inside it', async () => {
  const data = writeSyntheticData(path.join(tmp, 'data'), 32);
  const config = syntheticConfig(data.tsv, data.coco, { name: 'profiled', steps: 40 });
  const records = await recording('train', async () => {
    const run = await trainWithReports(config, syntheticVisual(), { runsRoot: path.join(tmp, 'runs') });
    assert.equal(run.stepsRun, 40);
    assert.ok(run.matmulFlops! > 0);
  });
  const train = records.spans.filter((s) => s.kind === 'train');
  assert.equal(train.length, 1);
  const { steps, matmulFlops } = train[0]!.work!;
  assert.equal(steps, 40);
  // between the smallest and the largest batch shape the synthetic data allows, 40 times
  const size = { encoderLayers: 1, decoderLayers: 1, dModel: 32, ffn: 64 };
  const perStep = matmulFlops! / 40;
  assert.ok(perStep > captionerStepFlops(size, { batch: 1, tokens: 1, positions: 1, vocab: 1, visualDim: 1, geometryDim: 0 }));
  const validations = records.spans.filter((s) => s.kind === 'validate');
  assert.equal(validations.length, 2, 'validation every 20 steps: at 20 and 40');
  for (const v of validations) {
    assert.ok(v.start >= train[0]!.start && v.start + v.wall <= train[0]!.start + train[0]!.wall + 1, 'inside the training span');
    assert.equal(v.work?.images, 16);
  }
  const summary = summariseProfile(records, { cores: 2, denseGflops: 10 });
  assert.equal(summary.training.length, 1);
  const row = summary.training[0]!;
  assert.equal(row.run, 'profiled');
  assert.ok(row.validateSeconds > 0 && row.validateSeconds < row.wallSeconds);
  assert.ok(Math.abs(row.msPerStep - (1000 * (row.wallSeconds - row.validateSeconds)) / 40) < 1e-6);
  assert.ok(row.gflops! > 0 && Math.abs(row.ofLimit! - row.gflops! / 10) < 1e-9);

  // a reused run trains nothing: its span has 0 steps and no training row
  const reused = await recording('reused', async () => {
    await trainWithReports(config, syntheticVisual(), { runsRoot: path.join(tmp, 'runs') });
  });
  assert.equal(reused.spans.find((s) => s.kind === 'train')!.work!.steps, 0);
  assert.equal(summariseProfile(reused, { cores: 2 }).training.length, 0);
});

test('captionerStepFlops: the tiny captioner on the benchmark batch is 3.03 GFLOP a step (docs/performance.md)', () => {
  const flops = captionerStepFlops(TRANSFORMER_SIZES.tiny, { batch: 32, tokens: 20, positions: 17, vocab: 2000, visualDim: 128, geometryDim: 5 });
  assert.equal((flops / 1e9).toFixed(2), '3.03');
});

test('the summary: stages by wall (summed and while any ran), training rates net of validation, cores over time', () => {
  const span = (kind: ProfileSpan['kind'], name: string, start: number, wall: number, cpu: number, work?: Record<string, number>, thread = 1): ProfileSpan => ({
    kind,
    name,
    thread,
    start,
    wall,
    cpu,
    cpuScope: 'thread',
    ...(work ? { work } : {}),
  });
  const t0 = 1_000_000;
  const records: ProfileRecords = {
    spans: [
      span('world', 'tiny', t0, 10_000, 9_000, undefined, 0),
      // two runs side by side, 20 s each, overlapping by 10 s; the first with 4 s of validation inside
      span('train', 'a', t0 + 10_000, 20_000, 19_000, { steps: 100, matmulFlops: 160e9 }, 1),
      span('validate', 'a step 100', t0 + 26_000, 4_000, 4_000, { images: 100 }, 1),
      span('train', 'b', t0 + 20_000, 20_000, 20_000, { steps: 200, matmulFlops: 200e9 }, 2),
      span('train', 'reused', t0 + 40_000, 0, 0, { steps: 0 }, 1),
    ],
    samples: Array.from({ length: 40 }, (_, i) => ({ time: t0 + (i + 1) * 1000, processCores: i < 10 || i >= 30 ? 1 : 2, machineCores: 2 })),
  };
  const summary = summariseProfile(records, { cores: 2, denseGflops: 20, buckets: 4 });
  assert.equal(summary.wallSeconds, 40);
  const train = summary.stages.find((s) => s.stage === 'train')!;
  assert.deepEqual([train.spans, train.wallSeconds, train.coveredSeconds, train.cpuSeconds], [3, 40, 30, 39]);
  assert.equal(train.cpuPerWall, 39 / 40);
  assert.deepEqual(
    summary.training.map((t) => [t.run, t.steps, t.validateSeconds, t.msPerStep, t.gflops, t.ofLimit]),
    [
      ['a', 100, 4, 160, 10, 0.5],
      ['b', 200, 0, 100, 10, 0.5],
    ],
  );
  assert.equal(summary.cores.process, 1.5);
  assert.equal(summary.cores.machine, 2);
  assert.equal(summary.cores.oneIdleShare, 0.5, 'one core idle in the 20 seconds with one lane');
  assert.deepEqual(
    summary.cores.timeline.map((b) => [b.fromSeconds, b.process]),
    [
      [0, 1],
      [10, 2],
      [20, 2],
      [30, 1],
    ],
  );
  const markdown = profileMarkdown(summary);
  assert.match(markdown, /^Whole run: 40\.0 s\. Cores in use, mean: this process 1\.50 of 2, the whole machine 2\.00; a core idle .* in 50% of the seconds\./);
  assert.match(markdown, /\| train \| 3 \| 40\.0 \| 30\.0 \| 75% \| 39\.0 \| 0\.9\d \|/);
  assert.match(markdown, /\| a \| 100 \| 20\.0 \| 4\.0 \| 160\.0 \| 10\.0 \| 50% \|/);
  assert.match(markdown, /one thread's dense products: 20\.0 GFLOP\/s/);
});

test('readProfile: a line that is not a record is an error naming the file and line', () => {
  const file = path.join(tmp, 'bad.jsonl');
  fs.writeFileSync(file, '{"sample":{"time":1,"processCores":1}}\n\nnot json\n');
  assert.throws(() => readProfile(file), new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not a JSON line`));
  fs.writeFileSync(file, '{"kind":"nap","wall":1,"start":1}\n');
  assert.throws(() => readProfile(file), /:1: neither a span nor a core sample/);
});
