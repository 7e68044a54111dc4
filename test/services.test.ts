/**
 * The real services of test/services.ts: Redis on a unix socket (PING, SET, GET over RESP) and a one-node Slurm
 * cluster running a 4-task array job with `sbatch --wait`. Needs Debian's redis-server, slurm-wlm and munge
 * (`bash scripts/services-setup.sh`, which `.ci/run` calls); skipped with the reason where they are missing,
 * failed instead when `CI` is set.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findProgram, redisRaw, serviceOrSkip, startRedis, startSlurm } from './services';

test('Redis on a unix socket answers PING, SET and GET, and stops cleanly', { timeout: 30_000 }, async (t) => {
  if (!serviceOrSkip(t, 'redis')) return;
  const redis = await startRedis();
  t.after(() => redis.stop());
  assert.ok(fs.statSync(redis.socket).isSocket());
  const reply = await redisRaw(redis.socket, [['PING'], ['SET', 'cckit:key', 'hello world'], ['GET', 'cckit:key']], (r) =>
    r.endsWith('$11\r\nhello world\r\n'),
  );
  assert.equal(reply, '+PONG\r\n+OK\r\n$11\r\nhello world\r\n');
  await redis.stop();
  assert.equal(fs.existsSync(redis.dir), false, 'the temporary folder is removed');
});

test('Slurm runs a 4-task array job with sbatch --wait', { timeout: 90_000 }, async (t) => {
  if (!serviceOrSkip(t, 'slurm')) return;
  const slurm = await startSlurm();
  t.after(() => slurm.stop());
  t.diagnostic(`slurm started in ${slurm.startMs} ms`);

  const work = path.join(slurm.dir, 'job');
  fs.mkdirSync(work);
  const started = Date.now();
  const sbatch = spawnSync(
    findProgram('sbatch') ?? 'sbatch',
    ['--wait', '--array=0-3', `--chdir=${work}`, '--output=out_%a', '--wrap', 'echo $SLURM_ARRAY_TASK_ID'],
    { env: slurm.env, encoding: 'utf8', timeout: 60_000 },
  );
  const ms = Date.now() - started;
  assert.equal(sbatch.status, 0, `sbatch failed: ${sbatch.stderr}${sbatch.stdout}`);
  assert.match(sbatch.stdout, /Submitted batch job \d+/);
  t.diagnostic(`sbatch --wait --array=0-3 took ${ms} ms`);
  for (const i of [0, 1, 2, 3]) assert.equal(fs.readFileSync(path.join(work, `out_${i}`), 'utf8'), `${i}\n`);

  const dir = slurm.dir;
  await slurm.stop();
  assert.equal(fs.existsSync(dir), false, 'the temporary folder is removed');
});
