/**
 * Distributor: streams the list shard by shard and hands each shard that is not done to a runner,
 * this process or child processes (`processes`), each running up to `shardsPerProcess` shards at
 * once over one host scheduler of `concurrency` requests. At most processes × shardsPerProcess
 * shards of rows are in memory; done shards (their `_stats.json` exists) are skipped, or with
 * `retryFailed` have their failed rows fetched again.
 */
import { fork, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ImageSource, type ImageSourceOptions } from '../data/images';
import { readShardStats, statsProblem, type ShardStats } from '../data/webdataset';
import { InputError } from '../util/json';
import { acquireLock } from '../util/lock';
import { missingShards, ownsUnit, shardFolder, shardLabel, type ShardSpec } from '../util/shard';
import { writeFileAtomic } from '../util/atomic';
import { readJsonFile } from '../util/json';
import { sourcesExecArgv } from '../util/workers';
import { checkDoneShard, downloadShard, retryFailedRows, type FetchPolicy, type ShardContext } from './downloader';
import { HashTable } from './hashes';
import { HostScheduler } from './politeness';
import { estimateInputRows, inputShards, type InputRow, type ReadInputOptions } from './reader';
import { DEFAULT_RESIZE, validateResize, type ResizeOptions } from './resizer';

/** What a runner needs to build its shard context; plain data, so it crosses to a child process. */
export interface RunnerSettings {
  out: string;
  samplesPerShard: number;
  oomShardCount: number;
  concurrency: number;
  perHost: number;
  fetch: Partial<Omit<ImageSourceOptions, 'resolve'>>;
  policy: FetchPolicy;
  resize: ResizeOptions;
  hashesFile?: string;
  maxCaptionChars?: number;
}

export interface DownloadOptions {
  /** The URL + caption list. */
  input: string;
  /** The output folder (created); its shards follow img2dataset's layout. */
  out: string;
  read?: ReadInputOptions;
  /** Input rows per shard (default 10,000, img2dataset's). */
  samplesPerShard?: number;
  oomShardCount?: number;
  /** Processes downloading (default 1: this one). */
  processes?: number;
  /** Requests in flight per process (default 64). */
  concurrency?: number;
  /** Requests in flight per host, per process (default 16). */
  perHost?: number;
  /** Shards each process works on at once, so one shard's slow tail overlaps the next (default 2). */
  shardsPerProcess?: number;
  /**
   * The safe fetcher's settings: timeoutMs (default 10 s), maxBytes, maxRedirects, allowPrivate, ignoreRobotsTag, contact;
   * localFiles defaults to 'none' here (rows naming local paths or file:// URLs fail as download:local-file-refused).
   */
  fetch?: Partial<Omit<ImageSourceOptions, 'resolve'>>;
  policy?: Partial<FetchPolicy>;
  resize?: Partial<ResizeOptions>;
  /** Expected hashes (CC12M's companion format). */
  hashesFile?: string;
  /** Fetch again the failed rows of done shards. */
  retryFailed?: boolean;
  /** Stop after this many shards of the list (from the start, done ones included); for samples and benchmarks. */
  maxShards?: number;
  /** Only the download shards s with s mod count = index (src/util/shard.ts); several such runs share one folder. */
  shard?: ShardSpec;
  /** Longest caption written (default DEFAULT_MAX_CAPTION_CHARS in downloader.ts); longer ones are cut and say so. */
  maxCaptionChars?: number;
  onProgress?: (progress: DownloadProgress) => void;
  /** Lines worth a user's eye that do not stop the run (a done-marker that does not hold); default: stderr. */
  onWarning?: (line: string) => void;
}

export interface DownloadProgress {
  /** Rows finished in this run. */
  rows: number;
  successes: number;
  /** Rows of the list not yet accounted for at the start (estimated for text lists). */
  expectedRows: number;
  /** Rows found already done when the run started. */
  skippedRows: number;
  elapsedMs: number;
}

export interface DownloadSummary {
  out: string;
  /** Shards of the list (done before or now). */
  shards: number;
  /** Shards written by this run / skipped as done / done shards whose failures were retried. */
  written: number;
  skipped: number;
  retried: number;
  /** Rows this run fetched (retries of failed rows included) and how many succeeded. */
  rowsFetched: number;
  rowsSucceeded: number;
  /** Totals over every shard of the output, as the stats files say. */
  count: number;
  successes: number;
  failed_to_download: number;
  failed_to_resize: number;
  status_dict: Record<string, number>;
  durationS: number;
  /** Rows this run fetched per second of its wall time. */
  rowsPerSecond: number;
}

