import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { detectTsvLayout, isHeaderRow, readTsv } from '../src/data/tsv';
import { loadCocoResults, loadScoringFile } from '../src/metrics/inputs';
import { JsonNumberText, parseJson } from '../src/util/json';
import { runCli, tempFile } from './helpers';

const scoring = (images: string) => tempFile('scores.json', `{"images": [${images}]}`);

test('cckit score refuses an empty input and names the file', () => {
  const empty = scoring('');
  const run = runCli(['score', '--input', empty]);
  assert.equal(run.status, 1);
  assert.ok(run.stderr.includes(`${empty}: "images" is empty: nothing to score`), run.stderr);
  const results = tempFile('results.json', '[]');
  const annotations = tempFile('ann.json', '{"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "a cat"}]}');
  assert.throws(() => loadCocoResults(results, annotations), new RegExp(`${results}: no results`));
});

test('image ids above 2^53 are kept exactly; an id that overflows is refused with file and position', () => {
  const file = scoring(
    '{"image_id": 9007199254740993, "references": ["a cat"], "candidate": "a cat"}, {"image_id": 9007199254740992, "references": ["a dog"], "candidate": "a dog"}',
  );
  assert.deepEqual(
    loadScoringFile(file).map((c) => c.imageId),
    ['9007199254740993', '9007199254740992'],
  );
  const run = runCli(['score', '--input', file, '--metrics', 'Bleu_1']);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(Object.keys(JSON.parse(run.stdout).per_image.Bleu_1), ['9007199254740993', '9007199254740992']);

  const huge = scoring('{"image_id": 1e400, "references": ["a b"], "candidate": "a b"}');
  const refused = runCli(['score', '--input', huge]);
  assert.equal(refused.status, 1);
  assert.ok(refused.stderr.includes(`${huge}: images[0]: image_id 1e400 is out of range`), refused.stderr);
  assert.doesNotMatch(refused.stderr, /null/);

  // COCO results against annotations: big ids match exactly, and neighbours do not collide.
  const annotations = tempFile(
    'ann.json',
    '{"images": [{"id": 9007199254740993}, {"id": 9007199254740992}], "annotations": [{"image_id": 9007199254740993, "caption": "a cat"}, {"image_id": 9007199254740992, "caption": "a dog"}]}',
  );
  const results = tempFile('res.json', '[{"image_id": 9007199254740993, "caption": "a cat"}, {"image_id": 9007199254740992, "caption": "a dog"}]');
  const { cases } = loadCocoResults(results, annotations);
  assert.deepEqual(
    cases.map((c) => [c.imageId, c.references[0]]),
    [
      ['9007199254740993', 'a cat'],
      ['9007199254740992', 'a dog'],
    ],
  );
});

test('parseJson with exactNumbers equals JSON.parse except for inexact numbers, and reports positions', () => {
  const text = '{"a": [1, -2.5e3, "9007199254740993 in a string", {"__proto__": 1}], "b": 12345678901234567890, "c": -1e400, "d": true, "e": null}';
  const exact = parseJson(text, { exactNumbers: true }) as Record<string, unknown>;
  const native = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(exact.a, native.a);
  assert.ok(exact.b instanceof JsonNumberText && exact.b.text === '12345678901234567890');
  assert.ok(exact.c instanceof JsonNumberText && exact.c.text === '-1e400');
  assert.equal(exact.d, true);
  assert.equal(exact.e, null);
  assert.throws(() => parseJson('{"b": 99999999999999999999 "x"}', { exactNumbers: true }), /position 27/);
});

test('an empty TSV filters to 0 rows (exit 0); a header row is not a pair, with or without --layout', () => {
  const dir = path.dirname(tempFile('x', ''));
  const empty = path.join(dir, 'empty.tsv');
  fs.writeFileSync(empty, '');
  const run = runCli(['filter', '--in', empty, '--out', path.join(dir, 'out'), '--no-nsfw', '--stages', 'text', '--workers', '0']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /0 rows: 0 kept, 0 rejected/);

  const header = path.join(dir, 'header.tsv');
  fs.writeFileSync(header, 'caption\turl\n');
  for (const layout of ['caption-url', 'auto']) {
    const filtered = runCli([
      'filter',
      '--in',
      header,
      '--out',
      path.join(dir, `out-${layout}`),
      '--no-nsfw',
      '--stages',
      'text',
      '--workers',
      '0',
      '--layout',
      layout,
    ]);
    assert.equal(filtered.status, 0, filtered.stderr);
    assert.match(filtered.stdout, /0 rows: 0 kept, 0 rejected/);
  }
});

