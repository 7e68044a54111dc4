/**
 * Trust boundaries of the input readers: a parquet list whose footer lies about its row count, and a
 * webdataset shard whose member declares a huge size. Both are untrusted input; neither may make a
 * command spin, ignore signals or hold the declared bytes in memory.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { ParquetFile, readParquetFile, writeParquetFile } from '../src/data/parquet';
import { shardStats } from '../src/data/stats';
import { decodeSample, readTarShard, type RawSample } from '../src/data/webdataset';
import { importEsm } from '../src/util/esm';
import { PACKAGE_ROOT } from '../src/paths';
import { sourceSlice } from '../src/vision/sources';
import { runPipeline } from '../src/filters/pipeline';
import { filterPool } from '../src/filters/run';
import { keep } from '../src/filters/types';

const CLI = path.join(PACKAGE_ROOT, 'bin', 'cckit.js');

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trust-shards-'));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

// ---------------------------------------------------------------------------
// Parquet lists whose footer lies

/** hyparquet-writer's incremental writer: what is written, and the footer it will write (public fields). */
interface IncrementalWriter {
  num_rows: bigint;
  row_groups: { num_rows: bigint; columns: { meta_data?: { num_values: bigint } }[] }[];
  write(options: { columnData: { name: string; data: unknown[]; type: string }[] }): void;
  finish(): void;
}
interface WriterModule {
  ByteWriter: new () => { getBuffer(): ArrayBuffer };
  ParquetWriter: new (options: { writer: unknown; schema: unknown }) => IncrementalWriter;
  schemaFromColumnData(options: { columnData: { name: string; data: unknown[]; type: string }[] }): unknown;
}

/**
 * A real two-row url/caption parquet file written by hyparquet-writer, whose footer is changed by `lie`
 * before it is written (the writer keeps the footer's row counts in public fields until `finish`).
 */
async function lyingParquet(file: string, lie: (writer: IncrementalWriter) => void): Promise<string> {
  const hw = await importEsm<WriterModule>('hyparquet-writer');
  const columnData = [
    { name: 'url', data: ['http://127.0.0.1:9/a.jpg', 'http://127.0.0.1:9/b.jpg'], type: 'STRING' },
    { name: 'caption', data: ['one', 'two'], type: 'STRING' },
  ];
  const bytes = new hw.ByteWriter();
  const writer = new hw.ParquetWriter({ writer: bytes, schema: hw.schemaFromColumnData({ columnData }) });
  writer.write({ columnData });
  lie(writer);
  writer.finish();
  fs.writeFileSync(file, new Uint8Array(bytes.getBuffer()));
  return file;
}

const TRILLION = 10n ** 12n;

async function readAll(file: string): Promise<number> {
  let rows = 0;
  for await (const batch of (await ParquetFile.open(file)).batches()) rows += batch.length;
  return rows;
}

test('parquet: a footer that overstates its rows is an error naming the file, at once', async () => {
  const dir = tempDir();
  const file = await lyingParquet(path.join(dir, 'over.parquet'), (w) => (w.num_rows = TRILLION));
  const started = Date.now();
  // today's reader yielded empty batches for ever here (459k of them in 5 s)
  await assert.rejects(readAll(file), (err: Error) => {
    assert.equal(err.message, `${file}: the footer declares 1000000000000 rows, but its 1 row groups declare 2`);
    return true;
  });
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  await assert.rejects(readParquetFile(file), /the footer declares 1000000000000 rows/);
});

test('parquet: a footer that understates its rows is an error, not the first rows', async () => {
  const dir = tempDir();
  const file = await lyingParquet(path.join(dir, 'under.parquet'), (w) => (w.num_rows = 1n));
  await assert.rejects(readAll(file), (err: Error) => err.message === `${file}: the footer declares 1 rows, but its 1 row groups declare 2`);
  await assert.rejects(readParquetFile(file), /declares 1 rows/);
});

