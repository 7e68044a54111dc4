/**
 * Serves a world's images over HTTP on loopback: GET /SEED/SPLIT/ID.EXT returns the same bytes
 * as rendering world://SEED/SPLIT/ID.EXT, so download stages can be tested against a real server.
 *
 * With `hostile`, the server is also the web's bad hosts, at /hostile/KIND/N.jpg (any N, so each
 * row is its own URL): every way a real crawl fails, each with the status cckit download gives it
 * (HOSTILE_ROUTES).
 */
import * as http from 'http';
import { AddressInfo } from 'net';
import * as zlib from 'zlib';
import { parseWorldUrl } from './url';
import { World } from './world';

const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif' };

export interface WorldServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  close(): Promise<void>;
}

/** The hostile hosts and what each does (the downloader's expected outcome is in test/download.test.ts). */
export const HOSTILE_ROUTES = {
  slow: 'answers after 1.5 s with a good image',
  hang: 'accepts the request and never answers',
  'not-found': '404',
  'too-many': '429 with Retry-After: 1 on the first request for a path, then the image',
  'rate-limited': '429 with Retry-After: 3600 every time',
  'server-error': '500 every time',
  unavailable: '503 (no Retry-After) on the first request for a path, then the image',
  redirect: '302 to a world image',
  'redirect-loop': '302 to itself',
  'lying-length': 'Content-Length 10 bytes longer than the body, then closes',
  corrupt: 'random bytes served as image/jpeg',
  truncated: 'the first half of a JPEG',
  huge: 'Content-Length: 1 GiB',
  bomb: 'a 40 KB PNG whose header claims 20,000 × 20,000 pixels',
  noai: 'a good image with X-Robots-Tag: noai',
  'not-image': 'an HTML page',
} as const;
export type HostileKind = keyof typeof HOSTILE_ROUTES;

export interface ServeOptions {
  port?: number;
  host?: string;
  /** Also serve the hostile routes under /hostile/. */
  hostile?: boolean;
}

/** A small PNG that claims `width` × `height` pixels: a valid header over a tiny deflate stream. */
function bombPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  // a few rows of zeros: enough for a header parser, far from the pixels it claims
  const idat = zlib.deflateSync(Buffer.alloc((width + 1) * 16));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function serveWorld(world: World, portOrOptions: number | ServeOptions = 0, host = '127.0.0.1'): Promise<WorldServer> {
  const options: ServeOptions = typeof portOrOptions === 'number' ? { port: portOrOptions, host } : portOrOptions;
  const port = options.port ?? 0;
  host = options.host ?? host;
  const seen = new Set<string>();
  let bomb: Buffer | undefined;
  let base = '';
  const good = () => world.render('web', 0);
  const hostile = (kind: string, path: string, response: http.ServerResponse): void => {
    const first = !seen.has(path);
    seen.add(path);
    const image = (headers: http.OutgoingHttpHeaders = {}) =>
      void good().then((bytes) => {
        response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length, ...headers });
        response.end(bytes);
      });
    switch (kind as HostileKind) {
      case 'slow':
        setTimeout(image, 1500);
        return;
      case 'hang':
        return; // the socket stays open until the client gives up
      case 'not-found':
        response.writeHead(404).end('not found');
        return;
      case 'too-many':
        if (first) response.writeHead(429, { 'retry-after': '1' }).end();
        else image();
        return;
      case 'rate-limited':
        response.writeHead(429, { 'retry-after': '3600' }).end();
        return;
      case 'server-error':
        response.writeHead(500).end('oops');
        return;
      case 'unavailable':
        if (first) response.writeHead(503).end();
        else image();
        return;
      case 'redirect':
        response.writeHead(302, { location: `${base}/${world.seed}/web/0.jpg` }).end();
        return;
      case 'redirect-loop':
        response.writeHead(302, { location: path }).end();
        return;
      case 'lying-length':
        void good().then((bytes) => {
          response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length + 10 });
          response.write(bytes);
          response.socket?.destroy();
        });
        return;
      case 'corrupt': {
        let x = 12345;
        const bytes = Buffer.alloc(20_000, 0).map(() => (x = (x * 1103515245 + 12345) & 0x7fffffff) & 0xff);
        response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
        return;
      }
      case 'truncated':
        void good().then((bytes) => {
          const half = bytes.subarray(0, Math.floor(bytes.length / 2));
          response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': half.length }).end(half);
        });
        return;
      case 'huge':
        response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 1024 ** 3 });
        response.write(Buffer.alloc(64 * 1024));
        return; // never finishes: the client must refuse it on the header
      case 'bomb':
        bomb ??= bombPng(20_000, 20_000);
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': bomb.length }).end(bomb);
        return;
      case 'noai':
        image({ 'x-robots-tag': 'noai' });
        return;
      case 'not-image':
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sorry, this image is gone.</body></html>');
        return;
      default:
        response.writeHead(404).end(`no hostile route ${kind}`);
    }
  };
  const server = http.createServer((request, response) => {
    const fail = (status: number, message: string) => {
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(message + '\n');
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, 'only GET');
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const hostileMatch = options.hostile ? /^\/hostile\/([a-z-]+)\//.exec(pathname) : null;
    if (hostileMatch) return hostile(hostileMatch[1]!, pathname, response);
    let ref: ReturnType<typeof parseWorldUrl>;
    try {
      // the query names the world's Zipf exponent (`?zipf=`), as in a world URL
      const { pathname: path, search } = new URL(request.url ?? '/', 'http://localhost');
      ref = parseWorldUrl(path + search);
    } catch (err) {
      return fail(404, (err as Error).message);
    }
    if (ref.seed !== world.seed) return fail(404, `this server serves seed ${world.seed}`);
    if (ref.zipf !== world.zipf) return fail(404, `this server serves the world of Zipf exponent ${world.zipf ?? 1}`);
    const scene = world.scene(ref.split, ref.id);
    const expected = { jpeg: 'jpg', png: 'png', gif: 'gif' }[scene.format];
    if (ref.extension !== expected) return fail(404, `image ${ref.id} of ${ref.split} is .${expected}`);
    world.render(ref.split, ref.id).then(
      (bytes) => {
        response.writeHead(200, { 'content-type': CONTENT_TYPES[expected], 'content-length': bytes.length });
        response.end(request.method === 'HEAD' ? undefined : bytes);
      },
      (err: Error) => fail(500, err.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  base = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    url: base,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
