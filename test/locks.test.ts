import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { LOCK_FILE, RUN_FILE, readLog } from '../src/runs/layout';
import { Run } from '../src/runs/run';
import { acquireLock, LockHeldError } from '../src/util/lock';
import { FeatureStore } from '../src/vision/cache';
import { writeSyntheticData } from './fixtures/train-synthetic';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-locks-'));

/** A pid that certainly ran and is now gone. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

function writeLockFile(file: string, pid: number, hostname = os.hostname()): void {
  fs.writeFileSync(file, JSON.stringify({ pid, hostname, started: '2026-01-01T00:00:00.000Z', what: 'test', token: `t-${pid}` }) + '\n');
}

test('a lock is exclusive, names its holder and how to recover, and is free again once released', () => {
  const file = path.join(tmp, 'a.lock');
  const lock = acquireLock(file, { what: 'thing A' });
  const holder = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(holder.pid, process.pid);
  assert.equal(holder.hostname, os.hostname());
  assert.ok(!Number.isNaN(Date.parse(holder.started)));
  assert.throws(
    () => acquireLock(file, { what: 'thing A' }),
    (err: Error) =>
      err instanceof LockHeldError && err.message.includes('thing A') && err.message.includes(`process ${process.pid}`) && err.message.includes(file),
  );
  lock.release();
  assert.ok(!fs.existsSync(file));
  acquireLock(file, { what: 'thing A' }).release();
});

test('a lock left by a dead process on this host is taken over; one of another host is not', () => {
  const file = path.join(tmp, 'stale.lock');
  const pid = deadPid();
  writeLockFile(file, pid);
  const warnings: string[] = [];
  const lock = acquireLock(file, { what: 'stale thing', warn: (l) => warnings.push(l) });
  assert.match(warnings.join('\n'), new RegExp(`stale lock of process ${pid}`));
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).pid, process.pid);
  lock.release();
  // Our own pid in a lock from before this process started: a reused pid, so stale.
  writeLockFile(file, process.pid);
  acquireLock(file, { what: 'reused pid', warn: () => {} }).release();
  writeLockFile(file, pid, 'some-other-host');
  assert.throws(() => acquireLock(file, { what: 'remote thing' }), /locked by process \d+ on some-other-host/);
  fs.rmSync(file);
});

test('a lock is released when its process is stopped with SIGTERM', async () => {
  const file = path.join(tmp, 'signal.lock');
  const script = `require(${JSON.stringify(path.join(__dirname, '..', 'src', 'util', 'lock.ts'))}).acquireLock(${JSON.stringify(file)}, { what: 'x' }); process.stdout.write('held\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  assert.ok(fs.existsSync(file));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGTERM');
  assert.equal(await exited, 'SIGTERM', 'still dies by the signal');
  assert.ok(!fs.existsSync(file), 'lock file removed');
});

test('a process holding a lock and a live temporary file still dies by SIGINT, and both files are removed', { timeout: 20_000 }, async (t) => {
  t.after(() => child.kill('SIGKILL'));
  // as `cckit train` is after its first checkpoint: the run's lock and an atomic write's temporary
  const file = path.join(tmp, 'both.lock');
  const target = path.join(tmp, 'both.json');
  const src = (name: string) => JSON.stringify(path.join(__dirname, '..', 'src', 'util', name));
  const script = `require(${src('lock.ts')}).acquireLock(${JSON.stringify(file)}, { what: 'x' });
    const t = require(${src('atomic.ts')}).temporaryPath(${JSON.stringify(target)}); require('fs').writeFileSync(t, '1');
    process.stdout.write(t + '\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const temporary = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  assert.ok(fs.existsSync(file) && fs.existsSync(temporary));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGINT');
  assert.equal(await exited, 'SIGINT', 'dies by the signal: the two cleanups do not take each other for a foreign handler');
  assert.ok(!fs.existsSync(file), 'lock file removed');
  assert.ok(!fs.existsSync(temporary), 'temporary removed');
});

test('--force refuses to delete a run another live process holds; a dead holder is recovered', async () => {
  const runsRoot = path.join(tmp, 'runs');
  const first = Run.open(runsRoot, 'held-run', { config: {} });
  first.release();
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    writeLockFile(path.join(first.dir, LOCK_FILE), sleeper.pid!);
    assert.throws(
      () => Run.open(runsRoot, 'held-run', { config: {} }, true),
      new RegExp(`run held-run .* is locked by process ${sleeper.pid}.*kill ${sleeper.pid}`),
    );
    assert.ok(fs.existsSync(path.join(first.dir, RUN_FILE)), 'the run is still there');
  } finally {
    sleeper.kill();
  }
  writeLockFile(path.join(first.dir, LOCK_FILE), deadPid());
  const again = Run.open(runsRoot, 'held-run', { config: {} }, true);
  assert.deepEqual(fs.readdirSync(again.dir).sort(), [RUN_FILE, LOCK_FILE].sort());
  again.release();
});

test('the same training config started twice: the second process fails at once with the lock message; no log line is doubled', async () => {
  const data = writeSyntheticData(path.join(tmp, 'data'), 64);
  const root = path.join(tmp, 'twice');
  const start = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'train-child.ts'), root, path.dirname(data.tsv), '200'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { exited, stderr: () => stderr };
  };
  const a = start();
  const deadline = Date.now() + 120_000;
  const lockOf = (): string | undefined => {
    if (!fs.existsSync(root)) return undefined;
    const dir = fs.readdirSync(root).find((n) => fs.existsSync(path.join(root, n, LOCK_FILE)));
    return dir && path.join(root, dir);
  };
  let runDir: string | undefined;
  while (!(runDir = lockOf())) {
    assert.ok(Date.now() < deadline, `first process took no lock: ${a.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const b = start();
  assert.equal(await b.exited, 1, 'the second process fails');
  assert.match(b.stderr(), /run synthetic-[0-9a-f]{12} .* is locked by process \d+ on .*kill \d+/);
  assert.equal(await a.exited, 0, a.stderr());
  const lines = fs.readFileSync(path.join(runDir, 'log.jsonl'), 'utf8').trim().split('\n');
  assert.equal(new Set(lines).size, lines.length, 'no duplicated log lines');
  const steps = readLog(runDir)
    .filter((l) => l.loss)
    .map((l) => l.step);
  assert.deepEqual(
    steps,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  assert.ok(!fs.existsSync(path.join(runDir, LOCK_FILE)), 'released at the end');
});

test('two processes appending to one feature index lose no entries', async () => {
  const cacheDir = path.join(tmp, 'cache');
  const count = 40;
  const children = ['a', 'b', 'c'].map((prefix) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'cache-append-child.ts'), cacheDir, prefix, String(count)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  });
  assert.deepEqual(await Promise.all(children), [0, 0, 0]);
  const store = FeatureStore.open({ id: 'lock-test', featureDim: 2 }, { cacheDir });
  assert.equal(store.size, 3 * count);
  for (const prefix of ['a', 'b', 'c']) for (let i = 0; i < count; i++) assert.ok(store.get(`${prefix}-${i}`), `${prefix}-${i}`);
});
