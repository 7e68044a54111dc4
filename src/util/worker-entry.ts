/** The main module of every worker thread `startWorker` (src/util/workers.ts) starts. */
import { workerMain } from './workers';

workerMain();
