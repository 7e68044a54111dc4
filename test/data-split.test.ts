/**
 * `cckit split` (src/data/split.ts): a COCO-format train/val/test split of any kept set. Deterministic sides by hash,
 * shares as asked, equal captions kept on one side with --by caption, kept.tsv rows joined to shards by URL, every bad
 * row or sample rejected with a reason (never lost), the output replaced whole. The last test splits real tuxpaint
 * stamps (Debian's tuxpaint-stamps-default) when the package is there. The CLI test runs bin/cckit.js (`npm run build`).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';

import { readCocoAnnotations } from '../src/data/coco';
import { SPLIT_MARKER, SPLIT_SIDES, writeSplit, type SplitReject } from '../src/data/split';
import { writeShards, type ShardRow } from '../src/data/webdataset';
import { readEvalImages } from '../src/train/data';
import { runCli } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-data-split-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A small PNG whose colour depends on `seed`, so images differ in bytes. */
const png = (seed: number, width = 20, height = 10): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: seed % 256, g: (seed * 7) % 256, b: (seed * 13) % 256 } } })
    .png()
    .toBuffer();

/** 40 samples: every fourth caption repeats an earlier one ("a red thing 0" four times, …). */
async function makeShards(folder: string, count = 40): Promise<ShardRow[]> {
  const rows: ShardRow[] = [];
  for (let i = 0; i < count; i++)
    rows.push({ kind: 'success', image: await png(i), imageExt: 'png', caption: `A red thing ${i % 10}.`, url: `http://example.org/${i}.png` });
  await writeShards(folder, rows, { samplesPerShard: 16 });
  return rows;
}

