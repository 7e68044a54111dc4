/**
 * A hostile image server on loopback, for measuring what the image stage holds in memory
 * (docs/filters.md, "Fetcher safety"). Run it in its own process, so /usr/bin/time measures the
 * client alone, and write TSVs of its URLs:
 *
 *   npx tsx bench/hostile-server.ts --port 18080 --rows 16 --out /tmp/hostile
 *   /usr/bin/time -v node bin/cckit.js filter --in /tmp/hostile/bomb.tsv --out /tmp/o --stages image \
 *     --no-nsfw --workers 0 --concurrency 8 --allow-private
 *
 * Routes (any suffix, e.g. /bomb/3.jpg, so every row is a different URL):
 *   /bomb/…     400 KiB of gzip that inflates to 400 MiB (Content-Encoding: gzip)
 *   /endless/…  a chunked body with no length that never ends, at --rate MiB/s per connection
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import * as zlib from 'zlib';

const MiB = 1024 * 1024;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const port = Number(flag('port', '18080'));
const rows = Number(flag('rows', '16'));
const rate = Number(flag('rate', '10')) * MiB;
const out = flag('out', '');

/** Gzip of `inflated` zero bytes, compressed a MiB at a time. */
function gzipBomb(inflated: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < inflated / MiB; i++) gzip.write(zeros);
  return new Promise((resolve) => gzip.on('end', () => resolve(Buffer.concat(chunks))).end());
}

async function main(): Promise<void> {
  const bomb = await gzipBomb(400 * MiB);
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/bomb/')) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    } else if (req.url?.startsWith('/endless/')) {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const block = Buffer.alloc(rate / 10, 0xff);
      const timer = setInterval(() => res.write(block), 100);
      res.on('close', () => clearInterval(timer));
    } else res.writeHead(404).end();
  });
  server.listen(port, '127.0.0.1', () => {
    const base = `http://127.0.0.1:${port}`;
    if (out) {
      fs.mkdirSync(out, { recursive: true });
      for (const route of ['bomb', 'endless'])
        fs.writeFileSync(
          path.join(out, `${route}.tsv`),
          Array.from({ length: rows }, (_, i) => `${base}/${route}/${i}.jpg\tA photo of a dog on a sofa\n`).join(''),
        );
    }
    console.log(`hostile server at ${base} (gzip bomb ${(bomb.length / 1024).toFixed(0)} KiB → 400 MiB; endless at ${rate / MiB} MiB/s)`);
  });
}

void main();
