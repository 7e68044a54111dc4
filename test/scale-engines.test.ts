/**
 * The Slurm and BullMQ engines on the real services (test/services.ts starts a one-node Slurm cluster and a
 * Redis on a unix socket): a 4-shard download + filter + features run of the world served over loopback,
 * compared with one process (test/scale-helpers.ts); on BullMQ one of the two workers is killed with
 * SIGKILL in the middle of a shard (its child, the shard's process, exits with it), and its job is finished
 * by the other.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, test } from 'node:test';
import { PACKAGE_ROOT } from '../src/paths';
import { World } from '../src/world/world';
import { serveWorld, type WorldServer } from '../src/world/server';
import { compareShardedOutputs, runCli, stagesAfterDownload, writeWorldList } from './scale-helpers';
import { serviceOrSkip, startRedis, startSlurm } from './services';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-engines-'));
const world = new World({ seed: 0 });
let web: WorldServer;
let list: string;
const ROWS = 40;
const COMMON = ['--allow-private', '--samples-per-shard', '5', '--no-progress', '--resize-mode', 'no'];

/** The three stages over `root`, each with `engine` flags (none: one process). */
async function runStages(root: string, engine: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const steps = [['download', '--in', list, '--out', path.join(root, 'shards'), ...COMMON], ...stagesAfterDownload(root)];
  for (const step of steps) {
    const r = await runCli([...step, ...engine], env);
    assert.equal(r.code, 0, `${step[0]} ${engine.join(' ')}:\n${r.output}`);
  }
}

