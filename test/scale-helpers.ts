/**
 * Shared by the engine tests: a URL list of the served world, the CLI run asynchronously (the world is
 * served by the test process itself, so a blocking spawn would starve it), and the comparison of two
 * download + filter + features output trees.
 */
import assert from 'node:assert/strict';
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { readSamples } from '../src/data/webdataset';
import { PACKAGE_ROOT } from '../src/paths';
import { FeatureStore } from '../src/vision/cache';
import type { World } from '../src/world/world';

/** `url<TAB>caption` of the first `rows` web images of the world served at `base`. */
export function writeWorldList(world: World, base: string, file: string, rows: number): string {
  const lines: string[] = [];
  for (let id = 0; id < rows; id++) {
    const ext = { jpeg: 'jpg', png: 'png', gif: 'gif' }[world.scene('web', id).format];
    lines.push(`${base}/0/web/${id}.${ext}\t${world.webPair(id).caption}`);
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/**
 * The stages after the download that every engine test runs over ROOT/shards, in order: the cc3m filter
 * (text stages, pruning at the merge), the cc12m filter (the image stage with the pornography detector), and
 * features; compareShardedOutputs checks their outputs.
 */
export function stagesAfterDownload(root: string): string[][] {
  const shards = path.join(root, 'shards');
  return [
    ['filter', '--preset', 'cc3m', '--in', shards, '--out', path.join(root, 'cc3m'), '--no-nsfw', '--stages', 'text,transform,prune'],
    ['filter', '--preset', 'cc12m', '--in', shards, '--out', path.join(root, 'cc12m'), '--stages', 'text,image,transform'],
    ['features', '--in', shards, '--backbone', 'mobilenet', '--out', path.join(root, 'cache')],
  ];
}

export interface CliRun {
  code: number;
  output: string;
}

/** Runs bin/cckit.js with `args`; stdout and stderr together. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Every sample of a shard folder: key → digest of its image, caption and JSON (tar member order is completion order). */
async function samplesOf(folder: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const s of readSamples(folder)) out.set(s.key, sha(Buffer.concat([s.image, Buffer.from(s.caption), Buffer.from(JSON.stringify(s.json))])));
  return out;
}

/** Shard stats without the run's own duration. */
function stats(folder: string): Record<string, unknown>[] {
  return fs
    .readdirSync(folder)
    .filter((n) => n.endsWith('_stats.json'))
    .sort()
    .map((n) => {
      const s = JSON.parse(fs.readFileSync(path.join(folder, n), 'utf8')) as Record<string, unknown>;
      for (const timing of ['duration', 'start_time', 'end_time']) delete s[timing];
      return s;
    });
}

/**
 * A one-process tree and a sharded one hold the same outputs: download shards (parquet byte for byte,
 * samples and stats equal), the filter's kept.tsv and funnel byte for byte (rejections as a set), and
 * the same features for the same keys.
 */
export async function compareShardedOutputs(one: string, sharded: string): Promise<void> {
  const a = path.join(one, 'shards');
  const b = path.join(sharded, 'shards');
  const parquets = fs.readdirSync(a).filter((n) => n.endsWith('.parquet'));
  assert.ok(parquets.length > 1);
  assert.deepEqual(
    fs.readdirSync(b).filter((n) => n.endsWith('.parquet')),
    parquets,
  );
  for (const name of parquets) assert.ok(fs.readFileSync(path.join(a, name)).equals(fs.readFileSync(path.join(b, name))), name);
  assert.deepEqual(stats(b), stats(a));
  assert.deepEqual(await samplesOf(b), await samplesOf(a));

  // each filter output (cc3m: text stages and the dataset-wide pruning at the merge; cc12m: the image stage
  // with the pornography detector) compared; the funnel byte for byte; kept rows and rejections as sets: a
  // shard folder's samples are read in tar order, which is the order downloads completed in (as img2dataset
  // writes them), so it differs between two downloads of the same list
  const filters = ['cc3m', 'cc12m'].filter((name) => fs.existsSync(path.join(one, name)));
  assert.ok(filters.length > 0);
  for (const name of filters) {
    assert.equal(fs.readFileSync(path.join(sharded, name, 'funnel.jsonl'), 'utf8'), fs.readFileSync(path.join(one, name, 'funnel.jsonl'), 'utf8'), name);
    const lines = (root: string, file: string) =>
      fs
        .readFileSync(path.join(root, name, file), 'utf8')
        .split('\n')
        .filter(Boolean);
    assert.deepEqual(lines(sharded, 'kept.tsv').sort(), lines(one, 'kept.tsv').sort());
    const rejects = (root: string) =>
      lines(root, 'rejects.jsonl')
        .map((l) => {
          const { url, stage, reason } = JSON.parse(l) as Record<string, string>;
          return `${url} ${stage} ${reason}`;
        })
        .sort();
    assert.deepEqual(rejects(sharded), rejects(one));
    assert.ok(fs.readFileSync(path.join(one, name, 'kept.tsv'), 'utf8').length > 0, `${name}: something is kept`);
  }

  const store = (root: string) => {
    const features = path.join(root, 'cache', 'features');
    const [id] = fs.readdirSync(features);
    const index = JSON.parse(fs.readFileSync(path.join(features, id, 'index.json'), 'utf8')) as { backbone: string; featureDim: number; variant: string };
    return FeatureStore.open({ id: index.backbone, featureDim: index.featureDim }, { cacheDir: path.join(root, 'cache'), variant: index.variant });
  };
  const fa = store(one);
  const fb = store(sharded);
  assert.deepEqual([...fb.keys()].sort(), [...fa.keys()].sort());
  assert.ok(fa.size > 0);
  // equal up to float rounding: a shard's batches hold other images than the one process's, and the
  // backbone's batched kernels round differently (~1e-7)
  for (const key of fa.keys()) {
    const x = fa.get(key)!.global;
    const y = fb.get(key)!.global;
    assert.equal(y.length, x.length);
    for (let i = 0; i < x.length; i++) assert.ok(Math.abs(x[i] - y[i]) <= 1e-4 * Math.max(1, Math.abs(x[i])), `${key}[${i}]: ${y[i]} vs ${x[i]}`);
  }
}
