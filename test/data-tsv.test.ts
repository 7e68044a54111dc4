import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { detectTsvLayout, escapeCaption, isReject, readTsv, TsvError, TsvItem, TsvRow, TsvWriter, writeTsv } from '../src/data/tsv';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-data-tsv-'));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const ROWS = [
  { url: 'https://example.com/a.jpg', caption: 'a dog on a beach' },
  { url: 'http://example.org/b.png?x=1&y=2', caption: 'actor <PERSON> attends the premiere' },
  { url: 'world://cc12m/3', caption: 'durian fruit, isolated — “fresh” é ü 日本' },
];

for (const layout of ['caption-url', 'url-caption'] as const) {
  test(`TSV round trip, ${layout}, auto-detected and explicit`, async () => {
    const file = path.join(tempDir(), 'pairs.tsv');
    assert.equal(await writeTsv(file, ROWS, { layout }), ROWS.length);
    const text = fs.readFileSync(file, 'utf8');
    const firstLine = text.split('\n')[0];
    assert.equal(firstLine, layout === 'url-caption' ? `${ROWS[0].url}\t${ROWS[0].caption}` : `${ROWS[0].caption}\t${ROWS[0].url}`);
    assert.ok(text.endsWith('\n'));
    const expected = ROWS.map((row, i) => ({ line: i + 1, ...row }));
    assert.deepEqual(await collect(readTsv(file)), expected);
    assert.deepEqual(await collect(readTsv(file, { layout })), expected);
    assert.equal(await detectTsvLayout(file), layout);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['pairs.tsv'], 'no temporary file left');
  });
}

test('TSV: the wrong explicit layout swaps the columns (the override is obeyed)', async () => {
  const file = path.join(tempDir(), 'cc3m.tsv');
  await writeTsv(file, ROWS, { layout: 'caption-url' });
  const rows = await collect(readTsv(file, { layout: 'url-caption' }));
  assert.equal(rows[0].url, ROWS[0].caption);
  assert.equal(rows[0].caption, ROWS[0].url);
});

test('TSV: CRLF endings, a final line without newline and a byte-order mark', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'crlf.tsv');
  fs.writeFileSync(file, '\ufeffa cat\thttps://x/1.jpg\r\nb dog\thttps://x/2.jpg\r\nc bird\thttps://x/3.jpg');
  const expected = [
    { line: 1, url: 'https://x/1.jpg', caption: 'a cat' },
    { line: 2, url: 'https://x/2.jpg', caption: 'b dog' },
    { line: 3, url: 'https://x/3.jpg', caption: 'c bird' },
  ];
  assert.deepEqual(await collect(readTsv(file)), expected);
  // tiny chunks split lines, CRLF pairs and multi-byte characters across reads
  fs.writeFileSync(file, 'é à 日本\thttps://x/1.jpg\r\n' + 'b dog\thttps://x/2.jpg\r\n'.repeat(50) + 'last\tworld://w/9');
  for (const chunkBytes of [1, 2, 3, 5, 7, 64]) {
    const rows = await collect(readTsv(file, { chunkBytes }));
    assert.equal(rows.length, 52, `chunkBytes ${chunkBytes}`);
    assert.deepEqual(rows[0], { line: 1, url: 'https://x/1.jpg', caption: 'é à 日本' });
    assert.deepEqual(rows[51], { line: 52, url: 'world://w/9', caption: 'last' });
    assert.ok(rows.every((row) => !row.url.endsWith('\r')));
  }
});

test('TSV auto-detection: by the URL-looking column; an undecidable file names itself', async () => {
  const dir = tempDir();
  const cc12m = path.join(dir, 'cc12m.tsv');
  fs.writeFileSync(cc12m, 'https://a/1.jpg\tone\nworld://w/2\ttwo\n');
  assert.equal(await detectTsvLayout(cc12m), 'url-caption');
  assert.deepEqual((await collect(readTsv(cc12m)))[1], { line: 2, url: 'world://w/2', caption: 'two' });
  // a caption that itself starts like a URL does not flip a file whose majority is clear
  const cc3m = path.join(dir, 'cc3m.tsv');
  fs.writeFileSync(cc3m, 'http://x is a site\thttps://a/1.jpg\nhello\thttps://a/2.jpg\nbye\tHTTPS://a/3.jpg\n');
  assert.equal(await detectTsvLayout(cc3m), 'caption-url');
  const neither = path.join(dir, 'neither.tsv');
  fs.writeFileSync(neither, 'one\ttwo\nthree\tfour\n');
  await assert.rejects(
    collect(readTsv(neither)),
    (err: Error) => err instanceof TsvError && err.message.startsWith(`${neither}: cannot tell the column order`),
  );
  assert.equal((await collect(readTsv(neither, { layout: 'caption-url' }))).length, 2);
});

