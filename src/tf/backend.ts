/**
 * The one place that picks the TensorFlow.js backend for cckit (training and the NSFW filter).
 *
 * Order: `tensorflow` (native; from the optional `@tensorflow/tfjs-node-gpu`, then
 * `@tensorflow/tfjs-node`, neither a dependency), `wasm` (`@tensorflow/tfjs-backend-wasm`, its
 * `.wasm` binaries read from the package's `dist` folder on disk, so nothing is fetched), `cpu`.
 * The first that loads wins. `CCKIT_BACKEND=tensorflow|wasm|cpu` forces one backend and fails
 * (naming the variable) when that backend cannot load.
 *
 * On wasm, the kernels training needs that tfjs-backend-wasm 4.22 lacks are registered first
 * (`./wasm-kernels`), as is the fast transposed BatchMatMul.
 *
 * The choice is tfjs-global (it applies to every tfjs user in the process). `initBackend` is
 * idempotent: calls with the same order share one selection (and make it current again if
 * something switched tfjs's backend since); a call asking for another order selects again.
 */
import type * as TF from '@tensorflow/tfjs';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export type BackendName = 'tensorflow' | 'wasm' | 'cpu';

export const BACKEND_ENV_VAR = 'CCKIT_BACKEND';
export const DEFAULT_BACKEND_ORDER: readonly BackendName[] = ['tensorflow', 'wasm', 'cpu'];
/** The native packages tried for `tensorflow`, in order. */
export const NATIVE_PACKAGES: readonly string[] = ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'];

export interface BackendInfo {
  name: BackendName;
  /** Version of the package providing the backend (tfjs-node, tfjs-backend-wasm, tfjs-core). */
  version: string;
  /** Threads the backend computes with (wasm: XNNPACK's pool; tensorflow: the CPUs; cpu: 1). */
  threads: number;
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
async function activate(tf: Tfjs, name: BackendName, options: InitBackendOptions): Promise<{ version: string; threads: number }> {
  const req = options.requireFn ?? require;
  let version = tf.version_core;
  let threads = 1;
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
  } else if (name === 'wasm') {
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
  }
  if (!(await tf.setBackend(name))) throw new Error(`tf.setBackend('${name}') failed`);
  await tf.ready();
  if (tf.getBackend() !== name) throw new Error(`backend is ${tf.getBackend()} after setBackend('${name}')`);
  if (name === 'wasm') {
    const wasm = req('@tensorflow/tfjs-backend-wasm') as WasmModule;
    threads = typeof wasm.getThreadsCount === 'function' ? wasm.getThreadsCount() : 1;
  }
  return { version, threads };
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
  if (tf.getBackend() !== info.name) {
    if (!(await tf.setBackend(info.name))) throw new Error(`tf.setBackend('${info.name}') failed`);
    await tf.ready();
  }
  return info;
}

async function select(order: BackendName[], forced: boolean, options: InitBackendOptions): Promise<BackendInfo> {
  const tf = loadTf();
  const skipped: BackendInfo['skipped'] = [];
  for (const name of order) {
    try {
      const { version, threads } = await activate(tf, name, options);
      const info: BackendInfo = { name, version, threads, skipped };
      const log = options.logger ?? ((line: string) => process.stderr.write(line + '\n'));
      const why = skipped.length ? ` (skipped ${skipped.map((s) => s.name).join(', ')})` : '';
      log(`cckit: tfjs backend ${name} ${version}, ${threads} thread${threads === 1 ? '' : 's'}${forced ? ` (${BACKEND_ENV_VAR})` : ''}${why}`);
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
