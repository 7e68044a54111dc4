/**
 * The image fetcher's limits and refusals (src/data/fetch.ts, images.ts), against loopback
 * servers started here. Nothing leaves the machine: public-looking addresses are only classified,
 * never connected to.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { after, before, test } from 'node:test';
import * as zlib from 'zlib';
import { classifyAddress } from '../src/data/address';
import { robotsOptOut } from '../src/data/fetch';
import { ImageSource, type ImageFetch } from '../src/data/images';
import { liveTemporaries } from '../src/util/atomic';
import { buildProgram } from '../src/cli/main';
import { PACKAGE_ROOT } from '../src/paths';
import { loadSharp } from '../src/util/sharp';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-fetcher-'));
const MiB = 1024 * 1024;

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;
interface Server {
  base: string;
  port: number;
  /** Requests by path. */
  hits: Map<string, number>;
  connections: number;
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

async function serve(routes: Record<string, Route>): Promise<Server> {
  const hits = new Map<string, number>();
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    headers.push(req.headers);
    const route = routes[url] ?? Object.entries(routes).find(([p]) => p.endsWith('*') && url.startsWith(p.slice(0, -1)))?.[1];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  const state: Server = { base: '', port: 0, hits, connections: 0, headers, close: () => new Promise((r) => server.close(() => r())) };
  server.on('connection', () => state.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://127.0.0.1:${state.port}`;
  const close = state.close;
  state.close = () => {
    server.closeAllConnections();
    return close();
  };
  return state;
}

const redirect =
  (location: string | (() => string), status = 302): Route =>
  (_req, res) =>
    res.writeHead(status, { location: typeof location === 'string' ? location : location() }).end();

let jpeg: Buffer;
let bomb: Buffer;
let main: Server;
let other: Server;

before(async () => {
  jpeg = await loadSharp()({ create: { width: 480, height: 420, channels: 3, background: { r: 120, g: 80, b: 40 } } })
    .jpeg()
    .toBuffer();
  // 200 MiB of zeros in ~200 KB of gzip, compressed in pieces so the test never holds the 200 MiB
  const gzip = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((r) => gzip.on('end', r));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < 200; i++) gzip.write(zeros);
  gzip.end();
  await ended;
  bomb = Buffer.concat(out);

  other = await serve({ '/image.jpg': (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg) });
  main = await serve({
    '/image.jpg': (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg),
    '/ua': (req, res) => res.writeHead(200).end(req.headers['user-agent']),
    '/missing': (_req, res) => res.writeHead(404).end('no'),
    '/drip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    },
    '/endless': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }); // chunked, no length
      const block = Buffer.alloc(64 * 1024, 0xab);
      const push = () => {
        while (!res.destroyed && res.write(block));
      };
      res.on('drain', push);
      push();
    },
    '/declared-huge': (_req, res) => {
      res.writeHead(200, { 'content-length': String(50 * MiB) });
      res.write(Buffer.alloc(1024));
    },
    '/bomb': (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'image/jpeg' }).end(bomb),
    '/gzip-ok': (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(jpeg)),
    '/br-ok': (_req, res) => res.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(jpeg)),
    '/deflate-ok': (_req, res) => res.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(jpeg)),
    '/bad-gzip': (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all')),
    '/to-other': redirect(() => `${other.base}/image.jpg`),
    '/to-file': redirect('file:///etc/passwd'),
    '/to-ftp': redirect('ftp://127.0.0.1/x'),
    '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
    '/loop-a': redirect('/loop-b', 301),
    '/loop-b': redirect('/loop-a', 307),
    '/chain/*': (req, res) => {
      const n = Number(req.url!.split('/').pop());
      res.writeHead(302, { location: `/chain/${n + 1}` }).end();
    },
    '/noai': (_req, res) => res.writeHead(200, { 'x-robots-tag': 'noai' }).end(jpeg),
    '/ua-noimageai': (_req, res) => res.writeHead(200, { 'x-robots-tag': ['max-image-preview: large', 'otherbot: noimageai'] }).end(jpeg),
    '/robots-fine': (_req, res) => res.writeHead(200, { 'x-robots-tag': 'max-image-preview:none, nofollow' }).end(jpeg),
  });
});