test('parquet: a row group whose pages hold fewer or more rows than it declares is an error naming it', async () => {
  const dir = tempDir();
  // every count in the footer agrees, but the pages hold 2 rows
  const over = await lyingParquet(path.join(dir, 'group-over.parquet'), (w) => {
    w.num_rows = TRILLION;
    w.row_groups[0]!.num_rows = TRILLION;
    for (const chunk of w.row_groups[0]!.columns) chunk.meta_data!.num_values = TRILLION;
  });
  const started = Date.now();
  // the page headers are read on open, before any page is decoded
  await assert.rejects(readAll(over), (err: Error) => {
    assert.equal(err.message, `${over}: row group 0, column url: its pages hold 2 values, but the column declares 1000000000000`);
    return true;
  });
  await assert.rejects(readParquetFile(over), /its pages hold 2 values, but the column declares 1000000000000/);
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);

  const under = await lyingParquet(path.join(dir, 'group-under.parquet'), (w) => {
    w.num_rows = 1n;
    w.row_groups[0]!.num_rows = 1n;
    for (const chunk of w.row_groups[0]!.columns) chunk.meta_data!.num_values = 1n;
  });
  await assert.rejects(
    readAll(under),
    (err: Error) => err.message === `${under}: row group 0, column url: the page at byte 4 brings its column's values to 2, but the column declares 1`,
  );

  // the row group's count against its columns' value counts, checked on open
  const columns = await lyingParquet(path.join(dir, 'group-columns.parquet'), (w) => {
    w.num_rows = 5n;
    w.row_groups[0]!.num_rows = 5n;
  });
  await assert.rejects(
    ParquetFile.open(columns),
    (err: Error) => err.message === `${columns}: row group 0 declares 5 rows, but its column url declares 2 values`,
  );
});

/** `value` as the zigzag varint of a Thrift compact i32. */
function compactInteger(value: number): Buffer {
  const bytes: number[] = [];
  let n = value * 2;
  do {
    const low = n % 128;
    n = Math.floor(n / 128);
    bytes.push(n > 0 ? low | 0x80 : low);
  } while (n > 0);
  return Buffer.from(bytes);
}

/**
 * The two-row list of `lyingParquet` whose first data page (column url, a v2 page at byte 4) declares
 * `values` values; the footer is shifted to match the longer header, and `declare` (optional) sets the
 * counts the footer declares for the file, the row group and both columns.
 */
async function pageLie(file: string, values: number, declare?: bigint): Promise<string> {
  const patched = compactInteger(values);
  const grow = patched.length - 1;
  await lyingParquet(file, (w) => {
    const [url, caption] = w.row_groups[0]!.columns as unknown as { meta_data: Record<string, bigint>; file_offset: bigint }[];
    url!.meta_data.total_compressed_size! += BigInt(grow);
    caption!.meta_data.data_page_offset! += BigInt(grow);
    caption!.file_offset += BigInt(grow);
    if (declare !== undefined) {
      w.num_rows = declare;
      w.row_groups[0]!.num_rows = declare;
      for (const chunk of w.row_groups[0]!.columns) chunk.meta_data!.num_values = declare;
    }
  });
  const bytes = fs.readFileSync(file);
  // the header: type, sizes, then field 8 (DataPageHeaderV2, 0x5c) whose field 1 (i32, 0x15) is num_values = 2
  const at = bytes.indexOf(Buffer.from([0x5c, 0x15, 0x04]), 4);
  assert.ok(at > 4 && at < 20, `no v2 data page header at byte 4 (found ${at})`);
  fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, at + 2), patched, bytes.subarray(at + 3)]));
  return file;
}

