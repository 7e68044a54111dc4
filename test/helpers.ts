import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PACKAGE_ROOT } from '../src/paths';

export const GOLDEN_FILE = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'caption-metrics-public.json');

export interface Golden {
  images: { image_id: string; references: string[]; candidate: string }[];
  corpus: Record<string, number>;
  per_image: Record<string, Record<string, number>>;
}

export function readGolden(): Golden {
  return JSON.parse(fs.readFileSync(GOLDEN_FILE, 'utf8')) as Golden;
}

/** Writes text to a fresh temporary file and returns its path. */
export function tempFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-test-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Runs the built CLI (bin/cckit.js → dist/, built by `npm test`). */
export function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'cckit.js'), ...args], { encoding: 'utf8', cwd: PACKAGE_ROOT });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
