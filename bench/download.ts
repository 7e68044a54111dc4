/**
 * `cckit download` against the Hugging Face dataset card's snippet (bench/hf_snippet.py, Debian's
 * Python 3 + PIL), on the same URL list, side by side: a loopback web (bench/download-server.ts)
 * answers each request after 100–300 ms over 8 loopback hosts. Rounds interleave cckit
 * `--resize-mode no`, the snippet, and cckit `--resize-mode border --image-size 256`; medians and
 * ratios are printed. Then cckit's peak RSS on a 1,000,000-row list against a 20,000-row one, both
 * stopped after the same 2 shards (`--max-shards 2`): the list is streamed, never loaded whole.
 *
 * Run: npm run bench:download [-- rows rounds]   (default 2000 rows, 3 rounds)
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readShardStats } from '../src/data/webdataset';
import { PACKAGE_ROOT } from '../src/paths';
import { loadSharp } from '../src/util/sharp';
import { World } from '../src/world/world';
import { serveBenchWeb } from './download-server';

const HOSTS = 8;
const CONCURRENCY = 256;
const PER_HOST = 32;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Runs a command to its end without blocking this process (it serves the web); wall seconds, stdout, peak RSS. */
function run(command: string, args: string[]): Promise<{ seconds: number; stdout: string; maxRssKb: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS %M', command, ...args], { cwd: PACKAGE_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
      resolve({ seconds, stdout, maxRssKb: Number(/MAXRSS (\d+)/.exec(stderr)?.[1] ?? NaN) });
    });
  });
}

/** 64 web-sized JPEGs (500–1000 px wide) made from the world's renders. */
async function corpus(): Promise<Buffer[]> {
  const world = new World({ seed: 0 });
  const sharp = loadSharp();
  const images: Buffer[] = [];
  for (let id = 0; images.length < 64; id++) {
    const width = 500 + ((images.length * 97) % 501);
    images.push(
      await sharp(await world.render('web', id))
        .resize(width)
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  }
  return images;
}

function writeList(file: string, rows: number, bases: readonly string[]): void {
  const fd = fs.openSync(file, 'w');
  const chunk: string[] = [];
  for (let i = 0; i < rows; i++) {
    chunk.push(`${bases[i % bases.length]}/img/${i}.jpg\ta photo number ${i}\n`);
    if (chunk.length === 10_000) fs.writeSync(fd, chunk.splice(0).join(''));
  }
  fs.writeSync(fd, chunk.join(''));
  fs.closeSync(fd);
}

function cckit(list: string, out: string, extra: string[]): Promise<{ seconds: number; stdout: string; maxRssKb: number }> {
  fs.rmSync(out, { recursive: true, force: true });
  const args = [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), 'download', '--in', list, '--out', out, '--allow-private', '--no-progress'];
  return run(process.execPath, [...args, '--concurrency', String(CONCURRENCY), '--per-host', String(PER_HOST), ...extra]);
}

function successes(out: string): number {
  return fs
    .readdirSync(out)
    .filter((n) => n.endsWith('_stats.json'))
    .reduce((sum, n) => sum + readShardStats(out, n.replace('_stats.json', '')).successes, 0);
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 2000);
  const rounds = Number(process.argv[3] ?? 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-download-'));
  const images = await corpus();
  const sizes = images.map((b) => b.length / 1024);
  console.log(`corpus: ${images.length} JPEGs, ${Math.min(...sizes).toFixed(0)}–${Math.max(...sizes).toFixed(0)} KiB (median ${median(sizes).toFixed(0)})`);
  const web = await serveBenchWeb(images, { hosts: HOSTS, minMs: 100, maxMs: 300 });
  try {
    const list = path.join(dir, 'list.tsv');
    writeList(list, rows, web.bases);
    console.log(
      `${rows} rows over ${HOSTS} loopback hosts, 100–300 ms per response; cckit --concurrency ${CONCURRENCY} --per-host ${PER_HOST}, 1 process; ${rounds} rounds`,
    );
    const times: Record<string, number[]> = { no: [], border: [], snippet: [] };
    for (let round = 0; round < rounds; round++) {
      const a = await cckit(list, path.join(dir, 'no'), ['--resize-mode', 'no']);
      times.no!.push(a.seconds);
      const okNo = successes(path.join(dir, 'no'));
      const b = await run('/usr/bin/python3', [path.join(PACKAGE_ROOT, 'bench', 'hf_snippet.py'), list]);
      const snippet = JSON.parse(b.stdout.trim().split('\n').pop()!) as { successes: number };
      times.snippet!.push(b.seconds);
      const c = await cckit(list, path.join(dir, 'border'), ['--resize-mode', 'border', '--image-size', '256']);
      times.border!.push(c.seconds);
      const okBorder = successes(path.join(dir, 'border'));
      console.log(
        `round ${round + 1}: cckit no ${a.seconds.toFixed(1)} s (${okNo} ok), snippet ${b.seconds.toFixed(1)} s (${snippet.successes} ok), cckit border ${c.seconds.toFixed(1)} s (${okBorder} ok)`,
      );
    }
    const rate = (label: string) => rows / median(times[label]!);
    console.log('\n| run | median s | images/s | × snippet |\n|---|---|---|---|');
    for (const label of ['snippet', 'no', 'border'])
      console.log(
        `| ${label === 'snippet' ? 'HF card snippet (20 threads, batches of 100)' : `cckit --resize-mode ${label}${label === 'border' ? ' --image-size 256' : ''}`} | ${median(times[label]!).toFixed(1)} | ${rate(label).toFixed(0)} | ${(rate(label) / rate('snippet')).toFixed(2)} |`,
      );

    // memory: the same two shards out of a 20k-row and a 1M-row list
    const small = path.join(dir, 'small.tsv');
    const large = path.join(dir, 'large.tsv');
    writeList(small, 20_000, web.bases);
    writeList(large, 1_000_000, web.bases);
    const rssSmall = await cckit(small, path.join(dir, 'mem-small'), ['--resize-mode', 'no', '--max-shards', '2']);
    const rssLarge = await cckit(large, path.join(dir, 'mem-large'), ['--resize-mode', 'no', '--max-shards', '2']);
    console.log(
      `\npeak RSS, 2 shards of 10,000 rows: 20,000-row list ${(rssSmall.maxRssKb / 1024).toFixed(0)} MiB, ` +
        `1,000,000-row list (${(fs.statSync(large).size / 1024 ** 2).toFixed(0)} MiB) ${(rssLarge.maxRssKb / 1024).toFixed(0)} MiB`,
    );
  } finally {
    await web.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
