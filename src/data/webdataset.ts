/**
 * img2dataset-compatible output: webdataset tar shards, their per-shard stats and metadata,
 * and readers for both img2dataset output layouts ("webdataset" tars and "files" folders).
 *
 * What img2dataset writes (rom1504/img2dataset, downloader.py / writer.py / logger.py), and what
 * this module writes for each:
 *  - Shard names: the shard id zero-padded to `oom_shard_count` digits (default 5): `00000.tar`.
 *  - Keys: `true_key = 10^oom_sample_per_shard * shard_id + index_in_shard`, zero-padded to
 *    `oom_shard_count + oom_sample_per_shard` digits, where
 *    `oom_sample_per_shard = ceil(log10(number_sample_per_shard))`. With the defaults (5, 10,000
 *    rows per shard) row 123 of shard 0 is `000000123` and row 7 of shard 12 is `000120007`.
 *    Every input row uses up one index, including rows that fail, so a key says which input row
 *    it came from. Same here: `samplesPerShard` counts input rows (successes and failures).
 *  - Tar members per successful row: `KEY.jpg` (or .png/.gif), `KEY.txt` (the caption),
 *    `KEY.json` (the metadata below, indented by 4 like Python's json.dumps(indent=4)).
 *    Failed rows get no tar members.
 *  - `KEY.json` fields: the input columns (`url`, `caption`), then `key`, `status`
 *    ("success" | "failed_to_download" | "failed_to_resize"), `error_message` (null on success),
 *    `width`, `height`, `original_width`, `original_height` (null unless a success). Extra
 *    fields given by the caller (`meta`) follow. Width and height, when not given, are read from
 *    the image header (JPEG SOF, PNG IHDR, GIF logical screen).
 *  - `NNNNN_stats.json`: `count`, `successes`, `failed_to_download`, `failed_to_resize`,
 *    `duration`, `start_time`, `end_time` (seconds since the epoch, like Python's time.time()),
 *    `status_dict` (how many rows ended in "success" and in each error message).
 *  - `NNNNN.parquet`: the metadata of every row, failures included, sorted by key: the KEY.json
 *    fields plus `sha256` of the downloaded image (null where unknown), written with
 *    hyparquet-writer (parquet.ts).
 *  - Samples may be written in any order (`OpenShard.write(index, …)`): a download keeps the tar
 *    in completion order, as img2dataset does; `ShardWriter` writes in input order.
 *
 * Atomicity: each shard is written to a hidden temporary file beside its final name and
 * renamed when the shard is complete, then the parquet; the stats file is written last, so a `NNNNN_stats.json`
 * means the shard is whole (img2dataset's incremental mode also treats it so). On an error
 * (`abort()`, or any error inside `writeShards`) the current shard's temporaries are removed:
 * no partial `.tar` is ever visible.
 *
 * Reading follows the webdataset convention: consecutive tar members whose names share the
 * part before the first dot of the base name form one sample (`a/b.c.jpg` → key `a/b`,
 * extension `c.jpg`). Shards are read in name order, members in tar order.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as tar from 'tar-stream';
import { releaseTemporary, temporaryPath, writeFileAtomic } from '../util/atomic';
import { writeParquetFile, type ParquetColumn } from './parquet';
import { DEFAULT_IMAGE_SOURCE } from './images';
import { readJsonFile } from '../util/json';
import { escapeControlCharacters, quoteInput } from '../util/untrusted-text';

export type ImageExt = 'jpg' | 'png' | 'gif' | 'webp';

/** One decoded sample, as written and read back. */
export interface ShardSample {
  key: string;
  image: Buffer;
  imageExt: ImageExt;
  caption: string;
  json: Record<string, unknown>;
}

/** A sample as read from disk: every member of the group, by extension ("jpg", "txt", "json", …). */
export interface RawSample {
  key: string;
  /** The tar file or the shard folder it came from. */
  source: string;
  /** The members read (those asked for and within the size cap), by extension. */
  files: Record<string, Buffer>;
  /** Members over the size cap, left unread, by extension: why (`member K.jpg declares … bytes, over the … cap`). */
  oversized?: Record<string, string>;
  /** Extensions of the members left unread because they were not asked for (`ReadShardOptions.members`). */
  unread?: string[];
}

/**
 * How shard members are read. A shard is untrusted input: a member's header may declare any size, so
 * members over `maxMemberBytes` are skipped without being held in memory, and the sample says so
 * (`RawSample.oversized`; `decodeSample` then rejects it).
 */
