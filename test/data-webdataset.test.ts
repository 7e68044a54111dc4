import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import sharp from 'sharp';
import * as tar from 'tar-stream';
import { readParquetFile } from '../src/data/parquet';
import {
  computeKey,
  countSamples,
  decodeSample,
  imageSize,
  oomSamplePerShard,
  readFilesLayout,
  readSamples,
  readShardStats,
  readTarShard,
  readWebdataset,
  ShardRow,
  ShardWriter,
  splitMemberName,
  writeShards,
} from '../src/data/webdataset';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-data-wds-'));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function image(format: 'jpg' | 'png' | 'gif', width: number, height: number, hue: number): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: hue, g: 255 - hue, b: 90 } } });
  return format === 'jpg' ? base.jpeg().toBuffer() : format === 'png' ? base.png().toBuffer() : base.gif().toBuffer();
}

test('img2dataset key and shard naming', () => {
  assert.equal(oomSamplePerShard(10000), 4);
  assert.equal(oomSamplePerShard(10001), 5);
  assert.equal(oomSamplePerShard(3), 1);
  assert.equal(computeKey(123, 0, 4), '000000123');
  assert.equal(computeKey(7, 12, 4), '000120007');
  assert.equal(computeKey(9999, 99999, 4), '999999999');
  assert.equal(computeKey(4, 123456, 4), '1234560004', 'more shards than oom_shard_count allows widen the key, as in Python');
  assert.deepEqual(splitMemberName('000000123.jpg'), { key: '000000123', ext: 'jpg' });
  assert.deepEqual(splitMemberName('dir/sub.dir/k.seg.png'), { key: 'dir/sub.dir/k', ext: 'seg.png' });
  assert.equal(splitMemberName('README'), undefined);
});

test('image header sizes: JPEG, PNG, GIF', async () => {
  assert.deepEqual(imageSize(await image('jpg', 33, 17, 10)), { width: 33, height: 17 });
  assert.deepEqual(imageSize(await image('png', 5, 40, 10)), { width: 5, height: 40 });
  assert.deepEqual(imageSize(await image('gif', 12, 9, 10)), { width: 12, height: 9 });
  assert.equal(imageSize(Buffer.from('not an image')), undefined);
});

async function sampleRows(): Promise<ShardRow[]> {
  const formats = ['jpg', 'png', 'gif'] as const;
  const rows: ShardRow[] = [];
  for (let i = 0; i < 8; i++) {
    if (i === 2) rows.push({ kind: 'failure', url: 'https://x/2.jpg', caption: 'lost', status: 'failed_to_download', error: 'HTTP Error 404: Not Found' });
    else if (i === 6) rows.push({ kind: 'failure', url: 'https://x/6.jpg', caption: 'tiny', status: 'failed_to_resize', error: 'image too small' });
    else {
      const ext = formats[i % 3];
      rows.push({
        kind: 'success',
        image: await image(ext, 10 + i, 20 + i, i * 30),
        imageExt: ext,
        caption: `caption ${i}: a durian\twith “quotes”`,
        url: `https://x/${i}.${ext}`,
        meta: { world_id: i },
      });
    }
  }
  return rows;
}

