import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import {
  CaptionedImage,
  CocoCaptionFile,
  worldCocoInfo,
  worldOfCocoFile,
  readCocoCaptions,
  writeCocoCaptions,
  writeCocoResults,
  writeNocapsCaptions,
} from '../src/data/coco';
import { loadCocoResults } from '../src/metrics/inputs';
import { InputError, readJsonFile } from '../src/util/json';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-data-coco-'));
}

const IMAGES: CaptionedImage[] = [
  { id: 7, fileName: 'img00007.jpg', width: 640, height: 480, captions: ['a dog on a beach', 'a brown dog runs'], domain: 'in' },
  { id: 12, fileName: 'img00012.jpg', width: 300, height: 200, captions: ['a durian on a plate'], domain: 'near-domain' },
  { id: 3, fileName: 'img00003.png', width: 64, height: 64, captions: ['a mangosteen', 'purple fruit', 'a fruit cut in half'], domain: 'out' },
];

test('COCO caption annotations + results are read back by the metrics loaders', () => {
  const dir = tempDir();
  const annotations = path.join(dir, 'captions.json');
  const results = path.join(dir, 'results.json');
  writeCocoCaptions(
    annotations,
    IMAGES.map(({ domain: _, ...image }) => image),
    { info: { description: 'test' } },
  );
  writeCocoResults(results, [
    { image_id: 12, caption: 'a fruit' },
    { image_id: 7, caption: 'a dog' },
  ]);
  const data = readJsonFile(annotations) as CocoCaptionFile;
  assert.deepEqual(data.info, { description: 'test' });
  assert.deepEqual(data.images[0], { id: 7, file_name: 'img00007.jpg', width: 640, height: 480 });
  assert.deepEqual(
    data.annotations.map((a) => [a.id, a.image_id]),
    [
      [1, 7],
      [2, 7],
      [3, 12],
      [4, 3],
      [5, 3],
      [6, 3],
    ],
  );
  assert.deepEqual(readJsonFile(results), [
    { image_id: 12, caption: 'a fruit' },
    { image_id: 7, caption: 'a dog' },
  ]);

  const { cases, unpredicted } = loadCocoResults(results, annotations);
  assert.deepEqual(cases, [
    { imageId: '12', references: ['a durian on a plate'], candidate: 'a fruit' },
    { imageId: '7', references: ['a dog on a beach', 'a brown dog runs'], candidate: 'a dog' },
  ]);
  assert.deepEqual(unpredicted, ['3']);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['captions.json', 'results.json'], 'no temporary files');
});

test('nocaps annotations: domains written as in-domain/near-domain/out-domain and read back', () => {
  const dir = tempDir();
  const annotations = path.join(dir, 'nocaps_val.json');
  const results = path.join(dir, 'results.json');
  writeNocapsCaptions(annotations, IMAGES);
  writeCocoResults(
    results,
    IMAGES.map((image) => ({ image_id: image.id, caption: image.captions[0] })),
  );
  const data = readJsonFile(annotations) as { images: { domain: string }[] };
  assert.deepEqual(
    data.images.map((image) => image.domain),
    ['in-domain', 'near-domain', 'out-domain'],
  );
  const { cases } = loadCocoResults(results, annotations);
  assert.deepEqual(
    cases.map((c) => [c.imageId, c.domain, c.references.length]),
    [
      ['7', 'in', 2],
      ['12', 'near', 1],
      ['3', 'out', 3],
    ],
  );
  assert.deepEqual(
    readCocoCaptions(annotations),
    IMAGES.map((image) => ({ ...image, domain: `${image.domain!.replace(/-domain$/, '')}-domain` })),
  );
});

test('COCO writers: invalid input names the file and position, and nothing is written', () => {
  const dir = tempDir();
  const file = path.join(dir, 'bad.json');
  const expectError = (fn: () => unknown, message: RegExp) =>
    assert.throws(fn, (err: Error) => {
      assert.ok(err instanceof InputError);
      assert.ok(err.message.startsWith(`${file}: `), err.message);
      assert.match(err.message, message);
      return true;
    });
  expectError(() => writeCocoCaptions(file, [IMAGES[0], { ...IMAGES[1], id: 7 }]), /images\[1\] \(id 7\): duplicate id/);
  expectError(() => writeCocoCaptions(file, [{ ...IMAGES[0], width: 0 }]), /images\[0\] \(id 7\): width and height must be positive integers/);
  expectError(
    () => writeCocoCaptions(file, [{ ...IMAGES[0], captions: ['ok', ''] }]),
    /images\[0\] \(id 7\) captions\[1\]: caption must be a non-empty string/,
  );
  expectError(() => writeNocapsCaptions(file, [IMAGES[0], { ...IMAGES[1], domain: undefined }]), /images\[1\] \(id 12\): nocaps annotations need a domain/);
  expectError(() => writeNocapsCaptions(file, [{ ...IMAGES[0], domain: 'far' as 'in' }]), /unknown domain "far"/);
  expectError(
    () =>
      writeCocoResults(file, [
        { image_id: 1, caption: 'a' },
        { image_id: 1, caption: 'b' },
      ]),
    /\[1\] \(image_id 1\): a second caption for the same image/,
  );
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("the world's caption files are recognised by their info block, real ones are not", () => {
  assert.deepEqual(worldOfCocoFile(worldCocoInfo('nocaps-val', 3, 'tiny')), { seed: 3, split: 'nocaps-val' });
  // files written before the `world` marker: description + seed
  assert.deepEqual(worldOfCocoFile({ description: 'cckit embedded world, coco-train', seed: 0, preset: 'tiny' }), { seed: 0, split: 'coco-train' });
  assert.equal(worldOfCocoFile({ description: 'COCO 2014 Dataset', year: 2014 }), undefined);
  assert.equal(worldOfCocoFile({ world: { seed: 1, split: 'imagenet' } }), undefined);
  assert.equal(worldOfCocoFile(undefined), undefined);
});