export interface ReadShardOptions {
  /** Largest member read, in bytes (default `DEFAULT_MAX_MEMBER_BYTES`, the fetcher's largest image). */
  maxMemberBytes?: number;
  /** Only members with these extensions are read (e.g. ['txt'] for captions); the others are skipped unread. Default: all. */
  members?: readonly string[];
  /**
   * A tar (or a numbered folder of the files layout) that cannot be read to its end — truncated, corrupt, a key
   * repeated after other samples — is reported here and reading goes on with the next one; the samples before the
   * damage were yielded. Without it the error is thrown (and ends the read).
   */
  onUnreadableShard?: (shard: UnreadableShard) => void;
}

/** A shard given up part-way: where, why, and how many of its samples were read before. */
export interface UnreadableShard {
  source: string;
  reason: string;
  read: number;
  /** `readSampleRange`: the position of its first unread sample in the range that reports it. */
  position?: number;
  /** `readSampleRange`: positions of the range that its _stats.json counts but were not read (0 without stats). */
  skipped?: number;
}

/** The samples of one shard; with `onUnreadableShard`, a `ShardError` ends that shard only, reported. */
async function* guardedShard(source: string, samples: AsyncGenerator<RawSample>, options: ReadShardOptions): AsyncGenerator<RawSample> {
  if (!options.onUnreadableShard) {
    yield* samples;
    return;
  }
  let read = 0;
  try {
    for await (const raw of samples) {
      read++;
      yield raw;
    }
  } catch (err) {
    if (!(err instanceof ShardError)) throw err;
    options.onUnreadableShard({ source, reason: err.message, read });
  }
}

/** The default cap on a shard member: the largest image the fetcher downloads by default (`--max-bytes`), 20 MiB. */
export const DEFAULT_MAX_MEMBER_BYTES = DEFAULT_IMAGE_SOURCE.maxBytes;

