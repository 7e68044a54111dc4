/**
 * `cckit doctor`: which TensorFlow.js backends are installed, which load, why the others do not, and
 * which one a run would use. Each backend is tried in a child process of its own, so a native
 * package that half-loads cannot leave this process (or the next check) in a bad state.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { BACKEND_ENV_VAR, BackendName, DEFAULT_BACKEND_ORDER, NATIVE_PACKAGES } from '../tf/backend';
import { nativeAddonPath, NATIVE_THREADS_ENV_VAR } from '../tf/native-kernels';

interface Probe {
  name: BackendName;
  ok: boolean;
  detail: string;
}

/** What libtensorflow 2.9.1 (tfjs-node 4.x) was built against, for the GPU package. */
export const TFJS_NODE_GPU_NEEDS = 'CUDA 11.2 and cuDNN 8.1 (libtensorflow 2.9.1, as @tensorflow/tfjs-node-gpu 4.x downloads it)';

/** Loads one backend in a child process and reports the backend line or the error. */
function probe(name: BackendName): Probe {
  const backendModule = path.join(__dirname, '..', 'tf', 'backend');
  const script = `
    const { initBackend } = require(${JSON.stringify(backendModule)});
    initBackend({ env: { ${BACKEND_ENV_VAR}: ${JSON.stringify(name)} }, logger: () => {} })
      .then((info) => { console.log(JSON.stringify({ ok: true, info })); process.exit(0); })
      .catch((e) => { console.log(JSON.stringify({ ok: false, error: String(e && e.message || e) })); process.exit(0); });`;
  const out = spawnSync(process.execPath, [...process.execArgv, '-e', script], { encoding: 'utf8', timeout: 60_000 });
  const line = out.stdout.trim().split('\n').at(-1) ?? '';
  try {
    const r = JSON.parse(line) as { ok: boolean; info?: { version: string; threads: number; kernels?: string }; error?: string };
    if (r.ok && r.info) {
      const { version, threads, kernels } = r.info;
      return { name, ok: true, detail: `loads: ${version}, ${threads} thread${threads === 1 ? '' : 's'}${kernels ? `; ${kernels}` : ''}` };
    }
    return { name, ok: false, detail: (r.error ?? 'unknown error').replace(`${BACKEND_ENV_VAR}=${name}: `, '') };
  } catch {
    return { name, ok: false, detail: `the check crashed: ${(out.stderr || out.error?.message || '').trim().split('\n').slice(-2).join(' | ')}` };
  }
}

function packageVersion(pkg: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** NVIDIA driver and CUDA/cuDNN libraries the dynamic loader can see (for the GPU package). */
function gpuLines(): string[] {
  const lines: string[] = [];
  const smi = spawnSync('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader'], { encoding: 'utf8' });
  lines.push(smi.status === 0 ? `NVIDIA GPU: ${smi.stdout.trim().split('\n').join('; ')}` : 'NVIDIA GPU: none found (nvidia-smi did not run)');
  const ldconfig = spawnSync('ldconfig', ['-p'], { encoding: 'utf8' });
  if (ldconfig.status === 0) {
    const find = (lib: string) =>
      [...new Set([...ldconfig.stdout.matchAll(new RegExp(`${lib}\\.so\\.[0-9.]+`, 'g'))].map((m) => m[0]))].join(', ') || 'not found';
    lines.push(`CUDA runtime: ${find('libcudart')}; cuDNN: ${find('libcudnn')} (the GPU package needs ${TFJS_NODE_GPU_NEEDS})`);
  }
  return lines;
}

export function doctorReport(): string {
  const lines: string[] = [];
  const cpus = os.cpus();
  lines.push(`node ${process.version} on ${process.platform}-${process.arch}; ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'})`);
  lines.push(`tfjs ${packageVersion('@tensorflow/tfjs') ?? 'missing'}, tfjs-backend-wasm ${packageVersion('@tensorflow/tfjs-backend-wasm') ?? 'missing'}`);
  for (const pkg of NATIVE_PACKAGES) lines.push(`${pkg}: ${packageVersion(pkg) ? `installed (${packageVersion(pkg)})` : 'not installed'}`);
  const addon = nativeAddonPath();
  lines.push(
    `cckit native kernels: ${fs.existsSync(addon) ? addon : `not built (${addon}; npm run build:native; it needs a C compiler; Debian: bash scripts/native-setup.sh)`}`,
  );
  lines.push(...gpuLines());
  lines.push('');
  lines.push('backends, in the order cckit tries them:');
  const probes = DEFAULT_BACKEND_ORDER.map(probe);
  for (const p of probes) lines.push(`  ${p.ok ? '✓' : '✗'} ${p.name.padEnd(12)} ${p.detail}`);
  const forced = process.env[BACKEND_ENV_VAR];
  const chosen = forced ? probes.find((p) => p.name === forced) : probes.find((p) => p.ok);
  lines.push('');
  if (forced) lines.push(`${BACKEND_ENV_VAR}=${forced}: runs use ${forced}${chosen?.ok ? '' : ', which does not load: they will fail'}`);
  else
    lines.push(
      `runs use: ${chosen?.name ?? 'nothing (no backend loads)'} (set ${BACKEND_ENV_VAR} or --backend to force one; ${NATIVE_THREADS_ENV_VAR} sets the native kernels' threads, CCKIT_KERNEL_PATH forces a kernel path)`,
    );
  lines.push('each run records its backend and kernels in run.json ("backend", "kernels")');
  return lines.join('\n');
}

export function runDoctor(): void {
  console.log(doctorReport());
}
