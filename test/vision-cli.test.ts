import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from './helpers';
import { readImageSource } from '../src/vision/sources';
import { writeShards, type ShardRow } from '../src/data/webdataset';
import { worldImageInfo } from '../src/vision/features';
import { worldCocoInfo } from '../src/data/coco';
import { worldFor } from '../src/data/images';

test('cckit features: a world split into a cache folder, then everything cached on a second run', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-features-'));
  const args = ['features', '--in', 'world:tiny:coco-val', '--limit', '6', '--out', out, '--pretrain-steps', '2', '--pretrain-images', '16'];
  const first = runCli(args);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /computed\s+6 /);
  assert.match(first.stderr, /world-cnn: pre-trained world-cnn-64px-d96-/);
  const second = runCli(args);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /computed\s+0 /);
  assert.match(second.stdout, /already cached\s+6/);
  assert.match(second.stderr, /world-cnn: loaded/);
  const bad = runCli(['features', '--in', 'world:tiny:coco-val', '--backbone', 'resnet', '--out', out]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--backbone: "resnet" is not world-cnn or mobilenet/);
});

test('image sources: world splits, COCO annotations built by the world, TSVs and folders', async () => {
  const world = await readImageSource('world:tiny:nocaps-val', { limit: 3, seed: 2 });
  assert.deepEqual(
    world.map((r) => r.key),
    ['world://2/nocaps-val/0.jpg', 'world://2/nocaps-val/1.jpg', 'world://2/nocaps-val/2.jpg'],
  );
  await assert.rejects(readImageSource('world:huge:coco-val'), /unknown world preset/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-sources-'));
  fs.writeFileSync(path.join(dir, 'pairs.tsv'), 'world://0/web/1.jpg\ta caption\nworld://0/web/2.jpg\tanother\n');
  fs.writeFileSync(path.join(dir, 'truth.jsonl'), JSON.stringify({ url: 'world://0/web/1.jpg', tags: ['cat', 'animal'] }) + '\n');
  const tsv = await readImageSource(path.join(dir, 'pairs.tsv'));
  assert.deepEqual(tsv, [{ key: 'world://0/web/1.jpg', tags: ['cat', 'animal'] }, { key: 'world://0/web/2.jpg' }]);
  // COCO annotations the world wrote (its seed and split in "info") become world URLs
  const coco = { images: [{ id: 7, file_name: '7.jpg', width: 10, height: 10 }], annotations: [{ id: 1, image_id: 7, caption: 'x' }] };
  fs.writeFileSync(path.join(dir, 'world-val.json'), JSON.stringify({ info: worldCocoInfo('coco-val', 5, 'tiny'), ...coco }));
  assert.deepEqual(await readImageSource(path.join(dir, 'world-val.json')), [{ key: 'world://5/coco-val/7.jpg' }]);
  // other files' names resolve against the images folder
  fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify(coco));
  assert.deepEqual(await readImageSource(path.join(dir, 'other.json'), { imagesDir: '/images' }), [{ key: '/images/7.jpg' }]);
});

test('image sources: webdataset shards give bytes, url keys, tags and ground-truth boxes', async () => {
  const world = worldFor(0);
  const rows: ShardRow[] = [];
  for (const id of [0, 1]) {
    const item = world.captionedImage('coco-val', id);
    const { format: _f, width, height, ...truth } = item.truth;
    rows.push({
      kind: 'success',
      image: await world.render('coco-val', id),
      imageExt: 'jpg',
      caption: item.references[0]!,
      url: item.url,
      width,
      height,
      meta: { tags: ['a tag'], truth },
    });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-shards-'));
  await writeShards(dir, rows);
  const refs = await readImageSource(dir);
  assert.equal(refs.length, 2);
  assert.equal(refs[0]!.key, 'world://0/coco-val/0.jpg');
  assert.ok(refs[0]!.bytes && refs[0]!.bytes.length > 1000);
  assert.deepEqual(refs[0]!.tags, ['a tag']);
  assert.deepEqual(refs[1]!.boxes, worldImageInfo('world://0/coco-val/1.jpg').boxes);
});

test('cckit features: features of shard images are found again by content when the same images are read from a split folder', async () => {
  const world = worldFor(0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-features-content-'));
  const images = await Promise.all([0, 1].map((id) => world.render('coco-val', id)));
  // a download's shards: the bytes, named by the URL they came from
  const shards = path.join(dir, 'shards');
  await writeShards(
    shards,
    images.map((image, id) => ({ kind: 'success', image, imageExt: 'jpg', caption: `picture ${id}`, url: `http://example.test/${id}.jpg` })),
  );
  // a split of the same images: files in another folder, named by a COCO captions file
  fs.mkdirSync(path.join(dir, 'split', 'images'), { recursive: true });
  images.forEach((image, id) => fs.writeFileSync(path.join(dir, 'split', 'images', `${id}.jpg`), image));
  const coco = {
    images: images.map((_, id) => ({ id, file_name: `images/${id}.jpg` })),
    annotations: images.map((_, id) => ({ id, image_id: id, caption: `picture ${id}` })),
  };
  fs.writeFileSync(path.join(dir, 'split', 'train.json'), JSON.stringify(coco));
  const cache = path.join(dir, 'cache');
  const features = (input: string) => runCli(['features', '--in', input, '--out', cache, '--pretrain-steps', '2', '--pretrain-images', '16']);
  const first = features(shards);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /computed\s+2 /);
  const again = features(path.join(dir, 'split', 'train.json'));
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /computed\s+0 /);
  assert.match(again.stdout, /already cached\s+2/);
});