test('parquet: a page header that declares more values than its column is refused before it is decoded', async () => {
  const dir = tempDir();
  // under the page limit, more than the footer declares
  const more = await pageLie(path.join(dir, 'page-more.parquet'), 3_000_000);
  await assert.rejects(
    ParquetFile.open(more),
    (err: Error) => err.message === `${more}: row group 0, column url: the page at byte 4 brings its column's values to 3000000, but the column declares 2`,
  );
  // the 30M and 1G: over the page limit whatever the footer says, even when every count in it agrees
  for (const [name, values, declare] of [
    ['page-30m.parquet', 30_000_000, undefined],
    ['page-1g.parquet', 1_000_000_000, undefined],
    ['page-30m-agreeing.parquet', 30_000_000, 30_000_000n],
  ] as const) {
    const file = await pageLie(path.join(dir, name), values, declare);
    await assert.rejects(
      readParquetFile(file),
      (err: Error) => err.message === `${file}: row group 0, column url: the page at byte 4 declares ${values} values, over the 4194304-value page limit`,
    );
  }
  // the limits are options: an honest two-row file under a one-value limit
  const honest = await lyingParquet(path.join(dir, 'honest.parquet'), () => undefined);
  assert.equal((await readParquetFile(honest)).length, 2);
  await assert.rejects(ParquetFile.open(honest, { pageBytes: 1 << 20, pageValues: 1 }), /declares 2 values, over the 1-value page limit/);
  await assert.rejects(ParquetFile.open(honest, { pageBytes: 16, pageValues: 10 }), /bytes uncompressed, over the 16-byte page limit/);
  // a chunk the footer places past the end of the file
  const outside = await lyingParquet(path.join(dir, 'outside.parquet'), (w) => {
    (w.row_groups[0]!.columns[0]!.meta_data as unknown as Record<string, bigint>).total_compressed_size = 1_000_000n;
  });
  await assert.rejects(ParquetFile.open(outside), /row group 0, column url: its pages \(bytes 4–1000004\) lie outside the file's \d+ bytes/);
});

test('cckit download: a data page declaring 1G values fails in seconds in a 160 MB heap, naming the page', () => {
  const dir = tempDir();
  return (async () => {
    const list = await pageLie(path.join(dir, 'page-1g.parquet'), 1_000_000_000);
    const out = path.join(dir, 'out');
    const started = Date.now();
    // the header is refused before the page is decoded (the 1G-value page exhausted the heap, rc 134)
    const run = spawnSync(process.execPath, ['--max-old-space-size=160', CLI, 'download', '--in', list, '--out', out, '--no-progress'], {
      encoding: 'utf8',
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
    assert.equal(run.status, 1, `status ${run.status}, signal ${run.signal}: ${run.stderr}`);
    assert.ok(
      run.stderr.includes(`${list}: row group 0, column url: the page at byte 4 declares 1000000000 values, over the 4194304-value page limit`),
      run.stderr,
    );
    assert.ok(Date.now() - started < 30_000);
    assert.deepEqual(fs.existsSync(out) ? fs.readdirSync(out) : [], [], 'no lock and no shard left');
  })();
});

test('parquet: honest files with several row groups and pages read whole across batch boundaries', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'honest.parquet');
  const n = 2_500;
  await writeParquetFile(file, [
    { name: 'url', type: 'STRING', data: Array.from({ length: n }, (_, i) => `http://x/${i}.jpg`) },
    { name: 'n', type: 'INT32', data: Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i)) },
  ]);
  const parquet = await ParquetFile.open(file);
  assert.equal(parquet.rowCount, n);
  const rows = (await collect(parquet.batches(333, ['url', 'n']))).flat();
  assert.equal(rows.length, n);
  rows.forEach((row, i) => assert.deepEqual(row, { url: `http://x/${i}.jpg`, n: i % 7 === 0 ? null : i }));
  assert.deepEqual(
    await parquet.read(990, 1010, ['n']),
    Array.from({ length: 20 }, (_, k) => ({ n: (990 + k) % 7 === 0 ? null : 990 + k })),
  );
  assert.equal((await readParquetFile(file)).length, n);
});

test('parquet: the batch loop lets the event loop run between batches, even when reads need no I/O', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'small.parquet');
  await writeParquetFile(file, [{ name: 'url', type: 'STRING', data: ['a', 'b'] }]);
  const parquet = await ParquetFile.open(file);
  // reads that resolve at once, as an in-memory file or a file whose footer lied used to
  Object.defineProperty(parquet, 'rowCount', { value: 200 });
  parquet.read = () => Promise.resolve([]);
  let ticks = 0;
  let ticking = true;
  const tick = () => {
    ticks++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  let batches = 0;
  for await (const batch of parquet.batches(1)) batches += batch.length === 0 ? 1 : 0;
  ticking = false;
  assert.equal(batches, 200);
  assert.ok(ticks >= 100, `the event loop ran ${ticks} times in 200 batches`);
});

