/**
 * TensorFlow.js (and the NSFWJS model on it) is loaded only by the stages that compute with it: a filter without
 * the pornography detector, download, stats, eval and score never load it. Each command runs in a fresh Node
 * process (the CLI from src/ through tsx), which then prints the modules it loaded.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PACKAGE_ROOT } from '../src/paths';
import { writeShards } from '../src/data/webdataset';
import { loadSharp } from '../src/util/sharp';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-lazy-tfjs-'));

/**
 * Runs `cckit ARGS` for each ARGS in order in one fresh process; after each, the module files under @tensorflow or
 * nsfwjs loaded so far, and the exit code it set.
 */
function cckitModules(commands: string[][]): { runs: { code: number; tfjs: string[] }[]; output: string } {
  const script = `
    const { main } = require(${JSON.stringify(path.join(PACKAGE_ROOT, 'src', 'cli', 'main.ts'))});
    (async () => {
      for (const args of ${JSON.stringify(commands)}) {
        process.exitCode = 0;
        await main(['node', 'cckit', ...args]);
        const loaded = Object.keys(require.cache).filter((m) => /[\\/](@tensorflow|nsfwjs)[\\/]/.test(m));
        process.stdout.write('\\nMODULES ' + JSON.stringify({ code: process.exitCode, tfjs: loaded }) + '\\n');
      }
      process.exitCode = 0;
    })();`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 300_000 });
  const output = result.stdout + result.stderr;
  const runs = result.stdout
    .split('\n')
    .filter((l) => l.startsWith('MODULES '))
    .map((l) => JSON.parse(l.slice('MODULES '.length)) as { code: number; tfjs: string[] });
  assert.equal(runs.length, commands.length, output);
  return { runs, output };
}

/** Three 640×480 JPEGs with captions in one shard: large enough that the image filter's cheap checks pass. */
async function writeFixtureShards(folder: string): Promise<void> {
  const sharp = loadSharp();
  const rows = [];
  for (let i = 0; i < 3; i++) {
    const raw = Buffer.from(Array.from({ length: 640 * 480 * 3 }, (_, k) => (k * (i + 3) + ((k / 1920) | 0)) % 256));
    const image = await sharp(raw, { raw: { width: 640, height: 480, channels: 3 } })
      .jpeg()
      .toBuffer();
    rows.push({
      kind: 'success' as const,
      image,
      imageExt: 'jpg' as const,
      caption: `a striped blanket on a wooden chair number ${i}`,
      url: `http://example.test/${i}.jpg`,
      width: 640,
      height: 480,
      originalWidth: 640,
      originalHeight: 480,
    });
  }
  await writeShards(folder, rows);
}

test('a filter without the pornography detector, download, stats, eval and score never load TensorFlow.js', async () => {
  const shards = path.join(dir, 'shards');
  await writeFixtureShards(shards);
  const list = path.join(dir, 'list.tsv');
  // loopback URLs are refused without --allow-private: the download runs and fails every row, fast
  fs.writeFileSync(list, 'http://127.0.0.1:9/a.jpg\ta striped blanket on a chair\n');
  const nocaps = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'nocaps-example');
  const commands: string[][] = [
    ['filter', '--preset', 'cc12m', '--stages', 'image', '--no-nsfw', '--in', shards, '--out', path.join(dir, 'filter-cc12m'), '--workers', '0'],
    ['filter', '--preset', 'cc3m', '--no-nsfw', '--in', shards, '--out', path.join(dir, 'filter-cc3m'), '--workers', '0'],
    ['download', '--in', list, '--out', path.join(dir, 'downloaded'), '--no-progress'],
    ['stats', shards],
    ['eval', '--preds', path.join(nocaps, 'results.json'), '--refs', path.join(nocaps, 'annotations.json'), '-m', 'bleu,cider'],
    ['score', '-i', path.join(PACKAGE_ROOT, 'test', 'fixtures', 'caption-metrics-public.json'), '-t', '-m', 'bleu,cider'],
  ];
  const { runs, output } = cckitModules(commands);
  runs.forEach((run, i) => assert.deepEqual(run.tfjs, [], `cckit ${commands[i]![0]} loaded ${run.tfjs.slice(0, 3).join(', ')}\n${output}`));
  // the image stage of the first filter judged and kept the three images: a real image stage ran without tfjs
  assert.equal(runs[0]!.code, 0, output);
  assert.match(fs.readFileSync(path.join(dir, 'filter-cc12m', 'funnel.jsonl'), 'utf8'), /"stage":"image","in":3,"out":3/);
  // the control: the same filter with the detector loads tfjs and NSFWJS
  const control = cckitModules([
    ['filter', '--preset', 'cc12m', '--stages', 'image', '--in', shards, '--out', path.join(dir, 'filter-nsfw'), '--workers', '0'],
  ]);
  assert.equal(control.runs[0]!.code, 0, control.output);
  assert.ok(
    control.runs[0]!.tfjs.some((m) => m.includes('@tensorflow')),
    control.output,
  );
  assert.ok(
    control.runs[0]!.tfjs.some((m) => m.includes('nsfwjs')),
    control.output,
  );
});