/** "20 MiB" for whole mebibytes, else the bytes. */
function formatBytes(bytes: number): string {
  return bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`;
}

/** Why a member of `size` bytes is not read. */
function oversizedReason(name: string, size: number, cap: number): string {
  return `member ${quoteInput(name)} declares ${size} bytes, over the ${formatBytes(cap)} cap (--max-member-bytes)`;
}

/** The cap and the member filter of `options`, checked. */
function readSettings(options: ReadShardOptions): { cap: number; wanted: (ext: string) => boolean } {
  const cap = options.maxMemberBytes ?? DEFAULT_MAX_MEMBER_BYTES;
  if (!(cap >= 0)) throw new Error(`maxMemberBytes must be a number of bytes ≥ 0, got ${cap}`);
  const members = options.members;
  return { cap, wanted: members ? (ext) => members.includes(ext) : () => true };
}

export type FailureStatus = 'failed_to_download' | 'failed_to_resize';

export interface SuccessInput {
  image: Buffer;
  imageExt: ImageExt;
  caption: string;
  url?: string;
  width?: number;
  height?: number;
  originalWidth?: number;
  originalHeight?: number;
  /** The downloaded (original) image's SHA-256, hex, as img2dataset's `compute_hash`. */
  sha256?: string;
  /** Extra metadata fields, written into KEY.json after img2dataset's fields. */
  meta?: Record<string, unknown>;
}

export interface FailureInput {
  url?: string;
  caption?: string;
  status: FailureStatus;
  /** The error message; also the status_dict entry it is counted under. */
  error: string;
  meta?: Record<string, unknown>;
}

export interface ShardWriterOptions {
  /** Input rows per shard, failures included (img2dataset's number_sample_per_shard; default 10,000). */
  samplesPerShard?: number;
  /** Digits of shard names (img2dataset's oom_shard_count; default 5). */
  oomShardCount?: number;
  /** First shard id (default 0). */
  startShard?: number;
  /** Modification time of tar members (default 2000-01-01T00:00:00Z, so shards are byte-reproducible). */
  mtime?: Date;
  /** Clock for stats start/end times, in milliseconds (default Date.now). */
  now?: () => number;
}

export class ShardError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ShardError';
  }
}

/** Why a sample cannot be decoded: a stable reason code (a pipeline's reject reason) and the detail. */
export type SampleProblem = 'member-too-large' | 'no-image' | 'no-caption' | 'malformed-json' | 'json-not-object';

/** A sample that cannot be decoded; the message names the file and sample, `reason` and `detail` say why. */
export class SampleError extends ShardError {
  constructor(
    file: string,
    key: string,
    readonly reason: SampleProblem,
    readonly detail: string,
  ) {
    super(file, `sample ${quoteInput(key)}: ${detail}`);
    this.name = 'SampleError';
  }
}

const IMAGE_EXTS: readonly string[] = ['jpg', 'png', 'gif', 'webp'];
const DEFAULT_MTIME = new Date(Date.UTC(2000, 0, 1));

/** img2dataset's zero-padded shard name ("00012"). */
export function shardName(shardId: number, oomShardCount = 5): string {
  return String(shardId).padStart(oomShardCount, '0');
}

/** img2dataset's `oom_sample_per_shard`: ceil(log10(samples per shard)). */
export function oomSamplePerShard(samplesPerShard: number): number {
  return Math.ceil(Math.log10(samplesPerShard));
}

/** img2dataset's `compute_key`: 10^oomSample * shard + index, zero-padded to oomSample + oomShard digits. */
export function computeKey(index: number, shardId: number, oomSample: number, oomShardCount = 5): string {
  const trueKey = BigInt(10) ** BigInt(oomSample) * BigInt(shardId) + BigInt(index);
  return trueKey.toString().padStart(oomSample + oomShardCount, '0');
}

/** Width and height from a JPEG, PNG or GIF header; undefined when the header is not understood. */
export function imageSize(image: Buffer): { width: number; height: number } | undefined {
  if (image.length >= 24 && image.readUInt32BE(0) === 0x89504e47 && image.toString('latin1', 12, 16) === 'IHDR') {
    return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length >= 10 && image.toString('latin1', 0, 3) === 'GIF') {
    return { width: image.readUInt16LE(6), height: image.readUInt16LE(8) };
  }
  if (image.length >= 4 && image[0] === 0xff && image[1] === 0xd8) {
    let i = 2;
    while (i + 9 < image.length) {
      if (image[i] !== 0xff) return undefined;
      const marker = image[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      const length = image.readUInt16BE(i + 2);
      const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isSof) return { width: image.readUInt16BE(i + 7), height: image.readUInt16BE(i + 5) };
      i += 2 + length;
    }
  }
  return undefined;
}

interface ShardStats {
  count: number;
  successes: number;
  failed_to_download: number;
  failed_to_resize: number;
  duration: number;
  start_time: number;
  end_time: number;
  status_dict: Record<string, number>;
}

/** The columns of `NNNNN.parquet`, in img2dataset's order; extra metadata fields follow. */
export const SHARD_COLUMNS = ['url', 'caption', 'key', 'status', 'error_message', 'width', 'height', 'original_width', 'original_height', 'sha256'] as const;
const INT_COLUMNS: ReadonlySet<string> = new Set(['width', 'height', 'original_width', 'original_height']);

function finished(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.once('close', () => resolve());
  });
}

async function syncAndRename(temporary: string, file: string): Promise<void> {
  const fd = await fs.promises.open(temporary, 'r+');
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
  await fs.promises.rename(temporary, file);
  releaseTemporary(temporary);
}

/** The parquet columns for a shard's rows: the fixed ones, then each extra field (numbers as DOUBLE, the rest as text). */
function metadataColumns(rows: readonly Record<string, unknown>[]): ParquetColumn[] {
  const extra: string[] = [];
  for (const row of rows)
    for (const name of Object.keys(row)) if (!(SHARD_COLUMNS as readonly string[]).includes(name) && !extra.includes(name)) extra.push(name);
  const column = (name: string): ParquetColumn => {
    const values = rows.map((row) => row[name] ?? null);
    if (INT_COLUMNS.has(name)) return { name, type: 'INT32', data: values };
    const numeric = values.every((v) => v === null || typeof v === 'number');
    if (numeric && !(SHARD_COLUMNS as readonly string[]).includes(name)) return { name, type: 'DOUBLE', data: values };
    return { name, type: 'STRING', data: values.map((v) => (v === null || typeof v === 'string' ? v : JSON.stringify(v))) };
  };
  return [...SHARD_COLUMNS, ...extra].map(column);
}

/**
 * One shard being written: rows may arrive in any order (a download finishes when it finishes),
 * each with its index in the shard; tar members are written as rows come, the parquet rows are
 * sorted by key. `close()` renames the tar, writes the parquet, then the stats last.
 */
export class OpenShard {
  readonly name: string;
  private readonly tarTemp: string;
  private readonly pack: tar.Pack;
  private readonly out: fs.WriteStream;
  private readonly written: Promise<void>;
  private readonly records: { index: number; record: Record<string, unknown> }[] = [];
  private readonly indices = new Set<number>();
  private readonly stats: ShardStats;
  /** Writes are chained: tar members of one sample stay together whatever the caller awaits. */
  private queue: Promise<void> = Promise.resolve();
  private state: 'open' | 'closed' | 'aborted' = 'open';

  constructor(
    readonly folder: string,
    readonly id: number,
    readonly options: { samplesPerShard: number; oomShardCount: number; mtime: Date; now: () => number },
  ) {
    this.name = shardName(id, options.oomShardCount);
    fs.mkdirSync(folder, { recursive: true });
    this.tarTemp = temporaryPath(path.join(folder, `${this.name}.tar`));
    this.pack = tar.pack();
    this.out = fs.createWriteStream(this.tarTemp, { flags: 'wx' });
    this.written = finished(this.out);
    // kept from rejecting unobserved; the error surfaces when close() awaits it
    this.written.catch(() => undefined);
    this.pack.on('error', (err: Error) => this.out.destroy(err));
    this.pack.pipe(this.out);
    const start = options.now() / 1000;
    this.stats = {
      count: 0,
      successes: 0,
      failed_to_download: 0,
      failed_to_resize: 0,
      duration: 0,
      start_time: start,
      end_time: start,
      status_dict: Object.create(null) as Record<string, number>,
    };
  }

  /** The key of row `index` of this shard. */
  key(index: number): string {
    return computeKey(index, this.id, oomSamplePerShard(this.options.samplesPerShard), this.options.oomShardCount);
  }

  private claim(index: number): string {
    if (this.state !== 'open') throw new ShardError(this.folder, `shard ${this.name}: write after ${this.state === 'closed' ? 'close' : 'abort'}`);
    if (!Number.isInteger(index) || index < 0 || index >= this.options.samplesPerShard)
      throw new ShardError(this.folder, `shard ${this.name}: row index ${index} outside 0..${this.options.samplesPerShard - 1}`);
    if (this.indices.has(index)) throw new ShardError(this.folder, `shard ${this.name}: row ${index} written twice`);
    this.indices.add(index);
    return this.key(index);
  }

  private entry(name: string, data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pack.entry({ name, size: data.length, mtime: this.options.mtime, mode: 0o644, type: 'file' }, data, (err) => (err ? reject(err) : resolve()));
    });
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Adds a successful row; returns its key. */
  async write(index: number, sample: SuccessInput): Promise<string> {
    if (!Buffer.isBuffer(sample.image)) throw new ShardError(this.folder, 'image must be a Buffer');
    if (!IMAGE_EXTS.includes(sample.imageExt))
      throw new ShardError(this.folder, `imageExt must be one of ${IMAGE_EXTS.join(', ')}, got ${JSON.stringify(sample.imageExt)}`);
    if (typeof sample.caption !== 'string') throw new ShardError(this.folder, 'caption must be a string');
    const key = this.claim(index);
    const size = sample.width === undefined || sample.height === undefined ? imageSize(sample.image) : undefined;
    const width = sample.width ?? size?.width ?? null;
    const height = sample.height ?? size?.height ?? null;
    const record: Record<string, unknown> = {
      url: sample.url ?? null,
      caption: sample.caption,
      key,
      status: 'success',
      error_message: null,
      width,
      height,
      original_width: sample.originalWidth ?? width,
      original_height: sample.originalHeight ?? height,
      ...(sample.sha256 !== undefined ? { sha256: sample.sha256 } : {}),
      ...sample.meta,
    };
    await this.enqueue(async () => {
      await this.entry(`${key}.${sample.imageExt}`, sample.image);
      await this.entry(`${key}.txt`, Buffer.from(sample.caption, 'utf8'));
      await this.entry(`${key}.json`, Buffer.from(JSON.stringify(record, null, 4), 'utf8'));
      if (this.out.writableNeedDrain) await new Promise<void>((resolve) => this.out.once('drain', () => resolve()));
    });
    this.stats.successes++;
    this.stats.status_dict.success = (this.stats.status_dict.success ?? 0) + 1;
    this.count(index, record);
    return key;
  }

  /**
   * Adds a sample read from an earlier version of this shard, members as they were (its
   * KEY.json rewritten from `record`); counted as a success.
   */
  async copy(index: number, files: Record<string, Buffer>, record: Record<string, unknown>): Promise<string> {
    const key = this.claim(index);
    const full = { ...record, key };
    await this.enqueue(async () => {
      for (const [ext, data] of Object.entries(files)) if (ext !== 'json') await this.entry(`${key}.${ext}`, data);
      await this.entry(`${key}.json`, Buffer.from(JSON.stringify(full, null, 4), 'utf8'));
    });
    this.stats.successes++;
    this.stats.status_dict.success = (this.stats.status_dict.success ?? 0) + 1;
    this.count(index, full);
    return key;
  }

  /** Records a row that failed (no tar members, counted in the stats); returns its key. */
  fail(index: number, failure: FailureInput): string {
    if (failure.status !== 'failed_to_download' && failure.status !== 'failed_to_resize') {
      throw new ShardError(this.folder, `status must be failed_to_download or failed_to_resize, got ${JSON.stringify(failure.status)}`);
    }
    if (typeof failure.error !== 'string' || failure.error === '') throw new ShardError(this.folder, 'a failure needs an error message');
    const key = this.claim(index);
    const record: Record<string, unknown> = {
      url: failure.url ?? null,
      caption: failure.caption ?? null,
      key,
      status: failure.status,
      error_message: failure.error,
      width: null,
      height: null,
      original_width: null,
      original_height: null,
      ...failure.meta,
    };
    this.stats[failure.status]++;
    this.stats.status_dict[failure.error] = (this.stats.status_dict[failure.error] ?? 0) + 1;
    this.count(index, record);
    return key;
  }

  private count(index: number, record: Record<string, unknown>): void {
    this.stats.count++;
    this.records.push({ index, record });
  }

  /** Rows recorded so far. */
  get rows(): number {
    return this.stats.count;
  }

  /** Completes the shard: the tar, then `NNNNN.parquet`, then `NNNNN_stats.json` (the done-marker) last. */
  async close(): Promise<ShardStats> {
    if (this.state !== 'open') throw new ShardError(this.folder, `shard ${this.name}: close after ${this.state}`);
    await this.queue;
    this.state = 'closed';
    this.pack.finalize();
    await this.written;
    await syncAndRename(this.tarTemp, path.join(this.folder, `${this.name}.tar`));
    const rows = this.records.sort((a, b) => a.index - b.index).map((r) => r.record);
    await writeParquetFile(path.join(this.folder, `${this.name}.parquet`), metadataColumns(rows));
    this.stats.end_time = this.options.now() / 1000;
    this.stats.duration = this.stats.end_time - this.stats.start_time;
    writeFileAtomic(path.join(this.folder, `${this.name}_stats.json`), JSON.stringify(this.stats, null, 4));
    return this.stats;
  }

  /** Drops the shard: its temporary tar is removed, nothing of it becomes visible. */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.pack.destroy();
    this.out.destroy();
    await Promise.allSettled([this.written]);
    await fs.promises.rm(this.tarTemp, { force: true });
    releaseTemporary(this.tarTemp);
  }
}

/** The shard writer's settings with their defaults filled in. */
export function shardOptions(
  options: ShardWriterOptions = {},
  where = 'shards',
): { samplesPerShard: number; oomShardCount: number; mtime: Date; now: () => number } {
  const samplesPerShard = options.samplesPerShard ?? 10000;
  if (!Number.isInteger(samplesPerShard) || samplesPerShard < 1)
    throw new ShardError(where, `samplesPerShard must be a positive integer, got ${samplesPerShard}`);
  return { samplesPerShard, oomShardCount: options.oomShardCount ?? 5, mtime: options.mtime ?? DEFAULT_MTIME, now: options.now ?? Date.now };
}

/**
 * Packs samples into img2dataset-style webdataset shards in `folder` (created if missing), in
 * input order: call `write`/`fail` once per input row, awaiting each call, then `close()`; on
 * error call `abort()`.
 */
export class ShardWriter {
  readonly samplesPerShard: number;
  readonly oomShardCount: number;
  readonly oomSample: number;
  private readonly settings: ReturnType<typeof shardOptions>;
  private nextShard: number;
  private current: OpenShard | undefined;
  private closed = false;
  private busy = false;
  /** Names of the shards completed so far ("00000", …). */
  readonly shards: string[] = [];

  constructor(
    readonly folder: string,
    options: ShardWriterOptions = {},
  ) {
    this.settings = shardOptions(options, folder);
    this.samplesPerShard = this.settings.samplesPerShard;
    this.oomShardCount = this.settings.oomShardCount;
    this.oomSample = oomSamplePerShard(this.samplesPerShard);
    this.nextShard = options.startShard ?? 0;
    fs.mkdirSync(folder, { recursive: true });
  }

  private shard(): OpenShard {
    if (this.closed) throw new ShardError(this.folder, 'write after close');
    if (this.busy) throw new ShardError(this.folder, 'write/fail called before the previous call finished: await each one');
    this.current ??= new OpenShard(this.folder, this.nextShard++, this.settings);
    return this.current;
  }

  private async afterRow(shard: OpenShard): Promise<void> {
    if (shard.rows >= this.samplesPerShard) await this.finish();
  }

  /** Adds a successful row; returns its key. */
  async write(sample: SuccessInput): Promise<string> {
    const shard = this.shard();
    this.busy = true;
    try {
      const key = await shard.write(shard.rows, sample);
      await this.afterRow(shard);
      return key;
    } finally {
      this.busy = false;
    }
  }

  /** Records a row that failed (no tar members, counted in the stats); returns its key. */
  async fail(failure: FailureInput): Promise<string> {
    const shard = this.shard();
    this.busy = true;
    try {
      const key = shard.fail(shard.rows, failure);
      await this.afterRow(shard);
      return key;
    } finally {
      this.busy = false;
    }
  }

  private async finish(): Promise<void> {
    const shard = this.current;
    if (!shard) return;
    this.current = undefined;
    await shard.close();
    this.shards.push(shard.name);
  }

  /** Completes the last (possibly short) shard. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.finish();
    this.closed = true;
  }

  /** Drops the shard in progress (its temporaries are removed); completed shards stay. */
  async abort(): Promise<void> {
    this.closed = true;
    const shard = this.current;
    this.current = undefined;
    await shard?.abort();
  }
}

export type ShardRow = ({ kind: 'success' } & SuccessInput) | ({ kind: 'failure' } & FailureInput);

/** Writes all rows into shards; on any error the shard in progress is removed and the error rethrown. */
export async function writeShards(folder: string, rows: Iterable<ShardRow> | AsyncIterable<ShardRow>, options: ShardWriterOptions = {}): Promise<string[]> {
  const writer = new ShardWriter(folder, options);
  try {
    for await (const row of rows) {
      if (row.kind === 'success') await writer.write(row);
      else await writer.fail(row);
    }
    await writer.close();
    return writer.shards;
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Reading

/** Splits a member name into webdataset key and extension: key = everything before the first dot of the base name. */
export function splitMemberName(name: string): { key: string; ext: string } | undefined {
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot <= slash + 1 || dot === name.length - 1) return undefined;
  return { key: name.slice(0, dot), ext: name.slice(dot + 1) };
}

/** A member as read: its bytes, or why it was left unread (over the cap, or not asked for). */
type Member = { name: string } & ({ data: Buffer } | { oversized: string } | { unread: true });

/** Groups consecutive members into samples; a key that comes back later is an error. */
async function* groupMembers(source: string, members: AsyncIterable<Member>): AsyncGenerator<RawSample> {
  let current: RawSample | undefined;
  const seen = new Set<string>();
  for await (const member of members) {
    const parts = splitMemberName(member.name);
    if (!parts) continue; // names without an extension are not part of any sample (webdataset skips them too)
    if (current && current.key !== parts.key) {
      yield current;
      current = undefined;
    }
    if (!current) {
      if (seen.has(parts.key))
        throw new ShardError(source, `member ${quoteInput(member.name)}: key ${quoteInput(parts.key)} appears again after other samples`);
      seen.add(parts.key);
      current = { key: parts.key, source, files: {} };
    }
    if (current.files[parts.ext] !== undefined || current.oversized?.[parts.ext] !== undefined || current.unread?.includes(parts.ext))
      throw new ShardError(source, `member ${quoteInput(member.name)}: a second .${quoteInput(parts.ext)} for key ${quoteInput(parts.key)}`);
    if ('data' in member) current.files[parts.ext] = member.data;
    else if ('oversized' in member) (current.oversized ??= {})[parts.ext] = member.oversized;
    else (current.unread ??= []).push(parts.ext);
  }
  if (current) yield current;
}

/** The extension part of a member name ("c.jpg" of "a/b.c.jpg"), or undefined where it has none. */
function memberExt(name: string): string | undefined {
  return splitMemberName(name)?.ext;
}

async function* tarMembers(file: string, options: ReadShardOptions): AsyncGenerator<Member> {
  const { cap, wanted } = readSettings(options);
  const extract = tar.extract();
  // 1 MiB reads: a skipped member is drained in fewer, larger chunks
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  input.on('error', (err) => extract.destroy(err));
  input.pipe(extract);
  try {
    for await (const entry of extract) {
      const type = entry.header.type ?? 'file';
      const name = entry.header.name.replace(/^\.\//, '');
      const size = entry.header.size ?? 0;
      const ext = memberExt(name);
      const isFile = type === 'file' || type === 'contiguous-file';
      if (!isFile || ext === undefined || !wanted(ext) || size > cap) {
        // skipped unread: the stream is drained chunk by chunk, never held
        for await (const chunk of entry) void chunk;
        if (isFile) yield size > cap && ext !== undefined && wanted(ext) ? { name, oversized: oversizedReason(name, size, cap) } : { name, unread: true };
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      yield { name, data: Buffer.concat(chunks) };
    }
  } catch (err) {
    if (err instanceof ShardError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ShardError(file, `cannot read tar: ${code ?? (err as Error).message}`);
  } finally {
    input.destroy();
  }
}

/** Samples of one tar shard, in member order; members over the cap are left unread (`RawSample.oversized`). */
export function readTarShard(file: string, options: ReadShardOptions = {}): AsyncGenerator<RawSample> {
  return groupMembers(file, tarMembers(file, options));
}

/** The `.tar` shards in a folder, in name order (hidden temporaries excluded). */
export function listTarShards(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.tar') && !name.startsWith('.'))
    .sort()
    .map((name) => path.join(folder, name));
}

/** Samples of every tar shard in a folder (or of the given tar files), shard by shard in name order. */
export async function* readWebdataset(folderOrFiles: string | readonly string[], options: ReadShardOptions = {}): AsyncGenerator<RawSample> {
  const files = typeof folderOrFiles === 'string' ? listTarShards(folderOrFiles) : folderOrFiles;
  for (const file of files) yield* guardedShard(file, readTarShard(file, options), options);
}

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** A member file of the files layout: read whole when within the cap (its size taken from the open file), else left unread. */
async function readMemberFile(file: string, name: string, cap: number): Promise<Member> {
  // non-blocking, so a FIFO swapped in cannot hang the read; the type is checked on the open descriptor
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { name, unread: true };
    if (stat.size > cap) return { name, oversized: oversizedReason(name, stat.size, cap) };
    const data = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < data.length) {
      const { bytesRead } = await handle.read(data, filled, data.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { name, data: data.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}

/** Samples of an img2dataset "files" output: numbered folders (00000/, 00001/, …) of KEY.jpg, KEY.txt, KEY.json. */
export async function* readFilesLayout(folder: string, options: ReadShardOptions = {}): AsyncGenerator<RawSample> {
  const { cap, wanted } = readSettings(options);
  const shards = fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  for (const shard of shards) {
    const dir = path.join(folder, shard);
    const names = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
    // Sort by key, then extension, so members of a sample are adjacent and samples come in key order.
    const parsed = names.flatMap((name) => {
      const parts = splitMemberName(name);
      return parts ? [{ name, ...parts }] : [];
    });
    parsed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.ext < b.ext ? -1 : a.ext > b.ext ? 1 : 0));
    async function* members(): AsyncGenerator<Member> {
      for (const entry of parsed)
        yield wanted(entry.ext) ? await readMemberFile(path.join(dir, entry.name), entry.name, cap) : { name: entry.name, unread: true };
    }
    yield* guardedShard(dir, groupMembers(dir, members()), options);
  }
}

/** Reads an img2dataset output folder of either layout: tar shards if there are any, else numbered folders. */
export function readImg2dataset(folder: string, options: ReadShardOptions = {}): AsyncGenerator<RawSample> {
  return listTarShards(folder).length > 0 ? readWebdataset(folder, options) : readFilesLayout(folder, options);
}

interface TarCount {
  file: string;
  samples: number;
}

/** A folder's tar shards with their sample counts (`successes` of each NNNNN_stats.json); undefined where any is unknown. */
export function tarSampleCounts(folder: string): TarCount[] | undefined {
  const tars = listTarShards(folder);
  if (tars.length === 0) return undefined;
  const counts: TarCount[] = [];
  for (const file of tars) {
    const statsFile = file.replace(/\.tar$/, '_stats.json');
    if (!fs.existsSync(statsFile)) return undefined;
    let successes: unknown;
    try {
      successes = (JSON.parse(fs.readFileSync(statsFile, 'utf8')) as { successes?: unknown }).successes;
    } catch {
      return undefined;
    }
    if (typeof successes !== 'number' || !Number.isInteger(successes) || successes < 0) return undefined;
    counts.push({ file, samples: successes });
  }
  return counts;
}

/** Samples in an img2dataset output folder: the sum of its tars' stats where all have them, else counted by a pass. */
export async function countSamples(folder: string): Promise<number> {
  const counts = tarSampleCounts(folder);
  if (counts) return counts.reduce((n, c) => n + c.samples, 0);
  let count = 0;
  // counting needs the member names only: no member is read
  // a damaged tar counts the samples read before the damage, as readSampleRange's positions do
  for await (const raw of readImg2dataset(folder, { members: [], onUnreadableShard: () => undefined })) if (raw) count++;
  return count;
}

/**
 * The samples at positions start … end−1 of an img2dataset output folder, each with its position. Where every
 * tar has its _stats.json, the tars before the range are skipped unread, so N shards read a folder about once in
 * all, not N times; a tar whose samples differ from its stats would shift every later slice, so it is refused.
 */
export async function* readSampleRange(
  folder: string,
  range?: { start: number; end: number },
  options: ReadShardOptions = {},
): AsyncGenerator<{ raw: RawSample; position: number }> {
  const start = range?.start ?? 0;
  const end = range?.end ?? Infinity;
  const counts = range ? tarSampleCounts(folder) : undefined;
  let position = 0;
  let files: TarCount[] | undefined;
  if (counts) {
    let first = 0;
    while (first < counts.length && position + counts[first].samples <= start) position += counts[first++].samples;
    files = counts.slice(first);
  }
  const expected = new Map(files?.map((c) => [c.file, c.samples]));
  let current: { source: string; seen: number } | undefined;
  const checkCount = () => {
    if (current && expected.has(current.source) && expected.get(current.source) !== current.seen)
      throw new ShardError(current.source, `${current.seen} samples, but its _stats.json counts ${expected.get(current.source)} successes`);
  };
  const reportUnreadable = options.onUnreadableShard;
  const reading: ReadShardOptions = reportUnreadable
    ? {
        ...options,
        // a damaged shard is reported at the position of its first unread sample; where its _stats.json counts its
        // samples the positions after it stay where the counts put them, so every range still slices alike
        onUnreadableShard: (shard) => {
          const at = position;
          const count = expected.get(shard.source);
          const skipped = count !== undefined ? Math.max(0, count - shard.read) : 0;
          position += skipped;
          if (current?.source === shard.source) current = undefined;
          // each range reports the positions of the damaged shard it holds
          const inRange = Math.max(0, Math.min(end, at + skipped) - Math.max(start, at));
          if ((at >= start && at < end) || inRange > 0) reportUnreadable({ ...shard, position: Math.max(at, start), skipped: inRange });
        },
      }
    : options;
  for await (const raw of files
    ? readWebdataset(
        files.map((c) => c.file),
        reading,
      )
    : readImg2dataset(folder, reading)) {
    if (current?.source !== raw.source) {
      checkCount();
      current = { source: raw.source, seen: 0 };
    }
    current.seen++;
    position++;
    if (position - 1 < start) continue;
    if (position - 1 >= end) return;
    yield { raw, position: position - 1 };
  }
  checkCount();
}

/** The members `decodeSample` uses: the images, the caption and the metadata. */
const DECODED_EXTS: readonly string[] = [...IMAGE_EXTS, 'txt', 'json'];

/**
 * Decodes a raw sample's image, caption and metadata; errors name the source and key. A sample whose
 * image, caption or metadata was over the size cap is rejected with the reason.
 */
export function decodeSample(raw: RawSample): ShardSample {
  const problem = (reason: SampleProblem, detail: string) => new SampleError(raw.source, raw.key, reason, detail);
  const oversized = DECODED_EXTS.find((ext) => raw.oversized?.[ext] !== undefined);
  if (oversized !== undefined) throw problem('member-too-large', raw.oversized![oversized]!);
  const imageExt = (['jpg', 'png', 'gif', 'webp'] as const).find((ext) => raw.files[ext] !== undefined);
  if (!imageExt) throw problem('no-image', `no .jpg, .png, .gif or .webp member (has ${Object.keys(raw.files).join(', ')})`);
  const txt = raw.files.txt;
  if (txt === undefined) throw problem('no-caption', 'no .txt member');
  let json: Record<string, unknown> = {};
  if (raw.files.json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.files.json.toString('utf8'));
    } catch (err) {
      throw problem('malformed-json', `malformed ${quoteInput(raw.key)}.json: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw problem('json-not-object', `${quoteInput(raw.key)}.json is not an object`);
    json = parsed as Record<string, unknown>;
  }
  return { key: raw.key, image: raw.files[imageExt], imageExt, caption: txt.toString('utf8'), json };
}

