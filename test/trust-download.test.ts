/**
 * The download and filter stages where input crosses a trust boundary (docs/trust.md): a URL list cannot copy
 * local files into a dataset, a done-marker counts only when it holds, captions are stored normalised and capped,
 * one hostile sample is rejected without stopping a filter run, and messages never pass control characters to
 * the terminal.
 */
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { after, before, test } from 'node:test';
import { readParquetFile } from '../src/data/parquet';
import { readSamples, statsProblem, writeShards } from '../src/data/webdataset';
import { download } from '../src/download/distributor';
import { readInputRows } from '../src/download/reader';
import { checkDoneShard, normaliseCaption } from '../src/download/downloader';
import { runPipeline } from '../src/filters/pipeline';
import { escapeControlCharacters, quoteInput } from '../src/util/untrusted-text';
import { runCli, serveWorldWeb, type WorldWeb } from './helpers';

let web: WorldWeb;

before(async () => {
  web = await serveWorldWeb('trust-download', { hostile: false });
});
after(() => web.close());

async function statusByUrl(out: string): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  for (const name of fs.readdirSync(out).filter((n) => n.endsWith('.parquet')))
    for (const r of await readParquetFile(path.join(out, name))) rows.set(String(r.url), `${String(r.status)} ${String(r.error_message ?? '')}`.trim());
  return rows;
}