test('SIGTERM ends a process in a long batch loop whose reads need no I/O', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'small.parquet');
  await writeParquetFile(file, [{ name: 'url', type: 'STRING', data: ['a', 'b'] }]);
  // a signal handler, as cckit's lock cleanup installs: the signal is then handled on the event loop
  const script = `
    const { ParquetFile } = require(${JSON.stringify(path.join(PACKAGE_ROOT, 'src', 'data', 'parquet.ts'))});
    process.on('SIGTERM', () => process.exit(143));
    (async () => {
      const parquet = await ParquetFile.open(${JSON.stringify(file)});
      Object.defineProperty(parquet, 'rowCount', { value: 1e15 });
      parquet.read = () => Promise.resolve([]);
      let started = false;
      for await (const batch of parquet.batches(1)) if (!started && batch) { started = true; process.stdout.write('looping\\n'); }
    })();
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', () => reject(new Error('the child ended before looping')));
    });
    const sent = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'alive'>((resolve) => setTimeout(() => resolve('alive'), 5000))]);
    assert.equal(code, 143, 'still running 5 s after SIGTERM');
    assert.ok(Date.now() - sent < 5000);
  } finally {
    child.kill('SIGKILL');
  }
});

test('cckit download: a list that overstates its rows fails promptly, naming the file, and leaves no lock', async () => {
  const dir = tempDir();
  const out = path.join(dir, 'out');
  const list = await lyingParquet(path.join(dir, 'over.parquet'), (w) => (w.num_rows = TRILLION));
  const started = Date.now();
  // today's command spun for good here, ignoring SIGTERM; killed after 60 s if it still does
  const run = spawnSync(process.execPath, [CLI, 'download', '--in', list, '--out', out, '--no-progress'], {
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  assert.equal(run.status, 1, `status ${run.status}, signal ${run.signal}: ${run.stderr}`);
  assert.ok(run.stderr.includes(`${list}: the footer declares 1000000000000 rows, but its 1 row groups declare 2`), run.stderr);
  assert.ok(Date.now() - started < 30_000);
  assert.deepEqual(fs.readdirSync(out), [], 'no lock and no shard left');
});

// ---------------------------------------------------------------------------
// Webdataset members that declare a huge size

const HUGE = 600 * 1024 * 1024;

/** A ustar header for a regular file. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(size.toString(8).padStart(11, '0') + '\0', 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return header;
}

type Member = [name: string, data: string] | [name: string, declared: number];

/**
 * A tar whose members are given as text, or as a declared size only: that member's data is a hole (the file
 * is sparse: a few KiB on disk), or, with `truncate`, the file ends inside it.
 */
function writeTar(file: string, members: Member[], truncate = false): string {
  const fd = fs.openSync(file, 'w');
  let at = 0;
  const put = (bytes: Buffer) => {
    fs.writeSync(fd, bytes, 0, bytes.length, at);
    at += bytes.length;
  };
  try {
    for (const [name, content] of members) {
      if (typeof content === 'number') {
        put(tarHeader(name, content));
        put(Buffer.from('not really an image'));
        if (truncate) return file;
        at += Math.ceil(content / 512) * 512 - 'not really an image'.length;
      } else {
        const data = Buffer.from(content, 'utf8');
        put(tarHeader(name, data.length));
        put(Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]));
      }
    }
    put(Buffer.alloc(1024));
    return file;
  } finally {
    fs.closeSync(fd);
  }
}

/** Three samples; the middle one's image declares 600 MiB. */
function hugeImageShard(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  return writeTar(path.join(dir, '00000.tar'), [
    ['000000.jpg', 'jpeg 0'],
    ['000000.txt', 'a durian'],
    ['000000.json', '{"url": "http://x/0.jpg"}'],
    ['000001.jpg', HUGE],
    ['000001.txt', 'quiche for two'],
    ['000001.json', '{"url": "http://x/1.jpg"}'],
    ['000002.jpg', 'jpeg 2'],
    ['000002.txt', 'pokemon go'],
    ['000002.json', '{"url": "http://x/2.jpg"}'],
  ]);
}

const REASON = 'member 000001.jpg declares 629145600 bytes, over the 20 MiB cap (--max-member-bytes)';

test('a member over the cap is skipped unread: its sample is rejected with the reason, the others come through', async () => {
  const dir = tempDir();
  const tarFile = hugeImageShard(dir);
  assert.ok(fs.statSync(tarFile).blocks * 512 < 1 << 20, 'the fixture is sparse');
  const before = process.memoryUsage().arrayBuffers;
  let peak = 0;
  const samples: RawSample[] = [];
  for await (const raw of readTarShard(tarFile)) {
    samples.push(raw);
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
  }
  // today's reader held the whole member (and a copy of it): over 1.2 GB
  assert.ok(peak < 100 * 1024 * 1024, `${peak} bytes held`);
  assert.deepEqual(
    samples.map((s) => [s.key, Object.keys(s.files).sort(), s.oversized]),
    [
      ['000000', ['jpg', 'json', 'txt'], undefined],
      ['000001', ['json', 'txt'], { jpg: REASON }],
      ['000002', ['jpg', 'json', 'txt'], undefined],
    ],
  );
  assert.throws(
    () => decodeSample(samples[1]!),
    (err: Error) => err.message === `${tarFile}: sample 000001: ${REASON}`,
  );
  assert.equal(decodeSample(samples[2]!).caption, 'pokemon go');
});

test('features: a sample with a member over the cap fails with the reason instead of stopping the run', async () => {
  const dir = tempDir();
  hugeImageShard(dir);
  const slice = await sourceSlice(dir);
  const refs = await collect(slice.refs);
  assert.deepEqual(
    refs.map((r) => [r.key, r.error]),
    [
      ['http://x/0.jpg', undefined],
      [`${path.join(dir, '00000.tar')}#000001`, `${path.join(dir, '00000.tar')}: sample 000001: ${REASON}`],
      ['http://x/2.jpg', undefined],
    ],
  );
});

