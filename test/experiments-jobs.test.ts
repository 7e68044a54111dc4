/**
 * The experiments' one job pool (src/experiments/jobs.ts): results in the jobs' order, at most `concurrency` at once,
 * a failure stops the pool. And the one checkpoint choice every fine-tuning stage makes (src/experiments/evaluate.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { selectCheckpoint } from '../src/experiments/evaluate';
import { runJobs } from '../src/experiments/jobs';
import { CHECKPOINTS_DIR } from '../src/runs/layout';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('runJobs: results in the jobs order whatever order they finish in; each job gets its index', async () => {
  // the first jobs take longest, so they finish last
  const durations = [40, 30, 20, 10, 0];
  const finished: number[] = [];
  const results = await runJobs(durations, 2, async (ms, i) => {
    await pause(ms);
    finished.push(i);
    return `job ${i} (${ms} ms)`;
  });
  assert.deepEqual(results, ['job 0 (40 ms)', 'job 1 (30 ms)', 'job 2 (20 ms)', 'job 3 (10 ms)', 'job 4 (0 ms)']);
  assert.notDeepEqual(finished, [0, 1, 2, 3, 4], 'the jobs did finish out of order');
  assert.deepEqual(await runJobs([], 2, async () => 1), []);
});

test('runJobs: never more than `concurrency` jobs at once, and that many when there are enough jobs; at least one lane', async () => {
  for (const concurrency of [1, 2, 3]) {
    let running = 0;
    let most = 0;
    await runJobs([5, 1, 8, 2, 6, 3, 4], concurrency, async (ms) => {
      running++;
      most = Math.max(most, running);
      await pause(ms);
      running--;
    });
    assert.equal(most, concurrency, `concurrency ${concurrency}`);
  }
  // fewer jobs than lanes: one lane per job; no lanes asked for: one
  let started = 0;
  await runJobs([1, 2], 8, async () => void started++);
  assert.equal(started, 2);
  const order: number[] = [];
  await runJobs([3, 1, 2], 0, async (ms, i) => {
    await pause(ms);
    order.push(i);
  });
  assert.deepEqual(order, [0, 1, 2], 'concurrency 0 runs the jobs one after another');
});

test('runJobs: a failing job rejects the pool with its error, no further job starts, and the running one ends first', async () => {
  const started: number[] = [];
  const ended: number[] = [];
  const run = runJobs([0, 1, 2, 3, 4], 2, async (job) => {
    started.push(job);
    if (job === 0) {
      await pause(5);
      throw new Error('job 0 failed');
    }
    await pause(30);
    ended.push(job);
    return job;
  });
  await assert.rejects(run, /job 0 failed/);
  assert.deepEqual(started, [0, 1], 'the other lane kept its job; nothing started after the failure');
  assert.deepEqual(ended, [1], 'the job still running when job 0 failed ended before the pool rejected');
});

test('selectCheckpoint: every kept checkpoint scored in step order under its own split; the best chosen, ties to the earlier', async () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-select-'));
  try {
    const steps = [25, 50, 75, 100];
    for (const step of steps) {
      const dir = path.join(runDir, CHECKPOINTS_DIR, `step-${String(step).padStart(6, '0')}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'model.json'), '{}');
    }
    // a folder without a model (a checkpoint being written) is no candidate
    fs.mkdirSync(path.join(runDir, CHECKPOINTS_DIR, 'step-000125'));
    const cider: Record<number, number> = { 25: 10, 50: 30, 75: 30, 100: 20 };
    const scored: string[] = [];
    const choice = await selectCheckpoint(
      runDir,
      'nocaps-val',
      async ({ step, dir, split }) => {
        assert.equal(split, `nocaps-val.${path.basename(dir)}`);
        scored.push(split);
        return { overall: cider[step]! };
      },
      (score) => score.overall,
    );
    assert.deepEqual(scored, ['nocaps-val.step-000025', 'nocaps-val.step-000050', 'nocaps-val.step-000075', 'nocaps-val.step-000100']);
    assert.deepEqual(
      choice.candidates,
      steps.map((step) => ({ step, score: { overall: cider[step] } })),
    );
    assert.equal(choice.step, 50, 'steps 50 and 75 tie: the earlier');
    assert.equal(choice.dir, path.join(runDir, CHECKPOINTS_DIR, 'step-000050'));
    await assert.rejects(
      selectCheckpoint(
        path.join(runDir, 'none'),
        'nocaps-val',
        async () => 1,
        (x) => x,
      ),
      /no checkpoints to choose from/,
    );
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
});
