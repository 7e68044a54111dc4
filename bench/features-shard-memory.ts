/**
 * Does a features shard's memory grow with the folder it slices? One `cckit features --backbone mobilenet
 * --shard (N−1)/N` per folder size, each shard 500 images of a folder of 500·N world images downloaded
 * unresized (8 tars per 2,000), under /usr/bin/time; rounds interleave the sizes. A shard that held the
 * folder's image bytes (cckit before it streamed its slice) grows by the folder's size; one that streams
 * stays flat. Prints peak RSS and wall per size (median and range over rounds).
 *
 * Run: npm run bench:features-shard [-- sizes rounds]   (default 1000,4000 images, 3 rounds)
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PACKAGE_ROOT } from '../src/paths';
import { serveWorld } from '../src/world/server';
import { World } from '../src/world/world';

const CCKIT = path.join(PACKAGE_ROOT, 'bin', 'cckit.js');
const SHARD_IMAGES = 500;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** `cckit ARGS` under /usr/bin/time, without blocking this process (it serves the web). */
function cckit(args: string[]): Promise<{ wall: number; rssMib: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'CCKIT-TIME %e %M', process.execPath, CCKIT, ...args]);
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('close', (code) => {
      const m = /CCKIT-TIME ([\d.]+) (\d+)/.exec(log);
      if (code !== 0 || !m) return reject(new Error(`cckit ${args.join(' ')} exited ${code}: ${log.slice(-800)}`));
      resolve({ wall: Number(m[1]), rssMib: Number(m[2]) / 1024 });
    });
  });
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '1000,4000').split(',').map(Number);
  const rounds = Number(process.argv[3] ?? 3);
  if (sizes.some((n) => !Number.isInteger(n) || n < 2 * SHARD_IMAGES || n % SHARD_IMAGES !== 0))
    throw new Error(`sizes must be multiples of ${SHARD_IMAGES}, at least ${2 * SHARD_IMAGES}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-bench-features-shard-'));
  const world = new World({ seed: 0 });
  const web = await serveWorld(world);
  try {
    const folders = new Map<number, string>();
    for (const rows of sizes) {
      const lines: string[] = [];
      for (let id = 0; id < rows; id++) {
        const ext = { jpeg: 'jpg', png: 'png', gif: 'gif' }[world.scene('web', id).format];
        lines.push(`${web.url}/0/web/${id}.${ext}\t${world.webPair(id).caption}`);
      }
      const list = path.join(dir, `list-${rows}.tsv`);
      fs.writeFileSync(list, lines.join('\n') + '\n');
      const folder = path.join(dir, `folder-${rows}`);
      await cckit(['download', '--in', list, '--out', folder, '--allow-private', '--no-progress', '--resize-mode', 'no', '--samples-per-shard', '250']);
      const bytes = fs
        .readdirSync(folder)
        .filter((n) => n.endsWith('.tar'))
        .reduce((sum, n) => sum + fs.statSync(path.join(folder, n)).size, 0);
      console.log(`folder of ${rows} images: ${(bytes / 2 ** 20).toFixed(0)} MiB of tars`);
      folders.set(rows, folder);
    }
    const measured = new Map(sizes.map((rows) => [rows, { wall: [] as number[], rss: [] as number[] }]));
    for (let round = 0; round < rounds; round++)
      for (const rows of sizes) {
        const count = rows / SHARD_IMAGES;
        const cache = path.join(dir, `cache-${rows}-${round}`);
        const t = await cckit(['features', '--in', folders.get(rows)!, '--backbone', 'mobilenet', '--out', cache, '--shard', `${count - 1}/${count}`]);
        fs.rmSync(cache, { recursive: true, force: true });
        measured.get(rows)!.wall.push(t.wall);
        measured.get(rows)!.rss.push(t.rssMib);
        console.log(`round ${round + 1}, folder ${rows}: shard ${count - 1}/${count}, ${t.wall.toFixed(1)} s, peak RSS ${t.rssMib.toFixed(0)} MiB`);
      }
    console.log(`\n| folder images | shard | peak RSS MiB, median (range) | wall s, median |\n|---|---|---|---|`);
    for (const rows of sizes) {
      const m = measured.get(rows)!;
      console.log(
        `| ${rows} | ${rows / SHARD_IMAGES - 1}/${rows / SHARD_IMAGES} | ${median(m.rss).toFixed(0)} (${Math.min(...m.rss).toFixed(0)}–${Math.max(...m.rss).toFixed(0)}) | ${median(m.wall).toFixed(1)} |`,
      );
    }
  } finally {
    await web.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