export const DEFAULT_POLICY: Readonly<FetchPolicy> = Object.freeze({ retries: 2, retryBaseMs: 1000, maxRetryAfterMs: 60_000 });

type Job = { kind: 'shard'; id: number; rows: InputRow[] } | { kind: 'retry'; id: number };
type JobResult = { id: number; stats: ShardStats; rows: number };

/** Builds the shard context a runner works with. */
export async function shardContext(settings: RunnerSettings, onRow?: (ok: boolean) => void): Promise<ShardContext> {
  return {
    out: settings.out,
    samplesPerShard: settings.samplesPerShard,
    oomShardCount: settings.oomShardCount,
    // no memo: a retry must really fetch again, and a list's repeats are rare
    source: new ImageSource({ ...settings.fetch, memoEntries: 0, memoBytes: 0 }),
    scheduler: new HostScheduler({ concurrency: settings.concurrency, perHost: settings.perHost }),
    policy: settings.policy,
    resize: settings.resize,
    hashes: settings.hashesFile ? await HashTable.load(settings.hashesFile) : undefined,
    maxCaptionChars: settings.maxCaptionChars,
    onRow,
  };
}

/** Runs one job in a context. */
export async function runJob(job: Job, context: ShardContext): Promise<JobResult> {
  if (job.kind === 'shard') return { id: job.id, stats: await downloadShard(job.id, job.rows, context), rows: job.rows.length };
  const { stats, retried } = await retryFailedRows(job.id, context);
  return { id: job.id, stats, rows: retried };
}

interface Runner {
  readonly capacity: number;
  active: number;
  run(job: Job): Promise<JobResult>;
  close(): Promise<void>;
}

class LocalRunner implements Runner {
  active = 0;
  constructor(
    readonly capacity: number,
    private readonly context: ShardContext,
  ) {}
  run(job: Job): Promise<JobResult> {
    return runJob(job, this.context);
  }
  async close(): Promise<void> {}
}

/** Messages between the distributor and a child (src/download/child.ts). */
export type ToChild = { type: 'init'; settings: RunnerSettings } | { type: 'job'; job: Job };
export type FromChild = { type: 'rows'; ok: number; failed: number } | { type: 'done'; result: JobResult } | { type: 'error'; id: number; message: string };

class ChildRunner implements Runner {
  active = 0;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (r: JobResult) => void; reject: (e: Error) => void }>();
  private exited: Error | undefined;

  constructor(
    readonly capacity: number,
    settings: RunnerSettings,
    onRows: (ok: number, failed: number) => void,
  ) {
    const entry = path.join(__dirname, `child${path.extname(__filename)}`);
    this.child = fork(entry, [], {
      execArgv: path.extname(entry) === '.ts' ? sourcesExecArgv() : process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('message', (message: FromChild) => {
      if (message.type === 'rows') onRows(message.ok, message.failed);
      else if (message.type === 'done') this.settle(message.result.id, undefined, message.result);
      else this.settle(message.id, new Error(message.message));
    });
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`download process ${this.child.pid} exited (${signal ?? `code ${code}`}) with shards unfinished`);
      for (const id of [...this.pending.keys()]) this.settle(id, this.exited);
    });
    this.child.send({ type: 'init', settings } satisfies ToChild);
  }

  private settle(id: number, error: Error | undefined, result?: JobResult): void {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (error) waiter.reject(error);
    else waiter.resolve(result!);
  }

  run(job: Job): Promise<JobResult> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.child.send({ type: 'job', job } satisfies ToChild);
    });
  }

  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.disconnect();
    });
  }
}

/** A leftover temporary (`.NAME.PID.RANDOM.tmp`) of a process that died. */
const TEMPORARY = /^\.(\d+)[._].*\.\d+\.[a-z0-9]+\.tmp$/;

function settingsFrom(options: DownloadOptions): RunnerSettings {
  const resize: ResizeOptions = { ...DEFAULT_RESIZE, ...options.resize };
  validateResize(resize);
  const positive = (name: string, value: number) => {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
    return value;
  };
  return {
    out: path.resolve(options.out),
    samplesPerShard: positive('samplesPerShard', options.samplesPerShard ?? 10_000),
    oomShardCount: options.oomShardCount ?? 5,
    concurrency: positive('concurrency', options.concurrency ?? 64),
    perHost: positive('perHost', options.perHost ?? 16),
    // a download list comes from the web: local paths are read only when the caller says so
    fetch: { baseDir: path.dirname(path.resolve(options.input)), ...options.fetch, localFiles: options.fetch?.localFiles ?? 'none' },
    policy: { ...DEFAULT_POLICY, ...options.policy },
    resize,
    hashesFile: options.hashesFile,
    ...(options.maxCaptionChars !== undefined ? { maxCaptionChars: positive('maxCaptionChars', options.maxCaptionChars) } : {}),
  };
}

