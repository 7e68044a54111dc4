import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import * as tf from '@tensorflow/tfjs';
import { FeatureStore, contentKey, extractFeatures } from '../src/vision/cache';
import type { Backbone } from '../src/vision/backbone';
import { loadSharp } from '../src/util/sharp';
import type { ImageFeatures } from '../src/vision/features';
import { WorldCnn, loadWorldCnn, saveWorldCnn, DEFAULT_PRETRAIN } from '../src/vision/world-cnn';

const D = 4;
const backbone = { id: 'test-backbone', featureDim: D };

function fake(key: string, regions: number, seed: number): ImageFeatures {
  const fill = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => seed * 1000 + k * 100 + i * 0.5);
  return { key, global: fill(D, 1), grid: fill(64 * D, 2), regions: fill(regions * D, 3), boxes: fill(regions * 5, 4), tags: [`tag ${seed}`, 'photo'] };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-vision-'));
}

function same(a: ImageFeatures, b: ImageFeatures): void {
  assert.equal(a.key, b.key);
  for (const part of ['global', 'grid', 'regions', 'boxes'] as const) assert.deepEqual(Array.from(a[part]), Array.from(b[part]), part);
  assert.deepEqual(a.tags, b.tags);
}

test('feature store: round trip through disk, appends merge, a reopened store reads the same floats', () => {
  const dir = tempDir();
  const store = FeatureStore.open(backbone, { cacheDir: dir });
  const first = [fake('a', 0, 1), fake('b', 3, 2)];
  store.append(first);
  store.append([fake('c', 16, 3)]);
  assert.equal(store.size, 3);
  const reopened = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(reopened.keys().sort(), ['a', 'b', 'c']);
  same(reopened.get('a')!, first[0]!);
  same(reopened.get('b')!, first[1]!);
  same(reopened.get('c')!, fake('c', 16, 3));
  assert.equal(reopened.get('missing'), undefined);
  // a second writer appending to the same store does not lose the first's entries
  const other = FeatureStore.open(backbone, { cacheDir: dir });
  reopened.append([fake('d', 1, 4)]);
  other.append([fake('e', 2, 5)]);
  const merged = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(merged.keys().sort(), ['a', 'b', 'c', 'd', 'e']);
  same(merged.get('d')!, fake('d', 1, 4));
  same(merged.get('e')!, fake('e', 2, 5));
  // wrong shapes and wrong backbones are refused
  assert.throws(() => merged.append([{ ...fake('f', 1, 6), grid: new Float32Array(3) }]), /wrong shape/);
  assert.throws(() => FeatureStore.open({ id: 'test-backbone', featureDim: 8 }, { cacheDir: dir }), /holds test-backbone \(D=4\)/);
});

