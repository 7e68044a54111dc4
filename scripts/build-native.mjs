#!/usr/bin/env node
// Builds native/kernels.c into native/build/cckit_kernels.node with the system C compiler, Node's own
// headers (beside the node binary: nothing is downloaded) and OpenBLAS (Debian: libopenblas-dev).
// A machine without them still installs: this prints one line saying why and cckit uses its wasm kernels.
// CCKIT_NATIVE=0 skips the build; CCKIT_NATIVE=required makes a failed build an error (CI).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'native', 'kernels.c');
const outDir = path.join(root, 'native', 'build');
const out = path.join(outDir, 'cckit_kernels.node');
const mode = (process.env.CCKIT_NATIVE ?? '').toLowerCase();

function fail(why) {
  const line = `cckit: native kernels not built (${why}); training uses the wasm kernels`;
  if (mode === 'required') {
    console.error(line);
    process.exit(1);
  }
  console.warn(line);
  process.exit(0);
}

if (mode === '0' || mode === 'off') {
  console.log('cckit: native kernels skipped (CCKIT_NATIVE=0)');
  process.exit(0);
}
if (process.platform !== 'linux' && process.platform !== 'darwin') fail(`no build recipe for ${process.platform}`);

const nodeHeaders = [path.join(path.dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node'].find((d) =>
  fs.existsSync(path.join(d, 'node_api.h')),
);
if (!nodeHeaders) fail("Node's headers (node_api.h) not found beside the node binary");

// Debian puts cblas.h under the multiarch include dir; other layouts find it on the default path.
const includeDirs = [
  nodeHeaders,
  '/usr/include/x86_64-linux-gnu',
  '/usr/include/aarch64-linux-gnu',
  '/usr/include/openblas',
  '/opt/homebrew/opt/openblas/include',
].filter((d) => fs.existsSync(d));
const libDirs = ['/opt/homebrew/opt/openblas/lib', '/usr/local/opt/openblas/lib'].filter((d) => fs.existsSync(d));
const compiler = process.env.CC ?? 'cc';
const args = [
  '-O3',
  // built on the machine that runs it, like any source install: use its vector units
  '-march=native',
  '-fPIC',
  '-shared',
  '-std=c11',
  '-Wall',
  '-DNODE_GYP_MODULE_NAME=cckit_kernels',
  // lets the loader tell a build of an older kernels.c (src/tf/native-kernels.ts)
  `-DCCKIT_SOURCE_SHA256="${createHash('sha256').update(fs.readFileSync(source)).digest('hex')}"`,
  ...includeDirs.map((d) => `-I${d}`),
  source,
  '-o',
  `${out}.tmp`,
  ...libDirs.map((d) => `-L${d}`),
  '-lopenblas',
  // glibc's vector math (expf on 8 lanes); part of libc6-dev on Linux
  ...(process.platform === 'linux' ? ['-lmvec'] : []),
  '-lm',
  ...(process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : []),
];
fs.mkdirSync(outDir, { recursive: true });
const result = spawnSync(compiler, args, { encoding: 'utf8' });
if (result.error) fail(`${compiler}: ${result.error.message}`);
if (result.status !== 0) {
  const message = (result.stderr || result.stdout).trim().split('\n');
  const missing = message.find((l) => /cblas\.h|lopenblas|node_api\.h/.test(l));
  fail(missing ? `${missing.trim()} (Debian: apt-get install -y libopenblas-dev)` : `${compiler} failed: ${message.slice(-3).join(' | ')}`);
}
fs.renameSync(`${out}.tmp`, out);
console.log(`cckit: native kernels built (${path.relative(root, out)})`);