/** Downloads a URL + caption list into img2dataset-style shards in `options.out`. */
export async function download(options: DownloadOptions): Promise<DownloadSummary> {
  const settings = settingsFrom(options);
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`cckit: ${line}\n`));
  const processes = options.processes ?? 1;
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`processes must be a positive integer, got ${processes}`);
  const shardsPerProcess = options.shardsPerProcess ?? 2;
  if (!fs.existsSync(options.input) || !fs.statSync(options.input).isFile()) throw new InputError(options.input, 'no such file (the URL + caption list)');
  fs.mkdirSync(settings.out, { recursive: true });
  const slice = options.shard;
  const lockName = slice ? `.download-${slice.index}-of-${slice.count}.lock` : '.download.lock';
  const lock = acquireLock(path.join(settings.out, lockName), { what: `download into ${settings.out}${slice ? ` (shard ${shardLabel(slice)})` : ''}` });
  const started = Date.now();
  const progress: DownloadProgress = { rows: 0, successes: 0, expectedRows: 0, skippedRows: 0, elapsedMs: 0 };
  const report = () => options.onProgress?.({ ...progress, elapsedMs: Date.now() - started });
  const onRows = (ok: number, failed: number) => {
    progress.rows += ok + failed;
    progress.successes += ok;
  };
  let ticker: NodeJS.Timeout | undefined;
  const runners: Runner[] = [];
  try {
    // only we write our shards now: any temporary of theirs is a dead process's
    for (const name of fs.readdirSync(settings.out)) {
      const match = TEMPORARY.exec(name);
      if (match && ownsUnit(slice, Number(match[1]))) fs.rmSync(path.join(settings.out, name), { force: true });
    }
    progress.expectedRows = await estimateInputRows(options.input, options.read);
    if (options.maxShards !== undefined) progress.expectedRows = Math.min(progress.expectedRows, options.maxShards * settings.samplesPerShard);
    ticker = setInterval(report, 500);
    ticker.unref();
    if (processes === 1) runners.push(new LocalRunner(shardsPerProcess, await shardContext(settings, (ok) => onRows(ok ? 1 : 0, ok ? 0 : 1))));
    else for (let i = 0; i < processes; i++) runners.push(new ChildRunner(shardsPerProcess, settings, onRows));

    const summary = { written: 0, skipped: 0, retried: 0, rowsFetched: 0, shards: 0 };
    const running = new Set<Promise<void>>();
    let failure: Error | undefined;
    const submit = (job: Job) => {
      const runner = runners.find((r) => r.active < r.capacity)!;
      runner.active++;
      const task = runner
        .run(job)
        .then((result) => {
          summary.rowsFetched += result.rows;
          if (job.kind === 'shard') summary.written++;
          else summary.retried++;
        })
        .catch((err: Error) => {
          failure ??= err;
        })
        .finally(() => {
          runner.active--;
          running.delete(task);
        });
      running.add(task);
    };
    for await (const { shard, rows } of inputShards(options.input, settings.samplesPerShard, options.read)) {
      if (failure || (options.maxShards !== undefined && shard >= options.maxShards)) break;
      if (!ownsUnit(slice, shard)) {
        progress.expectedRows -= rows.length;
        continue;
      }
      summary.shards++;
      const check = await checkDoneShard(settings.out, shard, settings.oomShardCount);
      if (!check.done && check.problem) warn(`shard ${shard} is downloaded again: ${check.problem}`);
      if (check.done) {
        const stats = check.stats;
        if (options.retryFailed && stats.successes < stats.count) {
          progress.skippedRows += stats.successes;
          progress.expectedRows -= stats.successes;
        } else {
          summary.skipped++;
          progress.skippedRows += rows.length;
          progress.expectedRows -= rows.length;
          continue;
        }
        while (!runners.some((r) => r.active < r.capacity)) await Promise.race(running);
        submit({ kind: 'retry', id: shard });
        continue;
      }
      while (!runners.some((r) => r.active < r.capacity)) await Promise.race(running);
      submit({ kind: 'shard', id: shard, rows });
    }
    await Promise.all(running);
    if (failure) throw failure;
    report();
    const result = summarize(settings, summary, progress, Date.now() - started, slice, warn);
    // a shard's done-marker (src/util/shard.ts): its download shards are all done
    if (slice) writeFileAtomic(path.join(mkdirs(shardFolder(settings.out, slice)), 'summary.json'), JSON.stringify(result, null, 1) + '\n');
    return result;
  } finally {
    if (ticker) clearInterval(ticker);
    await Promise.all(runners.map((r) => r.close()));
    lock.release();
  }
}