test('TSV malformed lines: errors name the file and line', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'bad.tsv');
  const cases: [string, RegExp][] = [
    ['ok\thttps://a/1\nthree\tcolumns\there\n', /bad\.tsv:2: expected 2 tab-separated columns, found 3$/],
    ['ok\thttps://a/1\nok\thttps://a/2\nno tab here\n', /bad\.tsv:3: expected 2 tab-separated columns, found 1$/],
    ['ok\thttps://a/1\n\thttps://a/2\n', /bad\.tsv:2: empty caption$/],
    ['ok\thttps://a/1\nok two\t \n', /bad\.tsv:2: empty url$/],
    ['ok\thttps://a/1\n\nok\thttps://a/3\n', /bad\.tsv:2: empty line$/],
  ];
  for (const [text, message] of cases) {
    fs.writeFileSync(file, text);
    await assert.rejects(collect(readTsv(file, { layout: 'caption-url' })), (err: Error) => {
      assert.ok(err instanceof TsvError);
      assert.match(err.message, message);
      assert.ok(err.message.startsWith(file));
      return true;
    });
  }
  await assert.rejects(collect(readTsv(path.join(dir, 'missing.tsv'))), /missing\.tsv: cannot read: ENOENT/);
});

test('TSV rejects mode: malformed lines are yielded with their reason, nothing is lost', async () => {
  const file = path.join(tempDir(), 'mixed.tsv');
  fs.writeFileSync(file, 'https://a/1\tfirst\nbroken line\nhttps://a/3\t\nhttps://a/4\tfourth\ta\tb\nhttps://a/5\tfifth');
  const items: TsvItem[] = await collect(readTsv(file, { malformed: 'reject' }));
  assert.equal(items.length, 5);
  assert.deepEqual(items.filter(isReject), [
    { line: 2, reject: 'expected 2 tab-separated columns, found 1', text: 'broken line' },
    { line: 3, reject: 'empty caption', text: 'https://a/3\t' },
    { line: 4, reject: 'expected 2 tab-separated columns, found 4', text: 'https://a/4\tfourth\ta\tb' },
  ]);
  assert.deepEqual(
    items.filter((item): item is TsvRow => !isReject(item)).map((row) => [row.line, row.caption]),
    [
      [1, 'first'],
      [5, 'fifth'],
    ],
  );
});

test('TSV escaping: spaces by default, reversible backslash escapes on request', async () => {
  const dir = tempDir();
  const tricky = [{ url: 'https://a/1', caption: 'tab\there, new\nline, crlf\r\nend, back\\slash' }];
  assert.equal(escapeCaption(tricky[0].caption), 'tab here, new line, crlf end, back\\slash');
  assert.equal(escapeCaption(tricky[0].caption, 'backslash'), 'tab\\there, new\\nline, crlf\\r\\nend, back\\\\slash');

  const spaced = path.join(dir, 'spaced.tsv');
  await writeTsv(spaced, tricky, { layout: 'url-caption' });
  assert.deepEqual(await collect(readTsv(spaced)), [{ line: 1, url: 'https://a/1', caption: 'tab here, new line, crlf end, back\\slash' }]);

  const escaped = path.join(dir, 'escaped.tsv');
  await writeTsv(escaped, tricky, { layout: 'caption-url', escape: 'backslash' });
  assert.equal(fs.readFileSync(escaped, 'utf8').split('\n').length, 2, 'one line plus the final newline');
  assert.deepEqual(await collect(readTsv(escaped, { unescape: true })), [{ line: 1, ...tricky[0] }]);
  // without unescape the file's backslashes are read verbatim (as in real CC files)
  assert.equal((await collect(readTsv(escaped)))[0].caption, 'tab\\there, new\\nline, crlf\\r\\nend, back\\\\slash');
});