test('feature store: a half-written chunk is never read; a damaged record is rejected with a warning, not read', () => {
  const dir = tempDir();
  const store = FeatureStore.open(backbone, { cacheDir: dir });
  store.append([fake('a', 2, 1), fake('b', 1, 2)]);
  // a crash mid-write leaves a temporary or an unreferenced chunk: the index does not name it
  fs.writeFileSync(path.join(store.dir, 'chunk-zzz.bin.tmp-1-x'), Buffer.alloc(10));
  fs.writeFileSync(path.join(store.dir, 'chunk-zzz.bin'), Buffer.alloc(12));
  const reopened = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(reopened.keys().sort(), ['a', 'b']);
  same(reopened.get('a')!, fake('a', 2, 1));
  // a chunk cut short under its index: the record still whole in it is read (its own checksum holds), the cut one is not
  const chunk = fs.readdirSync(store.dir).find((f) => f.endsWith('.bin') && f !== 'chunk-zzz.bin')!;
  const full = fs.readFileSync(path.join(store.dir, chunk));
  fs.writeFileSync(path.join(store.dir, chunk), full.subarray(0, full.length - 8));
  const warnings: string[] = [];
  const cut = FeatureStore.open(backbone, { cacheDir: dir, warn: (line) => warnings.push(line) });
  same(cut.get('a')!, fake('a', 2, 1));
  assert.equal(cut.get('b'), undefined);
  assert.equal(cut.usable('b'), false);
  assert.match(warnings.join('\n'), /differs from its index/);
  assert.match(warnings.join('\n'), /: b rejected: its chunk is cut short; it is computed again/);
  // one flipped float inside a record: that record fails its checksum, the other is still read
  const flipped = Buffer.from(full);
  flipped.writeFloatLE(12345, 4 * 3);
  fs.writeFileSync(path.join(store.dir, chunk), flipped);
  warnings.length = 0;
  const garbled = FeatureStore.open(backbone, { cacheDir: dir, warn: (line) => warnings.push(line) });
  assert.equal(garbled.get('a'), undefined);
  same(garbled.get('b')!, fake('b', 1, 2));
  assert.match(warnings.join('\n'), /: a rejected: its record differs from its checksum/);
  // an index entry pointing outside its chunk, or at a file that is not a chunk, reads as absent
  fs.writeFileSync(path.join(store.dir, chunk), full);
  const index = JSON.parse(fs.readFileSync(store.indexFile, 'utf8')) as { entries: Record<string, unknown[]>; chunks: { file: string }[] };
  index.entries['a']![1] = 10 ** 9;
  index.chunks.push({ ...index.chunks[0]!, file: '../../escape.bin' });
  index.entries['b']![0] = 1;
  fs.writeFileSync(store.indexFile, JSON.stringify(index));
  warnings.length = 0;
  const tampered = FeatureStore.open(backbone, { cacheDir: dir, warn: (line) => warnings.push(line) });
  assert.equal(tampered.get('a'), undefined);
  assert.equal(tampered.get('b'), undefined);
  assert.equal(warnings.filter((w) => /index entry does not fit the store/.test(w)).length, 2);
  // the index itself is replaced by rename only: no temporary index is left behind
  assert.deepEqual(
    fs.readdirSync(store.dir).filter((f) => f.startsWith('index')),
    ['index.json'],
  );
});

/** A backbone that counts the images it featurises. */
function counting(model: WorldCnn): Backbone & { images: number } {
  const counted = {
    name: model.name,
    id: model.id,
    inputSize: model.inputSize,
    featureDim: model.featureDim,
    gridSize: model.gridSize,
    images: 0,
    featureMap(images: tf.Tensor4D) {
      counted.images += images.shape[0];
      return model.featureMap(images);
    },
    dispose: () => model.dispose(),
  };
  return counted;
}

/** A small PNG whose pixels depend on `seed`. */
async function png(seed: number): Promise<Buffer> {
  const raw = Buffer.from(Array.from({ length: 24 * 24 * 3 }, (_, i) => (i * 7 + seed * 31) % 256));
  return loadSharp()(raw, { raw: { width: 24, height: 24, channels: 3 } })
    .png()
    .toBuffer();
}

test('extractFeatures keys by content: the same bytes under another path (a split folder) are not featurised again', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = counting(WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-content-test'));
  const [one, two] = [await png(1), await png(2)];
  // `cckit features` over a shard: bytes in hand, named by the sample's URL
  const shard = await extractFeatures(
    [
      { key: 'http://example.test/1.png', bytes: one },
      { key: 'http://example.test/2.png', bytes: two },
    ],
    { backbone: model, cacheDir: dir },
  );
  assert.deepEqual([shard.computed, shard.cached, model.images], [2, 0, 2]);
  // `cckit train` over the same images copied into a split folder: read from files, found by content
  const split = path.join(dir, 'split', 'images');
  fs.mkdirSync(split, { recursive: true });
  fs.writeFileSync(path.join(split, '1.png'), one);
  fs.writeFileSync(path.join(split, '2.png'), two);
  const files = [path.join(split, '1.png'), path.join(split, '2.png')];
  const train = await extractFeatures(
    files.map((key) => ({ key })),
    { backbone: model, cacheDir: dir },
  );
  assert.deepEqual([train.computed, train.cached, model.images], [0, 2, 2]);
  const byPath = FeatureStore.open(model, { cacheDir: dir }).get(files[0]!)!;
  const byUrl = FeatureStore.open(model, { cacheDir: dir }).get('http://example.test/1.png')!;
  assert.equal(byPath.key, files[0]);
  assert.deepEqual(Array.from(byPath.grid), Array.from(byUrl.grid));
  assert.equal(FeatureStore.open(model, { cacheDir: dir }).size, 2);
  // a file whose bytes change under the same path is featurised again, not served the old features
  fs.writeFileSync(files[0]!, await png(3));
  const changed = await extractFeatures([{ key: files[0]! }], { backbone: model, cacheDir: dir });
  assert.deepEqual([changed.computed, changed.cached, model.images], [1, 0, 3]);
  assert.notDeepEqual(Array.from(changed.store.get(files[0]!)!.grid), Array.from(byUrl.grid));
  // the same bytes with tags (CC12M's tag tokens) are another entry: tags are part of what is stored
  const tagged = await extractFeatures([{ key: 'shard#7', bytes: two, tags: ['frog'] }], { backbone: model, cacheDir: dir });
  assert.deepEqual([tagged.computed, tagged.cached], [1, 0]);
  assert.deepEqual(tagged.store.get('shard#7')!.tags, ['frog']);
  assert.notEqual(contentKey(two, [], ['frog']), contentKey(two));
  // the same bytes read twice under two names in one call are computed once
  const twice = await extractFeatures(
    [
      { key: 'a#1', bytes: await png(4) },
      { key: 'b#1', bytes: await png(4) },
    ],
    { backbone: model, cacheDir: dir },
  );
  assert.deepEqual([twice.read, twice.computed, twice.cached], [2, 1, 0]);
  assert.ok(twice.store.get('b#1'));
  model.dispose();
});

