/**
 * The one image loader: where an image's bytes come from. The embedded world renders world:// URLs
 * (resolved here, once, for every stage), local paths and file:// URLs are read, http(s) URLs are
 * downloaded with a timeout and a size cap. Failures become rejection reasons, never exceptions,
 * so a run goes on.
 */
import * as fs from 'fs';
import { fileURLToPath } from 'url';
import { World } from '../world/world';
import { WorldImageRef, isWorldUrl, parseWorldUrl } from '../world/url';

/** World instances by seed (building a catalog takes a few ms; scenes are pure functions). */
const worlds = new Map<number, World>();
export function worldFor(seed: number): World {
  let world = worlds.get(seed);
  if (!world) worlds.set(seed, (world = new World({ seed })));
  return world;
}

/** The world image a `world://` URL names, or undefined for any other URL; a malformed world URL throws. */
export function resolveWorldImage(url: string): { world: World; ref: WorldImageRef } | undefined {
  if (!isWorldUrl(url)) return undefined;
  const ref = parseWorldUrl(url);
  return { world: worldFor(ref.seed), ref: { seed: ref.seed, split: ref.split, id: ref.id } };
}

export type ImageFetch = { ok: true; bytes: Buffer } | { ok: false; reason: string };

export interface ImageSourceOptions {
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_IMAGE_SOURCE: ImageSourceOptions = { timeoutMs: 10_000, maxBytes: 20 * 1024 * 1024 };

export class ImageSource {
  constructor(private readonly options: ImageSourceOptions = DEFAULT_IMAGE_SOURCE) {}

  async fetch(url: string): Promise<ImageFetch> {
    try {
      const worldImage = resolveWorldImage(url);
      if (worldImage) return { ok: true, bytes: await worldImage.world.render(worldImage.ref.split, worldImage.ref.id) };
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