test('a URL list cannot copy local files: paths and file:// rows are refused unless --allow-local-files', async () => {
  const secret = path.join(web.dir, 'secret.jpg');
  fs.writeFileSync(secret, await web.world.render('web', 0));
  const rows: [string, string][] = [
    [web.url(1), 'a served image'],
    [secret, 'a local path'],
    [pathToFileURL(secret).href, 'a file URL'],
    ['secret.jpg', 'a path relative to the list'],
  ];
  const list = web.writeList('local.tsv', rows);
  const refused = path.join(web.dir, 'local-refused');
  const summary = await download({ input: list, out: refused, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  assert.equal(summary.successes, 1);
  const statuses = await statusByUrl(refused);
  assert.equal(statuses.get(web.url(1)), 'success');
  for (const [url] of rows.slice(1)) assert.equal(statuses.get(url), 'failed_to_download download:local-file-refused', url);
  let members = 0;
  for await (const sample of readSamples(refused)) {
    members++;
    assert.equal(sample.json.url, web.url(1));
  }
  assert.equal(members, 1, 'only the served image is in the tar');

  const allowed = path.join(web.dir, 'local-allowed');
  const again = await download({ input: list, out: allowed, fetch: { allowPrivate: true, localFiles: 'any' }, resize: { mode: 'no' } });
  assert.equal(again.successes, 4, 'with the flag a list you wrote yourself reads local files');

  // the CLI flag reaches the fetcher; without it the summary names the refusal (local rows only: spawnSync
  // blocks this process, and with it the test's web server)
  const localList = web.writeList('local-only.tsv', rows.slice(1));
  const cli = runCli([
    'download',
    '--in',
    localList,
    '--out',
    path.join(web.dir, 'local-cli'),
    '--allow-private',
    '--resize-mode',
    'no',
    '--no-progress',
    '--layout',
    'url-caption',
  ]);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /download:local-file-refused\s+3/);
  const cliAllowed = runCli([
    'download',
    '--in',
    localList,
    '--out',
    path.join(web.dir, 'local-cli-allowed'),
    '--allow-private',
    '--allow-local-files',
    '--resize-mode',
    'no',
    '--layout',
    'url-caption',
  ]);
  assert.equal(cliAllowed.status, 0, cliAllowed.stderr);
  assert.match(cliAllowed.stdout, /3 of 3 rows downloaded/);
});

test('a done-marker counts only when it holds: bad stats, a missing tar or a parquet that disagrees mean download again', async () => {
  const list = web.writeList('resume.tsv', [
    [web.url(2), 'two'],
    [web.url(3), 'three'],
  ]);
  const out = path.join(web.dir, 'resume');
  await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  assert.deepEqual(await checkDoneShard(out, 0), { done: true, stats: JSON.parse(fs.readFileSync(path.join(out, '00000_stats.json'), 'utf8')) });
  const good = fs.readFileSync(path.join(out, '00000_stats.json'), 'utf8');

  const cases: [string, () => void, RegExp][] = [
    ['{}', () => fs.writeFileSync(path.join(out, '00000_stats.json'), '{}'), /count is not a whole number/],
    ['not JSON', () => fs.writeFileSync(path.join(out, '00000_stats.json'), '{"count": 2,'), /not JSON/],
    [
      'sums that do not add up',
      () => fs.writeFileSync(path.join(out, '00000_stats.json'), JSON.stringify({ ...JSON.parse(good), successes: 5 })),
      /do not add up/,
    ],
    ['no tar', () => fs.rmSync(path.join(out, '00000.tar')), /00000\.tar is missing/],
    [
      'a parquet that disagrees',
      () =>
        fs.writeFileSync(
          path.join(out, '00000_stats.json'),
          JSON.stringify({ ...JSON.parse(good), count: 3, failed_to_download: 1, status_dict: { success: 2, 'download:http-404': 1 } }),
        ),
      /holds 2 rows, 2 successes; the stats claim 3, 2/,
    ],
  ];
  for (const [name, spoil, why] of cases) {
    spoil();
    const check = await checkDoneShard(out, 0);
    assert.equal(check.done, false, name);
    assert.match((check as { problem: string }).problem, why, name);
    const warnings: string[] = [];
    const summary = await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' }, onWarning: (l) => warnings.push(l) });
    assert.equal(summary.written, 1, `${name}: the shard is downloaded again`);
    assert.equal(summary.successes, 2, name);
    assert.match(warnings.join('\n'), /shard 0 is downloaded again/, name);
    assert.equal((await checkDoneShard(out, 0)).done, true, `${name}: done again afterwards`);
  }
});

test("status keys from a stats file are counted in a Map: 'constructor' and '__proto__' are numbers like any reason", async () => {
  const list = web.writeList('keys.tsv', [[web.url(4), 'four']]);
  const out = path.join(web.dir, 'keys');
  await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' }, maxShards: 1 });
  // a second, hostile stats file of a shard beyond the list: counted as its numbers say, never as Object's members
  fs.writeFileSync(
    path.join(out, '00001_stats.json'),
    '{"count":3,"successes":0,"failed_to_download":3,"failed_to_resize":0,"status_dict":{"constructor":1,"__proto__":1,"toString":1}}',
  );
  const summary = await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  assert.equal(summary.status_dict.constructor, 1);
  assert.equal(summary.status_dict.toString, 1);
  assert.equal(Object.getOwnPropertyDescriptor(summary.status_dict, '__proto__')?.value, 1);
  assert.equal(summary.count, 4);
  const cli = runCli(['download', '--in', list, '--out', out, '--allow-private', '--resize-mode', 'no', '--no-progress', '--layout', 'url-caption']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.doesNotMatch(cli.stdout, /function Object/);
  assert.match(cli.stdout, /constructor\s+1/);
  // a stats file that does not parse to stats is reported, not summed
  fs.writeFileSync(path.join(out, '00002_stats.json'), '{"count":"many"}');
  const warnings: string[] = [];
  const next = await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' }, onWarning: (l) => warnings.push(l) });
  assert.equal(next.count, 4);
  assert.match(warnings.join('\n'), /00002_stats\.json is not counted: count is not a whole number/);
  assert.equal(statsProblem({ count: 1, successes: 1, failed_to_download: 0, failed_to_resize: 0, status_dict: { success: 1 } }), undefined);
});

test('captions are stored normalised: control characters become spaces, a 1 MB caption is cut, and the change is recorded', async () => {
  assert.deepEqual(normaliseCaption('a  plain caption'), { caption: 'a plain caption', changes: 'whitespace collapsed' });
  assert.deepEqual(normaliseCaption('as it is'), { caption: 'as it is' });
  assert.deepEqual(normaliseCaption('a\u001b[31mred\u0007 dog\u0000'), { caption: 'a [31mred dog', changes: 'control characters to spaces' });
  const huge = 'word '.repeat(200_000);
  const rows: [string, string][] = [
    [web.url(5), 'a caption\u001b]0;owned\u0007 with an escape'],
    [web.url(6), huge.trim()],
    [`${web.server.url}/no-such-route/1.jpg`, 'a failed row\u001b[2J keeps its normalised caption too'],
  ];
  const list = web.writeList('captions.tsv', rows);
  const out = path.join(web.dir, 'captions');
  await download({ input: list, out, fetch: { allowPrivate: true }, resize: { mode: 'no' } });
  const samples = new Map<string, { caption: string; json: Record<string, unknown> }>();
  for await (const s of readSamples(out)) samples.set(String(s.json.url), s);
  const escaped = samples.get(web.url(5))!;
  assert.equal(escaped.caption, 'a caption ]0;owned with an escape');
  assert.equal(escaped.json.caption_changes, 'control characters to spaces');
  const cut = samples.get(web.url(6))!;
  assert.equal(cut.caption.length, 4096);
  assert.equal(cut.json.caption_changes, 'cut from 999999 to 4096 characters');
  assert.ok(fs.statSync(path.join(out, '00000.tar')).size < 1_000_000, 'the 1 MB caption is not stored (twice)');
  const records = await readParquetFile(path.join(out, '00000.parquet'));
  const failed = records.find((r) => r.status !== 'success')!;
  assert.equal(failed.caption, 'a failed row [2J keeps its normalised caption too');
  assert.equal(failed.caption_changes, 'control characters to spaces');
  assert.equal(records.find((r) => r.url === web.url(1))?.caption_changes ?? null, null);
});

test('one hostile sample does not stop a filter run: a URL or sample name with a line break is rejected with its reason', async () => {
  const folder = path.join(web.dir, 'hostile-shards');
  const image = await web.world.render('web', 7);
  await writeShards(folder, [
    { kind: 'success', image, imageExt: 'jpg', caption: 'a dog on a beach', url: 'http://example.test/ok.jpg' },
    { kind: 'success', image, imageExt: 'jpg', caption: 'a forged row', url: 'http://example.test/a.jpg\tforged caption\nhttp://x/b.jpg' },
    { kind: 'success', image, imageExt: 'jpg', caption: 'a tab in the url', url: 'http://example.test/c\t.jpg' },
    { kind: 'success', image, imageExt: 'jpg', caption: '   ', url: 'http://example.test/blank.jpg' },
    { kind: 'success', image, imageExt: 'jpg', caption: 'a cat on a sofa', url: 'http://example.test/ok2.jpg' },
  ]);
  const out = path.join(web.dir, 'hostile-filter');
  const result = await runPipeline({ input: folder, out, stages: [] });
  assert.equal(result.input, 5);
  assert.equal(result.kept, 2);
  const kept = fs.readFileSync(path.join(out, 'kept.tsv'), 'utf8').trim().split('\n');
  assert.deepEqual(kept, ['http://example.test/ok.jpg\ta dog on a beach', 'http://example.test/ok2.jpg\ta cat on a sofa']);
  const rejects = fs
    .readFileSync(path.join(out, 'rejects.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { reason: string; detail?: string });
  assert.deepEqual(
    rejects.map((r) => r.reason),
    ['input:url-control-character', 'input:url-control-character', 'input:empty-caption'],
  );
  assert.equal(rejects[0]!.detail, 'http://example.test/a.jpg\\tforged caption\\nhttp://x/b.jpg');
});

test('messages escape control characters: an escape sequence in a file name or sample name never reaches the terminal', () => {
  assert.equal(escapeControlCharacters('a\u001b[31mb\nc\td\u009b'), 'a\\x1b[31mb\\nc\\td\\x9b');
  assert.equal(quoteInput('x'.repeat(300), 10), `${'x'.repeat(10)}… (300 characters)`);
  const evil = path.join(web.dir, 'list\u001b]0;owned\u0007\u001b[2J.tsv');
  const cli = runCli(['download', '--in', evil, '--out', path.join(web.dir, 'never')]);
  assert.notEqual(cli.status, 0);
  assert.ok(!cli.stderr.includes('\u001b'), cli.stderr);
  assert.match(cli.stderr, /list\\x1b\]0;owned\\x07\\x1b\[2J\.tsv/);
});

test('a CSV quote that never closes is an error naming its line, not a swallowed file; an over-long record is one rejected row', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trust-csv-'));
  const rowsOf = async (file: string) => {
    const rows = [];
    for await (const batch of readInputRows(file)) rows.push(...batch);
    return rows;
  };
  const stray = path.join(dir, 'stray.csv');
  fs.writeFileSync(stray, 'url,caption\nhttps://x/1.jpg,"a caption\nhttps://x/2.jpg,second\nhttps://x/3.jpg,third\n');
  await assert.rejects(rowsOf(stray), /stray\.csv: line 2: a quoted field opened on this line never closes/);
  // a record past the cap outside quotes is rejected with its length and the next rows are read
  const long = path.join(dir, 'long.csv');
  fs.writeFileSync(long, `url,caption\nhttps://x/1.jpg,one\nhttps://x/2.jpg,${'z'.repeat((1 << 20) + 10)}\r\nhttps://x/3.jpg,three\n`);
  const rows = await rowsOf(long);
  assert.deepEqual(
    rows.map((r) => [r.where.replace(dir, ''), r.url, r.invalid ?? r.caption]),
    [
      ['/long.csv:2', 'https://x/1.jpg', 'one'],
      ['/long.csv:3', '', `too-long (a line of ${'https://x/2.jpg,'.length + (1 << 20) + 11} characters, more than the 1048576 allowed)`],
      ['/long.csv:4', 'https://x/3.jpg', 'three'],
    ],
  );
  // a quoted field past the cap that closes (commas, quotes and a newline inside): one rejected row, the next read
  const quoted = path.join(dir, 'quoted.csv');
  const body = `${'q'.repeat(1 << 20)}, a "" quote,\nand a second line`;
  fs.writeFileSync(quoted, `url,caption\nhttps://x/1.jpg,"${body}"\nhttps://x/3.jpg,three\n`);
  assert.deepEqual(
    (await rowsOf(quoted)).map((r) => [r.where.replace(dir, ''), r.url, r.invalid ?? r.caption]),
    [
      ['/quoted.csv:2', '', `too-long (a line of ${'https://x/1.jpg,'.length + body.length + 2} characters, more than the 1048576 allowed)`],
      ['/quoted.csv:4', 'https://x/3.jpg', 'three'],
    ],
  );
  // past the cap, a quote that never closes is still an error naming where it opened
  const open = path.join(dir, 'open.csv');
  fs.writeFileSync(open, `url,caption\nhttps://x/1.jpg,"${'q'.repeat((1 << 20) + 10)}\nhttps://x/3.jpg,three\n`);
  await assert.rejects(rowsOf(open), /open\.csv: line 2: a quoted field opened on this line never closes/);
});

test('--max-line-chars sets the line cap of every list format: a longer line or record is one too-long row', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-trust-cap-'));
  const long = 'y'.repeat(300);
  const files = {
    'list.tsv': `https://x/1.jpg\tone\nhttps://x/2.jpg\t${long}\nhttps://x/3.jpg\tthree\n`,
    'list.jsonl': `{"url":"https://x/1.jpg","caption":"one"}\n{"url":"https://x/2.jpg","caption":"${long}"}\n{"url":"https://x/3.jpg","caption":"three"}\n`,
    'list.csv': `url,caption\nhttps://x/1.jpg,one\nhttps://x/2.jpg,"${long}"\nhttps://x/3.jpg,three\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const rows = [];
    for await (const batch of readInputRows(file, { maxLineChars: 200 })) rows.push(...batch);
    assert.deepEqual(
      rows.map((r) => r.url || r.invalid?.replace(/\d+ characters/, 'N characters')),
      ['https://x/1.jpg', 'too-long (a line of N characters, more than the 200 allowed)', 'https://x/3.jpg'],
      name,
    );
    // the default cap keeps the same line
    const whole = [];
    for await (const batch of readInputRows(file)) whole.push(...batch);
    assert.equal(whole.filter((r) => r.invalid).length, 0, name);
  }
  const refused = runCli(['download', '--in', path.join(dir, 'list.tsv'), '--out', path.join(dir, 'o'), '--max-line-chars', '0']);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /--max-line-chars: "0" is not a whole number ≥ 1/);
});