test('extractFeatures: a damaged cache entry is recomputed (with a warning) to the same features; an old path-keyed store is not reused', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = counting(WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-damage-test'));
  const refs = [{ key: 's#1', bytes: await png(1) }];
  const first = await extractFeatures(refs, { backbone: model, cacheDir: dir });
  const before = Array.from(first.store.get('s#1')!.global);
  const store = first.store;
  const chunk = fs.readdirSync(store.dir).find((f) => f.endsWith('.bin'))!;
  const bytes = fs.readFileSync(path.join(store.dir, chunk));
  bytes.writeFloatLE(Number.NaN, 0);
  fs.writeFileSync(path.join(store.dir, chunk), bytes);
  const warnings: string[] = [];
  const again = await extractFeatures(refs, { backbone: model, cacheDir: dir, warn: (line) => warnings.push(line) });
  assert.deepEqual([again.computed, again.cached, model.images], [1, 0, 2]);
  assert.match(warnings.join('\n'), /rejected: its record differs from its checksum; it is computed again/);
  const after = Array.from(FeatureStore.open(model, { cacheDir: dir }).get('s#1')!.global);
  for (let i = 0; i < before.length; i++) assert.ok(Math.abs(after[i]! - before[i]!) <= 1e-6);
  const third = await extractFeatures(refs, { backbone: model, cacheDir: dir });
  assert.deepEqual([third.computed, third.cached], [0, 1]);

  // a version-1 store (keyed by path): warned about, not read, replaced on the next write with its chunks deleted
  const old = tempDir();
  const oldDir = path.join(old, 'features', model.id);
  fs.mkdirSync(oldDir, { recursive: true });
  fs.writeFileSync(path.join(oldDir, 'chunk-old.bin'), Buffer.alloc(16));
  const v1 = { format: 'cckit-features', version: 1, backbone: model.id, featureDim: model.featureDim, gridSize: 8, variant: 'boxes' };
  fs.writeFileSync(
    path.join(oldDir, 'index.json'),
    JSON.stringify({ ...v1, chunks: [{ file: 'chunk-old.bin', bytes: 16, checksum: 1 }], entries: { 's#1': [0, 0, 0, []] } }),
  );
  warnings.length = 0;
  const migrated = await extractFeatures(refs, { backbone: model, cacheDir: old, warn: (line) => warnings.push(line) });
  assert.deepEqual([migrated.computed, migrated.cached], [1, 0]);
  assert.match(warnings.join('\n'), /an old feature index \(version 1, keyed by path or URL, not by image content\): its 1 entries are not reused/);
  assert.equal(fs.existsSync(path.join(oldDir, 'chunk-old.bin')), false);
  const index = JSON.parse(fs.readFileSync(path.join(oldDir, 'index.json'), 'utf8')) as { version: number; sources: Record<string, string> };
  assert.equal(index.version, 2);
  assert.match(index.sources['s#1']!, /^sha256:[0-9a-f]{32}$/);
  model.dispose();
});

