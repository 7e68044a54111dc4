/**
 * A small web for the download benchmark: JPEGs served on loopback after a web-like delay
 * (uniform 100–300 ms, seeded by the path, so every run sees the same latencies), on several
 * loopback addresses (127.0.0.1 … 127.0.0.N, all loopback on Linux) so a list spreads over hosts as
 * a real one does. `/img/I.jpg` is image I modulo the corpus.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export interface BenchWeb {
  /** http://127.0.0.H:PORT for host H = 1 … hosts. */
  bases: string[];
  requests: () => number;
  close(): Promise<void>;
}

/** FNV-1a of the path → [0, 1), so a URL's delay is fixed. */
function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h / 2 ** 32;
}

export async function serveBenchWeb(images: readonly Buffer[], options: { hosts: number; minMs: number; maxMs: number }): Promise<BenchWeb> {
  let served = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const match = /^\/img\/(\d+)\.jpg$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    const image = images[Number(match[1]) % images.length]!;
    const delay = options.minMs + (options.maxMs - options.minMs) * unit(req.url!);
    setTimeout(() => {
      served++;
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': image.length }).end(image);
    }, delay);
  };
  const servers: http.Server[] = [];
  let port = 0;
  for (let h = 1; h <= options.hosts; h++) {
    const server = http.createServer(handler);
    // keep-alive sockets of a finished run must not hold the next one up
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, `127.0.0.${h}`, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  return {
    bases: servers.map((_, i) => `http://127.0.0.${i + 1}:${port}`),
    requests: () => served,
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
