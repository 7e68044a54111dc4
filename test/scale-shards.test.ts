/**
 * The shard contract (src/util/shard.ts) and the local engine (src/scale/local.ts): parsing, slicing,
 * flag stripping, and a 4-shard download + filter + features run on the world served over loopback
 * that gives the one-process outputs.
 */
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, test } from 'node:test';
import { ownsUnit, parseShard, sliceRange, missingShards, shardFolder } from '../src/util/shard';
import { stripFlags } from '../src/scale/job';
import { World } from '../src/world/world';
import { serveWorld, type WorldServer } from '../src/world/server';
import { compareShardedOutputs, runCli, stagesAfterDownload, writeWorldList } from './scale-helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-scale-'));
const world = new World({ seed: 0 });
let web: WorldServer;
before(async () => {
  web = await serveWorld(world, { hostile: true });
});
after(async () => {
  await web.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('--shard i/N and N with the index from the engine environment', () => {
  assert.deepEqual(parseShard('2/4', {}), { index: 2, count: 4 });
  assert.deepEqual(parseShard('4', { SLURM_ARRAY_TASK_ID: '3' }), { index: 3, count: 4 });
  assert.deepEqual(parseShard('4', { JOB_COMPLETION_INDEX: '1' }), { index: 1, count: 4 });
  assert.deepEqual(parseShard('4', { CCKIT_SHARD_INDEX: '0', SLURM_ARRAY_TASK_ID: '3' }), { index: 0, count: 4 });
  assert.throws(() => parseShard('4/4', {}), /index 4 is not below the shard count 4/);
  assert.throws(() => parseShard('4', {}), /no shard index in the environment/);
  assert.throws(() => parseShard('a/4', {}), /expected i\/N or N/);
  assert.throws(() => parseShard('0/0', {}), /must be ≥ 1/);
});

test('slices: modulo units and contiguous ranges are disjoint and cover everything', () => {
  for (const count of [1, 3, 4, 7]) {
    const owners = Array.from({ length: 50 }, (_, unit) =>
      Array.from({ length: count }, (_, index) => index).filter((index) => ownsUnit({ index, count }, unit)),
    );
    assert.ok(owners.every((o) => o.length === 1));
    for (const total of [0, 1, 5, 103]) {
      let next = 0;
      for (let index = 0; index < count; index++) {
        const range = sliceRange({ index, count }, total);
        assert.equal(range.start, next);
        assert.ok(range.end >= range.start);
        next = range.end;
      }
      assert.equal(next, total);
    }
  }
});

test('engine flags are stripped from the command each shard runs', () => {
  const flags = { '--engine': true, '--shards': true, '--dry-run': false, '--no-wait': false };
  assert.deepEqual(stripFlags(['download', '--in', 'a.tsv', '--engine', 'local', '--shards=4', '--dry-run', '--out', 'o', '--no-wait'], flags), [
    'download',
    '--in',
    'a.tsv',
    '--out',
    'o',
  ]);
});

test('local engine: 4-shard download, filter and features give the one-process outputs', async () => {
  const list = writeWorldList(world, web.url, path.join(dir, 'list.tsv'), 40);
  const one = path.join(dir, 'one');
  const four = path.join(dir, 'four');
  const common = ['--allow-private', '--samples-per-shard', '5', '--no-progress', '--resize-mode', 'no'];
  let r = await runCli(['download', '--in', list, '--out', path.join(one, 'shards'), ...common]);
  assert.equal(r.code, 0, r.output);
  r = await runCli(['download', '--in', list, '--out', path.join(four, 'shards'), ...common, '--engine', 'local', '--shards', '4']);
  assert.equal(r.code, 0, r.output);
  assert.deepEqual(missingShards(path.join(four, 'shards'), 4), []);
  assert.ok(fs.existsSync(path.join(shardFolder(path.join(four, 'shards'), { index: 3, count: 4 }), 'summary.json')));
  for (const root of [one, four])
    for (const step of stagesAfterDownload(root)) {
      r = await runCli(root === one ? step : [...step, '--engine', 'local', '--shards', '4']);
      assert.equal(r.code, 0, r.output);
    }
  await compareShardedOutputs(one, four);
  // a second run finds every shard done and only merges again
  r = await runCli(['download', '--in', list, '--out', path.join(four, 'shards'), ...common, '--engine', 'local', '--shards', '4']);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /4 shards \(4 already done, 0 runs\)/);
});

test('a filter shard of a tar folder reads only its own tars (counts from _stats.json) and refuses a tar its stats miscount', async () => {
  const source = path.join(dir, 'one', 'shards');
  assert.ok(fs.existsSync(source), 'the local-engine test downloaded the folder');
  const folder = path.join(dir, 'slices');
  fs.cpSync(source, folder, { recursive: true });
  const tars = fs
    .readdirSync(folder)
    .filter((n) => n.endsWith('.tar'))
    .sort();
  assert.equal(tars.length, 8);
  // the first tar is garbage now: the last shard's slice (tars 6 and 7) never opens it
  fs.writeFileSync(path.join(folder, tars[0]), 'not a tar');
  const filter = (out: string) => ['filter', '--preset', 'cc12m', '--in', folder, '--out', path.join(dir, out), '--stages', 'text', '--shard', '3/4'];
  let r = await runCli(filter('slice-ok'));
  assert.equal(r.code, 0, r.output);
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'slice-ok', '.shards', '3-of-4', 'summary.json'), 'utf8')) as { rows: number };
  assert.equal(summary.rows, 10);
  // a stats file that counts one sample too many would shift the slices: the shard stops and names the tar
  const last = path.join(folder, tars[7].replace(/\.tar$/, '_stats.json'));
  const stats = JSON.parse(fs.readFileSync(last, 'utf8')) as { successes: number };
  fs.writeFileSync(last, JSON.stringify({ ...stats, successes: stats.successes + 1 }));
  r = await runCli(filter('slice-bad'));
  assert.equal(r.code, 1);
  assert.match(r.output, new RegExp(`${tars[7]}: 5 samples, but its _stats.json counts 6 successes`));
});

