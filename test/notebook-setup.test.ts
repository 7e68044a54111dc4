import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { RECIPES, recipeAtStepScale, trainConfigFor } from '../src/experiments/recipe';
import {
  notebookPreset,
  notebookSeeds,
  notebookStepScale,
  recipeWithOverrides,
  resultRowLines,
  seedSummaryLine,
  setup,
  statusLine,
} from '../src/notebook/setup';

test('recipeWithOverrides replaces one field of a section and keeps the rest of the preset', () => {
  const r = recipeWithOverrides(RECIPES.tiny, { finetune: { lr: 1e-4 }, zeroShot: false });
  assert.equal(r.finetune.lr, 1e-4);
  assert.equal(r.finetune.steps, RECIPES.tiny.finetune.steps);
  assert.deepEqual(r.finetune.select, RECIPES.tiny.finetune.select);
  assert.equal(r.zeroShot, false);
  assert.equal(r.pretrain, RECIPES.tiny.pretrain, 'sections not named are the preset’s own');
  assert.equal(RECIPES.tiny.finetune.lr, 5e-4, 'the preset is not changed');
  const rows = recipeWithOverrides(RECIPES.tiny, { rows: ['none', 'cc12m'] });
  assert.deepEqual(rows.rows, ['none', 'cc12m'], 'arrays replace, not merge');
});

test('notebookSeeds: the environment overrides the notebook; a bad value names itself', () => {
  assert.deepEqual(notebookSeeds([0, 1, 2], undefined), [0, 1, 2]);
  assert.deepEqual(notebookSeeds([0, 1, 2], '0'), [0]);
  assert.deepEqual(notebookSeeds([0], ' 3, 4 '), [3, 4]);
  assert.throws(() => notebookSeeds([0], '0,x'), /CCKIT_NOTEBOOK_SEEDS.*"0,x"/);
  assert.throws(() => notebookSeeds([0], '-1'), /CCKIT_NOTEBOOK_SEEDS/);
});

test('notebookPreset: the environment overrides the notebook (the suite runs a small-preset notebook at tiny); a bad value names itself', () => {
  assert.equal(notebookPreset('small', undefined), 'small');
  assert.equal(notebookPreset('small', ''), 'small');
  assert.equal(notebookPreset('small', 'tiny'), 'tiny');
  assert.throws(() => notebookPreset('tiny', 'huge'), /CCKIT_NOTEBOOK_PRESET="huge".*tiny, small/);
  assert.throws(() => notebookPreset('huge' as never, undefined), /unknown preset "huge"/);
});

test('recipeAtStepScale: every stage a fraction of its steps, checkpoints chosen at the recipe’s interval; 1 is the recipe itself; a bad value names itself', () => {
  assert.equal(recipeAtStepScale(RECIPES.tiny, 1), RECIPES.tiny);
  const r = recipeAtStepScale(RECIPES.tiny, 0.25);
  assert.equal(r.pretrain.steps, 375);
  assert.equal(r.pretrain.warmup, 25);
  assert.equal(r.finetune.steps, 63);
  assert.equal(r.finetune.select?.every, 25, 'checkpoints captioned every 25 steps, as the recipe does: 3 of them');
  assert.equal(r.val.every, 25, 'validation while training as often per run');
  assert.equal(r.retrieval.pretrain.steps, 100);
  assert.equal(r.narratives.pretrainSteps, 375);
  assert.equal(r.narratives.captioning.steps, 38);
  assert.equal(r.captioners.stage.steps, 100);
  assert.equal(r.captioners.stage.warmup, 0, 'no warm-up stays none');
  assert.equal(r.captioners.stage.select?.every, 50);
  // a pre-training run keeps its four checkpoints
  const inputs = { cocoVal: 'val.json', imageRoot: undefined };
  const full = trainConfigFor(RECIPES.tiny, RECIPES.tiny.pretrain, { name: 'p', train: [] }, inputs);
  const scaled = trainConfigFor(r, r.pretrain, { name: 'p', train: [] }, inputs);
  assert.equal(full.steps! / full.checkpointEvery!, 4);
  assert.equal(Math.round(scaled.steps! / scaled.checkpointEvery!), 4);
  // everything else is the preset's
  assert.equal(r.finetune.lr, RECIPES.tiny.finetune.lr);
  assert.equal(r.pretrain.batchSize, RECIPES.tiny.pretrain.batchSize);
  assert.deepEqual(r.rows, RECIPES.tiny.rows);
  assert.equal(RECIPES.tiny.pretrain.steps, 1500, 'the preset is not changed');
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => recipeAtStepScale(RECIPES.tiny, bad), /step scale/);
  assert.equal(notebookStepScale(1, undefined), 1);
  assert.equal(notebookStepScale(1, '0.25'), 0.25);
  assert.throws(() => notebookStepScale(1, 'fast'), /CCKIT_NOTEBOOK_STEP_SCALE.*"fast"/);
  assert.throws(() => notebookStepScale(1, '2'), /CCKIT_NOTEBOOK_STEP_SCALE/);
});