test('extractFeatures computes only the missing images and reports failures', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-tiny-test');
  const images = [0, 1, 2].map((id) => ({ key: `world://0/coco-val/${id}.jpg` }));
  const first = await extractFeatures(images.slice(0, 2), { backbone: model, cacheDir: dir, batchSize: 2 });
  assert.equal(first.computed, 2);
  assert.equal(first.cached, 0);
  const second = await extractFeatures([...images, { key: path.join(dir, 'no-such.jpg') }, images[0]!], { backbone: model, cacheDir: dir, batchSize: 2 });
  assert.equal(second.computed, 1);
  assert.equal(second.cached, 2);
  assert.equal(second.failed.length, 1);
  assert.match(second.failed[0]!.reason, /ENOENT/);
  const f = second.store.get(images[2]!.key)!;
  assert.equal(f.global.length, 8);
  model.dispose();
});

test('extractFeatures reads a stream a few batches ahead, not the whole stream, and gives what the list gives', async () => {
  await tf.setBackend('cpu');
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-stream-test');
  const keys = Array.from({ length: 40 }, (_, id) => `world://0/coco-val/${id % 30}.jpg`);
  const batchSize = 2;
  const yielded = new Set<string>();
  let mostAhead = 0;
  const dir = tempDir();
  const store = () => FeatureStore.open(model, { cacheDir: dir });
  async function* stream() {
    for (const key of keys) {
      // distinct images read but not yet in the store: what extractFeatures holds in memory
      yielded.add(key);
      mostAhead = Math.max(mostAhead, yielded.size - store().size);
      yield { key };
    }
  }
  const streamed = await extractFeatures(stream(), { backbone: model, cacheDir: dir, batchSize, chunkSize: 4, total: keys.length });
  assert.equal(streamed.read, 40);
  assert.equal(streamed.computed, 30);
  assert.equal(streamed.cached, 0);
  // stored in chunks of 4 while 4 batches of 2 wait to be computed: at most 8 + 4 images held, of 30
  assert.ok(mostAhead <= batchSize * 4 + 4, `held ${mostAhead} images at once`);
  assert.ok(mostAhead >= batchSize * 4, `held ${mostAhead} images at once`);
  const listed = await extractFeatures(
    keys.map((key) => ({ key })),
    { backbone: model, cacheDir: tempDir(), batchSize },
  );
  for (const key of new Set(keys)) {
    const a = streamed.store.get(key)!.global;
    const b = listed.store.get(key)!.global;
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) <= 1e-5, key);
  }
  model.dispose();
});

test('world-cnn weights: saved atomically, loaded back identical; a damaged file is not loaded', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 5, 600, 'world-cnn-save-test').withIdentity('world-cnn-save-test', 0.5, undefined);
  saveWorldCnn(model, dir, DEFAULT_PRETRAIN);
  const loaded = loadWorldCnn(dir, 'world-cnn-save-test')!;
  assert.ok(loaded);
  assert.equal(loaded.scale, 0.5);
  const x = tf.randomUniform([2, 16, 16, 3], 0, 255, 'float32', 1) as tf.Tensor4D;
  assert.deepEqual(Array.from(loaded.featureMap(x).dataSync()), Array.from(model.featureMap(x).dataSync()));
  const bin = path.join(dir, 'world-cnn-save-test.bin');
  fs.writeFileSync(bin, fs.readFileSync(bin).subarray(0, 100));
  assert.equal(loadWorldCnn(dir, 'world-cnn-save-test'), undefined);
  assert.equal(loadWorldCnn(dir, 'absent'), undefined);
});

test('feature store: a chunk that is a FIFO (or anything but a regular file) is rejected at once, never waited on', () => {
  const dir = tempDir();
  const store = FeatureStore.open(backbone, { cacheDir: dir });
  store.append([fake('a', 2, 1)]);
  const chunk = fs.readdirSync(store.dir).find((f) => f.endsWith('.bin'))!;
  fs.unlinkSync(path.join(store.dir, chunk));
  const made = spawnSync('mkfifo', [path.join(store.dir, chunk)]);
  assert.equal(made.status, 0, 'mkfifo');
  const warnings: string[] = [];
  const reopened = FeatureStore.open(backbone, { cacheDir: dir, warn: (line) => warnings.push(line) });
  // before, opening the FIFO to read blocked this call forever
  assert.equal(reopened.usable('a'), false);
  assert.equal(reopened.get('a'), undefined);
  assert.match(warnings.join('\n'), /not a regular file/);
});