test('a features shard of a tar folder streams its own tars (counts from _stats.json); the merge checks the shards read it all', async () => {
  const source = path.join(dir, 'one', 'shards');
  assert.ok(fs.existsSync(source), 'the local-engine test downloaded the folder');
  const folder = path.join(dir, 'feature-slices');
  fs.cpSync(source, folder, { recursive: true });
  const tars = fs
    .readdirSync(folder)
    .filter((n) => n.endsWith('.tar'))
    .sort();
  const cache = path.join(dir, 'feature-slices-cache');
  const features = (shard: string[]) => ['features', '--in', folder, '--backbone', 'mobilenet', '--out', cache, ...shard];
  // shard 3 of 4 (tars 6 and 7) runs with the first tar destroyed: it never opens it
  const first = fs.readFileSync(path.join(folder, tars[0]));
  fs.writeFileSync(path.join(folder, tars[0]), 'not a tar');
  let r = await runCli(features(['--shard', '3/4']));
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /shard 3\/4: samples 30–39 of 40/);
  fs.writeFileSync(path.join(folder, tars[0]), first);
  // the merge refuses while shards are missing, then checks each shard's range against the folder
  r = await runCli(features(['--merge-shards', '4']));
  assert.equal(r.code, 1);
  assert.match(r.output, /3 of 4 features shards are not done \(0, 1, 2\)/);
  for (const index of [0, 1, 2]) {
    r = await runCli(features(['--shard', `${index}/4`]));
    assert.equal(r.code, 0, r.output);
  }
  r = await runCli(features(['--merge-shards', '4']));
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /merged 4 features shards: 40 samples, 40 computed, 0 already cached, 0 failed; 40 images/);
});
