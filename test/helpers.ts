import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PACKAGE_ROOT } from '../src/paths';
import { World } from '../src/world/world';
import { serveWorld, type WorldServer } from '../src/world/server';

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

/**
 * The embedded world's web (seed 0) served on loopback for one test file, with a scratch folder: the URL of a web
 * image, a URL list written into the folder, and `close` for the file's `after` hook.
 */
export interface WorldWeb {
  world: World;
  server: WorldServer;
  dir: string;
  /** The served URL of web image `id`, with the extension its format has. */
  url(id: number): string;
  /** Writes a `url<TAB>caption` list into the scratch folder and returns its path. */
  writeList(name: string, rows: [string, string][]): string;
  close(): Promise<void>;
}

export async function serveWorldWeb(name: string, options: { hostile: boolean }): Promise<WorldWeb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cckit-${name}-`));
  const world = new World({ seed: 0 });
  const server = await serveWorld(world, options);
  return {
    world,
    server,
    dir,
    url(id) {
      const format = world.scene('web', id).format;
      return `${server.url}/0/web/${id}.${{ jpeg: 'jpg', png: 'png', gif: 'gif' }[format]}`;
    },
    writeList(file, rows) {
      const out = path.join(dir, file);
      fs.writeFileSync(out, rows.map(([url, caption]) => `${url}\t${caption}\n`).join(''));
      return out;
    },
    async close() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The step scale the notebook tests run every notebook at (`CCKIT_NOTEBOOK_STEP_SCALE`; test/notebooks.test.ts and
 * test/vscode.test.ts share it, so the second reuses the first's runs): a quarter of every training stage's steps.
 */
export const NOTEBOOK_STEP_SCALE = process.env.CCKIT_NOTEBOOK_STEP_SCALE ?? '0.25';