test('stats reads captions only: a 600 MiB image is never held, a caption over the cap is a malformed sample', async () => {
  const dir = tempDir();
  hugeImageShard(dir);
  const stats = await shardStats(dir);
  assert.equal(stats.pairs, 3);
  assert.equal(stats.rareWords.quiche, 1);

  const captions = path.join(tempDir(), 'captions');
  fs.mkdirSync(captions);
  const tarFile = writeTar(path.join(captions, '00000.tar'), [
    ['000000.txt', 'a durian'],
    ['000001.txt', HUGE],
    ['000002.txt', 'pokemon go'],
  ]);
  const reason = 'member 000001.txt declares 629145600 bytes, over the 20 MiB cap (--max-member-bytes)';
  await assert.rejects(shardStats(captions), (err: Error) => err.message === `${tarFile}: sample 000001: ${reason}`);
  const rejected: [string, string][] = [];
  const lenient = await shardStats(captions, { malformed: 'reject', onReject: (where, why) => rejected.push([where, why]) });
  assert.deepEqual([lenient.pairs, lenient.rejects], [2, 1]);
  assert.deepEqual(rejected, [[`${tarFile}#000001`, reason]]);
});

/** Runs the built CLI with its peak resident memory (kB) written to a file at exit. */
function runCliMeasured(args: string[]): { status: number | null; stdout: string; stderr: string; maxRssKb: number } {
  const dir = tempDir();
  const preload = path.join(dir, 'rss.cjs');
  const report = path.join(dir, 'rss');
  fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));\n`);
  const run = spawnSync(process.execPath, ['--require', preload, CLI, ...args], { encoding: 'utf8', cwd: PACKAGE_ROOT, timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, maxRssKb: Number(fs.readFileSync(report, 'utf8')) };
}

test('cckit stats on a shard whose image declares 600 MiB stays small and counts every caption', () => {
  const dir = tempDir();
  hugeImageShard(dir);
  const run = runCliMeasured(['stats', dir, '--json']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as { pairs: number }).pairs, 3);
  // today: 1.33 GB
  assert.ok(run.maxRssKb < 300 * 1024, `peak RSS ${(run.maxRssKb / 1024).toFixed(0)} MB`);
});

test('cckit stats: a caption over the cap is named (or, with --malformed reject, skipped and counted)', () => {
  const dir = tempDir();
  const tarFile = writeTar(path.join(dir, '00000.tar'), [
    ['000000.txt', 'a durian'],
    ['000001.txt', 21 * 1024 * 1024],
    ['000002.txt', 'pokemon go'],
  ]);
  const reason = 'member 000001.txt declares 22020096 bytes, over the 20 MiB cap (--max-member-bytes)';
  const strict = runCliMeasured(['stats', dir]);
  assert.equal(strict.status, 1);
  assert.ok(strict.stderr.includes(`${tarFile}: sample 000001: ${reason}`), strict.stderr);
  const lenient = runCliMeasured(['stats', dir, '--malformed', 'reject', '--json']);
  assert.equal(lenient.status, 0, lenient.stderr);
  const stats = JSON.parse(lenient.stdout) as { pairs: number; rejects: number };
  assert.deepEqual([stats.pairs, stats.rejects], [2, 1]);
  assert.ok(lenient.stderr.includes(`cckit: skipped ${tarFile}#000001: ${reason}`), lenient.stderr);
});

