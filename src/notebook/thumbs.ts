/**
 * A run's thumbnails for notebook outputs (caption grids, comparisons): only files inside the run, judged
 * by real path (`../` in the name, or a symlink out of the run, does not count), as data: URIs or paths.
 */
import * as fs from 'fs';
import * as path from 'path';

function insideDir(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

/**
 * A prediction's thumbnail as a real path (symlinks resolved) when it is a file inside the run's real
 * directory; undefined when it is missing or lies outside the run (`../` in its name, or a symlink out).
 */
export function thumbInRun(runDir: string, thumb: string): string | undefined {
  try {
    const realRun = fs.realpathSync(runDir);
    const real = fs.realpathSync(path.resolve(realRun, thumb));
    return insideDir(real, realRun) && fs.statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** How a grid gives its images: inlined as data: URIs, as paths relative to a base folder, or not at all. */
export type ImageMode = 'data' | 'path' | 'none';

/** A run's thumbnail for a grid item (see `thumbInRun`), or undefined when it is not shown. */
export function thumbImage(runDir: string, thumb: string | undefined, images: ImageMode, baseDir = process.cwd()): string | undefined {
  if (!thumb || images === 'none') return undefined;
  const real = thumbInRun(runDir, thumb);
  if (!real) return undefined;
  if (images === 'path') return path.relative(baseDir, path.resolve(runDir, thumb));
  return `data:${/\.png$/i.test(real) ? 'image/png' : 'image/jpeg'};base64,${fs.readFileSync(real).toString('base64')}`;
}