test('webdataset shards: write, read back identical samples, keys and stats', async () => {
  const dir = tempDir();
  const rows = await sampleRows();
  let clock = 1_700_000_000_000;
  const shards = await writeShards(dir, rows, { samplesPerShard: 3, now: () => (clock += 250) });
  assert.deepEqual(shards, ['00000', '00001', '00002']);
  assert.deepEqual(fs.readdirSync(dir).sort(), [
    '00000.parquet',
    '00000.tar',
    '00000_stats.json',
    '00001.parquet',
    '00001.tar',
    '00001_stats.json',
    '00002.parquet',
    '00002.tar',
    '00002_stats.json',
  ]);

  // keys: 10^ceil(log10(3)) * shard + index, padded to 5 + 1 digits; failures use up their index
  const samples = await collect(readSamples(dir));
  assert.deepEqual(
    samples.map((s) => s.key),
    ['000000', '000001', '000010', '000011', '000012', '000021'],
  );
  const successes = rows.filter((r): r is Extract<ShardRow, { kind: 'success' }> => r.kind === 'success');
  samples.forEach((sample, i) => {
    const row = successes[i];
    assert.ok(sample.image.equals(row.image));
    assert.equal(sample.imageExt, row.imageExt);
    assert.equal(sample.caption, row.caption);
    const size = imageSize(row.image)!;
    assert.deepEqual(sample.json, {
      url: row.url,
      caption: row.caption,
      key: sample.key,
      status: 'success',
      error_message: null,
      width: size.width,
      height: size.height,
      original_width: size.width,
      original_height: size.height,
      world_id: (row.meta as { world_id: number }).world_id,
    });
  });
  assert.ok(samples[0].source.endsWith('00000.tar'));

  const stats0 = readShardStats(dir, '00000');
  assert.equal(stats0.count, 3);
  assert.equal(stats0.successes, 2);
  assert.equal(stats0.failed_to_download, 1);
  assert.equal(stats0.failed_to_resize, 0);
  assert.deepEqual(stats0.status_dict, { success: 2, 'HTTP Error 404: Not Found': 1 });
  assert.equal(stats0.start_time, 1_700_000_000.25);
  assert.ok(stats0.end_time > stats0.start_time && Math.abs(stats0.duration - (stats0.end_time - stats0.start_time)) < 1e-9);
  const stats2 = readShardStats(dir, '00002');
  assert.deepEqual([stats2.count, stats2.successes, stats2.failed_to_resize], [2, 1, 1]);
  assert.deepEqual(stats2.status_dict, { success: 1, 'image too small': 1 });

  // the parquet: every row, failures included
  const meta = await readParquetFile(path.join(dir, '00000.parquet'));
  assert.deepEqual(
    meta.map((m) => [m.key, m.status, m.error_message]),
    [
      ['000000', 'success', null],
      ['000001', 'success', null],
      ['000002', 'failed_to_download', 'HTTP Error 404: Not Found'],
    ],
  );
});

test('webdataset shards are standard tars: tar -tf, tar -xO and tar-stream agree', async () => {
  const dir = tempDir();
  await writeShards(dir, await sampleRows(), { samplesPerShard: 3 });
  const tarFile = path.join(dir, '00001.tar');
  const listing = spawnSync('tar', ['-tf', tarFile], { encoding: 'utf8' });
  assert.equal(listing.status, 0, listing.stderr);
  assert.deepEqual(listing.stdout.trim().split('\n'), [
    '000010.jpg',
    '000010.txt',
    '000010.json',
    '000011.png',
    '000011.txt',
    '000011.json',
    '000012.gif',
    '000012.txt',
    '000012.json',
  ]);
  const caption = spawnSync('tar', ['-xOf', tarFile, '000011.txt'], { encoding: 'utf8' });
  assert.equal(caption.stdout, 'caption 4: a durian\twith “quotes”');
  const json = spawnSync('tar', ['-xOf', tarFile, '000010.json'], { encoding: 'utf8' });
  assert.equal(JSON.parse(json.stdout).key, '000010');
  assert.ok(json.stdout.includes('\n    "key": "000010"'), 'indented by 4 like json.dumps(indent=4)');

  // independent tar-stream pass (not through the module's reader)
  const extract = tar.extract();
  fs.createReadStream(tarFile).pipe(extract);
  const names: string[] = [];
  for await (const entry of extract) {
    names.push(entry.header.name);
    assert.equal(entry.header.type, 'file');
    entry.resume();
  }
  assert.equal(names.length, 9);
  // reproducible bytes: the same rows give the same tar
  const again = tempDir();
  await writeShards(again, await sampleRows(), { samplesPerShard: 3 });
  assert.ok(fs.readFileSync(tarFile).equals(fs.readFileSync(path.join(again, '00001.tar'))));
});

test('webdataset shards: an error leaves no partial tar and no temporaries', async () => {
  const dir = tempDir();
  const rows = await sampleRows();
  async function* failing() {
    for (let i = 0; i < 5; i++) yield rows[i];
    throw new Error('downloader crashed');
  }
  await assert.rejects(writeShards(dir, failing(), { samplesPerShard: 3 }), /downloader crashed/);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['00000.parquet', '00000.tar', '00000_stats.json'], 'only the completed shard');
  assert.equal((await collect(readWebdataset(dir))).length, 2);

  // a bad sample in the middle of a shard: also rejected before anything is written for it
  const dir2 = tempDir();
  const bad = [rows[0], { ...rows[1], imageExt: 'bmp' } as unknown as ShardRow];
  await assert.rejects(writeShards(dir2, bad, { samplesPerShard: 3 }), /imageExt must be one of jpg, png, gif, webp/);
  assert.deepEqual(fs.readdirSync(dir2), []);

  const writer = new ShardWriter(path.join(dir2, 'w'));
  await writer.write({ image: Buffer.from('x'), imageExt: 'jpg', caption: 'c' });
  await writer.abort();
  assert.deepEqual(fs.readdirSync(path.join(dir2, 'w')), []);
});

