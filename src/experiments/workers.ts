/**
 * An experiment's jobs in worker threads (src/util/workers.ts), each with its own tfjs instance: `runJobInWorker`
 * starts one and relays its status lines, progress and log records to the parent's options; `reportToParent` is the
 * worker side's reporting options, posting every line to the parent; `runInLanes` is the one switch between running
 * an experiment's jobs in this thread (one lane) and each in a worker thread of its own (several lanes).
 */
import type { LogLine } from '../runs/layout';
import { startWorker, type WorkerMain, type WorkerPort } from '../util/workers';
import { runJobs } from './jobs';
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

/** How one kind of job runs: here, with the experiment's own objects (one lane), or as `worker` in a thread of its own. */
export interface Lanes<J, R> {
  /** The module that exports `worker` (its `__filename`). */
  modulePath: string;
  worker: WorkerMain<J, Promise<R>>;
  here: (job: J) => Promise<R>;
  /** Names a job in a worker's failure. */
  label: (job: J) => string;
}

/** The jobs `concurrency` at a time (`runJobs`, results in the jobs' order): in this thread with one lane, each in a worker thread with more. */
export function runInLanes<J, R>(jobs: readonly J[], concurrency: number, lanes: Lanes<J, R>, options: ExperimentOptions): Promise<R[]> {
  return runJobs(jobs, concurrency, (job) =>
    concurrency > 1 ? runJobInWorker(lanes.modulePath, lanes.worker, job, options, lanes.label(job)) : lanes.here(job),
  );
}