test('a tar that ends inside a member declaring 600 MiB is an error naming the file, with memory kept low', async () => {
  const dir = tempDir();
  const tarFile = writeTar(
    path.join(dir, '00000.tar'),
    [
      ['000000.txt', 'a durian'],
      ['000000.jpg', HUGE],
    ],
    true,
  );
  const before = process.memoryUsage().arrayBuffers;
  await assert.rejects(collect(readTarShard(tarFile)), (err: Error) => err.message.startsWith(`${tarFile}: cannot read tar:`));
  assert.ok(process.memoryUsage().arrayBuffers - before < 100 * 1024 * 1024);
});

// ---------------------------------------------------------------------------
// A damaged tar among good ones: one rejected shard, the run goes on

/** A folder of three tars: two good ones around a truncated one (its image member cut short). */
function folderWithDamagedTar(): { dir: string; damaged: string } {
  const dir = tempDir();
  writeTar(path.join(dir, '00000.tar'), [
    ['000000.jpg', 'jpeg bytes'],
    ['000000.txt', 'a durian on a table'],
    ['000001.jpg', 'jpeg bytes'],
    ['000001.txt', 'a bowl of quiche'],
  ]);
  const damaged = writeTar(
    path.join(dir, '00001.tar'),
    [
      ['000002.txt', 'a cat on a mat'],
      ['000002.jpg', 100_000],
    ],
    true,
  );
  writeTar(path.join(dir, '00002.tar'), [
    ['000003.jpg', 'jpeg bytes'],
    ['000003.txt', 'pokemon go'],
  ]);
  return { dir, damaged };
}

test('filter: a truncated tar among good ones is one rejected item, and the other tars are filtered', async () => {
  const { dir } = folderWithDamagedTar();
  const result = await runPipeline({ input: dir, out: path.join(tempDir(), 'out'), stages: [{ name: 'pass', check: (p) => keep(p.caption) }] });
  assert.equal(result.kept, 3);
  assert.equal(result.input, 4, 'three samples and the damaged shard');
  const rejects = fs
    .readFileSync(result.files.rejects, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { line: number; url: string; reason: string; detail?: string });
  assert.equal(rejects.length, 1);
  assert.equal(rejects[0]!.reason, 'input:shard-unreadable');
  assert.equal(rejects[0]!.url, '00001.tar');
  assert.equal(rejects[0]!.line, 3, 'at the position of its first unread sample');
  assert.match(rejects[0]!.detail!, /cannot read tar.*\(0 samples read before\)/);
});