const rejectsOf = (out: string): SplitReject[] =>
  fs
    .readFileSync(path.join(out, 'rejects.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SplitReject);

const sideIds = (out: string): Record<string, number[]> =>
  Object.fromEntries(SPLIT_SIDES.map((side) => [side, readCocoAnnotations(path.join(out, `${side}.json`)).images.map((i) => Number(i.id))]));

test('split of a shard folder: shares as asked, each image on one side, the same on every run, images with their size', async () => {
  const shards = path.join(dir, 'shards');
  await makeShards(shards);
  const a = await writeSplit({ input: shards, out: path.join(dir, 'split-a'), fractions: { val: 0.1, test: 0.2 } });
  const b = await writeSplit({ input: shards, out: path.join(dir, 'split-b'), fractions: { val: 0.1, test: 0.2 } });
  assert.equal(a.read, 40);
  assert.equal(a.images, 40);
  assert.equal(a.rejected, 0);
  // --by url: one image per group, so the cumulative fill gives the shares exactly
  assert.deepEqual([a.sides.test.images, a.sides.val.images, a.sides.train.images], [8, 4, 28]);
  const ids = sideIds(path.join(dir, 'split-a'));
  assert.deepEqual(ids, sideIds(path.join(dir, 'split-b')), 'the same sides on every run');
  const all = [...ids.train!, ...ids.val!, ...ids.test!].sort((x, y) => x - y);
  // 16 samples a shard: keys 0000000…0000015, 0000100…, 0000200…
  const keys = Array.from({ length: 40 }, (_, i) => 100 * Math.floor(i / 16) + (i % 16));
  assert.deepEqual(all, keys, 'every image once; its id is the shard key');
  assert.equal(b.images, 40);
  // the notebooks' reader takes the files: keys are image paths beside the annotation file, the images are there
  const test_ = readEvalImages({ path: path.join(dir, 'split-a', 'test.json') });
  assert.equal(test_.length, 8);
  for (const image of test_) assert.ok(fs.existsSync(image.key), image.key);
  const coco = readCocoAnnotations(path.join(dir, 'split-a', 'test.json'));
  const first = JSON.parse(fs.readFileSync(path.join(dir, 'split-a', 'test.json'), 'utf8')) as {
    images: { width: number; height: number; file_name: string }[];
  };
  assert.deepEqual([first.images[0]!.width, first.images[0]!.height], [20, 10]);
  assert.match(first.images[0]!.file_name, /^images\/\d+\.png$/);
  assert.equal(coco.images.length, 8);
});

test('split --by caption: images that share a caption (case aside) land on one side', async () => {
  const shards = path.join(dir, 'shards');
  const out = path.join(dir, 'split-caption');
  const summary = await writeSplit({ input: shards, out, by: 'caption', fractions: { val: 0.1, test: 0.2 } });
  assert.equal(summary.sides.train.groups + summary.sides.val.groups + summary.sides.test.groups, 10);
  const captionsBySide = SPLIT_SIDES.map(
    (side) => new Set(readCocoAnnotations(path.join(out, `${side}.json`)).images.flatMap((i) => i.captions.map((c) => c.toLowerCase()))),
  );
  for (let i = 0; i < captionsBySide.length; i++)
    for (let j = i + 1; j < captionsBySide.length; j++)
      for (const caption of captionsBySide[i]!) assert.ok(!captionsBySide[j]!.has(caption), `${caption} on two sides`);
  assert.ok(summary.sides.test.images >= 8, 'test filled to at least its share');
});

test('split of a kept.tsv with --shards: captions from the TSV, rows without an image or malformed are rejected with the reason', async () => {
  const shards = path.join(dir, 'shards');
  const filterOut = path.join(dir, 'filter-out');
  fs.mkdirSync(filterOut, { recursive: true });
  // a filter's kept.tsv (CC12M column order), a rewritten caption, a URL no shard has, a malformed line, an empty caption
  fs.writeFileSync(
    path.join(filterOut, 'kept.tsv'),
    [
      'http://example.org/3.png\tA <PERSON> thing.',
      'http://example.org/5.png\tA red thing 5.',
      'http://example.org/5.png\tA second caption for the same image.',
      'http://example.org/404.png\tNot downloaded.',
      'a line without a tab',
      'http://example.org/7.png\t   ',
    ].join('\n') + '\n',
  );
  const out = path.join(dir, 'split-kept');
  const summary = await writeSplit({ input: filterOut, shards, out, fractions: { val: 0, test: 0.5 } });
  assert.equal(summary.read, 6);
  assert.equal(summary.images, 2);
  assert.equal(summary.rejected, 3);
  assert.deepEqual(summary.reasons, { 'row:expected 2 tab-separated columns, found 1': 1, 'image:not-in-shards': 1, 'row:empty caption': 1 });
  const rejects = rejectsOf(out);
  assert.deepEqual(rejects.map((r) => r.where).sort(), ['4', '5', '6']);
  assert.equal(rejects.find((r) => r.where === '4')!.caption, 'Not downloaded.');
  // images.jsonl names each image's source URL (COCO's format has no field for it)
  const sources = fs
    .readFileSync(path.join(out, 'images.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: number; url: string });
  assert.deepEqual(sources.map((s) => [s.id, s.url]).sort(), [
    [3, 'http://example.org/3.png'],
    [5, 'http://example.org/5.png'],
  ]);
  const images = SPLIT_SIDES.flatMap((side) => readCocoAnnotations(path.join(out, `${side}.json`)).images);
  assert.deepEqual(images.map((i) => [i.id, i.captions]).sort(), [
    [3, ['A <PERSON> thing.']],
    [5, ['A red thing 5.', 'A second caption for the same image.']],
  ]);
});

test('split of a TSV of local files: non-images, missing files, web URLs without shards are rejected, never crash the run', async () => {
  const folder = path.join(dir, 'local');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'a.png'), await png(1));
  fs.writeFileSync(
    path.join(folder, 'b.jpg'),
    await sharp(await png(2))
      .jpeg()
      .toBuffer(),
  );
  fs.writeFileSync(path.join(folder, 'fake.jpg'), 'not an image at all');
  fs.mkdirSync(path.join(folder, 'dir.png'));
  fs.writeFileSync(
    path.join(folder, 'pool.tsv'),
    ['A thing.\ta.png', 'Another thing.\tb.jpg', 'Fake.\tfake.jpg', 'Gone.\tgone.png', 'A folder.\tdir.png', 'On the web.\thttps://example.org/x.jpg'].join(
      '\n',
    ) + '\n',
  );
  const out = path.join(dir, 'split-local');
  const summary = await writeSplit({ input: path.join(folder, 'pool.tsv'), out, layout: 'caption-url', fractions: { val: 0, test: 0.5 } });
  assert.equal(summary.images, 2);
  assert.deepEqual(summary.reasons, { 'image:unknown-format': 1, 'image:missing': 1, 'image:not-a-file': 1, 'image:not-local': 1 });
  const images = SPLIT_SIDES.flatMap((side) => readCocoAnnotations(path.join(out, `${side}.json`)).images);
  assert.deepEqual(images.map((i) => i.id).sort(), [1, 2], 'ids are the TSV line numbers');
  assert.ok(fs.existsSync(path.join(out, 'images', '2.jpg')), 'the extension comes from the bytes');
});

test('split: a corrupt tar is reported and the other shards are used; a bad sample is rejected, not fatal', async () => {
  const shards = path.join(dir, 'shards-damaged');
  await makeShards(shards, 20); // 00000.tar (16 samples) and 00001.tar (4)
  const second = path.join(shards, '00001.tar');
  fs.writeFileSync(second, fs.readFileSync(second).subarray(0, 700)); // cut inside the first member
  const out = path.join(dir, 'split-damaged');
  const summary = await writeSplit({ input: shards, out });
  assert.equal(summary.images, 16);
  assert.ok(
    rejectsOf(out).some((r) => r.where === '00001.tar' && r.reason.startsWith('shard:unreadable')),
    JSON.stringify(rejectsOf(out)),
  );
});

test('split of a files-layout folder: a sample without an image or with broken metadata is rejected with its code', async () => {
  const folder = path.join(dir, 'files-layout', '00000');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, '000000000.png'), await png(5));
  fs.writeFileSync(path.join(folder, '000000000.txt'), 'A good one.');
  fs.writeFileSync(path.join(folder, '000000001.txt'), 'No image here.');
  fs.writeFileSync(path.join(folder, '000000002.png'), await png(6));
  fs.writeFileSync(path.join(folder, '000000002.txt'), 'Broken metadata.');
  fs.writeFileSync(path.join(folder, '000000002.json'), '{"url": ');
  const out = path.join(dir, 'split-files');
  const summary = await writeSplit({ input: path.join(dir, 'files-layout'), out });
  assert.equal(summary.read, 3);
  assert.equal(summary.images, 1);
  assert.deepEqual(summary.reasons, { 'sample:no-image': 1, 'sample:malformed-json': 1 });
  assert.deepEqual(
    rejectsOf(out).map((r) => r.where),
    ['00000#000000001', '00000#000000002'],
  );
});