before(async () => {
  web = await serveWorld(world, { hostile: true });
  list = writeWorldList(world, web.url, path.join(dir, 'list.tsv'), ROWS);
  // the "slow" host answers after 1.5 s: shard 1's rows take long enough to kill a worker in the middle
  const rows = fs.readFileSync(list, 'utf8').trim().split('\n');
  for (let i = 5; i < 10; i++) rows[i] = `${web.url}/hostile/slow/${i}.jpg\tA dog on a sofa in a slow room ${i}.`;
  fs.writeFileSync(list, rows.join('\n') + '\n');
  await runStages(path.join(dir, 'one'), []);
});
after(async () => {
  await web.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('slurm engine: an sbatch array per stage, resubmission by a dependent job, the same outputs', { timeout: 600_000 }, async (t) => {
  if (!serviceOrSkip(t, 'slurm')) return;
  const slurm = await startSlurm();
  t.after(() => slurm.stop());
  const root = path.join(dir, 'slurm');
  // --dry-run prints the scripts and submits nothing
  const dry = await runCli(
    ['download', '--in', list, '--out', path.join(root, 'dry'), ...COMMON, '--engine', 'slurm', '--shards', '4', '--dry-run'],
    slurm.env,
  );
  assert.equal(dry.code, 0, dry.output);
  assert.match(dry.output, /#SBATCH --array=0,1,2,3/);
  assert.match(dry.output, /--shard 4/);
  assert.match(dry.output, /scale finish/);
  assert.equal(fs.existsSync(path.join(root, 'dry')), false);

  await runStages(root, ['--engine', 'slurm', '--shards', '4'], slurm.env);
  await compareShardedOutputs(path.join(dir, 'one'), root);
  const logs = fs.readdirSync(path.join(root, 'shards', '.shards', 'logs'));
  assert.equal(logs.filter((n) => /^slurm-\d+_\d\.log$/.test(n)).length, 4, logs.join(' '));

  // a task that fails (its marker folder blocked by a file) is resubmitted by the finishing job
  const again = path.join(root, 'again');
  fs.mkdirSync(path.join(again, '.shards'), { recursive: true });
  const blocker = path.join(again, '.shards', '2-of-4');
  fs.writeFileSync(blocker, 'not a folder');
  const run = runCli(['download', '--in', list, '--out', again, ...COMMON, '--engine', 'slurm', '--shards', '4'], slurm.env);
  const finishLog = path.join(again, '.shards', 'logs', 'slurm-finish-1.log');
  await waitFor(() => fs.existsSync(finishLog) && fs.readFileSync(finishLog, 'utf8').includes('resubmitted'), 300_000, 'the finishing job to resubmit');
  fs.rmSync(blocker);
  const resubmitted = await run;
  assert.equal(resubmitted.code, 0, resubmitted.output);
  assert.match(fs.readFileSync(finishLog, 'utf8'), /1 shard\(s\) without a done-marker \(2\)/);
  assert.ok(fs.existsSync(path.join(blocker, 'summary.json')));
  assert.ok(fs.existsSync(path.join(again, 'download_summary.json')));
  assert.equal((JSON.parse(fs.readFileSync(path.join(again, 'download_summary.json'), 'utf8')) as { count: number }).count, ROWS);
});

function childrenOf(pid: number): number[] {
  const r = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function startWorker(redis: string, log: string): ChildProcess {
  const fd = fs.openSync(log, 'a');
  // every path of the jobs lies in the test's folder: the worker's --root
  return spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), 'worker', '--redis', redis, '--root', dir, '--lock-ms', '4000'], {
    stdio: ['ignore', fd, fd],
  });
}

test('bullmq engine: two workers, one killed with SIGKILL mid-shard, the same outputs', { timeout: 600_000 }, async (t) => {
  if (!serviceOrSkip(t, 'redis')) return;
  const redis = await startRedis();
  t.after(() => redis.stop());
  const url = `unix://${redis.socket}`;
  const root = path.join(dir, 'bullmq');
  fs.mkdirSync(root, { recursive: true });
  const logA = path.join(root, 'worker-a.log');
  const logB = path.join(root, 'worker-b.log');
  const a = startWorker(url, logA);
  const b = startWorker(url, logB);
  const workers = [a, b];
  t.after(() => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  });
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  await waitFor(() => read(logA).includes('ready') && read(logB).includes('ready'), 30_000, 'both workers ready');

  // the download, with worker A killed while it holds shard 1 (the slow host's rows)
  const download = runCli(['download', '--in', list, '--out', path.join(root, 'shards'), ...COMMON, '--engine', 'bullmq', '--shards', '4', '--redis', url]);
  let killed = false;
  let orphans: number[] = [];
  const watcher = waitFor(
    () => {
      for (const [worker, log] of [
        [a, logA],
        [b, logB],
      ] as const)
        if (/shard 1\/4 started/.test(read(log)) && worker.exitCode === null) {
          orphans = childrenOf(worker.pid!);
          worker.kill('SIGKILL');
          killed = true;
          workers.push(startWorker(url, path.join(root, 'worker-c.log'))); // a replacement keeps two alive
          return true;
        }
      return false;
    },
    120_000,
    'a worker to start shard 1',
  );
  await watcher;
  const downloaded = await download;
  assert.equal(downloaded.code, 0, downloaded.output);
  assert.ok(killed);
  // the shard's own process, the killed worker's child, exited with it (its IPC channel closed)
  assert.ok(orphans.length > 0, 'the worker ran the shard in a child process');
  await waitFor(() => orphans.every((pid) => !alive(pid)), 15_000, "the killed worker's child to exit");
  // the killed worker never finished shard 1; another one did, exactly once
  const victim = a.signalCode === 'SIGKILL' ? logA : logB;
  assert.doesNotMatch(read(victim), /shard 1\/4 done/);
  const finishedBy = [logA, logB, path.join(root, 'worker-c.log')].filter((log) => /shard 1\/4 done/.test(read(log)));
  assert.equal(finishedBy.length, 1);

  for (const step of stagesAfterDownload(root)) {
    const r = await runCli([...step, '--engine', 'bullmq', '--shards', '4', '--redis', url]);
    assert.equal(r.code, 0, r.output);
  }
  await compareShardedOutputs(path.join(dir, 'one'), root);
});
