/**
 * The one way cckit starts a worker thread: `startWorker(modulePath, main, data)` runs the function `main`, an
 * export of `modulePath`, as `main(data, port)` in a new thread (src/util/worker-entry.ts is its
 * main), from the build (dist/*.js) and from sources under tsx (the thread then loads tsx's
 * CommonJS hook). The main thread gets the function's result (or its error, with the worker's
 * stack) as `done`, and both sides exchange messages through `post` / `onMessage`.
 *
 * Used by the filter pool (src/util/worker-pool.ts), the data-parallel training replicas
 * (src/train/parallel.ts) and the experiment rows (src/experiments/runner.ts).
 */
import * as path from 'path';
import { parentPort, TransferListItem, Worker, workerData } from 'worker_threads';

/** Where the entry finds what to run (the rest of workerData is free). */
const BOOT = '__cckitWorker';

interface Boot {
  modulePath: string;
  exportName: string;
  data: unknown;
}

type Envelope = { message: unknown } | { done: unknown } | { error: string };

/** One side's end of the channel. */
export interface WorkerPort {
  post(message: unknown, transfer?: readonly TransferListItem[]): void;
  onMessage(listener: (message: any) => void): void; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A function a worker runs: its return value (awaited) comes back as `done`. */
export type WorkerMain<D, R = unknown> = (data: D, port: WorkerPort) => R | Promise<R>;

export interface StartedWorker<R = unknown> extends WorkerPort {
  readonly worker: Worker;
  /** The function's result; rejects with its error, a worker error, or an exit before it returned. */
  readonly done: Promise<R>;
  terminate(): Promise<number>;
}

/** Node options for a thread that loads TypeScript sources: tsx's CommonJS hook instead of its ESM loader. */
export function sourcesExecArgv(): string[] {
  const argv = process.execArgv;
  const out: string[] = [];
  const isTsx = (value: string | undefined) => /(^|[\\/])tsx([\\/@]|$)/.test(value ?? '');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // tsx's ESM loader does not reach a worker's main module: drop it, the CommonJS hook handles the sources
    if ((arg === '--import' || arg === '--loader' || arg === '--experimental-loader') && isTsx(argv[i + 1])) {
      i++;
      continue;
    }
    if (/^--(import|loader|experimental-loader)=/.test(arg) && isTsx(arg.slice(arg.indexOf('=') + 1))) continue;
    out.push(arg);
  }
  return [...out, '--require', require.resolve('tsx/cjs')];
}

/**
 * Starts `main(data, port)` in a worker thread. `main` is the function itself (so the job's and the result's types are
 * checked), exported under its own name by `modulePath` (the caller's `__filename`), where the thread finds it again.
 */
export function startWorker<D, R>(modulePath: string, main: WorkerMain<D, R>, data: D): StartedWorker<Awaited<R>> {
  const exportName = main.name;
  // the thread finds the function by module and name: a function not exported under its own name would be another one
  if ((require(modulePath) as Record<string, unknown>)[exportName] !== main)
    throw new Error(`startWorker: ${modulePath} does not export ${exportName || 'this function'} under its name`);
  const fromSources = path.extname(__filename) === '.ts' || path.extname(modulePath) === '.ts';
  const entry = path.join(__dirname, `worker-entry${path.extname(__filename)}`);
  const boot: Boot = { modulePath, exportName, data };
  const worker = new Worker(entry, { workerData: { [BOOT]: boot }, ...(fromSources ? { execArgv: sourcesExecArgv() } : {}) });
  const listeners: ((message: unknown) => void)[] = [];
  let settled = false;
  const done = new Promise<Awaited<R>>((resolve, reject) => {
    worker.on('message', (envelope: Envelope) => {
      if ('message' in envelope) for (const listener of listeners) listener(envelope.message);
      else if (settled) return;
      else if ('done' in envelope) {
        settled = true;
        resolve(envelope.done as Awaited<R>);
      } else {
        settled = true;
        reject(new Error(envelope.error));
      }
    });
    worker.on('error', (e) => {
      if (settled) return;
      settled = true;
      reject(e instanceof Error ? e : new Error(String(e)));
    });
    worker.on('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(new Error(`${exportName}: worker exited with code ${code}`));
    });
  });
  // a caller that only listens for messages must not get an unhandled rejection
  done.catch(() => {});
  return {
    worker,
    done,
    post: (message, transfer) => worker.postMessage({ message } satisfies Envelope, transfer),
    onMessage: (listener) => {
      listeners.push(listener);
    },
    terminate: () => worker.terminate(),
  };
}

/** The worker side (src/util/worker-entry.ts): run the named export, report its result or error. */
export function workerMain(): void {
  const port = parentPort;
  const boot = (workerData as Record<string, Boot> | undefined)?.[BOOT];
  if (!port || !boot) throw new Error('workerMain: not in a thread started by startWorker');
  const side: WorkerPort = {
    post: (message, transfer) => port.postMessage({ message } satisfies Envelope, transfer),
    onMessage: (listener) => {
      port.on('message', (envelope: Envelope) => {
        if ('message' in envelope) listener(envelope.message);
      });
    },
  };
  Promise.resolve()
    .then(() => {
      const main = require(boot.modulePath)[boot.exportName] as WorkerMain<unknown> | undefined;
      if (typeof main !== 'function') throw new Error(`${boot.modulePath} exports no function ${boot.exportName}`);
      return main(boot.data, side);
    })
    .then(
      (done) => port.postMessage({ done } satisfies Envelope),
      (e) => port.postMessage({ error: String((e as Error)?.stack ?? e) } satisfies Envelope),
    );
}