after(async () => {
  await main?.close();
  await other?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const loopback = (options: ConstructorParameters<typeof ImageSource>[0] = {}) =>
  new ImageSource({ allowPrivate: true, timeoutMs: 2000, maxBytes: 2 * MiB, ...options });

function failed(result: ImageFetch): string {
  assert.equal(result.ok, false, 'expected a failure');
  return (result as { reason: string }).reason;
}

test('address classification: loopback, private, link-local, unique-local, CGNAT, mapped forms are not public', () => {
  const table: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['::ffff:192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['example.com', 'invalid'],
    ['1.2.3', 'invalid'],
  ];
  for (const [address, kind] of table) assert.equal(classifyAddress(address), kind, address);
});

test('X-Robots-Tag opt-outs: noai, noimageai, noindex, noimageindex, also per user agent', () => {
  assert.equal(robotsOptOut('noai'), 'noai');
  assert.equal(robotsOptOut('NoImageAI, nofollow'), 'noimageai');
  assert.equal(robotsOptOut('googlebot: noindex'), 'noindex');
  assert.equal(robotsOptOut(['max-snippet: 20', 'bingbot: nofollow noimageindex']), 'noimageindex');
  assert.equal(robotsOptOut('max-image-preview:none, nofollow'), undefined);
  assert.equal(robotsOptOut(undefined), undefined);
});

test('a slow endless drip ends at the deadline as download:timeout', async () => {
  const started = Date.now();
  const result = await loopback({ timeoutMs: 400 }).fetch(`${main.base}/drip`);
  assert.equal(failed(result), 'download:timeout');
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 350 && elapsed < 1500, `${elapsed} ms`);
});

test('an endless chunked body stops at the cap, with memory bounded', async () => {
  const rss = process.memoryUsage().rss;
  const started = Date.now();
  const result = await loopback({ maxBytes: 4 * MiB, timeoutMs: 5000 }).fetch(`${main.base}/endless`);
  assert.equal(failed(result), 'download:too-large');
  assert.ok(Date.now() - started < 2000, 'stops at the cap, not at the timeout');
  assert.ok(process.memoryUsage().rss - rss < 64 * MiB, `RSS grew ${((process.memoryUsage().rss - rss) / MiB).toFixed(0)} MiB`);
  assert.equal(failed(await loopback({ maxBytes: 4 * MiB }).fetch(`${main.base}/declared-huge`)), 'download:too-large');
});

test('a gzip bomb (200 KB inflating to 200 MiB) is too large after decompression, memory bounded', async () => {
  assert.ok(bomb.length < 1 * MiB, `bomb is ${bomb.length} bytes`);
  const rss = process.memoryUsage().rss;
  const result = await loopback({ maxBytes: 2 * MiB }).fetch(`${main.base}/bomb`);
  assert.equal(failed(result), 'download:too-large');
  assert.match((result as { detail?: string }).detail ?? '', /decompressed/);
  const grown = process.memoryUsage().rss - rss;
  assert.ok(grown < 64 * MiB, `RSS grew ${(grown / MiB).toFixed(0)} MiB`);
});

test('gzip, deflate and br bodies are decoded; a corrupt one is download:bad-encoding', async () => {
  const source = loopback();
  for (const route of ['/gzip-ok', '/deflate-ok', '/br-ok']) {
    const result = await source.fetch(main.base + route);
    assert.ok(result.ok && result.bytes.equals(jpeg), route);
  }
  assert.equal(failed(await source.fetch(`${main.base}/bad-gzip`)), 'download:bad-encoding');
  assert.equal(failed(await source.fetch(`${main.base}/missing`)), 'download:http-404');
});

test('private addresses are refused before any connection, on the first hop and on redirects', async () => {
  const connections = main.connections;
  const source = new ImageSource({ timeoutMs: 2000 });
  for (const url of [`${main.base}/image.jpg`, `http://localhost:${main.port}/image.jpg`, `http://[::ffff:127.0.0.1]:${main.port}/image.jpg`]) {
    const result = await source.fetch(url);
    assert.equal(failed(result), 'download:refused-private', url);
  }
  assert.equal(main.connections, connections, 'the server saw no connection');
  // refused by classification alone: nothing is sent to these
  assert.equal(failed(await source.fetch('http://169.254.169.254/latest/meta-data/')), 'download:refused-private');
  assert.equal(failed(await source.fetch('http://[fd00::1]/x.jpg')), 'download:refused-private');
  // a host with one public and one private address is refused (the system could pick either)
  const mixed = new ImageSource({
    resolve: async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ],
  });
  assert.equal(failed(await mixed.fetch('http://images.example/x.jpg')), 'download:refused-private');

  // one allowed host redirecting to another loopback port: that hop is checked and refused
  const otherHits = other.hits.get('/image.jpg') ?? 0;
  const mirror = new ImageSource({ allowHosts: [`127.0.0.1:${main.port}`] });
  assert.equal(failed(await mirror.fetch(`${main.base}/to-other`)), 'download:refused-private');
  assert.equal(other.hits.get('/image.jpg') ?? 0, otherHits);
  assert.equal(failed(await mirror.fetch(`${main.base}/to-metadata`)), 'download:refused-private');
  // with allowPrivate the redirect is followed
  const followed = await loopback().fetch(`${main.base}/to-other`);
  assert.ok(followed.ok && followed.bytes.equals(jpeg));
  assert.equal(other.hits.get('/image.jpg'), otherHits + 1);
});

