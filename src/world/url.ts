/**
 * `world://SEED/SPLIT/ID.EXT` names one image of the embedded world; its bytes are rendered on
 * demand from (seed, split, id), so a TSV of world URLs is as good as a folder of images.
 */
import { ImageFormat } from './types';
import { WorldSplit, isWorldSplit } from './splits';

export interface WorldImageRef {
  seed: number;
  split: WorldSplit;
  id: number;
}

export const FORMAT_EXTENSION: Record<ImageFormat, string> = { jpeg: 'jpg', png: 'png', gif: 'gif' };

export function worldUrl(ref: WorldImageRef, format: ImageFormat): string {
  return `world://${ref.seed}/${ref.split}/${ref.id}.${FORMAT_EXTENSION[format]}`;
}

/** The path part without the scheme (what the local HTTP server serves). */
export function worldPath(ref: WorldImageRef, format: ImageFormat): string {
  return `/${ref.seed}/${ref.split}/${ref.id}.${FORMAT_EXTENSION[format]}`;
}

const PATTERN = /^(?:world:\/)?\/(\d+)\/([a-z-]+)\/(\d+)\.(jpg|png|gif)$/;

/** Parses a world URL (or its path); throws naming what is wrong. */
export function parseWorldUrl(url: string): WorldImageRef & { extension: string } {
  const match = PATTERN.exec(url);
  if (!match) throw new Error(`not a world image URL: "${url}" (expected world://SEED/SPLIT/ID.jpg|png|gif)`);
  const [, seed, split, id, extension] = match;
  if (!isWorldSplit(split)) throw new Error(`world URL "${url}": unknown split "${split}"`);
  return { seed: Number(seed), split, id: Number(id), extension };
}

export function isWorldUrl(url: string): boolean {
  return url.startsWith('world://');
}
