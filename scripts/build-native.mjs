#!/usr/bin/env node
// Builds native/ (kernels.c, sgemm.c, ops.c) into native/build/cckit_kernels.node with the system C
// compiler and Node's own headers (beside the node binary: nothing is downloaded, no BLAS, no libmvec).
// No -march=native: the vector kernels are compiled for their instruction sets by target attributes and
// chosen at run time, so one build runs on any CPU of its architecture with the same results.
// A machine without a compiler still installs: this prints one line saying why and cckit uses its wasm kernels.
// CCKIT_NATIVE=0 skips the build; CCKIT_NATIVE=required makes a failed build an error (CI).
// CCKIT_NATIVE_OPENBLAS=1 also builds native/build/cckit_kernels_openblas.node (matrix products on
// OpenBLAS, for `npm run bench:matmul` / `bench:train` to compare against) where cblas.h and -lopenblas exist.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = path.join(root, 'native');
const sources = ['kernels.c', 'sgemm.c', 'ops.c'].map((f) => path.join(nativeDir, f));
const outDir = path.join(nativeDir, 'build');
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

/** The sources' digest (native/source-digest.cjs, shared with src/tf/native-kernels.ts). */
const sourceDigest = () => createRequire(import.meta.url)('../native/source-digest.cjs').nativeSourceDigest(nativeDir);

if (mode === '0' || mode === 'off') {
  console.log('cckit: native kernels skipped (CCKIT_NATIVE=0)');
  process.exit(0);
}
if (process.platform !== 'linux' && process.platform !== 'darwin') fail(`no build recipe for ${process.platform}`);

const nodeHeaders = [path.join(path.dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node'].find((d) =>
  fs.existsSync(path.join(d, 'node_api.h')),
);
if (!nodeHeaders) fail("Node's headers (node_api.h) not found beside the node binary");

const compiler = process.env.CC ?? 'cc';
const common = [
  '-O3',
  // IEEE arithmetic as written: no fused contraction of a*b+c, no reassociation (the kernel paths' bit-identity rests on it)
  '-ffp-contract=off',
  '-fno-math-errno',
  '-fPIC',
  '-shared',
  '-std=c11',
  '-D_POSIX_C_SOURCE=200809L',
  '-pthread',
  '-Wall',
  '-DNODE_GYP_MODULE_NAME=cckit_kernels',
  // lets the loader tell a build of older sources (src/tf/native-kernels.ts)
  `-DCCKIT_SOURCE_SHA256="${sourceDigest()}"`,
  `-I${nodeHeaders}`,
];
const tail = ['-lm', ...(process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : [])];

function compile(extra, target, libs) {
  fs.mkdirSync(outDir, { recursive: true });
  return spawnSync(compiler, [...common, ...extra, ...sources, '-o', `${target}.tmp`, ...libs, ...tail], { encoding: 'utf8' });
}

const result = compile([], out, []);
if (result.error) fail(`${compiler}: ${result.error.message} (Debian: apt-get install -y gcc, or bash scripts/native-setup.sh)`);
if (result.status !== 0) {
  const message = (result.stderr || result.stdout).trim().split('\n');
  const missing = message.find((l) => /node_api\.h/.test(l));
  fail(missing ? missing.trim() : `${compiler} failed: ${message.slice(-3).join(' | ')}`);
}
fs.renameSync(`${out}.tmp`, out);
console.log(`cckit: native kernels built (${path.relative(root, out)})`);

if (process.env.CCKIT_NATIVE_OPENBLAS === '1') {
  // the comparison build: the same addon with the matrix product on OpenBLAS (Debian puts cblas.h under the multiarch dir)
  const includeDirs = ['/usr/include/x86_64-linux-gnu', '/usr/include/aarch64-linux-gnu', '/usr/include/openblas', '/opt/homebrew/opt/openblas/include'].filter(
    (d) => fs.existsSync(d),
  );
  const libDirs = ['/opt/homebrew/opt/openblas/lib', '/usr/local/opt/openblas/lib'].filter((d) => fs.existsSync(d));
  const compare = path.join(outDir, 'cckit_kernels_openblas.node');
  const r = compile(['-DCCKIT_GEMM_OPENBLAS', ...includeDirs.map((d) => `-I${d}`)], compare, [...libDirs.map((d) => `-L${d}`), '-lopenblas']);
  if (r.status === 0) {
    fs.renameSync(`${compare}.tmp`, compare);
    console.log(`cckit: OpenBLAS comparison kernels built (${path.relative(root, compare)})`);
  } else {
    fs.rmSync(`${compare}.tmp`, { force: true });
    console.log(`cckit: no OpenBLAS comparison build (${(r.stderr || r.stdout || String(r.error)).trim().split('\n')[0]})`);
  }
}
