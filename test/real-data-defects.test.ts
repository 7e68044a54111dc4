/**
 * Defects found on real data ("Real data, real quality", items 1, 2 and 7):
 *   1. the image filter judged the shards' resized copies instead of the web image's size;
 *   2. rejects.jsonl carried no caption and no cause, and nothing audited the kept set;
 *   7. easy mistakes passed silently (a download refused for want of a flag, a mistyped option
 *      reported as a missing one, a missing config reported as ENOENT).
 * The CLI tests run bin/cckit.js, i.e. the build (`npm run build`).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';

import { writeShards } from '../src/data/webdataset';
import { AUDIT_REPEAT_WARNING, auditKeptFile, formatAudit } from '../src/filters/audit';
import { CC3M_IMAGE_FILTER, ImageFilter, checkImage, originalSizeOf } from '../src/filters/image';
import { capCaption, runPipeline, type RejectRecord } from '../src/filters/pipeline';
import { PRESETS, buildStages } from '../src/filters/presets';
import { filterPool } from '../src/filters/run';
import { TextFilter, WordCounts, CC3M_TEXT_FILTER } from '../src/filters/text';
import { ConceptPruner } from '../src/filters/transform';
import { keep } from '../src/filters/types';
import { downloadHints } from '../src/cli/download';
import { runCli } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-real-defects-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A noisy JPEG (noise keeps it a real photo-like file, not a flat one). */
const jpeg = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg()
    .toBuffer();

const readRejects = (file: string): RejectRecord[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RejectRecord);

/** An img2dataset "files" layout sample written by hand: KEY.json holds exactly `json`. */
function writeFilesSample(folder: string, key: string, image: Buffer, caption: string, json: Record<string, unknown>): void {
  const shard = path.join(folder, '00000');
  fs.mkdirSync(shard, { recursive: true });
  fs.writeFileSync(path.join(shard, `${key}.jpg`), image);
  fs.writeFileSync(path.join(shard, `${key}.txt`), caption);
  fs.writeFileSync(path.join(shard, `${key}.json`), JSON.stringify({ url: `https://example.org/${key}.jpg`, caption, key, ...json }));
}

// ---------------------------------------------------------------------------------------------
// 1. the image filter judges the web image's size where the shard records it

test("shards of 256-px copies with an 800×600 original pass CC3M's size rule; the decoded size is judged without the fields", async () => {
  const small = await jpeg(256, 256); // --resize-mode border --image-size 256
  const resized = path.join(dir, 'resized');
  await writeShards(resized, [
    { kind: 'success', image: small, imageExt: 'jpg', caption: 'a dog on a sofa', url: 'https://example.org/1.jpg', originalWidth: 800, originalHeight: 600 },
    // the original is too small itself: judged on the original too
    { kind: 'success', image: small, imageExt: 'jpg', caption: 'a cat on a mat', url: 'https://example.org/2.jpg', originalWidth: 390, originalHeight: 300 },
    // the original is too wide for CC3M (aspect 2.5 > 2), although the bordered copy is square
    { kind: 'success', image: small, imageExt: 'jpg', caption: 'a wide banner', url: 'https://example.org/3.jpg', originalWidth: 1100, originalHeight: 440 },
  ]);
  const result = await filterPool({ preset: 'cc3m', input: resized, out: path.join(dir, 'resized-out'), stages: ['image'], nsfw: false, workers: 0 });
  assert.equal(result.kept, 1);
  assert.equal(fs.readFileSync(result.files.kept, 'utf8'), 'https://example.org/1.jpg\ta dog on a sofa\n');
  assert.deepEqual(result.imageSizesJudged, { original: 3, decoded: 0 });
  const rejects = readRejects(result.files.rejects);
  assert.deepEqual(
    rejects.map((r) => [r.line, r.reason, r.detail, r.caption]),
    [
      [2, 'image:too-small', "390×300 (original, from the shard's JSON; the shard holds 256×256): both sides must be > 400", 'a cat on a mat'],
      [3, 'image:aspect', "aspect 2.500 > 2, 1100×440 (original, from the shard's JSON; the shard holds 256×256)", 'a wide banner'],
    ],
  );
  assert.equal(JSON.parse(fs.readFileSync(result.files.summary, 'utf8')).imageSizesJudged.original, 3);

  // the same copies without original_width / original_height: the decoded 256 px is judged, as before
  const bare = path.join(dir, 'bare');
  writeFilesSample(bare, '000000000', small, 'a dog on a sofa', { width: 256, height: 256 });
  writeFilesSample(bare, '000000001', small, 'a cat on a mat', { width: 256, height: 256, original_width: null, original_height: 'big' });
  const judged = await filterPool({ preset: 'cc3m', input: bare, out: path.join(dir, 'bare-out'), stages: ['image'], nsfw: false, workers: 0 });
  assert.equal(judged.kept, 0);
  assert.deepEqual(judged.imageSizesJudged, { original: 0, decoded: 2 });
  assert.deepEqual(
    readRejects(judged.files.rejects).map((r) => [r.reason, r.detail]),
    [
      ['image:too-small', '256×256 (decoded): both sides must be > 400'],
      ['image:too-small', '256×256 (decoded): both sides must be > 400'],
    ],
  );
});