test('the connection goes to the address that was checked: one lookup per hop, the Host header kept', async () => {
  const lookups: string[] = [];
  // a rebinding resolver: the first answer is the one checked, a second lookup would get another
  const answers = ['127.0.0.1', '10.9.9.9'];
  const source = loopback({
    allowHosts: [`images.example:${main.port}`],
    resolve: async (host) => {
      lookups.push(host);
      return [{ address: answers[lookups.length - 1] ?? '10.9.9.9', family: 4 }];
    },
  });
  const result = await source.fetch(`http://images.example:${main.port}/ua`);
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(lookups, ['images.example']);
  assert.equal(main.headers.at(-1)!.host, `images.example:${main.port}`);
});

test('redirects: other schemes refused, loops and long chains named', async () => {
  const source = loopback();
  assert.equal(failed(await source.fetch(`${main.base}/to-file`)), 'download:refused-scheme');
  assert.equal(failed(await source.fetch(`${main.base}/to-ftp`)), 'download:refused-scheme');
  assert.equal(failed(await source.fetch(`${main.base}/loop-a`)), 'download:redirect-loop');
  assert.equal(failed(await source.fetch(`${main.base}/chain/0`)), 'download:too-many-redirects');
  assert.equal(main.hits.get('/chain/5'), 1);
  assert.equal(main.hits.get('/chain/6'), undefined, 'at most 5 redirects followed');
  assert.equal(failed(await source.fetch('gopher://127.0.0.1/x')), 'download:refused-scheme');
});

test('X-Robots-Tag opt-outs are honoured by default and ignored on request', async () => {
  assert.equal(failed(await loopback().fetch(`${main.base}/noai`)), 'download:opted-out');
  assert.equal(failed(await loopback().fetch(`${main.base}/ua-noimageai`)), 'download:opted-out');
  assert.ok((await loopback().fetch(`${main.base}/robots-fine`)).ok);
  const ignored = await loopback({ ignoreRobotsTag: true }).fetch(`${main.base}/noai`);
  assert.ok(ignored.ok && ignored.bytes.equals(jpeg));
});

