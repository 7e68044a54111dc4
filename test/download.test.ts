/**
 * `cckit download` (src/download/) against the world served on loopback with its hostile hosts
 * (src/world/server.ts): every failure has its status, politeness and Retry-After hold, shards
 * follow img2dataset's layout, a killed run resumes from its done-markers, failed rows can be
 * retried, and the input formats agree.
 */
import assert from 'node:assert/strict';
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { after, before, test } from 'node:test';
import { readParquetFile, writeParquetFile } from '../src/data/parquet';
import { readSamples, readShardStats } from '../src/data/webdataset';
import { download, type DownloadOptions } from '../src/download/distributor';
import { HostScheduler } from '../src/download/politeness';
import { inputShards } from '../src/download/reader';
import { resizeImage, DEFAULT_RESIZE } from '../src/download/resizer';
import { PACKAGE_ROOT } from '../src/paths';
import { loadSharp } from '../src/util/sharp';
import { type HostileKind } from '../src/world/server';

import { serveWorldWeb, type WorldWeb } from './helpers';

let web: WorldWeb;

before(async () => {
  web = await serveWorldWeb('download', { hostile: true });
});
after(() => web.close());

const fast: Partial<DownloadOptions> = { policy: { retries: 1, retryBaseMs: 50, maxRetryAfterMs: 5000 } };

async function statuses(out: string): Promise<Map<string, { status: string; error: string | null }>> {
  const rows = new Map<string, { status: string; error: string | null }>();
  for (const name of fs.readdirSync(out).filter((n) => n.endsWith('.parquet')))
    for (const r of await readParquetFile(path.join(out, name)))
      rows.set(String(r.url), { status: String(r.status), error: (r.error_message as string | null) ?? null });
  return rows;
}

test('every hostile host ends with its status; good and recoverable ones are downloaded', async () => {
  const expected: Record<HostileKind, [string, string | null]> = {
    slow: ['success', null],
    hang: ['failed_to_download', 'download:timeout'],
    'not-found': ['failed_to_download', 'download:http-404'],
    'too-many': ['success', null],
    'rate-limited': ['failed_to_download', 'download:http-429'],
    'server-error': ['failed_to_download', 'download:http-500'],
    unavailable: ['success', null],
    redirect: ['success', null],
    'redirect-loop': ['failed_to_download', 'download:redirect-loop'],
    'lying-length': ['failed_to_download', 'download:connection-reset'],
    corrupt: ['failed_to_resize', 'image decoding error'],
    truncated: ['failed_to_resize', 'image decoding error'],
    huge: ['failed_to_download', 'download:too-large'],
    bomb: ['failed_to_resize', 'image area too large'],
    noai: ['failed_to_download', 'download:opted-out'],
    'not-image': ['failed_to_resize', 'image decoding error'],
  };
  const rows: [string, string][] = Object.keys(expected).map((kind) => [`${web.server.url}/hostile/${kind}/1.jpg`, `a ${kind} host`]);
  rows.push([web.url(1), 'a good image'], ['', 'a row without a URL'], [`ftp://example.invalid/x.jpg`, 'another scheme']);
  const list = web.writeList('hostile.tsv', rows);
  const out = path.join(web.dir, 'hostile');
  const started = Date.now();
  const summary = await download({ ...fast, input: list, out, samplesPerShard: 8, fetch: { allowPrivate: true, timeoutMs: 3000, maxBytes: 5 * 1024 * 1024 } });
  const got = await statuses(out);
  for (const [kind, [status, error]] of Object.entries(expected)) assert.deepEqual(got.get(`${web.server.url}/hostile/${kind}/1.jpg`), { status, error }, kind);
  assert.deepEqual(got.get(web.url(1)), { status: 'success', error: null });
  assert.deepEqual(got.get('ftp://example.invalid/x.jpg'), { status: 'failed_to_download', error: 'download:refused-scheme' });
  // the empty-URL row is kept as a failure naming its input line, not dropped
  assert.equal(summary.count, rows.length - 1 + 1);
  assert.equal(summary.status_dict['input: expected 2 tab-separated columns, found 1'] ?? summary.status_dict['input: empty url'], 1);
  assert.equal(summary.successes, 5);
  assert.equal(summary.shards, 3);
  // the 3600 s Retry-After is not waited for; the hanging host costs one deadline per attempt
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
});