test('the original size is read only from whole positive numbers; format, pixels and decode still judge the bytes', async () => {
  assert.deepEqual(originalSizeOf({ original_width: 800, original_height: 600 }), { width: 800, height: 600 });
  for (const json of [
    {},
    { original_width: 800 },
    { original_width: '800', original_height: 600 },
    { original_width: 0, original_height: 600 },
    { original_width: 1.5, original_height: 2 },
  ])
    assert.equal(originalSizeOf(json), undefined, JSON.stringify(json));
  const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .png()
    .toBuffer();
  assert.equal(checkImage(png, CC3M_IMAGE_FILTER, { width: 800, height: 600 }).reason, 'image:format:png');
  assert.equal(checkImage(await jpeg(256, 256), { ...CC3M_IMAGE_FILTER, maxPixels: 1000 }, { width: 800, height: 600 }).reason, 'image:pixels');
  const truncated = (await jpeg(256, 256)).subarray(0, 2000);
  const filter = new ImageFilter({ nsfw: false }, CC3M_IMAGE_FILTER);
  assert.equal((await filter.check(truncated, { width: 800, height: 600 })).reason, 'image:corrupt');
  assert.deepEqual(filter.stats().sizesJudged, { original: 1, decoded: 0 });
});

// ---------------------------------------------------------------------------------------------
// 2. every reject carries its caption and what the rule measured; every run audits its kept set

test('rejects.jsonl: the caption as read (capped) and each stage’s cause; verdicts as before', async () => {
  const input = path.join(dir, 'causes.tsv');
  const long = `A dog on a sofa ${'with a ball '.repeat(200)}`.trim();
  const rows = [
    ['http://x/1.jpg', 'Stock photo: A dog on a sofa in the house'], // kept (boilerplate cropped)
    ['http://x/2.jpg', 'A dog on a sofa near the zyzzyva'], // rare word
    ['http://x/3.jpg', 'a dog on a sofa in the house'], // first word not capitalised
    ['http://x/4.jpg', 'A car on a road in the house'], // tags do not match
    ['http://x/5.jpg', long], // repetition, caption capped
    ['http://x/6.jpg', 'Dog sofa house'], // no determiner
  ];
  fs.writeFileSync(input, rows.map((r) => r.join('\t')).join('\n') + '\n');
  const tags = (url: string) => (url === 'http://x/4.jpg' ? ['durian', 'fruit bowl'] : ['dog', 'sofa']);
  const vocabulary = WordCounts.fromCaptions(Array.from({ length: 5 }, () => 'a dog on the sofa in house near with ball car road'));
  const { stages } = buildStages(PRESETS.cc3m, { vocabulary, scaleRareWords: false, only: ['text', 'image-text'] });
  const result = await runPipeline({ input, out: path.join(dir, 'causes-out'), layout: 'url-caption', stages, tags });
  assert.equal(fs.readFileSync(result.files.kept, 'utf8'), 'http://x/1.jpg\tA dog on a sofa in the house\n');
  const rejects = readRejects(result.files.rejects);
  assert.deepEqual(
    rejects.map((r) => [r.line, r.stage, r.reason]),
    [
      [2, 'text', 'text:rare-words'],
      [3, 'text', 'text:capitalisation'],
      [4, 'image-text', 'image-text:no-match'],
      [5, 'text', 'text:repetition'],
      [6, 'text', 'text:no-determiner'],
    ],
  );
  const byLine = new Map(rejects.map((r) => [r.line, r]));
  assert.equal(byLine.get(2)!.detail, '"zyzzyva" seen 0 (a word must be seen ≥ 5)');
  assert.equal(byLine.get(2)!.caption, rows[1][1]);
  assert.equal(byLine.get(3)!.detail, 'first word "a" is not capitalised');
  assert.match(byLine.get(4)!.detail!, /caption stems \[car, road, hous\]; tags \[durian, fruit bowl\] → stems \[durian, fruit, bowl\]/);
  assert.match(byLine.get(5)!.detail!, /^repetition 0\.\d+ > 0\.1 \(repeated: ball ×199\)$/);
  assert.equal(byLine.get(5)!.caption, capCaption(long));
  assert.equal(byLine.get(5)!.caption!.length, 1001, 'capped to 1,000 characters and an ellipsis');
  assert.match(byLine.get(6)!.detail!, /^no DET: Dog\/\w+ sofa\/\w+ house\/\w+$/);

  // the details never change a verdict: the filter's reasons equal the reasons without details
  const text = new TextFilter(CC3M_TEXT_FILTER, vocabulary);
  for (const [, caption] of rows) {
    const verdict = text.check(caption);
    const row = rejects.find((r) => r.caption === capCaption(caption) && r.stage === 'text');
    assert.equal(verdict.keep ? undefined : verdict.reason, row?.reason);
  }
});

