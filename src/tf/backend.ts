/**
 * The one place that picks the TensorFlow.js backend for cckit (training and the NSFW filter).
 *
 * Order: `tensorflow` (native; from the optional `@tensorflow/tfjs-node-gpu`, then
 * `@tensorflow/tfjs-node`, neither a dependency), `wasm-native` (tfjs's wasm backend with cckit's
 * native kernels, `./native-kernels`: cckit's own SGEMM, fused ops and in-place optimiser updates,
 * the same bits on every CPU, where the addon was built), `wasm` (`@tensorflow/tfjs-backend-wasm` alone, its `.wasm` binaries read from
 * the package's `dist` folder on disk, so nothing is fetched), `cpu`. The first that loads wins.
 * `CCKIT_BACKEND=tensorflow|wasm-native|wasm|cpu` forces one and fails (naming the variable) when
 * that one cannot load.
 *
 * On both wasm variants, the kernels training needs that tfjs-backend-wasm 4.22 lacks are
 * registered first (`./wasm-kernels`), as is the fast transposed BatchMatMul.
 *
 * The choice is tfjs-global (it applies to every tfjs user in the process). `initBackend` is
 * idempotent: calls with the same order share one selection (and make it current again if
 * something switched tfjs's backend since); a call asking for another order selects again.
 */
import type * as TF from '@tensorflow/tfjs';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { loadNativeAddon, nativeKernelsActive, nativeKernelsInfo, useNativeKernels } from './native-kernels';

export type BackendName = 'tensorflow' | 'wasm-native' | 'wasm' | 'cpu';

export const BACKEND_ENV_VAR = 'CCKIT_BACKEND';
export const DEFAULT_BACKEND_ORDER: readonly BackendName[] = ['tensorflow', 'wasm-native', 'wasm', 'cpu'];

/** The tfjs backend under a cckit backend name (wasm-native is tfjs's wasm with other kernels). */
export function tfjsBackendName(name: BackendName): string {
  return name === 'wasm-native' ? 'wasm' : name;
}
/** The native packages tried for `tensorflow`, in order. */
export const NATIVE_PACKAGES: readonly string[] = ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'];

export interface BackendInfo {
  name: BackendName;
  /** Version of the package providing the backend (tfjs-node, tfjs-backend-wasm, tfjs-core). */
  version: string;
  /** Threads the backend computes with (wasm: XNNPACK's pool; tensorflow: the CPUs; cpu: 1). */
  threads: number;
  /** wasm-native: the native kernels' path and threads (e.g. "cckit avx512, 1 thread"). */
  kernels?: string;
  /** Backends tried before this one, with why each failed. */
  skipped: { name: BackendName; error: string }[];
}

export interface InitBackendOptions {
  /** Backends to try, in order (default tensorflow, wasm, cpu). Ignored when the env var is set. */
  order?: readonly BackendName[];
  /** Environment to read `CCKIT_BACKEND` from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Receives the one line naming the backend (default: stderr). */
  logger?: (line: string) => void;
  /** wasm threads, where the wasm build supports threads (default: the CPUs). */
  threads?: number;
  /** Module loader (default `require`); tests inject one to stand in for the native packages. */
  requireFn?: (id: string) => unknown;
}

type Tfjs = typeof TF;
type WasmModule = typeof import('@tensorflow/tfjs-backend-wasm');

export function loadTf(): Tfjs {
  return require('@tensorflow/tfjs') as Tfjs;
}

function isBackendName(s: string): s is BackendName {
  return (DEFAULT_BACKEND_ORDER as readonly string[]).includes(s);
}

function cpuCount(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Why a native tfjs package cannot load (not installed, or its addon was never built), or undefined. */
function missingNativeAddon(pkg: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    return 'not installed';
  }
  const lib = path.join(dir, 'lib');
  const built = fs.existsSync(lib) && fs.readdirSync(lib).some((d) => fs.existsSync(path.join(lib, d, 'tfjs_binding.node')));
  return built ? undefined : "installed without its native addon (the package's install script, which downloads libtensorflow, did not run)";
}

