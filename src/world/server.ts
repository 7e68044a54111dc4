/**
 * Serves a world's images over HTTP on loopback: GET /SEED/SPLIT/ID.EXT returns the same bytes
 * as rendering world://SEED/SPLIT/ID.EXT, so download stages can be tested against a real server.
 */
import * as http from 'http';
import { AddressInfo } from 'net';
import { parseWorldUrl } from './url';
import { World } from './world';

const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif' };

export interface WorldServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  close(): Promise<void>;
}

export async function serveWorld(world: World, port = 0, host = '127.0.0.1'): Promise<WorldServer> {
  const server = http.createServer((request, response) => {
    const fail = (status: number, message: string) => {
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(message + '\n');
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, 'only GET');
    let ref: ReturnType<typeof parseWorldUrl>;
    try {
      ref = parseWorldUrl(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch (err) {
      return fail(404, (err as Error).message);
    }
    if (ref.seed !== world.seed) return fail(404, `this server serves seed ${world.seed}`);
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
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