test('the image stage and the fetcher say what failed; the pooled stages carry the cause too', async () => {
  const input = path.join(dir, 'fetch.tsv');
  fs.writeFileSync(input, 'http://127.0.0.1:9/a.jpg\tA dog on a sofa in the house\n');
  const { stages } = buildStages(PRESETS.cc12m, { only: ['image'], nsfw: false });
  const result = await runPipeline({ input, out: path.join(dir, 'fetch-out'), layout: 'url-caption', stages });
  const [reject] = readRejects(result.files.rejects);
  assert.equal(reject.reason, 'download:refused-private');
  assert.match(reject.detail!, /127\.0\.0\.1/);
  assert.equal(reject.caption, 'A dog on a sofa in the house');

  // worker threads: the same reasons, details and captions as in-process
  const tsv = path.join(dir, 'pooled.tsv');
  fs.writeFileSync(tsv, 'http://x/1.jpg\tA dog on a sofa in the house\nhttp://x/2.jpg\tDog sofa house\nhttp://x/3.jpg\tA cat on a mat in the house\n');
  const tags = () => ['dog'];
  const inProcess = buildStages(PRESETS.cc12m, { only: ['text', 'image-text'] });
  const pooled = buildStages(PRESETS.cc12m, { only: ['text', 'image-text'], workers: 1 });
  try {
    const a = await runPipeline({ input: tsv, out: path.join(dir, 'in-process'), layout: 'url-caption', stages: inProcess.stages, tags });
    const b = await runPipeline({ input: tsv, out: path.join(dir, 'pooled'), layout: 'url-caption', stages: pooled.stages, pooled: pooled.pooled, tags });
    assert.equal(fs.readFileSync(b.files.rejects, 'utf8'), fs.readFileSync(a.files.rejects, 'utf8'));
    assert.deepEqual(
      readRejects(b.files.rejects).map((r) => [r.reason, r.caption]),
      [
        ['text:no-determiner', 'Dog sofa house'],
        ['image-text:no-match', 'A cat on a mat in the house'],
      ],
    );
  } finally {
    await pooled.close();
  }
});

test('dataset-stage rejects (CC3M concept pruning) carry the caption as read and the rare concept', async () => {
  const input = path.join(dir, 'prune.tsv');
  fs.writeFileSync(input, 'http://x/1.jpg\tA DOG ON A TABLE\nhttp://x/2.jpg\tA DOG ON A SOFA\nhttp://x/3.jpg\tA DOG ON A TABLE\n');
  const result = await runPipeline({
    input,
    out: path.join(dir, 'prune-out'),
    layout: 'url-caption',
    stages: [{ name: 'lower', check: (p) => keep(p.caption.toLowerCase()) }],
    datasetStages: [new ConceptPruner(2)],
  });
  assert.deepEqual(readRejects(result.files.rejects), [
    {
      line: 2,
      url: 'http://x/2.jpg',
      stage: 'prune',
      reason: 'prune:rare-concept',
      detail: '"sofa" seen in 1 kept captions; at least 2',
      caption: 'A DOG ON A SOFA',
    },
  ]);
});

