/**
 * A small real "web" for `cckit download`: Debian's `tuxpaint-stamps-default` package (clip-art PNGs, each
 * with a `.txt` beside it whose first line is a person's English description and whose other lines are
 * translations, `LANG.utf8=...`). `build` copies every PNG that has a description into OUT/web/ and writes
 * OUT/list.tsv (`url<TAB>description`, CC12M's column order) with URLs on 127.0.0.1; `serve` serves OUT/web/
 * there with a tiny static server, so the download goes through real HTTP, real PNG bytes, real alt-text.
 *
 *   apt-get install -y tuxpaint-stamps-default
 *   node --import tsx scripts/real-web.ts build OUT [--port 8765] [--limit N]
 *   node --import tsx scripts/real-web.ts serve OUT [--port 8765]
 *   node bin/cckit.js download --in OUT/list.tsv --out OUT/shards --allow-private ...
 *   node --import tsx scripts/real-web.ts split OUT/shards SPLIT_DIR
 *
 * `split` turns downloaded shards into COCO captions files for `cckit train` / `caption` / `eval`: the same as
 * `cckit split --in SHARDS --out SPLIT_DIR --by caption` (src/data/split.ts): SPLIT_DIR/images/ID.EXT plus
 * train.json, val.json (5%) and test.json (10%). The split is by description, case aside, so images that share one
 * ("A frog." for two frogs, "The letter w." and "The letter W.") land on the same side and no test caption is seen in
 * training; the order comes from a hash of the description, so it is the same on every run.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';

import { describeSplit, writeSplit } from '../src/data/split';
import { filesUnder, TUXPAINT_STAMPS, tuxpaintDescription } from './lib/debian-packages';

const ROOT = TUXPAINT_STAMPS;
const DEFAULT_PORT = 8765;

/** Every k-th of `items` so that `limit` remain, spread over the whole list (0: all of them). */
function spread<T>(items: T[], limit: number): T[] {
  if (limit <= 0 || limit >= items.length) return items;
  return Array.from({ length: limit }, (_, i) => items[Math.floor((i * items.length) / limit)]!);
}

function build(out: string, port: number, limit: number): void {
  if (!fs.existsSync(ROOT)) throw new Error(`${ROOT} not found: apt-get install -y tuxpaint-stamps-default`);
  const web = path.join(out, 'web');
  fs.mkdirSync(web, { recursive: true });
  const rows: string[] = [];
  const files = filesUnder(ROOT, '.png');
  const described = files.flatMap((file) => {
    const text = tuxpaintDescription(file);
    return text === undefined ? [] : [{ file, text }];
  });
  const skipped = files.length - described.length;
  for (const { file, text } of spread(described, limit)) {
    // flat, URL-safe names: household/tools/hammer.png → household-tools-hammer.png
    const name = path
      .relative(ROOT, file)
      .split(path.sep)
      .join('-')
      .replace(/[^A-Za-z0-9._-]/g, '_');
    fs.copyFileSync(file, path.join(web, name));
    rows.push(`http://127.0.0.1:${port}/${name}\t${text.replace(/\t/g, ' ')}`);
  }
  fs.writeFileSync(path.join(out, 'list.tsv'), rows.join('\n') + '\n');
  console.log(
    `${files.length} PNGs under ${ROOT}; ${described.length} with a description (${skipped} without one skipped); ${rows.length} in list.tsv${limit > 0 ? ` (--limit ${limit})` : ''}`,
  );
}

const TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.tsv': 'text/tab-separated-values' };

function serve(out: string, port: number): void {
  const web = path.resolve(out, 'web');
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0]).replace(/^\/+/, '');
    const file = path.resolve(web, name);
    if (name === '' || !file.startsWith(web + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    const size = fs.statSync(file).size;
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': size });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  });
  server.listen(port, '127.0.0.1', () => console.log(`serving ${web} on http://127.0.0.1:${port}/`));
}

/** The walk-through's split (docs/real-data.md): `cckit split --by caption` over the shards, the library's code. */
async function split(shards: string, out: string): Promise<void> {
  const summary = await writeSplit({ input: shards, out, by: 'caption', fractions: { val: 0.05, test: 0.1 } });
  for (const line of describeSplit(summary)) console.log(line);
}

function main(): void {
  const [command, out, ...rest] = process.argv.slice(2);
  const at = rest.indexOf('--port');
  const port = at >= 0 ? Number(rest[at + 1]) : DEFAULT_PORT;
  const limitAt = rest.indexOf('--limit');
  const limit = limitAt >= 0 ? Number(rest[limitAt + 1]) : 0;
  if (!out || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error('usage: real-web.ts build|serve OUT [--port N]');
  }
  if (!Number.isInteger(limit) || limit < 0) throw new Error('--limit: a whole number (0: every image)');
  if (command === 'build') build(out, port, limit);
  else if (command === 'serve') serve(out, port);
  else if (command === 'split' && rest[0]) void split(out, rest[0]);
  else throw new Error('usage: real-web.ts build|serve OUT [--port N] | split SHARDS SPLIT_DIR');
}

main();
