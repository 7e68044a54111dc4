import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { Funnel } from '../src/filters/funnel';
import { checkImageText, contentStems } from '../src/filters/image-text';
import { normaliseUrl, overlap } from '../src/filters/overlap';
import { loadTagsFile } from '../src/data/tags';
import { runPipeline } from '../src/filters/pipeline';
import { filterOutputState } from '../src/filters/outputs';
import { keep, reject } from '../src/filters/types';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-pipeline-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('image–text filter: a caption token matches a label after stemming', () => {
  assert.deepEqual(contentStems('The Durians on a table'), ['durian', 'tabl']);
  assert.equal(checkImageText('Two durians on a plate', ['durian', 'fruit']).keep, true);
  assert.equal(checkImageText('Fishing at dawn', ['fish', 'water']).keep, true);
  const noMatch = checkImageText('a car on the road', ['durian', 'still life photography']);
  assert.deepEqual({ ...noMatch, detail: undefined }, { keep: false, reason: 'image-text:no-match', detail: undefined });
  // the detail names what was compared: the caption's stems, the tags and their stems, and the overlap
  assert.equal(
    !noMatch.keep && noMatch.detail,
    "no caption stem among the tags' stems (overlap 0): caption stems [car, road]; tags [durian, still life photography] → stems [durian, still, life, photographi]",
  );
  const noTags = checkImageText('a car', undefined);
  assert.equal(!noTags.keep && noTags.reason, 'image-text:no-tags');
  assert.equal(checkImageText('the a of', ['the']).keep, false, 'function words never match');
});

test('funnel invariant: a lost row is an error', () => {
  const funnel = new Funnel(['a', 'b']);
  funnel.input = 2;
  funnel.entered('a');
  funnel.passed('a');
  funnel.entered('a');
  funnel.rejected('a', 'x');
  funnel.entered('b');
  funnel.passed('b');
  funnel.check();
  assert.equal(funnel.kept, 1);
  assert.equal(funnel.rejectedTotal, 1);
  funnel.input = 3;
  assert.throws(() => funnel.check(), /saw 2 rows, the previous stage passed 3/);
  const spec = funnel.toPlotly();
  assert.equal((spec.data[0] as { type: string }).type, 'funnel');
});

test('pipeline: every row kept or rejected with a reason, bad lines included, order kept', async () => {
  const input = path.join(dir, 'in.tsv');
  const lines = [
    'http://x/1.jpg\tA durian on a table',
    'http://x/2.jpg\tA car on the road',
    'no tab here',
    'http://x/3.jpg\tA bowl of durians in Paris',
    'http://x/4.jpg\t',
    'http://x/5.jpg\tshort',
  ];
  fs.writeFileSync(input, lines.join('\n') + '\n');
  const tagsFile = path.join(dir, 'tags.jsonl');
  fs.writeFileSync(tagsFile, ['1', '2', '3', '5'].map((n) => JSON.stringify({ url: `http://x/${n}.jpg`, tags: ['durian', 'fruit'] })).join('\n') + '\n');
  const seen: string[] = [];
  const result = await runPipeline({
    input,
    out: path.join(dir, 'out'),
    layout: 'url-caption',
    tags: loadTagsFile(tagsFile),
    stages: [
      { name: 'length', check: (p) => (p.caption.split(' ').length >= 3 ? keep(p.caption) : reject('text:length')) },
      { name: 'image-text', check: (p) => checkImageText(p.caption, p.tags) },
      { name: 'upper', check: async (p) => (seen.push(p.id), keep(p.caption.toUpperCase())) },
    ],
    datasetStages: [{ name: 'prune', observe: () => {}, check: (c) => (c.includes('PARIS') ? reject('prune:rare') : keep(c)) }],
  });
  assert.equal(result.input, 6);
  assert.equal(result.kept + result.funnel.rejectedTotal, 6);
  assert.equal(fs.readFileSync(result.files.kept, 'utf8'), 'http://x/1.jpg\tA DURIAN ON A TABLE\n');
  const rejects = fs
    .readFileSync(result.files.rejects, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    rejects.map((r) => [r.line, r.stage, r.reason.split(':').slice(0, 2).join(':')]).sort(),
    [
      [2, 'image-text', 'image-text:no-match'],
      [3, 'read', 'input:expected 2 tab-separated columns, found 1'],
      [4, 'prune', 'prune:rare'],
      [5, 'read', 'input:empty caption'],
      [6, 'length', 'text:length'],
    ].sort(),
  );
  const funnel = fs
    .readFileSync(result.files.funnel, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    funnel.map((s) => [s.stage, s.in, s.out]),
    [
      ['read', 6, 4],
      ['length', 4, 3],
      ['image-text', 3, 2],
      ['upper', 2, 2],
      ['prune', 2, 1],
    ],
  );
});