test('the kept-set audit: most repeated captions with count and share, a deterministic sample, <PERSON> share, a warning', async () => {
  const rows: string[] = [];
  for (let i = 0; i < 949; i++) rows.push(`https://example.org/${i}.jpg\tStock Photo`);
  for (let i = 0; i < 30; i++) rows.push(`https://example.org/p${i}.jpg\t<PERSON> on the red carpet`);
  for (let i = 0; i < 210; i++) rows.push(`https://example.org/u${i}.jpg\ta dog number ${i} on a sofa`);
  const file = path.join(dir, 'kept-audit.tsv');
  fs.writeFileSync(file, rows.join('\n') + '\n');
  const audit = await auditKeptFile(file, 'url-caption');
  assert.equal(audit.kept, 1189);
  assert.equal(audit.distinctCaptions, 212);
  assert.deepEqual(
    audit.repeated.map((r) => [r.caption, r.count]),
    [
      ['Stock Photo', 949],
      ['<PERSON> on the red carpet', 30],
    ],
  );
  assert.equal(audit.repeated[0].share, 949 / 1189);
  assert.deepEqual(audit.person, { count: 30, share: 30 / 1189 });
  assert.equal(audit.warning, '949 of 1,189 kept rows (80%) are one caption: "Stock Photo"');
  assert.ok(949 / 1189 > AUDIT_REPEAT_WARNING);
  assert.equal(audit.sample.length, 10);
  assert.deepEqual((await auditKeptFile(file, 'url-caption')).sample, audit.sample, 'the same kept set, the same sample');
  const lines = formatAudit(audit, 'OUT/audit.json');
  assert.ok(lines.includes('warning: 949 of 1,189 kept rows (80%) are one caption: "Stock Photo"'), lines.join('\n'));
  assert.match(lines[0], /1,189 kept rows, 212 distinct captions; with <PERSON>: 30 \(2\.5%\)/);

  // more distinct captions than counters: a second pass gives the exact counts of the frequent ones
  // (Misra–Gries finds every caption seen more than 1,189 / 65 times: both repeated ones)
  const bounded = await auditKeptFile(file, 'url-caption', 64);
  assert.equal(bounded.distinctCaptions, null);
  assert.deepEqual(bounded.repeated, audit.repeated);
  assert.equal(bounded.warning, audit.warning);

  // no repeats, no warning
  const unique = path.join(dir, 'kept-unique.tsv');
  fs.writeFileSync(unique, 'https://example.org/1.jpg\ta dog\nhttps://example.org/2.jpg\ta cat\n');
  const quiet = await auditKeptFile(unique, 'url-caption');
  assert.equal(quiet.warning, undefined);
  assert.deepEqual(quiet.repeated, []);
});

test('every pipeline run writes audit.json beside kept.tsv', async () => {
  const input = path.join(dir, 'audited.tsv');
  fs.writeFileSync(input, 'http://x/1.jpg\tA dog\nhttp://x/2.jpg\tA dog\nhttp://x/3.jpg\tA cat\n');
  const result = await runPipeline({
    input,
    out: path.join(dir, 'audited-out'),
    layout: 'url-caption',
    stages: [{ name: 'pass', check: (p) => keep(p.caption) }],
  });
  const audit = JSON.parse(fs.readFileSync(path.join(dir, 'audited-out', 'audit.json'), 'utf8'));
  assert.deepEqual(audit, JSON.parse(JSON.stringify(result.audit)));
  assert.deepEqual(audit.repeated, [{ caption: 'A dog', count: 2, share: 2 / 3 }]);
  assert.equal(audit.warning, '2 of 3 kept rows (67%) are one caption: "A dog"');
});

// ---------------------------------------------------------------------------------------------
// 7. easy mistakes are named