test('reader: members grouped by key; a key that comes back is an error naming the shard', async () => {
  const dir = tempDir();
  const file = path.join(dir, '00000.tar');
  const pack = tar.pack();
  const out = fs.createWriteStream(file);
  pack.pipe(out);
  for (const [name, text] of [
    ['a.jpg', 'A'],
    ['a.txt', 'cap a'],
    ['b.txt', 'cap b'],
    ['b.jpg', 'B'],
    ['a.json', '{}'],
  ])
    pack.entry({ name }, text);
  pack.finalize();
  await new Promise<void>((resolve) => out.on('close', () => resolve()));
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const raw of readWebdataset(dir)) seen.push(`${raw.key}:${Object.keys(raw.files).join(',')}`);
    })(),
    (err: Error) => err.message.startsWith(`${file}: member a.json: key a appears again`),
  );
  assert.deepEqual(seen, ['a:jpg,txt', 'b:txt,jpg']);
  assert.throws(
    () => decodeSample({ key: 'k', source: file, files: { txt: Buffer.from('x') } }),
    /00000\.tar: sample k: no \.jpg, \.png, \.gif or \.webp member/,
  );
});

test('img2dataset "files" layout: numbered folders of KEY.jpg, KEY.txt, KEY.json', async () => {
  const dir = tempDir();
  const entries: [string, string, string][] = [
    ['00000', '000000001', 'second'],
    ['00000', '000000000', 'first'],
    ['00001', '000010000', 'third'],
  ];
  for (const [shard, key, caption] of entries) {
    fs.mkdirSync(path.join(dir, shard), { recursive: true });
    fs.writeFileSync(path.join(dir, shard, `${key}.jpg`), await image('jpg', 8, 6, key.length));
    fs.writeFileSync(path.join(dir, shard, `${key}.txt`), caption);
    fs.writeFileSync(
      path.join(dir, shard, `${key}.json`),
      JSON.stringify({ url: `https://x/${key}`, caption, key, status: 'success', error_message: null, width: 8, height: 6 }, null, 4),
    );
  }
  fs.writeFileSync(path.join(dir, '00000_stats.json'), JSON.stringify({ count: 2, successes: 2 }));
  fs.writeFileSync(path.join(dir, '00000.parquet'), 'PAR1');
  const raw = await collect(readFilesLayout(dir));
  assert.deepEqual(
    raw.map((r) => [r.key, Object.keys(r.files).sort().join(',')]),
    [
      ['000000000', 'jpg,json,txt'],
      ['000000001', 'jpg,json,txt'],
      ['000010000', 'jpg,json,txt'],
    ],
  );
  const samples = await collect(readSamples(dir));
  assert.deepEqual(
    samples.map((s) => s.caption),
    ['first', 'second', 'third'],
  );
  assert.deepEqual(
    samples.map((s) => s.json.key),
    ['000000000', '000000001', '000010000'],
  );
  assert.deepEqual(imageSize(samples[0].image), { width: 8, height: 6 });
  assert.equal(samples[2].source, path.join(dir, '00001'));
});

test('reader: only the members asked for are read; the others are listed unread', async () => {
  const dir = tempDir();
  await writeShards(dir, await sampleRows(), { samplesPerShard: 3 });
  const captions = await collect(readWebdataset(dir, { members: ['txt'] }));
  assert.equal(captions.length, 6);
  for (const raw of captions) {
    assert.deepEqual(Object.keys(raw.files), ['txt']);
    // the image (first in each sample) and the metadata
    assert.equal(raw.unread?.length, 2);
    assert.ok(['jpg', 'png', 'gif'].includes(raw.unread[0]!), raw.unread[0]);
    assert.equal(raw.unread[1], 'json');
    assert.equal(raw.oversized, undefined);
  }
  assert.equal(captions[1].files.txt.toString('utf8'), 'caption 1: a durian\twith “quotes”');
  // counting reads no member at all (here without the _stats.json that usually give the count)
  for (const name of fs.readdirSync(dir)) if (name.endsWith('_stats.json')) fs.rmSync(path.join(dir, name));
  assert.equal(await countSamples(dir), 6);
});