test('overlap by normalised URL across opposite column orders', async () => {
  assert.equal(normaliseUrl('HTTP://Example.COM:80/a/b/#x'), 'http://example.com/a/b');
  const a = path.join(dir, 'cc3m.tsv');
  const b = path.join(dir, 'cc12m.tsv');
  fs.writeFileSync(a, 'a dog\thttp://Example.com/1.jpg\na cat\thttp://example.com/2.jpg\n');
  fs.writeFileSync(b, 'http://example.com/1.jpg#frag\tdog photo\nhttp://example.com/3.jpg\tbird\n');
  const out = path.join(dir, 'b-minus-a.tsv');
  const report = await overlap(a, b, out);
  assert.equal(report.shared, 1);
  assert.equal(report.written, 1);
  assert.equal(fs.readFileSync(out, 'utf8'), 'http://example.com/3.jpg\tbird\n');
});

test('bad input rows are rejected with a reason and the run goes on', async () => {
  const input = path.join(dir, 'bad.tsv');
  const good = Buffer.from('http://x/1.jpg\tA durian on a table\n');
  fs.writeFileSync(
    input,
    Buffer.concat([
      good,
      Buffer.from('http://x/2.jpg\tA caf\xff\xfe on a table\n', 'latin1'),
      Buffer.from('http://x/3.jpg\tA nul\0byte\n'),
      Buffer.from('http://x/4.jpg\t' + 'x'.repeat(10 * 1024 * 1024) + '\n'),
      Buffer.from('only-one-column\n'),
      good,
    ]),
  );
  const result = await runPipeline({ input, out: path.join(dir, 'bad-out'), layout: 'url-caption', stages: [{ name: 'pass', check: (p) => keep(p.caption) }] });
  assert.equal(result.input, 6);
  assert.equal(result.kept, 2);
  const reasons = fs
    .readFileSync(result.files.rejects, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).reason);
  assert.deepEqual(
    reasons.map((r: string) => r.split(' ')[0]),
    ['input:invalid-utf8', 'input:nul-byte', 'input:too-long', 'input:expected'],
  );
});

test('a filter folder is one unit: the done-marker vouches for every file by size and hash, and a restarted run removes it first', async () => {
  const input = path.join(dir, 'unit.tsv');
  fs.writeFileSync(input, Array.from({ length: 1200 }, (_, i) => `http://x/${i}.jpg\tcaption number ${i}${i % 3 === 0 ? ' x' : ''}`).join('\n') + '\n');
  const out = path.join(dir, 'unit-out');
  const stages = [{ name: 'odd', check: (p: { caption: string }) => (p.caption.endsWith(' x') ? reject('odd:x') : keep(p.caption)) }];
  await runPipeline({ input, out, layout: 'url-caption', stages });
  const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as { files: Record<string, { bytes: number; sha256: string }> };
  assert.deepEqual(Object.keys(summary.files).sort(), ['audit.json', 'funnel.jsonl', 'kept.tsv', 'rejects.jsonl']);
  for (const [name, record] of Object.entries(summary.files)) assert.equal(record.bytes, fs.statSync(path.join(out, name)).size, name);
  assert.deepEqual(filterOutputState(out), { done: true });

  // another run's kept.tsv beside this run's rejects (a kill between two commits): not done, and said why
  const kept = fs.readFileSync(path.join(out, 'kept.tsv'));
  fs.writeFileSync(path.join(out, 'kept.tsv'), kept.subarray(0, kept.length - 20));
  const state = filterOutputState(out);
  assert.equal(state.done, false);
  assert.match(!state.done ? state.reason : '', /^kept\.tsv is not the file its run wrote \(\d+ bytes, summary\.json says \d+\): another run rewrote it$/);
  fs.writeFileSync(path.join(out, 'kept.tsv'), kept);
  assert.deepEqual(filterOutputState(out), { done: true });

  // a run that dies part-way over a finished folder leaves it marked unfinished, not done with mixed files
  await assert.rejects(
    runPipeline({
      input,
      out,
      layout: 'url-caption',
      stages,
      progress: () => {
        throw new Error('killed');
      },
    }),
    /killed/,
  );
  assert.equal(fs.existsSync(path.join(out, 'summary.json')), false);
  assert.deepEqual(filterOutputState(out), { done: false, reason: 'no summary.json' });
});

test("a filter run removes the temporaries a killed run left (its process gone), not a live writer's", async () => {
  const out = path.join(dir, 'killed-out');
  fs.mkdirSync(out, { recursive: true });
  // a process that has exited: its pid names the killed run's temporaries
  const gone = spawnSync(process.execPath, ['-e', '']).pid!;
  const dead = [`.kept.tsv.${gone}.a1b2c3d4.tmp`, `.rejects.jsonl.${gone}.e5f6a7b8.tmp`];
  for (const name of dead) fs.writeFileSync(path.join(out, name), 'half a run\n');
  const liveOne = `.kept.tsv.${process.pid}.c0ffee00.tmp`;
  fs.writeFileSync(path.join(out, liveOne), 'a live writer\n');
  const input = path.join(dir, 'killed.tsv');
  fs.writeFileSync(input, 'http://x/1.jpg\ta caption\n');
  await runPipeline({ input, out, layout: 'url-caption', stages: [] });
  const left = fs.readdirSync(out).filter((n) => n.endsWith('.tmp'));
  assert.deepEqual(left, [liveOne]);
});