test('download hints name the flag when most failures have the cause it addresses', () => {
  const summary = (status: Record<string, number>, more: Partial<{ skipped: number; written: number; retried: number }> = {}) => {
    const count = Object.values(status).reduce((a, b) => a + b, 0);
    return { count, successes: status.success ?? 0, status_dict: status, skipped: 0, written: 1, retried: 0, ...more };
  };
  assert.deepEqual(downloadHints(summary({ 'download:refused-private': 785 }), { retryFailed: false }), [
    'hint: all 785 failed rows are download:refused-private: their hosts are loopback or private addresses, refused by default; --allow-private fetches them (a local server or mirror you trust)',
  ]);
  assert.match(
    downloadHints(summary({ 'download:local-file-refused': 9, 'download:http-404': 1, success: 5 }), { retryFailed: false })[0],
    /9 of 10 failed rows \(90%\) are download:local-file-refused: .* --allow-local-files/,
  );
  assert.deepEqual(downloadHints(summary({ 'download:refused-private': 3, 'download:http-404': 7 }), { retryFailed: false }), [], 'a minority cause: no hint');
  assert.deepEqual(downloadHints(summary({ success: 10 }), { retryFailed: false }), []);
  assert.deepEqual(downloadHints(summary({ 'download:http-404': 2 }, { skipped: 1, written: 0 }), { retryFailed: false }), [
    'hint: 1 shard was already done and skipped: the 2 failed rows in it were not fetched again; --retry-failed fetches them again',
  ]);
  assert.deepEqual(downloadHints(summary({ 'download:http-404': 2 }, { skipped: 1, written: 0 }), { retryFailed: true }), []);
});

test('cckit download against a loopback list without --allow-private names the flag; a re-run names --retry-failed', () => {
  const list = path.join(dir, 'loopback.tsv');
  fs.writeFileSync(list, 'http://127.0.0.1:9/a.jpg\ta dog on a sofa\nhttp://localhost:9/b.jpg\ta cat on a mat\n');
  const out = path.join(dir, 'loopback-shards');
  const first = runCli(['download', '--in', list, '--out', out, '--no-progress']);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /0 of 2 rows downloaded \(0\.0%\)/);
  assert.match(first.stdout, /hint: all 2 failed rows are download:refused-private: .*--allow-private/);
  const again = runCli(['download', '--in', list, '--out', out, '--no-progress']);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /hint: 1 shard was already done and skipped: the 2 failed rows in it were not fetched again; --retry-failed/);
});

test('an unknown option is reported first, for every command; required options are still required', () => {
  const cases: [string[], RegExp][] = [
    [['filter', '--inn', 'x', '--out', 'y'], /unknown option '--inn'/],
    [['download', '--in', 'x', '--outt', 'y'], /unknown option '--outt'/],
    [['world', 'build', '--outt', 'y'], /unknown option '--outt'/],
    [['train', '--confg', 'x.json'], /unknown option '--confg'/],
    [['features', '--inn', 'x'], /unknown option '--inn'/],
  ];
  for (const [args, message] of cases) {
    const run = runCli(args);
    assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
    assert.doesNotMatch(run.stderr, /required option/, args.join(' '));
  }
  const missing = runCli(['filter', '--out', 'y']);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /error: required option '-i, --in <source>' not specified/);
  const world = runCli(['world', 'build']);
  assert.equal(world.status, 1);
  assert.match(world.stderr, /error: required option '-o, --out <dir>' not specified/);
});

test('a missing config is named: "config FILE: no such file"', () => {
  const file = path.join(dir, 'no-such-config.json');
  const run = runCli(['train', '--config', file]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, new RegExp(`config ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no such file`));
  assert.doesNotMatch(run.stderr, /ENOENT/);
  const folder = runCli(['train', '--config', dir]);
  assert.match(folder.stderr, /is a folder, not a config file/);
});

test('cckit filter prints the image sizes it judged and the kept-set audit', async () => {
  const shards = path.join(dir, 'cli-shards');
  const image = await jpeg(256, 192);
  await writeShards(
    shards,
    [1, 2, 3].map((i) => ({
      kind: 'success' as const,
      image,
      imageExt: 'jpg' as const,
      caption: 'A dog on a sofa in the house',
      url: `https://example.org/${i}.jpg`,
      originalWidth: 1024,
      originalHeight: 768,
    })),
  );
  const out = path.join(dir, 'cli-out');
  const run = runCli(['filter', '--preset', 'cc3m', '--in', shards, '--out', out, '--stages', 'image', '--no-nsfw', '--workers', '0']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /image sizes judged: 3 original \(from the shard's JSON\), 0 decoded/);
  assert.match(run.stdout, /kept-set audit \(.*audit\.json\): 3 kept rows, 1 distinct captions/);
  assert.match(run.stdout, /warning: 3 of 3 kept rows \(100%\) are one caption: "A dog on a sofa in the house"/);
  assert.ok(fs.existsSync(path.join(out, 'audit.json')));
});
