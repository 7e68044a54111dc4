/**
 * Where a pair's image bytes come from: the embedded world renders world:// URLs, local paths
 * and file:// URLs are read, http(s) URLs are downloaded with a timeout and a size cap. Failures
 * become rejection reasons, never exceptions, so a run goes on.
 */
import * as fs from 'fs';
import { fileURLToPath } from 'url';
import { World } from '../world/world';
import { parseWorldUrl } from '../world/url';

export type ImageFetch = { ok: true; bytes: Buffer } | { ok: false; reason: string };

export interface ImageSourceOptions {
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_IMAGE_SOURCE: ImageSourceOptions = { timeoutMs: 10_000, maxBytes: 20 * 1024 * 1024 };

export class ImageSource {
  private readonly worlds = new Map<number, World>();

  constructor(private readonly options: ImageSourceOptions = DEFAULT_IMAGE_SOURCE) {}

  async fetch(url: string): Promise<ImageFetch> {
    try {
      if (url.startsWith('world://')) {
        const ref = parseWorldUrl(url);
        let world = this.worlds.get(ref.seed);
        if (!world) this.worlds.set(ref.seed, (world = new World({ seed: ref.seed })));
        return { ok: true, bytes: await world.render(ref.split, ref.id) };
      }
      if (/^https?:\/\//i.test(url)) return await this.download(url);
      const file = url.startsWith('file://') ? fileURLToPath(url) : url;
      const size = fs.statSync(file).size;
      if (size > this.options.maxBytes) return { ok: false, reason: 'download:too-large' };
      return { ok: true, bytes: fs.readFileSync(file) };
    } catch (err) {
      return { ok: false, reason: `download:${(err as NodeJS.ErrnoException).code ?? 'error'}` };
    }
  }

  private async download(url: string): Promise<ImageFetch> {
    const response = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'follow' });
    if (!response.ok) return { ok: false, reason: `download:http-${response.status}` };
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > this.options.maxBytes) return { ok: false, reason: 'download:too-large' };
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > this.options.maxBytes) return { ok: false, reason: 'download:too-large' };
    return { ok: true, bytes };
  }
}