test('setup: folders under the root, real data switches the recipe and the backbone, status lines are logged', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-setup-'));
  const saved = process.env.CCKIT_NOTEBOOK_SEEDS;
  const savedScale = process.env.CCKIT_NOTEBOOK_STEP_SCALE;
  delete process.env.CCKIT_NOTEBOOK_SEEDS;
  delete process.env.CCKIT_NOTEBOOK_STEP_SCALE;
  try {
    const nb = await setup({ preset: 'tiny', seeds: [0, 2], root, quiet: true, overrides: { pretrain: { steps: 10 } } });
    assert.deepEqual(nb.seeds, [0, 2]);
    assert.equal(nb.runsRoot, path.join(root, 'runs'));
    assert.equal(nb.cacheDir, path.join(root, '.cckit-cache'));
    assert.equal(nb.recipe.pretrain.steps, 10);
    assert.equal(nb.recipeFor(2).seed, 2);
    assert.equal(nb.features.backbone, RECIPES.tiny.features.backbone);
    assert.equal(nb.features.cacheDir, nb.cacheDir);
    const o = nb.options({ concurrency: 1 });
    assert.equal(o.runsRoot, nb.runsRoot);
    assert.equal(o.concurrency, 1);
    assert.equal(nb.runDir('abc'), path.join(root, 'runs', 'abc'));
    const seen: number[] = [];
    const out = await nb.overSeeds(async (recipe, seed) => {
      seen.push(seed);
      return recipe.seed;
    });
    assert.deepEqual(out, [0, 2]);
    const log = fs.readFileSync(path.join(root, 'runs', 'status.log'), 'utf8');
    assert.match(log, /seed 0 \(1 of 2\)/);
    assert.match(log, /seed 2 \(2 of 2\)/);

    const real = { pools: { cc3m: 'a.tsv', cc12m: 'b.tsv' }, cocoTrain: 'c.json', cocoVal: 'd.json', nocapsVal: 'e.json' };
    const onReal = await setup({ real, root, quiet: true });
    assert.equal(onReal.real, true);
    assert.deepEqual(onReal.recipe.data, real);
    assert.equal(onReal.features.backbone, 'mobilenet');
    await assert.rejects(setup({ preset: 'huge' as never, root, quiet: true }), /unknown preset "huge"/);
  } finally {
    if (saved !== undefined) process.env.CCKIT_NOTEBOOK_SEEDS = saved;
    if (savedScale !== undefined) process.env.CCKIT_NOTEBOOK_STEP_SCALE = savedScale;
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('statusLine outside a notebook prints each line and appends it with its time', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-status-'));
  const file = path.join(dir, 'sub', 'status.log');
  const write = process.stdout.write;
  const printed: string[] = [];
  process.stdout.write = ((s: string) => (printed.push(s), true)) as typeof process.stdout.write;
  try {
    const say = statusLine(file);
    say('one');
    say('two');
  } finally {
    process.stdout.write = write;
  }
  assert.deepEqual(printed, ['one\n', 'two\n']);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /^\d{4}-\d\d-\d\dT\S+ two$/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('resultRowLines: each row names its runs, whether they were trained now or reused, and the chosen step', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-rows-'));
  const write = (id: string, created: string, updated: string, steps: number) => {
    fs.mkdirSync(path.join(root, id), { recursive: true });
    fs.writeFileSync(path.join(root, id, 'run.json'), JSON.stringify({ id, status: 'done', config: { steps }, created, updated }));
  };
  write('pretrain-cc12m-aaa', '2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z', 1500);
  write('finetune-coco-from-cc12m-bbb', '2026-01-02T00:00:00.000Z', '2026-01-02T00:01:40.000Z', 250);
  const since = new Date('2026-01-01T12:00:00.000Z');
  const rows = [
    { label: 'cc12m', pretrainRun: 'pretrain-cc12m-aaa', finetuneRun: 'finetune-coco-from-cc12m-bbb', finetuned: {}, selection: { candidates: [], step: 175 } },
    { label: 'none', finetuneRun: 'missing-ccc', finetuned: {} },
  ] as unknown as Parameters<typeof resultRowLines>[0];
  assert.deepEqual(resultRowLines(rows, root, since, 'seed 0 · '), [
    'seed 0 · cc12m: pretrain-cc12m-aaa (1500 steps, reused) → finetune-coco-from-cc12m-bbb (250 steps, trained in 100 s); step 175 chosen on val',
    'seed 0 · none: missing-ccc (no run.json)',
  ]);
  // many rows over many seeds: one line a seed
  assert.equal(
    seedSummaryLine(3, rows, root, since),
    'seed 3: 2 rows, 1 of 3 runs trained now (the rest reused); steps chosen on val: cc12m 175, none — (every run: runs/status.log)',
  );
  fs.rmSync(root, { recursive: true, force: true });
});