/** Loads the code behind one backend and makes it current; throws with the reason when it cannot. */
async function activate(tf: Tfjs, name: BackendName, options: InitBackendOptions): Promise<{ version: string; threads: number; kernels?: string }> {
  const req = options.requireFn ?? require;
  let version = tf.version_core;
  let threads = 1;
  let kernels: string | undefined;
  // fails early, before the wasm backend is set up, when the addon is not built
  if (name === 'wasm-native') loadNativeAddon();
  if (name === 'tensorflow') {
    const errors: string[] = [];
    let loaded = false;
    for (const pkg of NATIVE_PACKAGES) {
      try {
        // Without its addon (npm 11 skips the install script; offline npm 10 fails it) requiring the
        // package half-registers its kernels and prints a warning per kernel on the next try: look first.
        if (!options.requireFn) {
          const missing = missingNativeAddon(pkg);
          if (missing) {
            errors.push(`${pkg}: ${missing}`);
            continue;
          }
        }
        const mod = req(pkg) as { version?: Record<string, string> } | undefined;
        version = mod?.version?.['tfjs-node'] ?? mod?.version?.['tfjs-node-gpu'] ?? version;
        loaded = true;
        break;
      } catch (e) {
        errors.push(`${pkg}: ${message(e).split('\n')[0]}`);
      }
    }
    if (!loaded) throw new Error(`no native package (${errors.join('; ')})`);
    threads = cpuCount();
  } else if (name === 'wasm' || name === 'wasm-native') {
    const wasm = req('@tensorflow/tfjs-backend-wasm') as WasmModule;
    // read the .wasm binaries from the package on disk instead of a CDN
    const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(dist + path.sep);
    if (typeof wasm.setThreadsCount === 'function' && (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'))) {
      wasm.setThreadsCount(options.threads ?? cpuCount());
    }
    // before setBackend, so the kernels' setup runs with the backend's initialisation
    (require('./wasm-kernels') as typeof import('./wasm-kernels')).registerWasmKernels();
    version = wasm.version_wasm;
    useNativeKernels(name === 'wasm-native');
    if (name === 'wasm-native') {
      kernels = nativeKernelsInfo().description;
    }
  }
  const tfName = tfjsBackendName(name);
  if (!(await tf.setBackend(tfName))) throw new Error(`tf.setBackend('${tfName}') failed`);
  await tf.ready();
  if (tf.getBackend() !== tfName) throw new Error(`backend is ${tf.getBackend()} after setBackend('${tfName}')`);
  if (tfName === 'wasm') {
    const wasm = req('@tensorflow/tfjs-backend-wasm') as WasmModule;
    threads = typeof wasm.getThreadsCount === 'function' ? wasm.getThreadsCount() : 1;
  }
  return { version, threads, kernels };
}

let current: { key: string; pending: Promise<BackendInfo> } | null = null;

/** The order to try: `CCKIT_BACKEND` alone when set, else `options.order`, else the default. */
export function backendOrder(options: InitBackendOptions = {}): { order: BackendName[]; forced: boolean } {
  const raw = (options.env ?? process.env)[BACKEND_ENV_VAR]?.trim().toLowerCase();
  if (raw) {
    if (!isBackendName(raw)) throw new Error(`${BACKEND_ENV_VAR}=${raw}: expected one of ${DEFAULT_BACKEND_ORDER.join(', ')}`);
    return { order: [raw], forced: true };
  }
  return { order: [...(options.order ?? DEFAULT_BACKEND_ORDER)], forced: false };
}

/** Selects the best backend that loads (see the module comment) and logs one line naming it. */
export function initBackend(options: InitBackendOptions = {}): Promise<BackendInfo> {
  let plan: { order: BackendName[]; forced: boolean };
  try {
    plan = backendOrder(options);
  } catch (e) {
    return Promise.reject(e);
  }
  const key = `${plan.forced ? 'env:' : ''}${plan.order.join(',')}`;
  if (current && current.key === key) return current.pending.then(reselect);
  const pending = select(plan.order, plan.forced, options);
  const entry = { key, pending };
  current = entry;
  // a failed selection is not cached, so a later call retries
  pending.catch(() => {
    if (current === entry) current = null;
  });
  return pending;
}

/** The cached choice, made current again if something switched tfjs's backend since (no log). */
async function reselect(info: BackendInfo): Promise<BackendInfo> {
  const tf = loadTf();
  const tfName = tfjsBackendName(info.name);
  if (tfName === 'wasm' && nativeKernelsActive() !== (info.name === 'wasm-native')) useNativeKernels(info.name === 'wasm-native');
  if (tf.getBackend() !== tfName) {
    if (!(await tf.setBackend(tfName))) throw new Error(`tf.setBackend('${tfName}') failed`);
    await tf.ready();
  }
  return info;
}

async function select(order: BackendName[], forced: boolean, options: InitBackendOptions): Promise<BackendInfo> {
  const tf = loadTf();
  const skipped: BackendInfo['skipped'] = [];
  for (const name of order) {
    try {
      const { version, threads, kernels } = await activate(tf, name, options);
      const info: BackendInfo = { name, version, threads, kernels, skipped };
      const log = options.logger ?? ((line: string) => process.stderr.write(line + '\n'));
      // the native kernels' absence is worth its reason: it costs several times the training time
      const nativeSkip = skipped.find((s) => s.name === 'wasm-native');
      const why = skipped.length ? ` (skipped ${skipped.map((s) => s.name).join(', ')}${nativeSkip ? `; native kernels: ${nativeSkip.error}` : ''})` : '';
      const what = kernels ? ` (native kernels: ${kernels})` : '';
      log(`cckit: tfjs backend ${name} ${version}, ${threads} thread${threads === 1 ? '' : 's'}${what}${forced ? ` (${BACKEND_ENV_VAR})` : ''}${why}`);
      return info;
    } catch (e) {
      skipped.push({ name, error: message(e) });
    }
  }
  if (forced) throw new Error(`${BACKEND_ENV_VAR}=${order[0]}: the ${order[0]} backend could not be loaded (${skipped[0]?.error})`);
  throw new Error(`no TensorFlow.js backend could be loaded (tried ${skipped.map((s) => `${s.name}: ${s.error}`).join('; ')})`);
}

/** Forgets the cached selection (tests); the tfjs backend stays as it is. */
export function resetBackendSelection(): void {
  current = null;
}

/**
 * The backend as far as it changes the floats: tfjs's backend name, with "-native" where cckit's native kernels
 * replace wasm's (they round differently). Cached weights trained on one must not be loaded as the other's.
 */
export function numericBackend(): string {
  return `${loadTf().getBackend()}${nativeKernelsActive() ? '-native' : ''}`;
}