test('split: shares are checked; an output folder of other files is refused; an earlier split is replaced whole', async () => {
  const shards = path.join(dir, 'shards');
  await assert.rejects(writeSplit({ input: shards, out: path.join(dir, 'x'), fractions: { val: 0.5, test: 0.5 } }), /must leave images for train/);
  await assert.rejects(writeSplit({ input: shards, out: path.join(dir, 'x'), fractions: { val: -0.1, test: 0.1 } }), /share in \[0, 1\)/);
  const busy = path.join(dir, 'busy');
  fs.mkdirSync(busy);
  fs.writeFileSync(path.join(busy, 'notes.txt'), 'mine');
  await assert.rejects(writeSplit({ input: shards, out: busy }), /holds other files/);
  assert.equal(fs.readFileSync(path.join(busy, 'notes.txt'), 'utf8'), 'mine');
  // a folder that only looks like a split (a summary.json and a user's images/) is refused and left as it was
  const lookalike = path.join(dir, 'holiday');
  fs.mkdirSync(path.join(lookalike, 'images'), { recursive: true });
  fs.writeFileSync(path.join(lookalike, 'summary.json'), '{}');
  fs.writeFileSync(path.join(lookalike, 'images', 'holiday-001.jpg'), 'a photo');
  await assert.rejects(writeSplit({ input: shards, out: lookalike }), /was not written by cckit split \(no \.cckit-split\)/);
  assert.equal(fs.readFileSync(path.join(lookalike, 'images', 'holiday-001.jpg'), 'utf8'), 'a photo');
  const out = path.join(dir, 'split-a');
  assert.ok(fs.existsSync(path.join(out, SPLIT_MARKER)), 'a split marks its folder');
  // what a split killed with -9 left beside its output (its temporary folder) goes on the next run into it
  const left = path.join(dir, '.split-a.4194303.k1ll3d.tmp');
  fs.mkdirSync(path.join(left, 'images'), { recursive: true });
  fs.writeFileSync(path.join(left, 'images', '1.jpg'), Buffer.alloc(1 << 20));
  fs.writeFileSync(path.join(out, 'images', 'stale.png'), 'from an earlier run');
  await writeSplit({ input: shards, out, fractions: { val: 0.1, test: 0.2 } });
  assert.ok(!fs.existsSync(path.join(out, 'images', 'stale.png')), 'the old folder is gone, not merged');
  assert.ok(!fs.existsSync(left), "a killed split's temporary folder is removed");
  assert.deepEqual(
    fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')),
    [],
    'no temporary folder left',
  );
});

