/**
 * An experiment's jobs in worker threads (src/util/workers.ts), each with its own tfjs instance: `runJobInWorker`
 * starts one and relays its status lines, progress and log records to the parent's options; `reportToParent` is the
 * worker side's reporting options, posting every line to the parent.
 */
import type { LogLine } from '../runs/layout';
import { startWorker, type WorkerMain, type WorkerPort } from '../util/workers';
import type { ExperimentOptions } from './options';

/** A job's say / progress / log lines, as a worker thread posts them to its parent. */
type JobMessage = { say: string } | { progress: [string, number, number] } | { log: [string, LogLine] };

/** The reporting options of a job running in a worker thread: every line is posted to the parent (`runJobInWorker`). */
export function reportToParent(port: WorkerPort): Pick<ExperimentOptions, 'say' | 'progress' | 'onLog'> {
  const post = (m: JobMessage) => port.post(m);
  return {
    say: (line) => post({ say: line }),
    progress: (task, done, total) => post({ progress: [task, done, total] }),
    onLog: (run, line) => post({ log: [run, line] }),
  };
}

/**
 * Runs the job function `main` (an export of `modulePath`, taking the job and a WorkerPort) in a worker thread,
 * relaying its lines to `options`; a failure is reported under `label`.
 */
export async function runJobInWorker<J, R>(modulePath: string, main: WorkerMain<J, Promise<R>>, job: J, options: ExperimentOptions, label: string): Promise<R> {
  const worker = startWorker(modulePath, main, job);
  worker.onMessage((m: JobMessage) => {
    if ('say' in m) options.say?.(m.say);
    else if ('progress' in m) options.progress?.(...m.progress);
    else if ('log' in m) options.onLog?.(...m.log);
  });
  try {
    return await worker.done;
  } catch (e) {
    throw new Error(`${label}: ${(e as Error).message}`);
  } finally {
    void worker.terminate();
  }
}