test('loopback is refused without --allow-private, also after a redirect', async () => {
  const list = web.writeList('private.tsv', [
    [web.url(2), 'a loopback image'],
    [`${web.server.url}/hostile/redirect/2.jpg`, 'a redirect'],
  ]);
  const out = path.join(web.dir, 'private');
  await download({ ...fast, input: list, out });
  const got = await statuses(out);
  assert.deepEqual(
    [...got.values()].map((v) => v.error),
    ['download:refused-private', 'download:refused-private'],
  );
});

test('Retry-After is honoured: the second request waits at least its second', async () => {
  const times: number[] = [];
  const server = http.createServer((req, res) => {
    times.push(Date.now());
    if (times.length === 1) res.writeHead(429, { 'retry-after': '1' }).end();
    else void web.world.render('web', 3).then((b) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(b));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const port = (server.address() as AddressInfo).port;
    const list = web.writeList('retry-after.tsv', [[`http://127.0.0.1:${port}/a.jpg`, 'a rate-limited image']]);
    const summary = await download({ ...fast, input: list, out: path.join(web.dir, 'retry-after'), fetch: { allowPrivate: true } });
    assert.equal(summary.successes, 1);
    assert.equal(times.length, 2);
    assert.ok(times[1]! - times[0]! >= 950, `waited ${times[1]! - times[0]!} ms`);
  } finally {
    server.close();
  }
});

test('per-host politeness: never more than perHost requests in flight to one host', async () => {
  let inFlight = 0;
  let peak = 0;
  const image = await web.world.render('web', 4);
  const server = http.createServer((req, res) => {
    peak = Math.max(peak, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': image.length }).end(image);
    }, 40);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const port = (server.address() as AddressInfo).port;
    const list = web.writeList(
      'polite.tsv',
      Array.from({ length: 30 }, (_, i): [string, string] => [`http://127.0.0.1:${port}/${i}.jpg`, `image ${i}`]),
    );
    const summary = await download({
      input: list,
      out: path.join(web.dir, 'polite'),
      concurrency: 32,
      perHost: 3,
      fetch: { allowPrivate: true },
      resize: { mode: 'no' },
    });
    assert.equal(summary.successes, 30);
    assert.equal(peak, 3);
  } finally {
    server.close();
  }
});

test('the host scheduler: a resting host waits, other hosts go on; slots are shared', async () => {
  const scheduler = new HostScheduler({ concurrency: 2, perHost: 1 });
  const order: string[] = [];
  const job = (name: string, ms: number) => () => new Promise<void>((r) => setTimeout(() => (order.push(name), r()), ms));
  scheduler.rest('a', 150);
  await Promise.all([scheduler.run('a', job('a1', 5)), scheduler.run('b', job('b1', 20)), scheduler.run('b', job('b2', 20)), scheduler.run('c', job('c1', 5))]);
  assert.deepEqual(order.slice(0, 3).sort(), ['b1', 'b2', 'c1'].sort());
  assert.equal(order[3], 'a1');
});

test('shards: img2dataset layout, keys by input row, parquet metadata with sha256, readable by the pipelines', async () => {
  const rows = Array.from({ length: 7 }, (_, i): [string, string] => [web.url(i), `caption ${i}`]);
  rows[3] = [`${web.server.url}/hostile/not-found/3.jpg`, 'caption 3'];
  const list = web.writeList('layout.tsv', rows);
  const out = path.join(web.dir, 'layout');
  await download({ input: list, out, samplesPerShard: 4, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  assert.deepEqual(
    fs
      .readdirSync(out)
      .filter((n) => !n.startsWith('.'))
      .sort(),
    ['00000.parquet', '00000.tar', '00000_stats.json', '00001.parquet', '00001.tar', '00001_stats.json'],
  );
  const stats = readShardStats(out, '00000');
  assert.deepEqual([stats.count, stats.successes, stats.failed_to_download, stats.failed_to_resize], [4, 3, 1, 0]);
  assert.deepEqual(stats.status_dict, { success: 3, 'download:http-404': 1 });
  const meta = await readParquetFile(path.join(out, '00000.parquet'));
  assert.deepEqual(
    meta.map((m) => [m.key, m.status]),
    [
      ['000000', 'success'],
      ['000001', 'success'],
      ['000002', 'success'],
      ['000003', 'failed_to_download'],
    ],
  );
  // keys: 10^ceil(log10(4)) × shard + row, padded to 5 + 1 digits, as img2dataset's compute_key
  const samples = [];
  for await (const s of readSamples(out)) samples.push(s);
  assert.deepEqual(samples.map((s) => s.key).sort(), ['000000', '000001', '000002', '000010', '000011', '000012']);
  for (const sample of samples) {
    const original = await web.world.render('web', Number(sample.json.url!.toString().split('/').pop()!.split('.')[0]));
    // --resize-mode no keeps the downloaded bytes, and the parquet's sha256 is theirs
    assert.ok(sample.image.equals(original));
    assert.equal(sample.json.sha256, createHash('sha256').update(original).digest('hex'));
    assert.equal(sample.caption, `caption ${Number(sample.json.url!.toString().split('/').pop()!.split('.')[0])}`);
  }
});

test('resize modes follow img2dataset: sizes of a 300×200 image at 100 px', async () => {
  const sharp = loadSharp();
  const image = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .toBuffer();
  const size = async (mode: (typeof DEFAULT_RESIZE)['mode'], extra: Partial<typeof DEFAULT_RESIZE> = {}) => {
    const r = await resizeImage(image, { ...DEFAULT_RESIZE, mode, imageSize: 100, ...extra });
    assert.ok(r.ok);
    return [r.width, r.height, r.originalWidth, r.originalHeight, r.ext];
  };
  assert.deepEqual(await size('border'), [100, 100, 300, 200, 'jpg']);
  assert.deepEqual(await size('keep_ratio'), [150, 100, 300, 200, 'jpg']);
  assert.deepEqual(await size('keep_ratio_largest'), [100, 67, 300, 200, 'jpg']);
  assert.deepEqual(await size('center_crop'), [100, 100, 300, 200, 'jpg']);
  assert.deepEqual(await size('no'), [300, 200, 300, 200, 'jpg']);
  assert.deepEqual(await size('border', { encodeFormat: 'webp' }), [100, 100, 300, 200, 'webp']);
  assert.deepEqual(await size('keep_ratio', { imageSize: 400, onlyIfBigger: true }), [300, 200, 300, 200, 'jpg']);
  const refuse = async (extra: Partial<typeof DEFAULT_RESIZE>) => {
    const r = await resizeImage(image, { ...DEFAULT_RESIZE, ...extra });
    return r.ok ? 'ok' : r.error;
  };
  assert.equal(await refuse({ minSize: 201 }), 'image too small');
  assert.equal(await refuse({ minSize: 200 }), 'ok');
  assert.equal(await refuse({ maxAspect: 1.4 }), 'aspect ratio too large');
  assert.equal(await refuse({ maxPixels: 50_000 }), 'image area too large');
  // the border is white, as img2dataset pads
  const bordered = await resizeImage(image, { ...DEFAULT_RESIZE, mode: 'border', imageSize: 100, encodeFormat: 'png', encodeQuality: 9 });
  assert.ok(bordered.ok);
  const { data } = await sharp(bordered.image).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], [255, 255, 255]);
});

test('input formats: TSV in both orders, CSV with quotes and newlines, JSON lines and parquet read the same rows', async () => {
  const pairs: [string, string][] = [
    ['http://a.test/1.jpg', 'a dog, "quoted"'],
    ['http://a.test/2.jpg', 'two\nlines'],
    ['http://a.test/3.jpg', 'plain'],
  ];
  const read = async (file: string) => {
    const got: [string, string][] = [];
    for await (const { rows } of inputShards(file, 2)) for (const r of rows) got.push([r.url, r.caption]);
    return got;
  };
  const tsvPairs = pairs.map(([u, c]): [string, string] => [u, c.replace('\n', ' ')]);
  fs.writeFileSync(path.join(web.dir, 'cc12m.tsv'), tsvPairs.map(([u, c]) => `${u}\t${c}\n`).join(''));
  fs.writeFileSync(path.join(web.dir, 'cc3m.tsv'), tsvPairs.map(([u, c]) => `${c}\t${u}\n`).join(''));
  assert.deepEqual(await read(path.join(web.dir, 'cc12m.tsv')), tsvPairs);
  assert.deepEqual(await read(path.join(web.dir, 'cc3m.tsv')), tsvPairs);
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(web.dir, 'list.csv'), 'id,url,caption\r\n' + pairs.map(([u, c], i) => `${i},${u},${quote(c)}\r\n`).join(''));
  assert.deepEqual(await read(path.join(web.dir, 'list.csv')), pairs);
  fs.writeFileSync(path.join(web.dir, 'list.jsonl'), pairs.map(([url, caption]) => JSON.stringify({ url, caption }) + '\n').join(''));
  assert.deepEqual(await read(path.join(web.dir, 'list.jsonl')), pairs);
  await writeParquetFile(path.join(web.dir, 'list.parquet'), [
    { name: 'url', type: 'STRING', data: pairs.map((p) => p[0]) },
    { name: 'caption', type: 'STRING', data: pairs.map((p) => p[1]) },
  ]);
  assert.deepEqual(await read(path.join(web.dir, 'list.parquet')), pairs);
  // a bad line keeps its place, with its file and line
  fs.writeFileSync(path.join(web.dir, 'bad.jsonl'), '{"url": "http://a.test/1.jpg", "caption": "x"}\nnot json\n');
  const rows = [];
  for await (const { rows: r } of inputShards(path.join(web.dir, 'bad.jsonl'), 10)) rows.push(...r);
  assert.equal(rows.length, 2);
  assert.match(rows[1]!.invalid!, /malformed JSON/);
  assert.equal(rows[1]!.where, `${path.join(web.dir, 'bad.jsonl')}:2`);
});