test('reader: members over maxMemberBytes are left unread and reject their sample; the cap is checked', async () => {
  const dir = tempDir();
  const tarFile = path.join(dir, '00000.tar');
  const pack = tar.pack();
  const out = fs.createWriteStream(tarFile);
  pack.pipe(out);
  const members: [string, number][] = [
    ['a.jpg', 100],
    ['a.txt', 10],
    ['a.json', 50],
    ['b.jpg', 40],
    ['b.txt', 10],
    ['b.json', 51],
    ['c.jpg', 10],
    ['c.txt', 10],
    ['c.npy', 100],
  ];
  for (const [name, size] of members) pack.entry({ name }, name.endsWith('.json') ? `{${' '.repeat(size - 2)}}` : 'x'.repeat(size));
  pack.finalize();
  await new Promise<void>((resolve) => out.on('close', () => resolve()));
  const raw = await collect(readTarShard(tarFile, { maxMemberBytes: 50 }));
  const over = (name: string, size: number) => `member ${name} declares ${size} bytes, over the 50 bytes cap (--max-member-bytes)`;
  assert.deepEqual(
    raw.map((r) => [r.key, Object.keys(r.files), r.oversized]),
    [
      ['a', ['txt', 'json'], { jpg: over('a.jpg', 100) }],
      ['b', ['jpg', 'txt'], { json: over('b.json', 51) }],
      ['c', ['jpg', 'txt'], { npy: over('c.npy', 100) }],
    ],
  );
  assert.throws(
    () => decodeSample(raw[0]),
    (err: Error) => err.message === `${tarFile}: sample a: ${over('a.jpg', 100)}`,
  );
  assert.throws(
    () => decodeSample(raw[1]),
    (err: Error) => err.message === `${tarFile}: sample b: ${over('b.json', 51)}`,
  );
  // a member decodeSample does not use may be over the cap
  assert.equal(decodeSample(raw[2]).caption, 'x'.repeat(10));
  await assert.rejects(collect(readTarShard(tarFile, { maxMemberBytes: -1 })), /maxMemberBytes must be a number of bytes ≥ 0, got -1/);
  await assert.rejects(collect(readTarShard(tarFile, { maxMemberBytes: NaN })), /maxMemberBytes must be a number of bytes ≥ 0, got NaN/);
});

test('"files" layout: the same cap and member choice, sized from the open file', async () => {
  const dir = tempDir();
  const shard = path.join(dir, '00000');
  fs.mkdirSync(shard);
  fs.writeFileSync(path.join(shard, 'k0.jpg'), Buffer.alloc(64, 1));
  fs.writeFileSync(path.join(shard, 'k0.txt'), 'small');
  fs.writeFileSync(path.join(shard, 'k1.jpg'), Buffer.alloc(4096, 2));
  fs.writeFileSync(path.join(shard, 'k1.txt'), 'also small');
  const raw = await collect(readFilesLayout(dir, { maxMemberBytes: 1000 }));
  assert.deepEqual(
    raw.map((r) => [r.key, Object.keys(r.files).sort(), r.oversized]),
    [
      ['k0', ['jpg', 'txt'], undefined],
      ['k1', ['txt'], { jpg: 'member k1.jpg declares 4096 bytes, over the 1000 bytes cap (--max-member-bytes)' }],
    ],
  );
  assert.ok(raw[0].files.jpg.equals(Buffer.alloc(64, 1)));
  assert.throws(() => decodeSample(raw[1]), /00000: sample k1: member k1\.jpg declares 4096 bytes, over the 1000 bytes cap/);
  const captions = await collect(readFilesLayout(dir, { members: ['txt'] }));
  assert.deepEqual(
    captions.map((r) => [Object.keys(r.files), r.unread]),
    [
      [['txt'], ['jpg']],
      [['txt'], ['jpg']],
    ],
  );
});
