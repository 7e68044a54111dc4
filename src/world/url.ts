/**
 * `world://SEED/SPLIT/ID.EXT` names one image of the embedded world; its bytes are rendered on
 * demand from (seed, split, id), so a TSV of world URLs is as good as a folder of images. A world
 * built with another Zipf exponent than the default 1 (`cckit world build --zipf`) draws other
 * scenes, so its URLs end in `?zipf=EXPONENT`: the URL alone must name the image.
 */
import { ImageFormat } from './types';
import { WorldSplit, isWorldSplit } from './splits';

export interface WorldImageRef {
  seed: number;
  split: WorldSplit;
  id: number;
  /** The world's Zipf exponent where it is not the default 1. */
  zipf?: number;
}

export const FORMAT_EXTENSION: Record<ImageFormat, string> = { jpeg: 'jpg', png: 'png', gif: 'gif' };

export function worldUrl(ref: WorldImageRef, format: ImageFormat): string {
  return `world://${ref.seed}/${ref.split}/${ref.id}.${FORMAT_EXTENSION[format]}${zipfSuffix(ref.zipf)}`;
}

/** A Zipf exponent as world URLs and caption files name it: undefined for the default 1 (or anything not a positive number). */
export function nonDefaultZipf(zipf: unknown): number | undefined {
  return typeof zipf === 'number' && zipf > 0 && zipf !== 1 ? zipf : undefined;
}

/** The URL suffix of a world's Zipf exponent: none for the default 1. */
function zipfSuffix(zipf: number | undefined): string {
  const named = nonDefaultZipf(zipf);
  return named === undefined ? '' : `?zipf=${named}`;
}

const PATTERN = /^(?:world:\/)?\/(\d+)\/([a-z-]+)\/(\d+)\.(jpg|png|gif)(?:\?zipf=(\d+(?:\.\d+)?))?$/;

/** Parses a world URL (or its path); throws naming what is wrong. */
export function parseWorldUrl(url: string): WorldImageRef & { extension: string } {
  const match = PATTERN.exec(url);
  if (!match) throw new Error(`not a world image URL: "${url}" (expected world://SEED/SPLIT/ID.jpg|png|gif, optionally ?zipf=EXPONENT)`);
  const [, seed, split, id, extension, zipf] = match;
  if (!isWorldSplit(split)) throw new Error(`world URL "${url}": unknown split "${split}"`);
  const ref = { seed: Number(seed), split, id: Number(id), extension };
  // past 2^53 two seeds (or ids) would read as one number and name the same images
  if (!Number.isSafeInteger(ref.seed) || !Number.isSafeInteger(ref.id))
    throw new Error(`world URL "${url}": the seed and id must be at most ${Number.MAX_SAFE_INTEGER}`);
  if (zipf === undefined) return ref;
  if (!(Number(zipf) > 0 && Number.isFinite(Number(zipf)))) throw new Error(`world URL "${url}": the Zipf exponent must be a positive, finite number`);
  const named = nonDefaultZipf(Number(zipf));
  return named === undefined ? ref : { ...ref, zipf: named };
}

export function isWorldUrl(url: string): boolean {
  return url.startsWith('world://');
}
