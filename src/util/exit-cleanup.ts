/**
 * One place that runs cleanups (temporary files, lock files) when the process ends: on exit, and on
 * SIGINT or SIGTERM when nothing else handles the signal, after which the process dies by that
 * signal (exit status 128 + n) as it would have without us. One handler per signal for every
 * cleanup, so two users of this module never mistake each other for a foreign handler (the
 * notebook kernel's SIGINT, which interrupts a cell) and swallow the signal between them.
 */
import { isMainThread } from 'worker_threads';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const cleanups = new Set<() => void>();
let installed = false;

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // a cleanup that fails must not keep the others from running, nor the process from ending
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // someone else handles this signal: it decides whether the process ends ('exit' cleans up then)
  if (process.listenerCount(signal) > 1) return;
  runCleanups();
  uninstall();
  process.kill(process.pid, signal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', runCleanups);
  if (isMainThread) for (const signal of SIGNALS) process.off(signal, onSignal);
}

/**
 * Runs `cleanup` when the process (or this worker thread, on exit) ends; signals are the main
 * thread's. Registering the same function again is a no-op; `removeProcessEndCleanup` undoes it,
 * and with no cleanup left the handlers go, so Node's own signal behaviour is back.
 */
export function onProcessEnd(cleanup: () => void): void {
  cleanups.add(cleanup);
  if (installed) return;
  installed = true;
  process.on('exit', runCleanups);
  if (isMainThread) for (const signal of SIGNALS) process.on(signal, onSignal);
}

export function removeProcessEndCleanup(cleanup: () => void): void {
  cleanups.delete(cleanup);
  if (cleanups.size === 0) uninstall();
}
