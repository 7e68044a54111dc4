import assert from 'node:assert/strict';
import * as path from 'path';
import { test } from 'node:test';
import { evaluate, DEFAULT_METRIC_NAMES } from '../src/metrics/evaluate';
import { loadCocoResults, loadScoringFile } from '../src/metrics/inputs';
import { InputError } from '../src/util/json';
import { PACKAGE_ROOT } from '../src/paths';
import { tempFile } from './helpers';

function assertInputError(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    for (const fragment of fragments) assert.ok(err.message.includes(fragment), `"${err.message}" lacks "${fragment}"`);
    return true;
  });
}

const scoring = (images: unknown) => JSON.stringify({ images });

test('malformed JSON names the file, line and column', () => {
  const file = tempFile('broken.json', '{"images": [\n  {"image_id": "a",,}\n]}');
  assertInputError(() => loadScoringFile(file), file, 'malformed JSON', 'line 2');
});

test('a missing file is reported with its name', () => {
  assertInputError(() => loadScoringFile('/nonexistent/cases.json'), '/nonexistent/cases.json', 'ENOENT');
});

test('missing fields, non-string captions and empty reference lists name the image', () => {
  const missing = tempFile(
    'missing.json',
    scoring([
      { image_id: 'ok', references: ['a'], candidate: 'a' },
      { image_id: 'img7', references: ['a b'] },
    ]),
  );
  assertInputError(() => loadScoringFile(missing), missing, 'image_id img7', 'missing "candidate"');

  const nonString = tempFile('nonstring.json', scoring([{ image_id: 'img8', references: ['a', 42], candidate: 'a' }]));
  assertInputError(() => loadScoringFile(nonString), nonString, 'image_id img8', 'references[1]', 'must be a string');

  const badCandidate = tempFile('badcand.json', scoring([{ image_id: 3, references: ['a'], candidate: null }]));
  assertInputError(() => loadScoringFile(badCandidate), 'image_id 3', 'candidate');

  const empty = tempFile('empty.json', scoring([{ image_id: 'img9', references: [], candidate: 'a' }]));
  assertInputError(() => loadScoringFile(empty), empty, 'image_id img9', 'empty');

  const noImages = tempFile('noimages.json', JSON.stringify({ cases: [] }));
  assertInputError(() => loadScoringFile(noImages), noImages, '"images" array');

  const duplicate = tempFile(
    'dup.json',
    scoring([
      { image_id: 'x', references: ['a'], candidate: 'a' },
      { image_id: 'x', references: ['a'], candidate: 'a' },
    ]),
  );
  assertInputError(() => loadScoringFile(duplicate), 'image_id x', 'duplicate');

  const noId = tempFile('noid.json', scoring([{ references: ['a'], candidate: 'a' }]));
  assertInputError(() => loadScoringFile(noId), 'images[0]', 'image_id');
});

test('an empty candidate scores 0 on every metric, with no NaN anywhere', () => {
  const cases = [
    { imageId: 'empty', references: ['a dog runs on the grass', 'a brown dog'], candidate: '' },
    { imageId: 'full', references: ['a cat sleeps on a sofa'], candidate: 'a cat on a sofa' },
    { imageId: 'other', references: ['two birds in a tree'], candidate: 'birds in a tree' },
  ];
  for (const tokenized of [true, false]) {
    const result = evaluate(cases, { tokenized });
    assert.deepEqual(Object.keys(result.corpus).sort(), [...DEFAULT_METRIC_NAMES].sort());
    for (const name of DEFAULT_METRIC_NAMES) {
      assert.equal(result.per_image[name].empty, 0, `${name} of the empty candidate`);
      assert.ok(Number.isFinite(result.corpus[name]), `${name} corpus is ${result.corpus[name]}`);
      for (const value of Object.values(result.per_image[name])) assert.ok(Number.isFinite(value));
    }
  }
});

test('COCO results with nocaps annotations: captions grouped per image, domains normalised', () => {
  const dir = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'nocaps-example');
  const { cases, unpredicted } = loadCocoResults(path.join(dir, 'results.json'), path.join(dir, 'annotations.json'));
  assert.equal(cases.length, 300);
  assert.deepEqual(unpredicted, []);
  assert.equal(cases[0].imageId, '0');
  assert.equal(cases[0].candidate, 'Lemon lit.');
  assert.equal(cases[0].references.length, 10);
  assert.deepEqual([...new Set(cases.map((c) => c.domain))].sort(), ['in', 'near', 'out']);
});

test('COCO results: unknown images, duplicate predictions and bad domains are errors; unpredicted images are listed', () => {
  const annotations = tempFile(
    'ann.json',
    JSON.stringify({
      images: [
        { id: 1, domain: 'in-domain' },
        { id: 2, domain: 'out-domain' },
      ],
      annotations: [
        { image_id: 1, caption: 'A dog.' },
        { image_id: 2, caption: 'A cat.' },
      ],
    }),
  );
  const partial = tempFile('res.json', JSON.stringify([{ image_id: 1, caption: 'A dog.' }]));
  assert.deepEqual(loadCocoResults(partial, annotations).unpredicted, ['2']);

  const unknown = tempFile('res.json', JSON.stringify([{ image_id: 5, caption: 'A dog.' }]));
  assertInputError(() => loadCocoResults(unknown, annotations), unknown, 'image_id 5', 'no reference captions');

  const twice = tempFile(
    'res.json',
    JSON.stringify([
      { image_id: 1, caption: 'A.' },
      { image_id: 1, caption: 'B.' },
    ]),
  );
  assertInputError(() => loadCocoResults(twice, annotations), 'image_id 1', 'second caption');

  const badDomain = tempFile('ann.json', JSON.stringify({ images: [{ id: 1, domain: 'far-domain' }], annotations: [{ image_id: 1, caption: 'A dog.' }] }));
  assertInputError(() => loadCocoResults(partial, badDomain), badDomain, 'far-domain');

  const notArray = tempFile('res.json', JSON.stringify({ image_id: 1 }));
  assertInputError(() => loadCocoResults(notArray, annotations), notArray, 'array');
});