test('the User-Agent names cckit and the optional contact', async () => {
  const plain = await loopback().fetch(`${main.base}/ua`);
  assert.ok(plain.ok);
  assert.match(plain.bytes.toString(), /^cckit\/\d+\.\d+\.\d+ \(/);
  const contact = await loopback({ contact: 'mailto:me@example.org' }).fetch(`${main.base}/ua`);
  assert.ok(contact.ok && contact.bytes.toString().includes('+mailto:me@example.org'));
});

test('a URL asked for twice in one run is fetched once (in flight and afterwards)', async () => {
  const source = loopback();
  const url = `${main.base}/image.jpg`;
  const before = main.hits.get('/image.jpg') ?? 0;
  const results = await Promise.all([source.fetch(url), source.fetch(url), source.fetch(url + '#fragment')]);
  assert.ok(results.every((r) => r.ok));
  assert.ok((await source.fetch(url)).ok);
  assert.equal(main.hits.get('/image.jpg'), before + 1);
  // failures are remembered too; a memo without room refetches
  assert.equal(failed(await source.fetch(`${main.base}/missing`)), 'download:http-404');
  const missing = main.hits.get('/missing');
  await source.fetch(`${main.base}/missing`);
  assert.equal(main.hits.get('/missing'), missing);
  const forgetful = loopback({ memoEntries: 0 });
  await forgetful.fetch(url);
  await forgetful.fetch(url);
  assert.equal(main.hits.get('/image.jpg'), before + 3);
});

test('local paths: a FIFO and /dev/zero are not files, relative paths resolve against baseDir, the cap holds', async () => {
  // absolute paths and file:// URLs: a list the user wrote (--allow-local-files); trust-local-files.test.ts has the default
  const any = { localFiles: 'any' as const };
  const fifo = path.join(dir, 'pipe.jpg');
  execFileSync('mkfifo', [fifo]);
  const started = Date.now();
  assert.equal(failed(await new ImageSource(any).fetch(fifo)), 'download:not-a-file');
  assert.ok(Date.now() - started < 1000, 'returns at once');
  assert.equal(failed(await new ImageSource(any).fetch('/dev/zero')), 'download:not-a-file');
  assert.equal(failed(await new ImageSource(any).fetch(dir)), 'download:not-a-file');

  fs.mkdirSync(path.join(dir, 'images'));
  fs.writeFileSync(path.join(dir, 'images', 'a.jpg'), jpeg);
  const relative = await new ImageSource({ baseDir: dir }).fetch('images/a.jpg');
  assert.ok(relative.ok && relative.bytes.equals(jpeg));
  assert.equal(failed(await new ImageSource({ baseDir: os.tmpdir() }).fetch('images/a.jpg')), 'download:not-found');
  const viaUrl = await new ImageSource(any).fetch(`file://${path.join(dir, 'images', 'a.jpg')}`);
  assert.ok(viaUrl.ok);
  assert.equal(failed(await new ImageSource({ baseDir: dir, maxBytes: 100 }).fetch('images/a.jpg')), 'download:too-large');
});

test('world:// URLs are rendered in-process, with no network and no allowPrivate', async () => {
  const result = await new ImageSource().fetch('world://0/web/1.jpg');
  assert.ok(result.ok && result.bytes.length > 0);
  assert.equal(failed(await new ImageSource().fetch('world://0/nowhere/1.jpg')), 'download:bad-url');
});

test('an interrupted cckit filter leaves no temporary file and dies by the signal', async () => {
  const tsv = path.join(dir, 'slow.tsv');
  fs.writeFileSync(tsv, `${main.base}/drip\tA dog on a sofa\n`);
  const out = path.join(dir, 'interrupted');
  const cli = path.join(PACKAGE_ROOT, 'src/cli/main.ts');
  const script = `require(${JSON.stringify(cli)}).main(['node', 'cckit', ...process.argv.slice(1)])`;
  const args = ['filter', '--in', tsv, '--out', out, '--stages', 'image', '--no-nsfw', '--workers', '0', '--allow-private'];
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script, ...args], { cwd: PACKAGE_ROOT, stdio: 'ignore' });
  after(() => child.kill('SIGKILL')); // never outlives the test, even when an assertion fails
  // the drip keeps the image stage busy (10 s deadline): wait until the run's temporaries exist
  const temporaries = () => (fs.existsSync(out) ? fs.readdirSync(out).filter((f) => f.endsWith('.tmp')) : []);
  for (let i = 0; i < 300 && !(temporaries().length >= 2 && (main.hits.get('/drip') ?? 0) > 0); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(
    temporaries().some((f) => f.startsWith('.kept.tsv.')),
    `temporaries while running: ${temporaries().join(', ')}`,
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGINT');
  assert.equal(await exited, 'SIGINT');
  assert.deepEqual(temporaries(), []);
});

test('cckit filter --stages image: loopback URLs refused by default, kept with --allow-private', async () => {
  const tsv = path.join(dir, 'pairs.tsv');
  fs.writeFileSync(tsv, `${main.base}/image.jpg\tA dog on a sofa\n${other.base}/image.jpg\tA cat on a mat\nimages/a.jpg\tA local file beside the list\n`);
  const run = async (out: string, extra: string[]) => {
    const log = console.log;
    console.log = () => {};
    try {
      await buildProgram().parseAsync(['node', 'cckit', 'filter', '--in', tsv, '--out', out, '--stages', 'image', '--no-nsfw', '--workers', '0', ...extra]);
    } finally {
      console.log = log;
    }
    const rejects = fs
      .readFileSync(path.join(out, 'rejects.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { reason: string; detail?: string });
    return { kept: fs.readFileSync(path.join(out, 'kept.tsv'), 'utf8').split('\n').filter(Boolean), rejects };
  };
  const connections = main.connections + other.connections;
  const refused = await run(path.join(dir, 'filter-default'), []);
  assert.deepEqual(
    refused.rejects.map((r) => r.reason),
    ['download:refused-private', 'download:refused-private'],
  );
  assert.match(refused.rejects[0]!.detail ?? '', /loopback/);
  assert.equal(refused.kept.length, 1, 'the relative path resolved against the TSV folder');
  assert.equal(main.connections + other.connections, connections);
  const allowed = await run(path.join(dir, 'filter-allowed'), ['--allow-private']);
  assert.deepEqual(allowed.rejects, []);
  assert.equal(allowed.kept.length, 3);
  assert.deepEqual(liveTemporaries(), []);
});