/** Decoded samples of an img2dataset output folder (either layout). */
export async function* readSamples(folder: string, options: ReadShardOptions = {}): AsyncGenerator<ShardSample & { source: string }> {
  for await (const raw of readImg2dataset(folder, options)) yield { ...decodeSample(raw), source: raw.source };
}

/** Reads a shard's `NNNNN_stats.json`. */
export function readShardStats(folder: string, shard: string): ShardStats {
  const file = path.join(folder, `${shard}_stats.json`);
  try {
    return readJsonFile(file) as ShardStats;
  } catch (err) {
    throw new ShardError(file, `cannot read stats: ${(err as Error).message}`);
  }
}

export type { ShardStats };

const COUNT_FIELDS = ['count', 'successes', 'failed_to_download', 'failed_to_resize'] as const;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Why a parsed `_stats.json` is not a shard's stats, or undefined when its shape and sums hold. */
export function statsProblem(stats: unknown): string | undefined {
  if (typeof stats !== 'object' || stats === null || Array.isArray(stats)) return 'not a JSON object';
  const record = stats as Record<string, unknown>;
  for (const field of COUNT_FIELDS) if (!isCount(record[field])) return `${field} is not a whole number`;
  const s = record as unknown as ShardStats;
  if (s.successes + s.failed_to_download + s.failed_to_resize !== s.count) return `successes and failures do not add up to count ${s.count}`;
  const dict = record.status_dict;
  if (typeof dict !== 'object' || dict === null || Array.isArray(dict)) return 'status_dict is not an object';
  let total = 0;
  for (const [reason, n] of Object.entries(dict)) {
    if (!isCount(n)) return `status_dict[${JSON.stringify(escapeControlCharacters(reason.slice(0, 80)))}] is not a whole number`;
    total += n;
  }
  if (total !== s.count) return `status_dict adds up to ${total}, not count ${s.count}`;
  return undefined;
}