test('TSV writer: refuses unwritable rows by position; atomic on error', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'out.tsv');
  fs.writeFileSync(file, 'previous content\n');
  await assert.rejects(
    writeTsv(file, [ROWS[0], { url: 'https://a/\t2', caption: 'x' }], { layout: 'url-caption' }),
    (err: Error) => err instanceof TsvError && /out\.tsv: row 2: url contains a tab/.test(err.message),
  );
  await assert.rejects(writeTsv(file, [ROWS[0], ROWS[1], { url: 'https://a/3', caption: '  ' }], { layout: 'url-caption' }), /out\.tsv: row 3: empty caption/);
  function* failing() {
    yield ROWS[0];
    throw new Error('source failed');
  }
  await assert.rejects(writeTsv(file, failing(), { layout: 'url-caption' }), /source failed/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'previous content\n', 'target untouched');
  assert.deepEqual(fs.readdirSync(dir), ['out.tsv'], 'no temporary file left');

  const writer = TsvWriter.create(path.join(dir, 'aborted.tsv'), { layout: 'caption-url' });
  writer.write(ROWS[0]);
  await writer.abort();
  assert.deepEqual(fs.readdirSync(dir), ['out.tsv']);
});

test('TSV writer: many rows stream through back-pressure and read back in order', async () => {
  const file = path.join(tempDir(), 'many.tsv');
  const n = 60_000;
  function* rows() {
    for (let i = 0; i < n; i++) yield { url: `https://h/${i}.jpg`, caption: `caption number ${i} ${'x'.repeat(i % 50)}` };
  }
  assert.equal(await writeTsv(file, rows(), { layout: 'caption-url' }), n);
  let count = 0;
  for await (const row of readTsv(file, { chunkBytes: 4096 })) {
    assert.equal(row.url, `https://h/${count}.jpg`);
    assert.equal(row.line, count + 1);
    count++;
  }
  assert.equal(count, n);
});

test('TSV line cap: a line longer than maxLineLength is rejected with its length, the rows around it kept, across any chunking', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-tsv-cap-'));
  const file = path.join(dir, 'long.tsv');
  const long = `${'x'.repeat(50)}\thttps://x/2.jpg`;
  fs.writeFileSync(file, `a dog\thttps://x/1.jpg\r\n${long}\r\na cat\thttps://x/3.jpg\r\n${long}`);
  for (const chunkBytes of [3, 7, 64, 1 << 20]) {
    const items: TsvItem[] = [];
    for await (const item of readTsv(file, { malformed: 'reject', layout: 'caption-url', maxLineLength: 40, chunkBytes })) items.push(item);
    assert.deepEqual(
      items.map((i) => (isReject(i) ? `${i.line} ${i.reject}` : `${i.line} ${i.caption} ${i.url}`)),
      [
        '1 a dog https://x/1.jpg',
        `2 too-long (a line of ${long.length + 1} characters, more than the 40 allowed)`,
        '3 a cat https://x/3.jpg',
        `4 too-long (a line of ${long.length} characters, more than the 40 allowed)`,
      ],
      `chunks of ${chunkBytes} bytes`,
    );
  }
  // in throw mode the same line is an error naming the file and line
  await assert.rejects(async () => {
    for await (const _ of readTsv(file, { layout: 'caption-url', maxLineLength: 40, chunkBytes: 7 }));
  }, /long\.tsv:2: too-long \(a line of \d+ characters, more than the 40 allowed\)/);
  // the default cap (1 Mi characters) holds a 3 MiB line no longer than it takes to count it
  const huge = path.join(dir, 'huge.tsv');
  fs.writeFileSync(huge, `a\thttps://x/1.jpg\n${'y'.repeat(3 << 20)}\tz\nb\thttps://x/2.jpg\n`);
  const lines: string[] = [];
  for await (const item of readTsv(huge, { malformed: 'reject', layout: 'caption-url' })) lines.push(isReject(item) ? item.reject : item.caption);
  assert.deepEqual(lines, ['a', `too-long (a line of ${(3 << 20) + 2} characters, more than the 1048576 allowed)`, 'b']);
});