test('TSV reading skips a header row and reads an empty file as no rows', async () => {
  assert.ok(isHeaderRow(['caption', 'url']));
  assert.ok(isHeaderRow(['image_url', 'alt text']));
  assert.ok(!isHeaderRow(['a dog', 'https://x.invalid/1.jpg']));
  assert.ok(!isHeaderRow(['a dog', 'images/1.jpg']));
  assert.ok(!isHeaderRow(['one', 'two']), 'bare words are data, not a header');
  const file = tempFile('rows.tsv', 'url\tcaption\nhttps://x.invalid/1.jpg\ta dog\n');
  const rows = [];
  for await (const row of readTsv(file, { layout: 'url-caption' })) rows.push(row);
  assert.deepEqual(rows, [{ line: 2, url: 'https://x.invalid/1.jpg', caption: 'a dog' }]);
  const auto = [];
  for await (const row of readTsv(file)) auto.push(row);
  assert.deepEqual(auto, rows);
  assert.equal(await detectTsvLayout(tempFile('empty.tsv', '')), 'caption-url');
  assert.equal(await detectTsvLayout(tempFile('header.tsv', 'caption\turl\n')), 'caption-url');
});

test('numeric and choice options are checked, with the option and value named', () => {
  const cases: [string[], RegExp][] = [
    [['caption', '--ckpt', 'x', '--in', 'y', '--out', 'z', '--limit', 'abc'], /--limit: "abc" is not a whole number ≥ 1/],
    [['caption', '--ckpt', 'x', '--in', 'y', '--out', 'z', '--format', 'bogus'], /--format: "bogus" is not coco or nocaps/],
    [['caption', '--ckpt', 'x', '--in', 'y', '--out', 'z', '--decode', 'constructor'], /--decode: "constructor" is not/],
    [['filter', '--in', 'x', '--out', 'y', '--concurrency', '0'], /--concurrency: "0" is not a whole number ≥ 1/],
    [['filter', '--in', 'x', '--out', 'y', '--preset', 'toString'], /--preset: "toString" is not cc3m or cc12m/],
    [['filter', '--in', 'x', '--out', 'y', '--workers', '1e3'], /--workers: "1e3" is not a whole number/],
    [['world', 'build', '--out', 'x', '--seed', ''], /--seed: "" is not a whole number/],
    [['world', 'build', '--out', 'x', '--zipf', 'Infinity'], /--zipf: "Infinity" is not a positive number/],
    [['table3', '--preset', 'constructor'], /--preset: "constructor" is not tiny or small/],
    [['retrieval', '--similarity', 'x', '--ks', '1,abc'], /--ks: "abc" is not a whole number ≥ 1/],
    [['features', '--in', 'x', '--batch-size', '0'], /--batch-size: "0" is not a whole number ≥ 1/],
  ];
  for (const [args, message] of cases) {
    const run = runCli(args);
    assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
  }
});

test('an engine launches nothing on a missing input: one clear error, no shard folder, no process', () => {
  const out = path.join(path.dirname(tempFile('engine.txt', '')), 'out');
  for (const engine of ['local', 'slurm'] as const) {
    const run = runCli(['filter', '--in', '/nonexistent/cc12m-shards', '--out', out, '--engine', engine, '--shards', '8']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /--in "?\/nonexistent\/cc12m-shards"?: no such file or folder; nothing was launched/);
    assert.equal(fs.existsSync(path.join(out, '.shards')), false, `${engine}: no .shards folder left`);
  }
  // the BullMQ engine checks before it connects: no Redis is needed to refuse (port 1 on loopback answers nothing)
  const bull = runCli(['download', '--in', '/nonexistent/list.tsv', '--out', out, '--engine', 'bullmq', '--redis', 'redis://127.0.0.1:1']);
  assert.equal(bull.status, 1, bull.stderr);
  assert.match(bull.stderr, /--in "?\/nonexistent\/list\.tsv"?: no such file or folder; nothing was launched/);
  // an input that plans nothing: an empty list or an empty folder is the same one error before any process
  const empty = tempFile('empty.tsv', '\n\n');
  const emptyFolder = path.join(path.dirname(empty), 'empty-shards');
  fs.mkdirSync(emptyFolder, { recursive: true });
  for (const input of [empty, emptyFolder]) {
    const run = runCli(['filter', '--in', input, '--out', out, '--engine', 'local', '--shards', '8', '--stages', 'text', '--no-nsfw']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /--in "?[^"]*"?: (holds no rows|an empty folder); nothing was launched/);
    assert.equal(fs.existsSync(path.join(out, '.shards')), false, 'no .shards folder left');
  }
  const caption = runCli(['caption', '--ckpt', '/nonexistent/run', '--in', '/nonexistent/val.json', '--out', path.join(out, 'p.json'), '--engine', 'local']);
  assert.equal(caption.status, 1);
  assert.match(caption.stderr, /nothing was launched/);
});