test('cckit split: the command prints the sides and the rejections, and refuses bad options', () => {
  const shards = path.join(dir, 'shards');
  const out = path.join(dir, 'split-cli');
  const result = runCli(['split', '--in', shards, '--out', out, '--test', '0.25', '--val', '0.1']);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^test: 10 images, 10 captions, 10 URLs$/m);
  assert.match(result.stdout, /^val: 4 images/m);
  assert.match(result.stdout, /40 read, 40 images kept, 0 rejected/);
  const help = runCli(['split', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--by <key>/);
  assert.match(runCli(['split', '--inn', shards, '--out', out]).stderr, /unknown option '--inn'/);
  const bad = runCli(['split', '--in', shards, '--out', out, '--by', 'colour']);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--by: "colour" is not url, image or caption/);
  const share = runCli(['split', '--in', shards, '--out', out, '--test', '10%']);
  assert.match(share.stderr, /--test: "10%" is not a share/);
  const missing = runCli(['split', '--in', path.join(dir, 'nowhere'), '--out', out]);
  assert.match(missing.stderr, /does not exist/);
});

const TUXPAINT = '/usr/share/tuxpaint/stamps';

test(
  'split of real tuxpaint stamps (a local-file TSV of Debian tuxpaint-stamps-default), by caption',
  { skip: !fs.existsSync(TUXPAINT) && 'tuxpaint-stamps-default not installed' },
  async () => {
    const pngs = fs
      .readdirSync(path.join(TUXPAINT, 'animals', 'birds'))
      .filter((name) => name.endsWith('.png'))
      .sort()
      .slice(0, 30);
    const rows = pngs.flatMap((name) => {
      const txt = path.join(TUXPAINT, 'animals', 'birds', name.replace(/\.png$/, '.txt'));
      if (!fs.existsSync(txt)) return [];
      const description = fs.readFileSync(txt, 'utf8').split('\n')[0]!.trim();
      return description ? [`${description}\t${path.join(TUXPAINT, 'animals', 'birds', name)}`] : [];
    });
    assert.ok(rows.length >= 10, `${rows.length} described birds`);
    const tsv = path.join(dir, 'tuxpaint.tsv');
    fs.writeFileSync(tsv, rows.join('\n') + '\n');
    const out = path.join(dir, 'split-tuxpaint');
    // the rows name /usr/share/…, outside the TSV's folder: a list the user wrote (--allow-local-files)
    const summary = await writeSplit({ input: tsv, out, by: 'caption', layout: 'caption-url', localFiles: 'any' });
    assert.equal(summary.images + summary.rejected, rows.length);
    assert.equal(summary.rejected, 0, JSON.stringify(summary.reasons));
    const train = readEvalImages({ path: path.join(out, 'train.json') });
    const meta = await sharp(fs.readFileSync(train[0]!.key)).metadata();
    const coco = JSON.parse(fs.readFileSync(path.join(out, 'train.json'), 'utf8')) as { images: { id: number; width: number; height: number }[] };
    assert.deepEqual([coco.images[0]!.width, coco.images[0]!.height], [meta.width, meta.height], 'the size written is the PNG’s own');
  },
);
