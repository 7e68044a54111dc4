/**
 * A run's thumbnails for notebook outputs (caption grids, comparisons): only images cckit wrote, judged by real
 * path — inside the run's own `thumbs/` (`../` in the name, or a symlink out, does not count), in a run folder that
 * is itself where it says (not a link to elsewhere), a JPEG or PNG by its first bytes, and at most
 * `MAX_THUMB_BYTES` — as data: URIs or paths. A run folder from elsewhere cannot turn a grid into a file reader.
 */
import * as fs from 'fs';
import * as path from 'path';

import { THUMBS_DIR } from '../runs/layout';

/** The largest thumbnail inlined (cckit's own are 160 px JPEGs of a few KB). */
export const MAX_THUMB_BYTES = 1 << 20;

function insideDir(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

/**
 * A prediction's thumbnail as a real path (symlinks resolved) when it is a regular file of at most
 * `MAX_THUMB_BYTES` inside the run's `thumbs/`, and the run folder's real path lies inside its parent's (a run folder
 * that is a link to elsewhere shows none); undefined otherwise.
 */
export function thumbInRun(runDir: string, thumb: string): string | undefined {
  try {
    const realRun = fs.realpathSync(runDir);
    if (!insideDir(realRun, fs.realpathSync(path.dirname(path.resolve(runDir))))) return undefined;
    const real = fs.realpathSync(path.resolve(realRun, thumb));
    const stat = fs.statSync(real);
    return insideDir(real, path.join(realRun, THUMBS_DIR)) && stat.isFile() && stat.size <= MAX_THUMB_BYTES ? real : undefined;
  } catch {
    return undefined;
  }
}

/** How a grid gives its images: inlined as data: URIs, as paths relative to a base folder, or not at all. */
export type ImageMode = 'data' | 'path' | 'none';

/** The image type of a thumbnail's bytes: JPEG or PNG by their signatures, else undefined. */
function imageType(bytes: Buffer): 'image/jpeg' | 'image/png' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  return undefined;
}

/** A run's thumbnail for a grid item (see `thumbInRun`), or undefined when it is not shown. */
export function thumbImage(runDir: string, thumb: string | undefined, images: ImageMode, baseDir = process.cwd()): string | undefined {
  if (!thumb || images === 'none') return undefined;
  const real = thumbInRun(runDir, thumb);
  if (!real) return undefined;
  if (images === 'path') return path.relative(baseDir, path.resolve(runDir, thumb));
  const bytes = fs.readFileSync(real);
  const type = imageType(bytes);
  return type && bytes.length <= MAX_THUMB_BYTES ? `data:${type};base64,${bytes.toString('base64')}` : undefined;
}