test('stats and features: a truncated tar is reported and skipped, one rejected shard', async () => {
  const { dir, damaged } = folderWithDamagedTar();
  // whatever --malformed says (throw is the default), a damaged tar is one rejected shard and the others are counted
  for (const malformed of ['throw', 'reject'] as const) {
    const named: string[] = [];
    const counted = await shardStats(dir, { malformed, onReject: (where) => named.push(where) });
    assert.deepEqual([counted.pairs, counted.rejects, counted.unreadableShards], [3, 0, 1], malformed);
    assert.deepEqual(named, [damaged]);
  }
  const rejected: [string, string][] = [];
  const stats = await shardStats(dir, { malformed: 'reject', onReject: (where, why) => rejected.push([where, why]) });
  assert.deepEqual([stats.pairs, stats.rejects, stats.unreadableShards], [3, 0, 1]);
  assert.equal(rejected[0]![0], damaged);
  assert.match(rejected[0]![1], /^shard:unreadable: .*cannot read tar/);
  const unreadable: string[] = [];
  const slice = await sourceSlice(dir, { onUnreadableShard: (s) => unreadable.push(s.source) });
  assert.equal((await collect(slice.refs)).length, 3);
  assert.deepEqual(unreadable, [damaged]);
});

test('filter --shard / --merge-shards over a folder with a truncated tar: the merge counts it as the one-process run does, and refuses a rewritten shard', async () => {
  const { dir } = folderWithDamagedTar();
  const common = { preset: 'cc12m' as const, input: dir, stages: ['text' as const], nsfw: false };
  const whole = await filterPool({ ...common, out: path.join(tempDir(), 'whole') });
  const out = path.join(tempDir(), 'sharded');
  for (const index of [0, 1]) await filterPool({ ...common, out, shard: { index, count: 2 } });
  const merged = await filterPool({ ...common, out, mergeShards: 2 });
  assert.deepEqual([merged.input, merged.kept, merged.funnel.rejectedTotal], [whole.input, whole.kept, whole.funnel.rejectedTotal]);
  assert.equal(merged.input, 4, 'three samples and the damaged shard');
  const reasons = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { reason: string }).reason);
  assert.deepEqual(reasons(merged.files.rejects).sort(), reasons(whole.files.rejects).sort());
  assert.ok(reasons(merged.files.rejects).includes('input:shard-unreadable'));
  assert.equal(fs.readFileSync(merged.files.kept, 'utf8'), fs.readFileSync(whole.files.kept, 'utf8'));

  // a shard's kept.tsv rewritten after its summary.json (another run's, or a kill between commits) is not merged
  const shardKept = path.join(out, '.shards', '1-of-2', 'kept.tsv');
  fs.appendFileSync(shardKept, 'http://x/other.jpg\tanother run\n');
  await assert.rejects(filterPool({ ...common, out, mergeShards: 2 }), (err: Error) =>
    err.message.startsWith(`merge: ${path.join(out, '.shards', '1-of-2')} is not one finished filter run: kept.tsv is not the file its run wrote`),
  );
});

test('filter and cckit filter: a tar whose sample key comes back after other samples is one rejected shard; the others are filtered', async () => {
  const dir = tempDir();
  writeTar(path.join(dir, '00000.tar'), [
    ['000000.jpg', 'jpeg bytes'],
    ['000000.txt', 'a durian on a table'],
  ]);
  writeTar(path.join(dir, '00001.tar'), [
    ['000001.jpg', 'jpeg bytes'],
    ['000001.txt', 'a cat on a mat'],
    ['000002.jpg', 'jpeg bytes'],
    ['000002.txt', 'a dog on a rug'],
    ['000001.txt', 'the first key again, after another sample'],
  ]);
  writeTar(path.join(dir, '00002.tar'), [
    ['000003.jpg', 'jpeg bytes'],
    ['000003.txt', 'a bowl of quiche'],
  ]);
  const result = await runPipeline({ input: dir, out: path.join(tempDir(), 'out'), stages: [{ name: 'pass', check: (p) => keep(p.caption) }] });
  const reasons = fs
    .readFileSync(result.files.rejects, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; reason: string });
  assert.deepEqual(
    reasons.map((r) => [r.url, r.reason]),
    [['00001.tar', 'input:shard-unreadable']],
  );
  assert.equal(result.kept, 4, "the good tars' samples and the two read before the repeat");
  // the command: exit 0, the reject counted in the funnel
  const out = path.join(tempDir(), 'cli');
  const run = spawnSync(process.execPath, [CLI, 'filter', '--preset', 'cc12m', '--in', dir, '--out', out, '--stages', 'text', '--no-nsfw'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(fs.readFileSync(path.join(out, 'rejects.jsonl'), 'utf8').includes('"input:shard-unreadable"'));
});