function mkdirs(folder: string): string {
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * The merge of a sharded download (`--merge-shards N`): every shard's done-marker must be there, and the
 * list's download shards numbered without a gap; then OUT/download_summary.json totals all stats files.
 */
export function mergeDownloadShards(out: string, count: number): DownloadSummary {
  const missing = missingShards(out, count);
  if (missing.length > 0) throw new Error(`merge: ${missing.length} of ${count} download shards are not done (${missing.slice(0, 10).join(', ')}) in ${out}`);
  const parts = Array.from({ length: count }, (_, index) => readJsonFile(path.join(shardFolder(out, { index, count }), 'summary.json')) as DownloadSummary);
  const listShards = parts.reduce((n, p) => n + p.shards, 0);
  const numbers = fs
    .readdirSync(out)
    .filter((n) => /^\d+_stats\.json$/.test(n))
    .map((n) => parseInt(n, 10))
    .sort((a, b) => a - b);
  for (let i = 0; i < listShards; i++) if (numbers[i] !== i) throw new Error(`merge: download shard ${i} of ${listShards} has no _stats.json in ${out}`);
  const run = { written: 0, skipped: 0, retried: 0, rowsFetched: 0, shards: listShards };
  for (const p of parts) {
    run.written += p.written;
    run.skipped += p.skipped;
    run.retried += p.retried;
    run.rowsFetched += p.rowsFetched;
  }
  const seconds = Math.max(...parts.map((p) => p.durationS), 0);
  const progress = { rows: 0, successes: parts.reduce((n, p) => n + p.rowsSucceeded, 0), expectedRows: 0, skippedRows: 0, elapsedMs: 0 };
  const result = summarize({ out } as RunnerSettings, run, progress, seconds * 1000);
  writeFileAtomic(path.join(out, 'download_summary.json'), JSON.stringify(result, null, 1) + '\n');
  return result;
}

/** A shard's stats, or why they cannot be counted. */
function countableStats(out: string, shard: string): ShardStats | string {
  try {
    const stats = readShardStats(out, shard);
    return statsProblem(stats) ?? stats;
  } catch (err) {
    return (err as Error).message;
  }
}

function summarize(
  settings: RunnerSettings,
  run: { written: number; skipped: number; retried: number; rowsFetched: number; shards: number },
  progress: DownloadProgress,
  elapsedMs: number,
  slice?: ShardSpec,
  warn: (line: string) => void = () => {},
): DownloadSummary {
  const totals = { count: 0, successes: 0, failed_to_download: 0, failed_to_resize: 0 };
  // a Map: reasons are keys from files, and "constructor" or "__proto__" must count like any other
  const statusCounts = new Map<string, number>();
  for (const name of fs
    .readdirSync(settings.out)
    .filter((n) => /^\d+_stats\.json$/.test(n) && ownsUnit(slice, parseInt(n, 10)))
    .sort()) {
    const stats = countableStats(settings.out, name.slice(0, -'_stats.json'.length));
    if (typeof stats === 'string') {
      warn(`${path.join(settings.out, name)} is not counted: ${stats}`);
      continue;
    }
    totals.count += stats.count;
    totals.successes += stats.successes;
    totals.failed_to_download += stats.failed_to_download;
    totals.failed_to_resize += stats.failed_to_resize;
    for (const [reason, n] of Object.entries(stats.status_dict)) statusCounts.set(reason, (statusCounts.get(reason) ?? 0) + n);
  }
  return {
    out: settings.out,
    ...run,
    rowsSucceeded: progress.successes,
    ...totals,
    status_dict: Object.fromEntries(statusCounts),
    durationS: elapsedMs / 1000,
    rowsPerSecond: run.rowsFetched / Math.max(elapsedMs / 1000, 1e-3),
  };
}
