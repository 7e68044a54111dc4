/**
 * Where the kernel comes from. The extension does not ship the kernel or tslab: cells run on the kernel of
 * a cckit checkout or installed package, so the library a cell `require`s and the kernel that runs it are
 * the same version. Tried in order: the `cckit.root` setting, each workspace folder that is a cckit
 * checkout, each workspace folder's `node_modules/cckit`. A candidate must have `package.json` named
 * "cckit" and the built kernel (`dist/kernel/host.js`, made by `npm ci` / `npm run build`). Finding the
 * root reads only `package.json` and file names; loading the kernel takes a workspace-trust grant (trust.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { createRequire } from 'module';
import type { Kernel, KernelOptions } from '../../kernel/host';
import { isTrustGrant, type TrustGrant } from './trust';

export interface KernelModule {
  Kernel: new (options?: KernelOptions) => Kernel;
}

export type RootResult = { root: string; hostJs: string } | { error: string };

export function candidateRoots(setting: string | undefined, folders: string[]): string[] {
  const out: string[] = [];
  if (setting && setting.trim()) out.push(path.resolve(folders[0] ?? process.cwd(), setting.trim()));
  for (const f of folders) out.push(f, path.join(f, 'node_modules', 'cckit'));
  return [...new Set(out)];
}

export function findCckitRoot(candidates: string[]): RootResult {
  const problems: string[] = [];
  for (const dir of candidates) {
    const pkg = path.join(dir, 'package.json');
    let name: string | undefined;
    try {
      name = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name;
    } catch {
      continue;
    }
    if (name !== 'cckit') continue;
    const hostJs = path.join(dir, 'dist', 'kernel', 'host.js');
    if (!fs.existsSync(hostJs)) {
      problems.push(`${dir} is cckit but its kernel is not built (run \`npm ci\` or \`npm run build\` there)`);
      continue;
    }
    if (!fs.existsSync(path.join(dir, 'node_modules', 'tslab')) && !fs.existsSync(path.join(dir, '..', 'tslab'))) {
      problems.push(`${dir} has no tslab installed (run \`npm ci\` there)`);
      continue;
    }
    return { root: dir, hostJs };
  }
  return {
    error:
      problems.join('; ') ||
      `no cckit found (looked in: ${candidates.join(', ') || 'no workspace folder'}). Open a cckit checkout (with \`npm ci\` done) as the workspace, install cckit in the workspace's node_modules, or set "cckit.root".`,
  };
}

const loaded = new Map<string, KernelModule>();

/**
 * Load a cckit's kernel module into this process: workspace code, so only with a grant from
 * `requireTrust` (trust.ts), made when the workspace was trusted.
 */
export function loadKernelModule(hostJs: string, grant: TrustGrant): KernelModule {
  if (!isTrustGrant(grant)) throw new Error(`not loading ${hostJs}: no workspace trust was granted for it`);
  let m = loaded.get(hostJs);
  if (!m) {
    m = createRequire(__filename)(hostJs) as KernelModule;
    loaded.set(hostJs, m);
  }
  return m;
}