test('--hashes: a matching image is kept, a mismatch is recorded as failed', async () => {
  const good = await web.world.render('web', 5);
  const list = web.writeList('hashed.tsv', [
    [web.url(5), 'right hash'],
    [web.url(6), 'wrong hash'],
  ]);
  const hashes = path.join(web.dir, 'hashes.tsv');
  fs.writeFileSync(
    hashes,
    `url\tsha256\tmd5\n${web.url(5)}\t${createHash('sha256').update(good).digest('hex')}\t${createHash('md5').update(good).digest('hex')}\n` +
      `${web.url(6)}\t${'0'.repeat(64)}\t${'0'.repeat(32)}\n`,
  );
  const out = path.join(web.dir, 'hashed');
  await download({ input: list, out, hashesFile: hashes, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  const got = await statuses(out);
  assert.deepEqual(got.get(web.url(5)), { status: 'success', error: null });
  assert.deepEqual(got.get(web.url(6)), { status: 'failed_to_download', error: 'hash mismatch' });
});

test('--retry-failed fetches only the failed rows again and keeps every sample', async () => {
  const list = web.writeList('retry.tsv', [
    [web.url(7), 'good'],
    [`${web.server.url}/hostile/unavailable/retry-1.jpg`, 'fails once'],
    [`${web.server.url}/hostile/not-found/retry-2.jpg`, 'always gone'],
  ]);
  const out = path.join(web.dir, 'retry');
  const options: DownloadOptions = { input: list, out, policy: { retries: 0 }, fetch: { allowPrivate: true }, resize: { mode: 'no' } };
  const first = await download(options);
  assert.equal(first.successes, 1);
  const again = await download({ ...options, retryFailed: true });
  assert.equal(again.retried, 1);
  assert.equal(again.rowsFetched, 2);
  assert.equal(again.successes, 2);
  const keys = [];
  for await (const s of readSamples(out)) keys.push(s.key);
  assert.deepEqual(keys.sort(), ['000000000', '000000001']);
  const stats = readShardStats(out, '00000');
  assert.deepEqual([stats.count, stats.successes, stats.failed_to_download], [3, 2, 1]);
  // a plain re-run skips the done shard
  const skip = await download(options);
  assert.deepEqual([skip.skipped, skip.written, skip.rowsFetched], [1, 0, 0]);
});

test('two processes write the same shards as one', async () => {
  const rows = Array.from({ length: 24 }, (_, i): [string, string] => [web.url(i), `caption ${i}`]);
  const list = web.writeList('parallel.tsv', rows);
  const content = async (out: string) => {
    const got: string[] = [];
    for await (const s of readSamples(out)) got.push(`${s.key} ${createHash('sha256').update(s.image).digest('hex')} ${s.caption}`);
    return got.sort();
  };
  const base: DownloadOptions = { input: list, out: '', samplesPerShard: 5, fetch: { allowPrivate: true }, resize: { mode: 'center_crop', imageSize: 64 } };
  await download({ ...base, out: path.join(web.dir, 'one') });
  await download({ ...base, out: path.join(web.dir, 'two'), processes: 2 });
  assert.deepEqual(await content(path.join(web.dir, 'two')), await content(path.join(web.dir, 'one')));
  assert.equal((await content(path.join(web.dir, 'one'))).length, 24);
});

test('kill -9 mid-run: no half shard looks done, and the rerun completes skipping done shards', async () => {
  const rows = Array.from({ length: 40 }, (_, i): [string, string] => [`${web.server.url}/hostile/slow/${i}.jpg`, `slow ${i}`]);
  rows.unshift(...Array.from({ length: 4 }, (_, i): [string, string] => [web.url(i), `fast ${i}`]));
  const list = web.writeList('killed.tsv', rows);
  const out = path.join(web.dir, 'killed');
  const args = [
    'download',
    '--in',
    list,
    '--out',
    out,
    '--allow-private',
    '--samples-per-shard',
    '4',
    '--resize-mode',
    'no',
    '--concurrency',
    '4',
    '--per-host',
    '4',
    '--no-progress',
  ];
  const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), ...args], { stdio: 'ignore' });
  after(() => child.kill('SIGKILL'));
  // wait until the first shard is done and a later one is in progress, then kill without warning
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(path.join(out, '00000_stats.json')) || !fs.readdirSync(out).some((n) => n.endsWith('.tmp'))) {
    assert.ok(Date.now() < deadline, 'the download never got going');
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const left = fs.readdirSync(out);
  for (const tar of left.filter((n) => n.endsWith('.tar'))) assert.ok(left.includes(tar.replace('.tar', '_stats.json')), `${tar} without its stats`);
  const doneBefore = left.filter((n) => n.endsWith('_stats.json'));
  const mtimes = doneBefore.map((n) => fs.statSync(path.join(out, n)).mtimeMs);
  const summary = await download({ input: list, out, samplesPerShard: 4, concurrency: 16, perHost: 16, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  assert.equal(summary.skipped, doneBefore.length);
  assert.equal(summary.shards, 11);
  assert.equal(summary.count, 44);
  assert.equal(summary.successes, 44);
  assert.deepEqual(
    doneBefore.map((n) => fs.statSync(path.join(out, n)).mtimeMs),
    mtimes,
    'done shards untouched',
  );
  assert.deepEqual(
    fs.readdirSync(out).filter((n) => n.endsWith('.tmp')),
    [],
  );
});

/** The built CLI, run without blocking this process (it serves the web the CLI fetches from). */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), ...args], { cwd: PACKAGE_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('the command: bad flags and a missing list are named; failed URLs still exit 0 with a summary', async () => {
  const bad = await runCli(['download', '--in', path.join(web.dir, 'hostile.tsv'), '--out', path.join(web.dir, 'cli'), '--resize-mode', 'stretch']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--resize-mode: "stretch" is not no, border, keep_ratio, keep_ratio_largest or center_crop/);
  const missing = await runCli(['download', '--in', path.join(web.dir, 'nope.tsv'), '--out', path.join(web.dir, 'cli')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /nope\.tsv: no such file/);
  const list = web.writeList('cli.tsv', [
    [web.url(8), 'a good one'],
    [`${web.server.url}/hostile/not-found/cli.jpg`, 'a gone one'],
  ]);
  const run = await runCli(['download', '--in', list, '--out', path.join(web.dir, 'cli'), '--allow-private', '--no-progress']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /1 of 2 rows downloaded \(50\.0%\)/);
  assert.match(run.stdout, /download:http-404\s+1\s+50\.0/);
});
