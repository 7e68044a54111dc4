/** Where the package's own files are, from source (tsx) or from the build (dist/src). */
import * as fs from 'fs';
import * as path from 'path';

function findPackageRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cckit: no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot(__dirname);
export const FIXTURES_DIR = path.join(PACKAGE_ROOT, 'test', 'fixtures');
